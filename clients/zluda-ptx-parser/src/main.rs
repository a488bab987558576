//! Runs ZLUDA's PTX parser (the `ptx_parser` crate of https://github.com/vosen/ZLUDA,
//! from a local checkout, not crates.io) over every syntax case of ptxvec and writes
//! what it made of each: `vectors/clients/README.md` gives the line format,
//! `vectors/clients/zluda-ptx-parser-<commit>/README.md` how the committed file was
//! made.
//!
//! Each case's module is the one `ptxvec emit-ptx` prints for it: the case's text at
//! its `.version` and `.target` (`ptxvec emit-ptx --ptx P --target T -- TEXT`, which
//! wraps exactly as `ptxvec emit-ptx <id>` does, without generating every case of the
//! instruction again for each call; with `--force`, then by id, where a ptxvec
//! refuses the text). The parser is `ptx_parser::parse_module_checked`,
//! the strict entry point ZLUDA's own debug builds, its `compiler` and its tests load
//! modules with: it returns `Err` with the list of every error (lexer errors, errors
//! the parser recovered from, a directive it could not parse), and `Ok` only when
//! that list is empty and no directive was invalid. `accepted` is `Ok`.
//!
//! Usage: `ptxvec-client-zluda-ptx-parser PTXVEC VECTORS OUT [--all-messages]`, with
//! PTXVEC the ptxvec binary, VECTORS the vectors folder (its `syntax/*.jsonl` are
//! read), OUT the results file. Almost every rejection is `Unrecognized statement
//! "<the case's own text>"`, so no two messages are alike; a rejection's message is
//! written only the first time its message, with the case's text in it replaced by
//! a placeholder, occurs in the file (what is written is the message itself, not
//! the placeholder); `--all-messages` writes every one.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde::{Deserialize, Serialize};

/// The fields of a syntax case the adapter needs.
#[derive(Deserialize)]
struct Case {
    id: String,
    text: String,
    ptx: String,
    target: String,
}

/// One result line (vectors/clients/README.md).
#[derive(Serialize)]
struct Line<'a> {
    id: &'a str,
    accepted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
}

/// The longest message kept, in characters.
const MESSAGE_CHARS: usize = 160;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let (ptxvec, vectors, out, all) = match args.as_slice() {
        [p, v, o] => (p, v, o, false),
        [p, v, o, flag] if flag.as_os_str() == "--all-messages" => (p, v, o, true),
        _ => {
            eprintln!("usage: ptxvec-client-zluda-ptx-parser PTXVEC VECTORS OUT [--all-messages]");
            return ExitCode::from(2);
        }
    };
    match run(ptxvec, vectors, out, all) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(ptxvec: &Path, vectors: &Path, out: &Path, all_messages: bool) -> Result<(), String> {
    let dir = vectors.join("syntax");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    // The order `ls vectors/syntax` gives: file names, bytewise.
    files.sort();
    // A parser panic is the parser's answer for that case, not the end of the run.
    std::panic::set_hook(Box::new(|_| {}));
    let mut text = String::new();
    let (mut n, mut accepted) = (0usize, 0usize);
    let mut written: BTreeSet<String> = BTreeSet::new();
    for file in &files {
        let body = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (i, line) in body.lines().enumerate() {
            let case: Case = serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", file.display(), i + 1))?;
            let module = emit(ptxvec, &case)?;
            let full = parse(module);
            n += 1;
            accepted += usize::from(full.is_none());
            let rejected = full.is_some();
            let message = full
                .filter(|m| all_messages || written.insert(m.replace(case.text.as_str(), "<text>")))
                .map(|m| trim(&m));
            let record = Line { id: &case.id, accepted: !rejected, message };
            text.push_str(&serde_json::to_string(&record).map_err(|e| e.to_string())?);
            text.push('\n');
        }
    }
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = writeln!(std::io::stderr(), "{}: {n} cases, {accepted} accepted", out.display());
    Ok(())
}

/// The module `ptxvec emit-ptx` prints for the case: `emit-ptx --ptx P --target T
/// -- TEXT`; where that is refused (a newer ptxvec refuses a malformed text unless
/// `--force`), the same with `--force`; where that is refused too (an older ptxvec
/// has no `--force`; a text emit-ptx will not paste), `emit-ptx <id>`, the case
/// itself, wrapped the same way.
fn emit(ptxvec: &Path, case: &Case) -> Result<String, String> {
    let by_text = ["emit-ptx", "--ptx", &case.ptx, "--target", &case.target, "--", &case.text];
    let forced = ["emit-ptx", "--force", "--ptx", &case.ptx, "--target", &case.target, "--", &case.text];
    let mut refusals = Vec::new();
    for args in [&by_text[..], &forced[..], &["emit-ptx", &case.id][..]] {
        let o = Command::new(ptxvec).args(args).output().map_err(|e| format!("{}: {e}", ptxvec.display()))?;
        if o.status.success() {
            return String::from_utf8(o.stdout).map_err(|e| format!("emit-ptx {}: {e}", case.id));
        }
        refusals.push(String::from_utf8_lossy(&o.stderr).trim().to_owned());
    }
    Err(format!("emit-ptx {}: {}", case.id, refusals.join(" / ")))
}

/// One error as text: its `Display`, or its `Debug` where the `Display` is empty
/// (several `PtxError` variants display as ""). A lexer error displays as its byte
/// span in the module, `(START:END)`; the text there is added, `(START:END) at "TEXT"`.
fn describe(e: &ptx_parser::PtxError<'_>, module: &str) -> String {
    let shown = e.to_string();
    if shown.trim().is_empty() {
        return format!("{e:?}");
    }
    if let ptx_parser::PtxError::Lexer { .. } = e {
        let span = shown
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .and_then(|s| s.split_once(':'))
            .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
        if let Some(text) = span.and_then(|(a, b)| module.get(a..b)) {
            return format!("{shown} at {text:?}");
        }
    }
    shown
}

/// A message as written: its first line, trimmed, at most `MESSAGE_CHARS` characters.
fn trim(m: &str) -> String {
    let first = m.lines().next().unwrap_or_default().trim();
    first.chars().take(MESSAGE_CHARS).collect::<String>().trim_end().to_owned()
}

/// `None` when the parser accepts the module, else its first error (with the number
/// of errors when there are more than one). The parser
/// runs on a thread with a large stack, as the other adapters' do.
fn parse(module: String) -> Option<String> {
    let worker = std::thread::Builder::new().stack_size(256 << 20).spawn(move || {
        match ptx_parser::parse_module_checked(&module) {
            Ok(_) => None,
            Err(errors) => Some(match errors.as_slice() {
                [] => "Err with no error (an invalid directive)".to_owned(),
                [one] => describe(one, &module),
                [first, ..] => format!("{} (1 of {} errors)", describe(first, &module), errors.len()),
            }),
        }
    });
    match worker {
        Ok(handle) => match handle.join() {
            Ok(answer) => answer,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| payload.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                Some(format!("panicked: {what}"))
            }
        },
        Err(e) => Some(format!("adapter: no thread: {e}")),
    }
}
