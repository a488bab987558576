//! Each run on the device in a child process of its own: a kernel that faults
//! leaves the CUDA context unusable for the rest of the process, and one that hangs
//! must not hang the whole run. The parent runs `ptxvec <args>` and reads one JSON
//! line from the child's stdout: `{"Ok": answer}` or `{"Err": "why"}`.

use std::ffi::OsString;
use std::io::{Read, Write};

use crate::error::{Error, Outcome, Result};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The arguments that start a variant's child: `ptxvec [--spec DIR] COMMAND --out
/// OUT --child ID --vectors VECTORS FLAG VALUE`, where `FLAG VALUE` says how it
/// runs (`--window global`, `--shape cluster-of-one`); without `--spec`, the child
/// reads the spec built into it, as the parent does.
pub fn variant_argv(
    spec_dir: Option<&std::path::Path>,
    runner: &super::args::RunnerArgs,
    command: &str,
    vectors: &std::path::Path,
    id: &str,
    (flag, value): (&str, &str),
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    if let Some(dir) = spec_dir {
        argv.extend(["--spec".into(), dir.into()]);
    }
    argv.extend(runner.child_argv(command, id));
    argv.extend([
        "--vectors".into(),
        vectors.into(),
        flag.into(),
        value.into(),
    ]);
    argv
}

/// Bytes as the children's answers carry them: two lowercase hex digits each.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A child's hex buffer as bytes.
pub fn unhex(s: &str) -> Result<Vec<u8>> {
    let bad = || Error::Run(format!("child output: not hex: {s:.40}"));
    if !s.len().is_multiple_of(2) {
        return Err(bad());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            let pair = s.get(i..i + 2).ok_or_else(bad)?;
            u8::from_str_radix(pair, 16).map_err(|_| bad())
        })
        .collect()
}

/// Runs this binary with `args` and returns the child's answer, or why there is
/// none: it could not start, outran `timeout` (and was killed), exited with an
/// error status, or printed no answer.
pub fn run<T: DeserializeOwned>(args: &[OsString], timeout: Duration) -> Result<T> {
    run_child(args, timeout).map_err(Error::Run)
}

fn run_child<T: DeserializeOwned>(
    args: &[OsString],
    timeout: Duration,
) -> std::result::Result<T, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own binary: {e}"))?;
    let mut c = Command::new(&exe)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let mut stdout = c.stdout.take().ok_or("the child has no stdout")?;
    // Read while waiting, so that a child with much to say never blocks on a full pipe.
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match c.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > timeout => {
                let _ = c.kill();
                let _ = c.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let text = reader
        .join()
        .map_err(|_| "the reader of the child's output panicked")?;
    if !status.success() {
        return Err(format!("child exited with {status}"));
    }
    // The wire form of the child's answer: `{"Ok": ...}` or `{"Err": "why"}`.
    let answer: std::result::Result<T, String> =
        serde_json::from_str(text.trim()).map_err(|e| format!("child output: {e}"))?;
    answer
}

/// The child's side: writes its answer as the one line [`run`] reads; an error
/// becomes the answer, so the child itself succeeds.
pub fn answer<T: Serialize>(r: Result<T>, out: &mut dyn Write) -> Result<Outcome> {
    let wire: std::result::Result<T, String> = r.map_err(|e| e.to_string());
    // Our answers hold strings, numbers and lists: serde_json cannot fail on them.
    let line = serde_json::to_string(&wire).unwrap_or_default();
    writeln!(out, "{line}").map_err(Error::Stdout)?;
    Ok(Outcome::Pass)
}
