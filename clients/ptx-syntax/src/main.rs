//! Runs the `ptx-syntax` crate (crates.io, 0.5.0) over every syntax case of
//! ptxvec and writes what it made of each: `vectors/clients/README.md` gives the
//! line format, `vectors/clients/ptx-syntax-0.5.0/README.md` how the committed file
//! was made.
//!
//! Each case's module is the one `ptxvec emit-ptx` prints for it: the case's text at
//! its `.version` and `.target` (`ptxvec emit-ptx --ptx P --target T -- TEXT`, which
//! wraps exactly as `ptxvec emit-ptx <id>` does, without generating every case of the
//! instruction again for each call). `accepted` is `parse_ptx` returning `Ok`.
//!
//! Usage: `ptxvec-client-ptx-syntax PTXVEC VECTORS OUT [--all-messages]`, with
//! PTXVEC the ptxvec binary, VECTORS the vectors folder (its `syntax/*.jsonl` are
//! read), OUT the results file. A rejection's message is written only the first
//! time that exact message occurs in the file (the crate's messages differ mostly
//! by byte offset, and repeating them would double the file); `--all-messages`
//! writes every one.

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
            eprintln!("usage: ptxvec-client-ptx-syntax PTXVEC VECTORS OUT [--all-messages]");
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
            let message = parse(module);
            n += 1;
            accepted += usize::from(message.is_none());
            let rejected = message.is_some();
            let message = message.filter(|m| all_messages || written.insert(m.clone()));
            let record = Line { id: &case.id, accepted: !rejected, message };
            text.push_str(&serde_json::to_string(&record).map_err(|e| e.to_string())?);
            text.push('\n');
        }
    }
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = writeln!(std::io::stderr(), "{}: {n} cases, {accepted} accepted", out.display());
    Ok(())
}

/// The module `ptxvec emit-ptx` prints for the case.
fn emit(ptxvec: &Path, case: &Case) -> Result<String, String> {
    let o = Command::new(ptxvec)
        // --force: a malformed case is emitted as `emit-ptx <id>` emits it.
        .args(["emit-ptx", "--force", "--ptx", &case.ptx, "--target", &case.target, "--", &case.text])
        .output()
        .map_err(|e| format!("{}: {e}", ptxvec.display()))?;
    if !o.status.success() {
        return Err(format!("emit-ptx {}: {}", case.id, String::from_utf8_lossy(&o.stderr).trim()));
    }
    String::from_utf8(o.stdout).map_err(|e| format!("emit-ptx {}: {e}", case.id))
}

/// `None` when the crate parses the module, else its first error line, trimmed.
/// The parser runs on a thread with a large stack: its combinators recurse deeply
/// (its own debug builds grow the stack to 256 MiB).
fn parse(module: String) -> Option<String> {
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || ptx_syntax::parse_ptx(&module).err().map(|e| e.to_string()));
    let answer = match worker {
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
    };
    answer.map(|m| {
        let first = m.lines().next().unwrap_or_default().trim();
        first.chars().take(MESSAGE_CHARS).collect::<String>().trim_end().to_owned()
    })
}
