//! The binary outside the checkout: copied into a folder of its own and run from
//! an empty one, as an installed `ptxvec` is. It reads the spec built into it,
//! and finds the vectors in ./vectors, else in the checkout it was built from,
//! else where `--vectors` names them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{assert_exit, ptxvec, repo_root, stderr, stdout};

/// The binary, copied into a fresh folder outside the checkout, and an empty
/// folder to run it from (both removed when dropped).
struct Installed {
    _bin_dir: tempfile::TempDir,
    bin: PathBuf,
    cwd: tempfile::TempDir,
}

impl Installed {
    fn new() -> Installed {
        let bin_dir = tempfile::tempdir().unwrap();
        let bin = bin_dir.path().join("ptxvec");
        std::fs::copy(env!("CARGO_BIN_EXE_ptxvec"), &bin).unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let root = repo_root().canonicalize().unwrap();
        for dir in [bin_dir.path(), cwd.path()] {
            assert!(!dir.canonicalize().unwrap().starts_with(&root), "{} is inside the checkout", dir.display());
        }
        Installed { _bin_dir: bin_dir, bin, cwd }
    }

    /// Runs the copy. A child that another test thread forks while the copy is
    /// being written holds it open for writing until that child execs, and running
    /// the copy then fails with "Text file busy" (ETXTBSY): that moment passes, so
    /// the run is tried again a while, as Go's os/exec does.
    fn run(&self, args: &[&str]) -> Output {
        let mut tries = 0;
        loop {
            match Command::new(&self.bin).args(args).current_dir(self.cwd.path()).output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                r => return r.unwrap(),
            }
        }
    }

    fn cwd(&self) -> &Path {
        self.cwd.path()
    }
}

#[test]
fn spec_reads_the_spec_built_in() {
    let at = Installed::new();
    let out = at.run(&["spec"]);
    assert_exit(&out, 0);
    // The same listing as the checkout's spec folder gives: the spec built in is
    // that folder.
    let checkout = ptxvec().args(["--spec", "spec", "spec"]).output().unwrap();
    assert_exit(&checkout, 0);
    assert!(stdout(&out) == stdout(&checkout), "{}", stdout(&out));
    // The folder holds nothing afterwards: nothing was written there.
    assert_eq!(std::fs::read_dir(at.cwd()).unwrap().count(), 0);
}

#[test]
fn check_syntax_judges_without_a_checkout() {
    let at = Installed::new();
    // Seed 001 (9.7.13.6 red, Examples): `red.global.add.s32  [a],1;`, in a module
    // that its ISA notes allow (PTX ISA 6.3, sm_75).
    let legal = at.run(&["check-syntax", "--ptx", "6.3", "--target", "sm_75", "red.global.add.s32  [a],1;"]);
    assert_exit(&legal, 0);
    assert_eq!(stdout(&legal), "legal\n");
    // PTX ISA 4.3: "Statements ... end with a semicolon".
    let illegal = at.run(&["check-syntax", "--ptx", "6.3", "--target", "sm_75", "red.global.add.s32  [a],1"]);
    assert_exit(&illegal, 1);
    assert!(stdout(&illegal).starts_with("illegal (malformed): syntax.semicolon:"), "{}", stdout(&illegal));
}

#[test]
fn lint_reads_a_module_in_the_current_folder() {
    let at = Installed::new();
    // Seed 001's `red` takes `[a], b{, cache-policy}`: one operand is an operand
    // count defect, on line 8, column 5.
    let module = ".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry f()\n{\n    .reg .b32 %r<4>;\n    .reg .b64 %rd<2>;\n    red.global.add.u32 [%rd1];\n    red.global.add.u32 [%rd1], %r1;\n    ret;\n}\n";
    std::fs::write(at.cwd().join("my.ptx"), module).unwrap();
    let out = at.run(&["lint", "my.ptx"]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(text.starts_with("my.ptx:8:5: illegal: operand.count:"), "{text}");
    assert_eq!(text.matches("illegal").count(), 1, "{text}");
}

#[test]
fn vectors_are_found_in_the_current_folder_then_the_checkout_else_named() {
    let at = Installed::new();
    let args = ["emit-ptx", "--variant", "red.global.add.f32"];
    // No ./vectors: the checkout's, the same module as run in the checkout.
    let found = at.run(&args);
    assert_exit(&found, 0);
    let checkout = ptxvec().args(args).output().unwrap();
    assert_exit(&checkout, 0);
    assert!(stdout(&found) == stdout(&checkout), "{}", stderr(&found));
    // A ./vectors with an index is the one read (here it lacks the variant's file).
    std::fs::create_dir(at.cwd().join("vectors")).unwrap();
    std::fs::copy(repo_root().join("vectors/index.json"), at.cwd().join("vectors/index.json")).unwrap();
    let here = at.run(&args);
    assert_exit(&here, 2);
    assert!(stderr(&here).contains("vectors/semantic/red.global.add.f32.jsonl.gz: No such file"), "{}", stderr(&here));
    // A folder named is read, and a missing index is a clear error naming it.
    let empty = tempfile::tempdir().unwrap();
    let named = at.run(&["emit-ptx", "--variant", "red.global.add.f32", "--vectors", empty.path().to_str().unwrap()]);
    assert_exit(&named, 2);
    let index = empty.path().join("index.json");
    assert!(stderr(&named).contains(&format!("{}: No such file", index.display())), "{}", stderr(&named));
    assert!(stdout(&named).is_empty());
}

/// `run-engine` from a simulator's configuration folder: no `--spec`, no
/// `--vectors` (the checkout's are found), the runner a script beside the
/// configuration, the buffers written where `--out` says, relative to that folder;
/// then `merge-runs` and `grade --raw` there too.
#[test]
fn run_engine_runs_from_an_engines_folder() {
    let at = Installed::new();
    // A well-behaved fake engine: a buffer of zeros of the size asked for.
    std::fs::write(at.cwd().join("engine.sh"), "head -c \"$5\" /dev/zero > \"$7\"\n").unwrap();
    for (variant, out) in [("activemask.b32", "one"), ("match.all.sync.b32-d", "two")] {
        let run = at.run(&["run-engine", "--runner", "/bin/sh", "--runner-arg", "engine.sh", "--engine", "fake", "--variant", variant, "--out", out]);
        assert_exit(&run, 0);
        assert!(stdout(&run).contains("run-engine: 1 runs, 1 ran, 0 not run, 0 records crashed"), "{}", stdout(&run));
    }
    assert_exit(&at.run(&["merge-runs", "one", "two", "--out", "raw"]), 0);
    let names: Vec<String> = std::fs::read_dir(at.cwd().join("raw")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    // Zeros are no engine's right answer: records fail (exit 1), nothing else.
    let grade = at.run(&["grade", "--raw", "raw"]);
    assert_exit(&grade, 1);
    assert!(stdout(&grade).starts_with("grade: FAILED\n"), "{}", stdout(&grade));
}
