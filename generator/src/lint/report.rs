//! What `lint` says about each file: one typed record, written as compiler-style
//! lines or as one JSON document (`--json`), and a summary line for stderr.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::syntax::defect::Kind;

/// The JSON document: every file named, in the order given. Its diagnostics are
/// [`Diagnostic`]s, or (as `lint --json` holds them, to hold less) each already
/// written as JSON.
#[derive(Debug, Serialize)]
pub struct Document<D = Diagnostic> {
    /// One entry a file.
    pub files: Vec<FileEntry<D>>,
}

/// A file linted, or one that could not be read as PTX.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum FileEntry<D = Diagnostic> {
    /// Linted.
    Linted(FileReport<D>),
    /// Not read: `error` says where and why (exit 2).
    Unread {
        /// The file as named.
        file: String,
        /// `file:line:column: what was expected`.
        error: String,
    },
}

/// One linted module.
#[derive(Debug, Serialize)]
pub struct FileReport<D = Diagnostic> {
    /// The file as named (`<stdin>` for `-`).
    pub file: String,
    /// Its `.version`.
    pub ptx: String,
    /// Its `.target` architecture.
    pub target: String,
    /// How many statements of each kind.
    pub counts: Counts,
    /// Instructions not judged, by opcode (a neighbour by its name): sorted.
    pub not_covered: BTreeMap<String, usize>,
    /// One a covered instruction that is illegal or warns, in file order.
    pub diagnostics: Vec<D>,
}

/// A module's counts.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Counts {
    /// Instruction statements.
    pub instructions: usize,
    /// Those judged (covered instructions).
    pub covered: usize,
    /// Those judged illegal.
    pub illegal: usize,
}

/// A covered instruction that is illegal or legal with a warning.
#[derive(Debug, Serialize)]
pub struct Diagnostic {
    /// 1-based line of its first character.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The statement, label and guard to `;`.
    pub text: String,
    /// The instruction it was read as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// The syntax line it was read as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// Whether it is legal.
    pub legal: bool,
    /// Malformed or invalid, when illegal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// The rule it breaks, when illegal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<crate::syntax::rule_id::RuleId>,
    /// What is wrong, or `legal`.
    pub message: String,
    /// Legal but worth saying: a qualifier order not the document's.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The ledger's prediction, where ptxas departs from the verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptxas: Option<PtxasNote>,
    /// The same, as the human line says it (`syntax::departure::note`).
    #[serde(skip)]
    pub note: String,
}

/// check-syntax's `ptxas` field: what the ledger predicts ptxas does.
#[derive(Debug, Clone, Serialize)]
pub struct PtxasNote {
    /// Whether ptxas accepts the text.
    pub accepts: bool,
    /// Whether ptxas fails on it (a signal) instead of answering.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fails: bool,
    /// The ledger's finding.
    pub erratum: String,
}

impl Diagnostic {
    /// Its compiler-style lines in `file`: `file:line:col: illegal: rule: message`
    /// (with the ledger's note on ptxas), and `file:line:col: warning: ...` for
    /// each warning.
    pub fn lines(&self, file: &str) -> String {
        let mut out = String::new();
        let place = format!("{file}:{}:{}", self.line, self.column);
        if let Some(rule) = &self.rule {
            // Writing to a String cannot fail.
            let _ = writeln!(out, "{place}: illegal: {rule}: {}{}", self.message, self.note);
        }
        for w in &self.warnings {
            let _ = writeln!(out, "{place}: warning: {w}");
        }
        out
    }
}

impl<D> FileReport<D> {
    /// The same report with `diagnostics` instead.
    pub fn with<E>(self, diagnostics: Vec<E>) -> FileReport<E> {
        FileReport {
            file: self.file,
            ptx: self.ptx,
            target: self.target,
            counts: self.counts,
            not_covered: self.not_covered,
            diagnostics,
        }
    }

    /// The summary line: `file: N instructions, C covered judged, I illegal`.
    pub fn summary(&self) -> String {
        let c = self.counts;
        format!(
            "{}: {} instructions, {} covered judged, {} illegal (.version {}, .target {})",
            self.file, c.instructions, c.covered, c.illegal, self.ptx, self.target
        )
    }
}

impl FileReport {
    /// The compiler-style lines: `file:line:col: illegal: rule: message` (with the
    /// ledger's note on ptxas), and `file:line:col: warning: ...` for each warning.
    pub fn lines(&self) -> String {
        self.diagnostics.iter().map(|d| d.lines(&self.file)).collect()
    }
}
