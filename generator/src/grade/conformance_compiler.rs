//! The compiler half of the conformance table: each recorded compiler's modules
//! (`vectors/clients/<compiler>/manifest.json`, its `modules/*.ptx.gz`) linted at
//! their own `.version` and `.target`, and held to what ptxas said of each module
//! when it was recorded (the manifest's `ptxas`).
//!
//! Lint and ptxas agree on a module when they reject the same covered
//! instructions: the lines of the covered statements that lint finds illegal
//! (less those the errata ledger predicts ptxas accepts) are exactly the covered
//! lines ptxas names in an error. A ptxas error on an instruction ptxvec does not
//! cover (`cp.reduce.async.bulk.tensor` below sm_90) is no disagreement; a module
//! ptxas refused whole, naming no line, is not checked.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use ptxvec_spec::Spec;

use crate::error::{Error, Result};
use crate::lint::covered::{Class, Covered};
use crate::lint::read::{Reader, Statement};
use crate::lint::Linter;
use crate::syntax::judge::Order;

/// A compiler's recording (`manifest.json`, written by clients/compilers/build.py).
#[derive(Debug, Deserialize)]
pub struct Manifest {
    /// The compiler's name (`nvcc`, `llvm`).
    pub compiler: String,
    /// Its own version line.
    pub version: String,
    /// One matrix point each: a source compiled for a target.
    pub entries: Vec<Entry>,
}

/// One matrix point.
#[derive(Debug, Deserialize)]
pub struct Entry {
    /// The emitted module, relative to the folder (`modules/x.ptx.gz`); absent
    /// where the compiler refused the source there.
    #[serde(default)]
    pub module: Option<String>,
    /// What ptxas said of the module.
    #[serde(default)]
    pub ptxas: Option<PtxasRecord>,
}

/// ptxas on one module, as recorded.
#[derive(Debug, Deserialize)]
pub struct PtxasRecord {
    /// The release (`13.5`, `12.9`).
    pub release: String,
    /// Its exit status.
    pub exit: i32,
    /// Its messages, each once with the lines it names.
    pub messages: Vec<PtxasMessage>,
}

/// One ptxas message and the module lines it was printed for.
#[derive(Debug, Deserialize)]
pub struct PtxasMessage {
    /// `error   : ...`, `warning : ...`, `fatal   : ...`.
    pub text: String,
    /// The lines it names; empty for a message about the whole module.
    pub lines: Vec<usize>,
}

/// How lint and ptxas compare on one module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agreement {
    /// They reject the same covered lines.
    Agrees,
    /// They do not: the covered lines only one of them rejects.
    Differs(Vec<usize>),
    /// ptxas gave no verdict per line: why.
    NotChecked(String),
}

/// One module of a compiler, linted and compared.
#[derive(Debug, Clone)]
pub struct ModuleCheck {
    /// `modules/x.ptx.gz`.
    pub module: String,
    /// Its covered instructions.
    pub covered: usize,
    /// Its illegal covered instructions.
    pub illegal: Vec<IllegalLine>,
    /// Against ptxas.
    pub ptxas: Agreement,
}

/// An illegal covered instruction of a compiler's module.
#[derive(Debug, Clone)]
pub struct IllegalLine {
    /// Its line in the module.
    pub line: usize,
    /// Its instruction (`cp.reduce.async.bulk`).
    pub instruction: String,
    /// The rule it breaks, as vectors/rules.json names it (`base`, `set.op`).
    pub rule: String,
    /// The statement.
    pub text: String,
}

/// A compiler's modules counted: what its table row and dashboard row say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Modules.
    pub modules: usize,
    /// Covered instructions in them.
    pub covered: usize,
    /// Of those, illegal at their module's `.version` and `.target`.
    pub illegal: usize,
    /// Modules with an illegal instruction.
    pub with_illegal: usize,
    /// Modules ptxas judged line by line.
    pub checked: usize,
    /// Of those, the ones lint agrees with ptxas on.
    pub agree: usize,
}

impl Totals {
    /// The totals of one compiler's checked modules.
    pub fn of(checks: &[ModuleCheck]) -> Totals {
        Totals {
            modules: checks.len(),
            covered: checks.iter().map(|c| c.covered).sum(),
            illegal: checks.iter().map(|c| c.illegal.len()).sum(),
            with_illegal: checks.iter().filter(|c| !c.illegal.is_empty()).count(),
            checked: checks.iter().filter(|c| !matches!(c.ptxas, Agreement::NotChecked(_))).count(),
            agree: checks.iter().filter(|c| c.ptxas == Agreement::Agrees).count(),
        }
    }
}

/// Reads a compiler folder's manifest.
pub fn manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    serde_json::from_str(&text).map_err(|e| Error::Input(format!("{}:{}:{}: {e}", path.display(), e.line(), e.column())))
}

/// Every module of the compiler folder `dir`, in manifest order, linted and held
/// to its recorded ptxas verdict.
pub fn check(spec: &Spec, dir: &Path) -> Result<Vec<ModuleCheck>> {
    let m = manifest(dir)?;
    let mut linter = Linter::new(spec, Order::Lenient);
    let covered = Covered::of(spec);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for e in &m.entries {
        let Some(module) = &e.module else { continue };
        // Two matrix points that emitted the same module share its file.
        if !seen.insert(module.clone()) {
            continue;
        }
        let path = dir.join(module);
        let bytes = crate::grade::results::read_input(&path)?;
        let text = String::from_utf8(bytes).map_err(|e| Error::Input(format!("{}: not UTF-8: {e}", path.display())))?;
        let report = linter.lint(module, &text)?;
        let lines = covered_lines(&covered, &text).map_err(|e| Error::Input(format!("{module}: {e}")))?;
        let lint_rejects: BTreeSet<usize> = report
            .diagnostics
            .iter()
            .filter(|d| !d.legal && !d.ptxas.as_ref().is_some_and(|p| p.accepts))
            .map(|d| d.line)
            .collect();
        let ptxas = match &e.ptxas {
            None => Agreement::NotChecked("no ptxas verdict recorded".to_owned()),
            Some(p) => compare(p, &lines, &lint_rejects),
        };
        out.push(ModuleCheck {
            module: module.clone(),
            covered: report.counts.covered,
            illegal: report
                .diagnostics
                .iter()
                .filter(|d| !d.legal)
                .map(|d| IllegalLine {
                    line: d.line,
                    instruction: d.instruction.clone().unwrap_or_default(),
                    rule: d.rule.as_ref().map(ToString::to_string).unwrap_or_default(),
                    text: d.text.clone(),
                })
                .collect(),
            ptxas,
        });
    }
    Ok(out)
}

/// The lines on which a covered instruction starts.
fn covered_lines(covered: &Covered, text: &str) -> std::result::Result<BTreeSet<usize>, String> {
    let mut reader = Reader::new(text.as_bytes(), crate::lint::read::Cap::NONE);
    reader.header().map_err(|e| e.message)?;
    let mut lines = BTreeSet::new();
    while let Some(s) = reader.next().map_err(|e| e.message)? {
        if let Statement::Instruction { at, text: t, opcode } = s {
            if covered.class(&t[opcode..]) == Class::Covered {
                lines.insert(at.line);
            }
        }
    }
    Ok(lines)
}

/// ptxas's rejections of covered lines against lint's.
fn compare(p: &PtxasRecord, covered: &BTreeSet<usize>, lint_rejects: &BTreeSet<usize>) -> Agreement {
    let rejects = |m: &&PtxasMessage| m.text.starts_with("error") || m.text.starts_with("fatal");
    if p.exit != 0 && !p.messages.iter().filter(rejects).any(|m| !m.lines.is_empty()) {
        let why = p.messages.iter().find(rejects).map_or("no message", |m| m.text.as_str());
        return Agreement::NotChecked(format!("ptxas {} refused the module whole: {why}", p.release));
    }
    let ptxas_rejects: BTreeSet<usize> = p
        .messages
        .iter()
        .filter(rejects)
        .flat_map(|m| m.lines.iter().copied())
        .filter(|l| covered.contains(l))
        .collect();
    let differ: Vec<usize> = ptxas_rejects.symmetric_difference(lint_rejects).copied().collect();
    if differ.is_empty() {
        Agreement::Agrees
    } else {
        Agreement::Differs(differ)
    }
}

/// The most illegal lines a table row lists by name; the rest are counted.
pub const FINDINGS_SHOWN: usize = 3;

/// The compiler table, as markdown, for every folder under `clients` that holds a
/// `manifest.json` (folders in name order).
pub fn table(spec: &Spec, clients: &Path) -> Result<String> {
    let mut rows = String::new();
    let mut findings = String::new();
    for dir in super::conformance::client_folders(clients)?.into_iter().filter(|d| d.join("manifest.json").is_file()) {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let checks = check(spec, &dir)?;
        let t = Totals::of(&checks);
        // Writing to a String cannot fail.
        let _ = writeln!(
            rows,
            "| {name} | {} | {} | {} in {} | {} of {} |",
            t.modules, t.covered, t.illegal, t.with_illegal, t.agree, t.checked
        );
        for c in checks.iter().filter(|c| !c.illegal.is_empty()) {
            let shown: Vec<String> = c
                .illegal
                .iter()
                .take(FINDINGS_SHOWN)
                .map(|i| format!("line {}, `{}` ({})", i.line, i.text, i.rule))
                .collect();
            let more = c.illegal.len().saturating_sub(FINDINGS_SHOWN);
            let more = if more > 0 { format!("; and {more} more") } else { String::new() };
            let _ = writeln!(findings, "- {name} `{}`: {}{more}", c.module, shown.join("; "));
        }
        for c in &checks {
            match &c.ptxas {
                Agreement::Differs(lines) => {
                    let _ = writeln!(findings, "- {name} `{}`: lint and ptxas differ on lines {lines:?}", c.module);
                }
                Agreement::NotChecked(why) => {
                    let _ = writeln!(findings, "- {name} `{}`: not checked, {why}", c.module);
                }
                Agreement::Agrees => {}
            }
        }
    }
    let mut out = String::from(
        "| compiler | modules | covered instructions | illegal at their module's .version and .target | lint agrees with ptxas (modules) |\n|---|---|---|---|---|\n",
    );
    out.push_str(&rows);
    if !findings.is_empty() {
        out.push('\n');
        out.push_str(&findings);
    }
    Ok(out)
}
