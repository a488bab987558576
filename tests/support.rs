//! What the tests of the runners, the evidence and hostile input share: where the
//! repository's folders are, the `ptxvec` binary run from the repository root, its
//! output as text, and the committed silicon evidence.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ptxvec_spec::Spec;

use crate::spec_root;

/// A vector file's text, gzipped (`vectors/semantic/*.jsonl.gz`) or not.
pub fn vector_text(path: impl AsRef<std::path::Path>) -> String {
    ptxvec_generator::io::gz::read_text(path.as_ref(), 1 << 30).unwrap()
}

/// The repository's root.
pub fn repo_root() -> PathBuf {
    spec_root().join("..")
}

/// The recorded clients' folders that hold `marker` (vectors/clients/*/runs.json for
/// an engine, manifest.json for a compiler), in name order.
pub fn client_folders(marker: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo_root().join("vectors/clients"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join(marker).is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The committed vectors (index.json, semantic/, silicon/).
pub fn vectors_root() -> PathBuf {
    repo_root().join("vectors")
}

/// The committed sm_90 silicon evidence.
pub fn silicon_dir() -> PathBuf {
    vectors_root().join("silicon/sm_90")
}

/// The repository's spec, loaded.
pub fn spec() -> Spec {
    Spec::load(&spec_root()).unwrap()
}

/// The `ptxvec` binary, to be run from the repository root.
pub fn ptxvec() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ptxvec"));
    c.current_dir(repo_root());
    c
}

/// The binary run with `args`, `input` on its stdin, stdout and stderr captured.
pub fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let input = input.to_vec();
    output_with_input(ptxvec().args(args), move |w| {
        let _ = w.write_all(&input);
    })
}

/// `command` run with stdout and stderr captured and its stdin fed by `input`,
/// from a thread: a large input must not block against a full stdout pipe, and a
/// reader that stops early closes the pipe (the rest is not written).
pub fn output_with_input(command: &mut Command, input: impl FnOnce(&mut dyn std::io::Write) + Send + 'static) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut w = std::io::BufWriter::new(&mut stdin);
        input(&mut w);
        let _ = w.flush();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Bytes as text (lossily: a test's message must print whatever came).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A run's stdout, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run's stderr, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Fails, with the run's stderr, unless it exited with `code`.
#[track_caller]
pub fn assert_exit(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "{}", stderr(o));
}

/// The names of the files in `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A committed evidence file's text; missing, the failure says which runner
/// records it.
pub fn read_silicon(name: &str, runner: &str) -> String {
    let path = silicon_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record it on a GPU with `ptxvec {runner} --out DIR`)",
            path.display()
        )
    })
}

/// The variable that names a run's share of the long loops other than the
/// exhaustive float checks: the blocks of the 16-bit and wide sweep replays, the
/// silicon modules put to ptxas, the kills of the interrupted-generate test.
/// `.ci/run` sets it from the UTC day, so that consecutive days cover every item;
/// unset, a test takes every item (`bash .ci/run --full` unsets it).
pub const SHARD_VAR: &str = "PTXVEC_SHARD";

/// This run's share ([`SHARD_VAR`]) of a loop of at most `max` shares.
pub fn shard(max: u64) -> ptxvec_oracle::shard::Shard {
    let value = std::env::var(SHARD_VAR).ok();
    ptxvec_oracle::shard::Shard::from_var(SHARD_VAR, value.as_deref(), max).unwrap_or_else(|e| panic!("{e}"))
}
