//! `ptxvec lint`: every covered instruction of whole PTX modules judged at the
//! module's own `.version` and `.target`, as a compiler reports: one line per
//! illegal instruction (`file:line:col: illegal: rule: message`), or one JSON
//! document (`--json`). Exit 0 when every covered instruction is legal, 1 when one
//! is not, 2 when a file cannot be read as a PTX module.
//!
//! A file is read once, as a stream: the reader ([`read`]) holds one statement at a
//! time, never the module (at most [`read::MAX_STATEMENT_BYTES`] a statement, and
//! [`PLAIN_CAP`] or [`GZIP_CAP`] a file), instructions outside the covered set are
//! counted by opcode ([`covered`]), and the covered ones are judged through the
//! batch judge, in parallel, in chunks ([`verdicts`]). What the report keeps is
//! counts and diagnostics, not the module's text; the lines are written as each
//! chunk is judged.

pub mod covered;
pub mod position;
pub mod read;
pub mod report;
pub mod statement;
pub mod verdicts;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::error::{Error, Outcome, Result};
use crate::io::output::{note, write_error};
use crate::syntax::index::Index;
use crate::syntax::judge::Order;

use covered::{Class, Covered};
use position::Position;
use read::{Cap, Header, ReadError, Reader, Statement};
use report::{Counts, Diagnostic, Document, FileEntry, FileReport, PtxasNote};
use verdicts::Found;

/// The arguments of `lint`.
#[derive(Debug, ClapArgs)]
pub struct Args {
    /// The PTX modules; `-` reads one from stdin.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write one JSON document to stdout instead of diagnostic lines.
    #[arg(long)]
    pub json: bool,
    /// Hold qualifiers to the document's order (as check-syntax --strict).
    #[arg(long)]
    pub strict: bool,
}

/// The most text lint reads from one file (or stdin): more is an input error. lint
/// holds a statement at a time, not the module, so the cap is about time: 4 GiB
/// of nvcc's modules take about a minute on one core of the 2-core machine.
pub const PLAIN_CAP: Cap = Cap {
    bytes: 4 << 30,
    of: "in the file, the most lint reads",
};

/// The most text lint reads from one gzipped file, once decompressed: a gzip bomb
/// of whitespace or comment (or of anything, in a text that is PTX up to there)
/// is refused within seconds, at about 1 GB/s of decompression.
pub const GZIP_CAP: Cap = Cap {
    bytes: 1 << 30,
    of: "once decompressed, the most lint reads from a gzipped file",
};

/// Covered statements judged at once: enough to keep both cores busy, few enough
/// that their tokens take a few megabytes.
const JUDGE_CHUNK: usize = 1 << 14;

/// The most statement text waiting on the judge: a chunk is judged when it holds
/// this much, however few its statements.
const JUDGE_BYTES: usize = 4 << 20;

/// Target words that are no architecture (PTX ISA 11.1.2, `.target`: "texmode_unified,
/// texmode_independent, debug, map_f64_to_f32").
pub const TARGET_SPECIFIERS: &[&str] = &["texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"];

/// Lints modules against one spec, its batch judge's chain readings kept from one
/// module to the next.
pub struct Linter<'s> {
    spec: &'s Spec,
    index: Index<'s>,
    covered: Covered,
    order: Order,
}

impl<'s> Linter<'s> {
    /// A linter over `spec`, holding qualifiers to `order`.
    pub fn new(spec: &'s Spec, order: Order) -> Linter<'s> {
        Linter {
            spec,
            index: Index::new(spec),
            covered: Covered::of(spec),
            order,
        }
    }

    /// Lints the module `text`, named `file` in messages (as [`Linter::lint_read`],
    /// its diagnostics kept in the report).
    pub fn lint(&mut self, file: &str, text: &str) -> Result<FileReport> {
        let mut diagnostics = Vec::new();
        let mut report = self.lint_read(file, text.as_bytes(), PLAIN_CAP, |d| {
            diagnostics.push(d);
            Ok(())
        })?;
        report.diagnostics = diagnostics;
        Ok(report)
    }

    /// Lints the module read from `input` (at most `cap`), named `file` in
    /// messages, one statement at a time: each diagnostic goes to `each` as soon as
    /// its statement is judged (in file order), and the report comes back without
    /// them. A text that is no PTX module, or whose `.version` or `.target` the
    /// target model does not know or refuses together, is an input error at its
    /// `file:line:column`.
    pub fn lint_read(
        &mut self,
        file: &str,
        input: impl Read,
        cap: Cap,
        mut each: impl FnMut(Diagnostic) -> Result<()>,
    ) -> Result<FileReport> {
        let fail = |e: ReadError| match e.at {
            Some(p) => Error::Input(format!("{file}:{}:{}: {}", p.line, p.column, e.message)),
            None => Error::Input(format!("{file}: {}", e.message)),
        };
        let mut reader = Reader::new(input, cap);
        let header = reader.header().map_err(fail)?;
        let (ptx, target) = self.module(&header).map_err(fail)?;
        let mut counts = Counts::default();
        let mut not_covered: BTreeMap<String, usize> = BTreeMap::new();
        // Judged in chunks, so that what waits on the judge stays small however
        // large the module.
        let mut found = Vec::new();
        let mut found_bytes = 0;
        while let Some(s) = reader.next().map_err(fail)? {
            let Statement::Instruction { at, text, opcode } = s else { continue };
            counts.instructions += 1;
            match self.covered.class(&text[opcode..]) {
                Class::Covered => {
                    found_bytes += text.len();
                    found.push(Found { at, text: text.to_owned() });
                }
                Class::Counted(key) => match not_covered.get_mut(key) {
                    Some(n) => *n += 1,
                    None => {
                        not_covered.insert(key.to_owned(), 1);
                    }
                },
            }
            if found.len() == JUDGE_CHUNK || found_bytes >= JUDGE_BYTES {
                counts.illegal += self.judge(&found, ptx, target, &mut each)?;
                counts.covered += found.len();
                found.clear();
                found_bytes = 0;
            }
        }
        counts.illegal += self.judge(&found, ptx, target, &mut each)?;
        counts.covered += found.len();
        Ok(FileReport {
            file: file.to_owned(),
            ptx: ptx.to_string(),
            target: target.to_string(),
            counts,
            not_covered,
            diagnostics: Vec::new(),
        })
    }

    /// Judges `found`, in order, giving each diagnostic to `each`: how many are
    /// illegal.
    fn judge(
        &mut self,
        found: &[Found],
        ptx: PtxVersion,
        target: Target,
        each: &mut impl FnMut(Diagnostic) -> Result<()>,
    ) -> Result<usize> {
        let mut illegal = 0;
        for (f, v) in found.iter().zip(verdicts::judge_all(&mut self.index, found, ptx, target, self.order)) {
            let Some(v) = v else { continue };
            let j = v.judgement;
            illegal += usize::from(!j.legal());
            let note = v.predicted.as_ref().map_or_else(String::new, crate::syntax::departure::note);
            each(Diagnostic {
                line: f.at.line,
                column: f.at.column,
                text: f.text.clone(),
                legal: j.legal(),
                kind: j.defect.as_ref().map(|d| d.kind),
                rule: j.defect.as_ref().map(|d| d.rule.clone()),
                message: j.defect.map_or_else(|| "legal".to_owned(), |d| d.message),
                instruction: j.instruction,
                form: j.form,
                warnings: j.warnings,
                ptxas: v.predicted.map(|p| PtxasNote {
                    accepts: p.accepts,
                    fails: p.fails,
                    erratum: p.erratum,
                }),
                note,
            })?;
        }
        Ok(illegal)
    }

    /// The module's `.version` and `.target` architecture, held to the target
    /// model (`syntax::context::module`): one it does not list, or a pair it refuses,
    /// leaves nothing to judge.
    fn module(&self, h: &Header) -> std::result::Result<(PtxVersion, Target), ReadError> {
        let (words, target_at) = (h.target.0.as_str(), h.target.1);
        // `.target`'s words stand on one line: a word's place is its characters
        // after the first.
        let at = |word: &str| {
            let offset = word.as_ptr() as usize - words.as_ptr() as usize;
            target_at.right(position::chars(&words.as_bytes()[..offset]))
        };
        let error = |at: Position, message: String| ReadError { at: Some(at), message };
        let arches: Vec<&str> = words
            .split(',')
            .map(str::trim)
            .filter(|w| !TARGET_SPECIFIERS.contains(w))
            .collect();
        let arch = match arches[..] {
            [one] if !one.is_empty() => one,
            [] | [_] => return Err(error(target_at, "expected an architecture (`sm_90`) in `.target`".to_owned())),
            [_, second, ..] => {
                return Err(error(at(second), format!("expected one architecture in `.target`, found `{words}`")))
            }
        };
        let ptx = crate::syntax::context::known_version(self.spec, &h.version.0)
            .map_err(|e| error(h.version.1, e.to_string()))?;
        let target = crate::syntax::context::known_target(self.spec, arch).map_err(|e| error(at(arch), e.to_string()))?;
        self.spec
            .targets
            .check_version(ptx, target)
            .map_err(|e| error(at(arch), format!("{e}: no instruction can be judged in this module")))?;
        Ok((ptx, target))
    }
}

/// Runs the subcommand onto `out`: every file linted, in order, even after one
/// that cannot be read; that one makes the run an input error at the end. Lines
/// are written as each statement is judged, so that a file read later to be no
/// PTX module may have had lines written before its error.
pub fn run(spec: &Spec, args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let order = if args.strict { Order::Strict } else { Order::Lenient };
    if args.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(Error::Usage("`-` (stdin) is named more than once".to_owned()));
    }
    let mut out = std::io::BufWriter::new(out);
    let mut linter = Linter::new(spec, order);
    let mut entries = Vec::with_capacity(args.files.len());
    let mut unread = Vec::new();
    let mut illegal = false;
    for path in &args.files {
        let file = if path.as_os_str() == "-" { "<stdin>".to_owned() } else { path.display().to_string() };
        let linted = open_input(path, &file).and_then(|(input, cap)| {
            if args.json {
                // Held as the JSON they are written as: a third of the memory.
                let mut diagnostics = Vec::new();
                let report = linter.lint_read(&file, input, cap, |d| {
                    // Numbers, strings and bools: serde_json cannot fail on them.
                    let json = serde_json::value::to_raw_value(&d)
                        .map_err(|e| Error::Input(format!("{file}: a diagnostic as JSON: {e}")))?;
                    diagnostics.push(json);
                    Ok(())
                })?;
                Ok(report.with(diagnostics))
            } else {
                let report =
                    linter.lint_read(&file, input, cap, |d| out.write_all(d.lines(&file).as_bytes()).map_err(write_error))?;
                Ok(report.with(Vec::new()))
            }
        });
        // What the lines said comes before the summary, on a terminal too.
        out.flush().map_err(write_error)?;
        match linted {
            Ok(report) => {
                illegal |= report.counts.illegal > 0;
                note(format_args!("{}", report.summary()));
                entries.push(FileEntry::Linted(report));
            }
            Err(e @ Error::Stdout(_)) => return Err(e),
            Err(e) => {
                let error = e.to_string();
                unread.push(error.clone());
                entries.push(FileEntry::Unread { file, error });
            }
        }
    }
    if args.json {
        serde_json::to_writer(&mut out, &Document { files: entries }).map_err(|e| write_error(e.into()))?;
        writeln!(out).map_err(write_error)?;
        out.flush().map_err(write_error)?;
    }
    if !unread.is_empty() {
        // The edge prints the first `error: `; the others get theirs here.
        return Err(Error::Input(unread.join("\nerror: ")));
    }
    Ok(Outcome::findings_if(illegal))
}

/// The text of `path` (`-`: stdin) as it is read, through the gzip decoder when it
/// is named `*.gz` (as vectors/clients keeps the compilers' output), and its cap.
fn open_input(path: &Path, file: &str) -> Result<(Box<dyn Read>, Cap)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(std::io::stdin().lock()), PLAIN_CAP));
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::Input(format!("{file}: a folder, not a PTX file")));
    }
    let gz = crate::io::gz::is_gz(path);
    // A plain file over the cap is refused before a byte of it is linted.
    if !gz && meta.len() > PLAIN_CAP.bytes {
        return Err(Error::Input(format!("{file}: {}", read::over(PLAIN_CAP))));
    }
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    Ok(if gz {
        (Box::new(crate::io::gz::Decoder::new(f)), GZIP_CAP)
    } else {
        (Box::new(f), PLAIN_CAP)
    })
}
