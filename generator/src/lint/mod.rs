//! `ptxvec lint`: every covered instruction of whole PTX modules judged at the
//! module's own `.version` and `.target`, as a compiler reports: one line per
//! illegal instruction (`file:line:col: illegal: rule: message`), or one JSON
//! document (`--json`). Exit 0 when every covered instruction is legal, 1 when one
//! is not, 2 when a file cannot be read as a PTX module.
//!
//! A file is read whole into memory, at most [`MAX_FILE_BYTES`], and once: the
//! reader ([`read`]) walks its bytes, instructions outside the covered set are
//! counted by opcode ([`covered`]), and the covered ones are judged through the
//! batch judge, in parallel ([`verdicts`]).

pub mod covered;
pub mod position;
pub mod read;
pub mod report;
pub mod statement;
pub mod verdicts;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;

use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::error::{Error, Outcome, Result};
use crate::io::output::{note, write_error};
use crate::syntax::index::Index;
use crate::syntax::judge::Order;

use covered::{Class, Covered};
use position::Positions;
use read::{Header, ReadError, Reader, Statement};
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

/// The largest file lint reads: it holds a module whole in memory, and reads it
/// once. A larger one is an input error.
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// Covered statements judged at once: enough to keep both cores busy, few enough
/// that their tokens take a few megabytes.
const JUDGE_CHUNK: usize = 1 << 14;

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

    /// Lints the module `text`, named `file` in messages. A text that is no PTX
    /// module, or whose `.version` or `.target` the target model does not know or
    /// refuses together, is an input error at its `file:line:column`.
    pub fn lint(&mut self, file: &str, text: &str) -> Result<FileReport> {
        let mut positions = Positions::new(text);
        let mut fail = |e: ReadError| {
            let p = positions.at(e.offset);
            Error::Input(format!("{file}:{}:{}: {}", p.line, p.column, e.message))
        };
        let mut reader = Reader::new(text);
        let header = reader.header().map_err(&mut fail)?;
        let (ptx, target) = self.module(&header).map_err(&mut fail)?;
        let mut counts = Counts::default();
        // Keys borrowed from the text; sorted once at the end.
        let mut not_covered: HashMap<&str, usize> = HashMap::new();
        let mut found = Vec::new();
        while let Some(s) = reader.next().map_err(&mut fail)? {
            if let Statement::Instruction { at, text, opcode_at } = s {
                counts.instructions += 1;
                match self.covered.class(&text[opcode_at - at..]) {
                    Class::Covered => found.push(Found { at, text }),
                    Class::Counted(key) => *not_covered.entry(key).or_default() += 1,
                }
            }
        }
        counts.covered = found.len();
        // In chunks, so that the tokens waiting on the index's readings stay few
        // however large the module.
        let verdicts = found
            .chunks(JUDGE_CHUNK)
            .flat_map(|chunk| verdicts::judge_all(&mut self.index, chunk, ptx, target, self.order));
        let mut positions = Positions::new(text);
        let mut diagnostics = Vec::new();
        for (f, v) in found.iter().zip(verdicts) {
            let Some(v) = v else { continue };
            let j = v.judgement;
            counts.illegal += usize::from(!j.legal());
            let p = positions.at(f.at);
            let note = v.predicted.as_ref().map_or_else(String::new, crate::syntax::departure::note);
            diagnostics.push(Diagnostic {
                line: p.line,
                column: p.column,
                text: f.text.to_owned(),
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
            });
        }
        Ok(FileReport {
            file: file.to_owned(),
            ptx: ptx.to_string(),
            target: target.to_string(),
            counts,
            not_covered: not_covered.into_iter().map(|(k, n)| (k.to_owned(), n)).collect(),
            diagnostics,
        })
    }

    /// The module's `.version` and `.target` architecture, held to the target
    /// model (`syntax::context::module`): one it does not list, or a pair it refuses,
    /// leaves nothing to judge.
    fn module(&self, h: &Header<'_>) -> std::result::Result<(PtxVersion, Target), ReadError> {
        let (words, target_at) = h.target;
        let at = |word: &str| word.as_ptr() as usize - words.as_ptr() as usize + target_at;
        let error = |offset: usize, message: String| ReadError { offset, message };
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
        let ptx = crate::syntax::context::known_version(self.spec, h.version.0)
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
/// that cannot be read; that one makes the run an input error at the end.
pub fn run(spec: &Spec, args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    let order = if args.strict { Order::Strict } else { Order::Lenient };
    if args.files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(Error::Usage("`-` (stdin) is named more than once".to_owned()));
    }
    let mut linter = Linter::new(spec, order);
    let mut entries = Vec::with_capacity(args.files.len());
    let mut unread = Vec::new();
    let mut illegal = false;
    for path in &args.files {
        let file = if path.as_os_str() == "-" { "<stdin>".to_owned() } else { path.display().to_string() };
        let linted = read_input(path, &file).and_then(|bytes| {
            let text = utf8(&file, &bytes)?;
            linter.lint(&file, text)
        });
        match linted {
            Ok(report) => {
                illegal |= report.counts.illegal > 0;
                if !args.json {
                    out.write_all(report.lines().as_bytes()).map_err(write_error)?;
                }
                note(format_args!("{}", report.summary()));
                entries.push(FileEntry::Linted(report));
            }
            Err(e) => {
                let error = e.to_string();
                unread.push(error.clone());
                entries.push(FileEntry::Unread { file, error });
            }
        }
    }
    if args.json {
        serde_json::to_writer(&mut *out, &Document { files: entries })
            .map_err(|e| write_error(e.into()))?;
        writeln!(out).map_err(write_error)?;
    }
    if !unread.is_empty() {
        // The edge prints the first `error: `; the others get theirs here.
        return Err(Error::Input(unread.join("\nerror: ")));
    }
    Ok(Outcome::findings_if(illegal))
}

/// The bytes of `path` (`-`: stdin), at most [`MAX_FILE_BYTES`].
fn read_input(path: &Path, file: &str) -> Result<Vec<u8>> {
    let too_large = || {
        Error::Input(format!(
            "{file}: larger than {} GiB, the most lint reads (it holds a module in memory)",
            MAX_FILE_BYTES >> 30
        ))
    };
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Input(format!("{file}: {e}")))?;
    } else {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.is_dir() {
            return Err(Error::Input(format!("{file}: a folder, not a PTX file")));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(too_large());
        }
        // The size read above, plus one byte to see the end (a file may grow).
        bytes.reserve(usize::try_from(meta.len()).unwrap_or(0) + 1);
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| Error::io(path, e))?;
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    // A gzipped module (`*.ptx.gz`, as vectors/clients keeps the compilers'
    // output) is linted as what it holds.
    if crate::io::gz::is_gz(path) {
        bytes = crate::io::gz::decompress(file, &bytes, MAX_FILE_BYTES)?;
    }
    Ok(bytes)
}

/// `bytes` as text, or where they stop being UTF-8 (PTX ISA 4.1, "Source Format":
/// "Source modules are ASCII text"; lint takes UTF-8, for comments and strings).
fn utf8<'b>(file: &str, bytes: &'b [u8]) -> Result<&'b str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        // The prefix up to `valid` is UTF-8, by what the error says.
        let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let p = Positions::new(prefix).at(valid);
        Error::Input(format!(
            "{file}:{}:{}: not UTF-8 (byte 0x{:02x}): expected a PTX module, which is text",
            p.line, p.column, bytes[valid]
        ))
    })
}
