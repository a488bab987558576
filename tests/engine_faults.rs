//! `ptxvec run-engine` against engines that misbehave: each a shell script the
//! test writes, run by /bin/sh (`--runner /bin/sh --runner-arg SCRIPT`, so that no
//! freshly written file is executed while another test thread forks), which
//! misbehaves on activemask.b32's modules and runs match.all.sync.b32-d's (the next
//! variant run) as a well-behaved engine would. Whatever the engine does, the
//! command records a result for both variants and exits as documented.

use std::path::PathBuf;
use std::process::Output;

use ptxvec_generator::device::engine::{NotRun, RunsFile};

use crate::support::{ptxvec, stderr, stdout};

/// The variant the fake engine misbehaves on, and the one it runs.
const BAD: &str = "activemask.b32";
const GOOD: &str = "match.all.sync.b32-d";

/// A folder with the fake engine `engine.sh`: `body` runs for the modules of
/// [`BAD`]; every other module gets a buffer of zeros of the size asked for.
/// `$HERE` in `body` is the folder.
struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new(body: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let script = format!(
            "# MODULE ENTRY GRID BLOCK OUT_BYTES POISON OUT (runner/README.md)\n\
             ulimit -c 0\n\
             HERE=\"$(dirname \"$0\")\"\n\
             case \"$1\" in\n*{BAD}*)\n{body}\n;;\nesac\n\
             head -c \"$5\" /dev/zero > \"$7\"\n"
        );
        std::fs::write(dir.path().join("engine.sh"), script).unwrap();
        Fake { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `run-engine` of both variants into `out/`, from the fake's folder (outside
    /// the checkout: the vectors are found as an installed binary finds them);
    /// what it printed and its runs.json.
    fn run(&self, timeout: &str) -> (Output, RunsFile) {
        let o = ptxvec()
            .current_dir(self.dir.path())
            .args(["run-engine", "--engine", "fake", "--runner", "/bin/sh", "--runner-arg", "engine.sh"])
            .args(["--variant", GOOD, "--variant", BAD, "--timeout", timeout, "--out", "out"])
            .output()
            .unwrap();
        let runs = RunsFile::read(&self.path("out"))
            .unwrap()
            .unwrap_or_else(|| panic!("no runs.json; stderr: {}", stderr(&o)));
        (o, runs)
    }
}

/// The reason the bad variant was not run, after checking that the good one ran
/// and that the command exited 1 (a module the engine could not load).
fn refused(o: &Output, runs: &RunsFile) -> String {
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(o), stderr(o));
    let names: Vec<&str> = runs.runs.iter().map(|r| r.variant.as_str()).collect();
    assert_eq!(names, [BAD, GOOD], "index order");
    assert!(runs.runs[1].not_run.is_none() && runs.runs[1].raw_sha256.is_some(), "{:?}", runs.runs[1]);
    match &runs.runs[0].not_run {
        Some(NotRun::Refused(why)) => why.clone(),
        other => panic!("{BAD}: {other:?}"),
    }
}

/// A hung engine is killed at `--timeout`, recorded as timed out, and the next
/// variant runs: one that spins, and one whose child holds its output open (the
/// kill reaches the child: it never gets to leave its mark).
#[test]
fn a_hung_engine_is_killed_with_what_it_started() {
    for body in [
        "while :; do :; done",
        "(sleep 10; touch \"$HERE/survived\") &\nwait",
        "exec sleep 1000",
    ] {
        let fake = Fake::new(body);
        let (o, runs) = fake.run("1");
        let why = refused(&o, &runs);
        assert!(why.starts_with("timed out after 1 s"), "{body}: {why}");
        assert!(!fake.path("survived").exists(), "{body}: the runner's child lived on");
    }
}

/// An engine that exits but leaves a process holding its output open is not
/// waited for: a process in its group is killed, and one that left the group
/// (setsid) is given up on; the run is recorded as it went.
#[test]
fn an_engine_that_leaves_a_process_holding_its_output_is_not_waited_for() {
    let fake = Fake::new(
        "(sleep 10; touch \"$HERE/survived\") &\n\
         setsid sh -c 'echo $$ > \"$0/escaped.pid\"; sleep 60; touch \"$0/escaped\"' \"$HERE\" &\n\
         head -c \"$5\" /dev/zero > \"$7\"; exit 0",
    );
    let (o, runs) = fake.run("30");
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(runs.runs.iter().all(|r| r.not_run.is_none() && r.crashed.is_empty() && r.calls == 1), "{runs:?}");
    assert!(!fake.path("survived").exists(), "the process in the runner's group lived on");
    // The escaped one still sleeps: run-engine did not wait for it.
    assert!(!fake.path("escaped").exists(), "run-engine waited for the escaped process");
    let pid = std::fs::read_to_string(fake.path("escaped.pid")).unwrap();
    // setsid made it lead a group: its sleep goes with it.
    let _ = std::process::Command::new("kill").args(["--", &format!("-{}", pid.trim())]).status();
}

/// An engine that floods both streams (hundreds of MB) is read to the end, keeps
/// only their ends (runner/README.md: 64 KiB of each), and its reason is its last
/// words. The engine itself reads run-engine's peak memory from /proc as it ends.
#[test]
fn a_flooding_engine_is_read_to_its_end_in_bounded_memory() {
    let fake = Fake::new(
        "yes 'lots of log' | head -c 300000000\n\
         yes 'more log' | head -c 100000000 >&2\n\
         printf '\\nengine error: the last words\\n' >&2\n\
         grep VmHWM /proc/$PPID/status >> \"$HERE/peaks\"\n\
         exit 1",
    );
    let (o, runs) = fake.run("60");
    let why = refused(&o, &runs);
    assert_eq!(why, "exited with status 1: engine error: the last words");
    let peaks = std::fs::read_to_string(fake.path("peaks")).unwrap();
    // The whole module and its three probes.
    assert_eq!(peaks.lines().count(), 4, "{peaks}");
    for line in peaks.lines() {
        let kib: u64 = line.split_whitespace().nth(1).and_then(|k| k.parse().ok()).unwrap_or_else(|| panic!("{line}"));
        assert!(kib < 100 * 1024, "run-engine's peak: {line} (300 MB of stdout held?)");
    }
}

/// An engine that ends badly or writes nonsense gives a recorded result, never a
/// panic: a buffer of the wrong size, a signal, bytes that are not UTF-8 are a
/// module the engine could not load (exit 1); a buffer of the right size holding
/// garbage ran (exit 0), and grading it fails its records (exit 1), no more.
#[test]
fn garbage_and_crashes_are_recorded_results() {
    let refusals = [
        ("head -c 100 /dev/zero > \"$7\"; exit 0", "exited 0 but wrote 100 bytes, not 8704"),
        ("exit 0", "exited 0 but wrote no buffer (No such file or directory (os error 2))"),
        ("echo about to crash; kill -SEGV $$", "killed by SIGSEGV"),
        (
            "printf 'engine error: \\377\\376\\300 at byte 3\\n' >&2; exit 1",
            "exited with status 1: engine error: \u{fffd}\u{fffd}\u{fffd} at byte 3",
        ),
    ];
    for (body, want) in refusals {
        let fake = Fake::new(body);
        let (o, runs) = fake.run("60");
        assert_eq!(refused(&o, &runs), want, "{body}");
        assert!(stderr(&o).is_empty(), "{body}: {}", stderr(&o));
    }

    let fake = Fake::new("yes 'garbage!' | head -c \"$5\" > \"$7\"; exit 0");
    let (o, runs) = fake.run("60");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(runs.runs.iter().all(|r| r.not_run.is_none() && r.raw_sha256.is_some()), "{runs:?}");
    let g = ptxvec().current_dir(fake.dir.path()).args(["grade", "--raw", "out"]).output().unwrap();
    assert_eq!(g.status.code(), Some(1), "{}{}", stdout(&g), stderr(&g));
    assert!(stdout(&g).contains(" 34 failed"), "{}", stdout(&g));
}

/// Whether process `pid` still runs (a zombie does not).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
}

/// SIGINT (the terminal's Ctrl-C) to run-engine ends it by that signal, and the
/// call in flight with it, its child included: the runner leads a group of its
/// own, which the terminal's signal no longer reaches, so run-engine passes it on.
#[test]
fn a_signal_to_run_engine_ends_the_call_in_flight() {
    use std::os::unix::process::ExitStatusExt;
    let fake = Fake::new("echo $$ > \"$HERE/engine.pid\"\n(sleep 100) &\necho $! > \"$HERE/child.pid\"\nwait");
    let mut run = ptxvec()
        .current_dir(fake.dir.path())
        .args(["run-engine", "--engine", "fake", "--runner", "/bin/sh", "--runner-arg", "engine.sh"])
        .args(["--variant", BAD, "--timeout", "100", "--out", "out"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The engine is running once it has written both ids (60 s at most).
    let read = |name: &str| std::fs::read_to_string(fake.path(name)).ok().filter(|t| t.ends_with('\n'));
    let mut waited = 0;
    let (engine, child) = loop {
        if let (Some(e), Some(c)) = (read("engine.pid"), read("child.pid")) {
            break (e, c);
        }
        assert!(waited < 6000, "the fake engine never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    };
    let kill = std::process::Command::new("kill").args(["-INT", &run.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let status = run.wait().unwrap();
    assert_eq!(status.signal(), Some(2), "{status:?}");
    // SIGKILL was sent before run-engine ended; its delivery takes a moment.
    let mut waited = 0;
    while (alive(&engine) || alive(&child)) && waited < 1000 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        waited += 1;
    }
    assert!(!alive(&engine) && !alive(&child), "the engine ({}) or its child ({}) lives on", engine.trim(), child.trim());
}
