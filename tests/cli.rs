//! The `ptxvec` binary as a user runs it: exit codes, output, errors.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::repo_root;

fn ptxvec(args: &[&str]) -> Output {
    crate::support::ptxvec().args(args).output().expect("run ptxvec")
}

#[test]
fn spec_lists_every_instruction_and_form() {
    let out = ptxvec(&["spec"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    for name in [
        "activemask",
        "cp.reduce.async.bulk",
        "match.sync",
        "red ",
        "redux.sync",
        "shfl.sync",
        "vote.sync",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "no line for {name}"
        );
    }
    insta::assert_snapshot!("ptxvec_spec", text);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &[][..],
        &["spec", "--no-such-flag"][..],
    ] {
        let out = ptxvec(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?} printed no error");
    }
}

#[test]
fn a_bad_spec_folder_exits_2_with_its_location() {
    let out = ptxvec(&["--spec", "tests/fixtures/no-such-spec", "spec"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tests/fixtures/no-such-spec"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "printed a report for a spec that does not load"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let spec = dir.path().join("spec");
    let copy = |from: PathBuf, to: PathBuf| std::fs::copy(from, to).expect("copy");
    for sub in ["seeds", "instructions"] {
        std::fs::create_dir_all(spec.join(sub)).expect("mkdir");
        for e in std::fs::read_dir(repo_root().join("spec").join(sub)).expect("read") {
            let p = e.expect("entry").path();
            copy(p.clone(), spec.join(sub).join(p.file_name().expect("name")));
        }
    }
    copy(
        repo_root().join("spec/targets.yaml"),
        spec.join("targets.yaml"),
    );
    copy(
        repo_root().join("spec/errata.yaml"),
        spec.join("errata.yaml"),
    );
    copy(
        repo_root().join("spec/qualifiers.yaml"),
        spec.join("qualifiers.yaml"),
    );
    copy(
        repo_root().join("tests/fixtures/spec/invalid/unknown_qualifier.yaml"),
        spec.join("instructions/fixture.yaml"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .args(["--spec", "spec", "spec"])
        .current_dir(dir.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spec/instructions/fixture.yaml:7:27: syntax[0].sets.op.values: unknown qualifier `.fma`"), "{err}");
}

#[test]
fn bench_reports_every_stage_with_its_item_count_and_cleans_up() {
    let scratch = std::env::temp_dir().join(format!("ptxvec-bench-test-{}", std::process::id()));
    let out = ptxvec(&[
        "bench",
        "--runs",
        "1",
        "--scratch",
        scratch.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // One header and three stages; the full generate counts syntax cases and records.
    // Then the batch stages: a blank line, a header, check-syntax on the vectors and
    // on the explorer's walks, and eval; then lint's: a blank line, a header, one
    // stage.
    assert_eq!(text.lines().count(), 4 + 5 + 3, "{text}");
    let lint = text.lines().find(|l| l.starts_with("lint (")).unwrap_or_else(|| panic!("no lint stage in\n{text}"));
    let megabytes: f64 = lint[46..].split_whitespace().next().unwrap().parse().unwrap();
    assert!(megabytes >= 100.0, "{lint}");
    // nvcc's modules are legal at sm_90a: nothing illegal.
    assert!(lint.ends_with(" 0"), "{lint}");
    let items = |prefix: &str| -> usize {
        let line = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in\n{text}"));
        line[46..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(
        items("generate"),
        items("syntax cases") + items("semantic records")
    );
    // Each batch stream has a line per case (check-syntax, 48 copies) or record
    // (eval, 4 copies).
    assert_eq!(items("check-syntax -"), 48 * items("syntax cases"));
    assert_eq!(items("eval ("), 4 * items("semantic records"));
    // The scratch folder holds what a generate writes.
    assert!(scratch.join("index.json").is_file());
    let _ = std::fs::remove_dir_all(&scratch);
    let bad = ptxvec(&["bench", "--runs", "x"]);
    assert_eq!(bad.status.code(), Some(2));
    // A sweep level that does not exist stops the bench before any stage runs.
    let bad = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .args(["bench", "--runs", "1", "--sweep-runs", "1"])
        .env("PTXVEC_SWEEP_LEVEL", "sse9")
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(bad.stdout.is_empty());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("PTXVEC_SWEEP_LEVEL=\"sse9\": no such level (expected one of avx512fp16, avx512, avx2, portable)"),
        "{err}"
    );
}

/// `bench --record` into a file without the bench markers is refused before any
/// stage runs (exit 2, naming the file), and the file is left as it was.
#[test]
fn bench_record_refuses_a_file_without_its_section() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("notes.md");
    std::fs::write(&record, "# by hand\n").unwrap();
    let out = ptxvec(&["bench", "--runs", "1", "--record", record.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "a stage ran");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("notes.md: no bench section to replace"), "{err}");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), "# by hand\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a file was left beside it");
}

/// A reader that stops early (`ptxvec spec | head -0`) must not make ptxvec panic:
/// it ends quietly, killed by SIGPIPE as other Unix filters are.
#[cfg(unix)]
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().expect("pipe");
    // Closed before the child starts, so its first write meets no reader.
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .arg("spec")
        .current_dir(repo_root())
        .stdout(writer)
        .output()
        .expect("run ptxvec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        out.status
    );
}

/// `emit-ptx --window W` writes a generic variant run in window W, and refuses
/// a variant whose address is not generic (or a vector) with exit 2 and a reason.
#[test]
fn emit_ptx_windows_only_for_generic_variants() {
    let out = ptxvec(&[
        "emit-ptx",
        "--variant",
        "red.add.u32",
        "--window",
        "shared",
        "--raw",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("cvta.shared.u64"),
        "no generic shared address"
    );
    assert!(
        text.contains("--window shared --raw"),
        "the header names the window"
    );
    for id in ["red.shared.add.f32", "red.add.v2.f32"] {
        let out = ptxvec(&["emit-ptx", "--variant", id, "--window", "shared"]);
        assert_eq!(out.status.code(), Some(2), "{id}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--window shared needs a variant stated with generic addressing"),
            "{id}: {err}"
        );
        assert!(out.stdout.is_empty(), "{id}: wrote a module");
    }
    // The spelled window names the state space in the instruction.
    let out = ptxvec(&[
        "emit-ptx",
        "--variant",
        "red.add.u32",
        "--window",
        "shared-space",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("    red.shared.add.u32 [%rd"),
        "no red.shared"
    );
    let out = ptxvec(&[
        "emit-ptx",
        "--variant",
        "red.add.u32",
        "--window",
        "cluster",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("possible values: global, shared, global-space, shared-space"));
}

/// A case id that names no case is refused, with or without a module given; it is
/// never emitted as instruction text.
#[test]
fn emit_ptx_refuses_an_unknown_case_id() {
    for args in [
        &["emit-ptx", "red/nosuch/case"][..],
        &[
            "emit-ptx",
            "red/nosuch/case",
            "--ptx",
            "8.0",
            "--target",
            "sm_90",
        ][..],
    ] {
        let out = ptxvec(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unknown case id `red/nosuch/case`"), "{err}");
    }
}

/// A module below PTX ISA 2.3 has no `.address_size`: that version introduced the
/// directive (ptxas 12.9: "Feature '.address_size directive' requires PTX ISA
/// .version 2.3 or later"); at 2.3 and later it has one.
#[test]
fn emit_ptx_writes_address_size_only_where_the_version_has_it() {
    for (case, want) in [
        ("red/scalar/.and.b32/reg", false),
        ("redux.sync/integer/.add.u32/reg", true),
    ] {
        let out = ptxvec(&["emit-ptx", case]);
        assert!(
            out.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(text.contains(".address_size 64"), want, "{case}:\n{text}");
    }
}

#[test]
fn a_progress_bar_is_drawn_on_a_terminal_only() {
    // `grade --all` walks every variant of index.json, one tick each.
    let args = ["grade", "--semantic", "/dev/null", "--all"];
    let piped = ptxvec(&args);
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains("variants ["), "a bar in a pipe: {err}");
    // util-linux `script` gives the command a pseudo-terminal; it logs what the
    // terminal received.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script` here: only the pipe half of this test ran");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("typescript");
    let bin = env!("CARGO_BIN_EXE_ptxvec");
    let status = Command::new("script")
        .arg("-qec")
        .arg(format!("{bin} {} >/dev/null", args.join(" ")))
        .arg(&log)
        .current_dir(repo_root())
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    assert!(seen.contains("variants ["), "no bar on a terminal: {seen} {status:?}");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo_root().join("vectors/index.json")).unwrap()).unwrap();
    let variants = index["files"].as_array().unwrap().len();
    assert!(seen.contains(&format!("/{variants}")), "{seen}");
}
