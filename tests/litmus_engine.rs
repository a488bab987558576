//! `ptxvec litmus-engine` without an engine: the raw litmus modules assemble with
//! ptxas for sm_90, a stand-in runner's buffer (written by hand) reads back as the
//! outcomes its rows hold, bad arguments exit 2, and the outcomes recorded on
//! GPGPU-Sim (vectors/clients/gpgpu-sim-667834c/litmus-results.jsonl) grade as
//! its README says.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxvec_generator::device::silicon::litmus::raw;
use ptxvec_generator::litmus::generated;

use crate::support::{assert_exit, ptxvec, repo_root, stderr, stdout};

/// Tests of every placement, with fences, release/acquire and read-modify-writes.
const SOME: [&str; 6] = [
    "MP/weak/same_cta",
    "SB/rel_acq/gpu/other_ctas",
    "IRIW/fence_sc/sys/other_clusters",
    "2+2W/rmw_acq_rel/cluster/same_cta",
    "WRC/fence_sc/cta/same_warp",
    "Atomicity/red_rel_acq/gpu/same_warp",
];

#[test]
#[cfg_attr(not(ptxas), ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)")]
fn raw_litmus_modules_assemble_with_ptxas() {
    let ptxas = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let all = generated();
    let mut failures = Vec::new();
    for (i, id) in SOME.iter().enumerate() {
        let g = all.iter().find(|g| g.id == *id).unwrap();
        let one_warp = g.placement == ptxvec_generator::litmus::Placement::SameWarp;
        let m = raw::module(&g.litmus, &g.opcodes, one_warp, 64, 42, &g.requires.ptx.to_string(), &g.requires.target()).unwrap();
        if let Err(e) = ptxvec_generator::ptxas::assemble_module(&ptxas, "sm_90", &m.ptx, dir.path(), &format!("raw{i}")) {
            failures.push(format!("{id}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The launch is one round of the plan: a warp per test thread of the fullest
/// CTA, a CTA per test CTA of every group of 32 instances, and the role table
/// holds one entry per thread of the grid.
#[test]
fn a_raw_module_holds_its_role_table_and_launches_one_round() {
    let all = generated();
    let g = all.iter().find(|g| g.id == "IRIW/weak/same_cta").unwrap();
    let m = raw::module(&g.litmus, &g.opcodes, false, 64, 42, "6.0", "sm_70").unwrap();
    assert_eq!((m.grid, m.block, m.instances), (2, 4 * 32, 64));
    assert!(m.ptx.contains(&format!(".global .align 4 .u32 ptxvec_roles[{}] = {{", 2 * 4 * 32)), "{}", m.ptx);
    assert!(m.ptx.contains(".visible .entry ptxvec_raw(.param .u64 p_out)"));
    let o = all.iter().find(|g| g.id == "IRIW/weak/other_clusters").unwrap();
    let m = raw::module(&o.litmus, &o.opcodes, false, 64, 42, "6.0", "sm_70").unwrap();
    assert_eq!((m.grid, m.block), (2 * 4, 32));
    let c = all.iter().find(|g| g.id == "MP/weak/other_ctas").unwrap();
    let m = raw::module(&c.litmus, &c.opcodes, false, 32, 42, "7.8", "sm_90").unwrap();
    assert!(m.ptx.lines().any(|l| l == ".reqnctapercluster 2, 1, 1"), "{}", m.ptx);
    assert_eq!(raw::module(&c.litmus, &c.opcodes, false, 32, 42, "7.8", "sm_90").unwrap(), m, "one seed, one module");
    assert!(raw::module(&c.litmus, &c.opcodes, false, 33, 42, "7.8", "sm_90").is_err());
}

/// A test in one warp: WRC's 3 threads pack 10 instances a warp (32 / 3), so 64
/// instances take 7 warps, one CTA each; the role table names each of the 64
/// instances' 3 threads once, all three in one warp on lanes of their own, and
/// nothing past instance 63.
#[test]
fn a_raw_module_in_one_warp_packs_a_warp_and_runs_its_count() {
    let all = generated();
    let g = all.iter().find(|g| g.id == "WRC/weak/same_warp").unwrap();
    let m = raw::module(&g.litmus, &g.opcodes, true, 64, 42, "6.0", "sm_70").unwrap();
    assert_eq!((m.grid, m.block, m.instances), (7, 32, 64));
    let table = m.ptx.split("ptxvec_roles[224] = {").nth(1).unwrap().split('}').next().unwrap();
    let roles: Vec<u32> = table.split(',').map(|w| w.trim().parse().unwrap()).collect();
    assert_eq!(roles.len(), 7 * 32);
    let mut seen = std::collections::BTreeMap::new();
    for (g, &r) in roles.iter().enumerate().filter(|(_, &r)| r != u32::MAX) {
        assert!(seen.insert((r >> 3, r & 7), g).is_none(), "role {r} twice");
    }
    assert_eq!(seen.len(), 64 * 3);
    for i in 0..64 {
        let warps: std::collections::BTreeSet<usize> = (0..3).map(|t| seen[&(i, t)] / 32).collect();
        assert_eq!(warps.len(), 1, "instance {i} spans warps");
    }
}

fn stand_in() -> PathBuf {
    repo_root().join("tests/fixtures/litmus-stand-in-runner.py")
}

fn need_python() {
    let here = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(here, "tests/litmus_engine.rs needs python3 for its stand-in runner");
}

fn litmus_engine(out: &Path, env: &[(&str, &Path)], extra: &[&str]) -> std::process::Output {
    let mut c = ptxvec();
    c.args(["litmus-engine", "--engine", "stand-in", "--runner"]).arg(stand_in()).arg("--out").arg(out).args(extra);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// MP/weak/same_cta reports thread 1's r0 and r1, then x and y (registers by
/// thread and number, then locations: the row layout). The buffer below is 32
/// such rows written by hand; the last keeps the poison (an instance that did not
/// report).
#[test]
fn a_stand_in_buffer_reads_back_as_its_rows_outcomes() {
    need_python();
    let dir = tempfile::tempdir().unwrap();
    let mut rows: Vec<[u32; 4]> = Vec::new();
    rows.extend([[0, 0, 1, 1]; 10]);
    rows.extend([[1, 1, 1, 1]; 20]);
    rows.push([0, 1, 1, 1]);
    rows.push([0xa5a5_a5a5; 4]);
    let bytes: Vec<u8> = rows.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let buffer = dir.path().join("buffer");
    std::fs::write(&buffer, bytes).unwrap();
    let out = dir.path().join("out");
    let o = litmus_engine(&out, &[("STANDIN_BUFFER", &buffer)], &["--test", "MP/weak/same_cta", "--instances", "32"]);
    assert_exit(&o, 1);
    assert!(stdout(&o).contains("ran MP/weak/same_cta: 3 outcomes; 1 instances did not report"), "{}", stdout(&o));
    let text = std::fs::read_to_string(out.join("litmus-results.jsonl")).unwrap();
    let got: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let want = serde_json::json!({"id": "MP/weak/same_cta", "outcomes": [
        {"regs": {"1:r0": 0, "1:r1": 0}, "mem": {"x": 1, "y": 1}, "count": 10},
        {"regs": {"1:r0": 0, "1:r1": 1}, "mem": {"x": 1, "y": 1}, "count": 1},
        {"regs": {"1:r0": 1, "1:r1": 1}, "mem": {"x": 1, "y": 1}, "count": 20},
    ]});
    assert_eq!(got, want);
    let runs: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("litmus-runs.json")).unwrap()).unwrap();
    assert_eq!(runs["ran"], serde_json::json!([{"id": "MP/weak/same_cta", "unreported": 1}]));
    let g = ptxvec().args(["grade", "--litmus"]).arg(out.join("litmus-results.jsonl")).output().unwrap();
    assert!(stdout(&g).contains("MP/weak/same_cta (31 runs)"), "{}", stdout(&g));
}

#[test]
fn a_module_the_engine_refuses_is_not_run_with_its_reason() {
    need_python();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let refuse = Path::new("1");
    let o = litmus_engine(&out, &[("STANDIN_REFUSE", refuse)], &["--test", "MP/weak/other_ctas", "--test", "SB/weak/same_cta"]);
    assert_exit(&o, 1);
    assert_eq!(std::fs::read_to_string(out.join("litmus-results.jsonl")).unwrap(), "");
    let runs: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("litmus-runs.json")).unwrap()).unwrap();
    // Test list order, one group for the one reason, the scratch path not in it.
    assert_eq!(
        runs["not_run"],
        serde_json::json!([{"reason": "exited with status 1: <module>:29 Syntax error:", "tests": ["MP/weak/other_ctas", "SB/weak/same_cta"]}])
    );
}

#[test]
fn bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (args, says) in [
        (&["--instances", "33"][..], "--instances 33: expected a multiple of 32"),
        (&["--instances", "0"][..], "--instances 0: expected a multiple of 32"),
        (&["--test", "MP/none"][..], "--test MP/none: no such litmus test"),
    ] {
        let o = litmus_engine(&out, &[], args);
        assert_exit(&o, 2);
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = ptxvec().args(["litmus-engine", "--engine", "e", "--runner", "/nonexistent/runner", "--out"]).arg(&out).output().unwrap();
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("--runner /nonexistent/runner: no such program"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing written on bad input");
}

/// A recorded `litmus-runs.json`'s account: `check(test, reason)` for each test not
/// run, then the tests that ran and every generated test, each sorted, after
/// asserting that the account names every test once, as run or not.
fn account(runs: &serde_json::Value, check: impl Fn(&str, &str)) -> (Vec<String>, Vec<String>) {
    let mut ran: Vec<String> = runs["ran"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect();
    let mut named: Vec<String> = ran.clone();
    for g in runs["not_run"].as_array().unwrap() {
        let reason = g["reason"].as_str().unwrap();
        for t in g["tests"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            check(t, reason);
            named.push(t.to_owned());
        }
    }
    named.sort();
    let mut all: Vec<String> = generated().into_iter().map(|g| g.id).collect();
    all.sort();
    assert_eq!(named, all, "every test once, run or not");
    ran.sort();
    (ran, all)
}

/// GPGPU-Sim's recorded litmus run: the account names every test once, as run or
/// not; the tests that ran are the `weak` ones outside a cluster (the README: its
/// parser knows no `.sem` qualifier nor `.reqnctapercluster`); no outcome is
/// forbidden and none is weak, and the grade's summary is the README's.
#[test]
fn gpgpu_sims_litmus_run_grades_as_recorded() {
    let dir = repo_root().join("vectors/clients/gpgpu-sim-667834c");
    let runs: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("litmus-runs.json")).unwrap()).unwrap();
    assert!(runs["ran"].as_array().unwrap().iter().all(|r| r["unreported"] == 0));
    let (ran, all) = account(&runs, |t, reason| {
        if t.ends_with("/other_ctas") {
            assert!(reason.contains("Syntax error"), "{t}: {reason}");
        }
    });
    let weak_outside_clusters: Vec<String> =
        all.iter().filter(|id| id.contains("/weak/") && !id.ends_with("/other_ctas")).cloned().collect();
    assert_eq!(ran, weak_outside_clusters);
    let o = ptxvec().args(["grade", "--litmus"]).arg(dir.join("litmus-results.jsonl")).output().unwrap();
    assert_exit(&o, 0);
    let text = stdout(&o);
    assert!(!text.contains("forbidden") && !text.contains("impossible"), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("litmus: 33 of 1132 tests graded, 33 pass, 0 fail; weak outcomes seen in 0 of the 30 passing tests that allow one")
    );
}

/// gpuocelot's recorded litmus run (vectors/clients/gpuocelot-b16039d/README.md):
/// every test named once, as run or not, each refusal for the README's reason
/// (`.reqnctapercluster` and the `.sem` qualifiers are syntax errors to its parser;
/// its `ipdom` reconvergence throws "barrier deadlock" at a `ret` that part of a
/// CTA reaches); the tests that ran are the `weak` ones across clusters, one CTA
/// per test thread. It leaves `.global` variables without an initializer
/// unzeroed, so instances go unreported and read values no store wrote: the grade
/// shows impossible outcomes, never a forbidden one.
#[test]
fn gpuocelots_litmus_run_grades_as_recorded() {
    let dir = repo_root().join("vectors/clients/gpuocelot-b16039d");
    let runs: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("litmus-runs.json")).unwrap()).unwrap();
    assert_eq!(runs["engine"], "gpuocelot b16039d emulator");
    assert!(runs["ran"].as_array().unwrap().iter().any(|r| r["unreported"] != 0), "the unzeroed counts leave instances unreported");
    let (ran, all) = account(&runs, |t, reason| {
        if t.ends_with("/other_ctas") {
            assert!(reason.contains("syntax error at `.reqnctapercluster"), "{t}: {reason}");
        } else if t.contains("/weak/") {
            let one_cta = t.ends_with("/same_cta") || t.ends_with("/same_warp");
            assert!(one_cta && reason.contains("barrier deadlock"), "{t}: {reason}");
        } else {
            let sem = [".relaxed.", ".acquire.", ".release.", ".acq_rel."];
            assert!(reason.contains("syntax error at") && sem.iter().any(|s| reason.contains(s)), "{t}: {reason}");
        }
    });
    let weak_across_clusters: Vec<String> =
        all.iter().filter(|id| id.contains("/weak/") && id.ends_with("/other_clusters")).cloned().collect();
    assert_eq!(ran, weak_across_clusters);
    let o = ptxvec().args(["grade", "--litmus"]).arg(dir.join("litmus-results.jsonl")).output().unwrap();
    assert_exit(&o, 1);
    let text = stdout(&o);
    assert!(!text.contains("forbidden"), "{text}");
    assert!(text.contains("FAIL MP/weak/other_clusters") && text.contains("  impossible "), "{text}");
    assert_eq!(
        text.lines().last(),
        Some("litmus: 11 of 1132 tests graded, 4 pass, 7 fail; weak outcomes seen in 0 of the 3 passing tests that allow one")
    );
}
