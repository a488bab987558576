//! The litmus vectors as a user meets them: vectors/litmus.jsonl.gz is what
//! `generate` writes, and `grade --litmus` on hand-made results files (tests/
//! fixtures/litmus/): an engine that kept the model, one that showed a forbidden
//! outcome, and a corrupt file.

use std::path::Path;

use ptxvec_generator::grade::litmus::LitmusResult;
use ptxvec_generator::grade::results::ResultLine;
use ptxvec_generator::litmus::{generated, record};

use crate::support::{assert_exit, repo_root, stderr, stdout};

fn grade(file: &str) -> std::process::Output {
    let path = repo_root().join("tests/fixtures/litmus").join(file);
    let vectors = repo_root().join("vectors");
    crate::support::ptxvec()
        .args(["grade", "--litmus", path.to_str().unwrap(), "--vectors", vectors.to_str().unwrap()])
        .output()
        .unwrap()
}

#[test]
fn the_vectors_hold_what_generate_writes() {
    let committed = crate::support::vector_text(repo_root().join("vectors/litmus.jsonl.gz"));
    assert!(committed == record::jsonl(&generated()).unwrap(), "vectors/litmus.jsonl.gz is stale: run `ptxvec generate`");
}

#[test]
fn an_engine_that_saw_only_allowed_outcomes_passes_and_its_weak_ones_are_named() {
    // engine.jsonl, outcomes chosen by hand: MP release/acquire at .gpu with flag
    // 0 data 0 and flag 1 data 1, which the chapter allows and any interleaving
    // gives (no weak outcome: stale data is the one outcome MP can be weak in, and
    // it is forbidden); SB relaxed across clusters with both loads 0, the weak
    // outcome (8.10.6: without `fence.sc` "both R1 and R2 return the initial
    // value" is possible), and 1, 1; SB relaxed in one CTA with 1, 1 only, in two
    // lines that add up to 6 runs: it passes without showing its weak outcome.
    let o = grade("engine.jsonl");
    assert_exit(&o, 0);
    assert_eq!(
        stdout(&o),
        "pass MP/rel_acq/gpu/other_ctas (15 runs); no weak outcome allowed\n\
         pass SB/relaxed/gpu/other_clusters (10 runs); weak seen: 0:r0=0 1:r0=0 | x=1 y=1\n\
         pass SB/relaxed/gpu/same_cta (6 runs); no weak outcome seen (1 allowed): the weak case is untested\n\
         litmus: 3 of 1132 tests graded, 3 pass, 0 fail; weak outcomes seen in 1 of the 2 passing tests that allow one\n"
    );
}

#[test]
fn a_forbidden_outcome_fails_its_test_naming_the_axiom() {
    // forbidden.jsonl: MP release/acquire in one CTA with flag 1 and data 0, which
    // 8.10.6 forbids (the chapter's Message Passing argument), and CoRR with a value
    // no write wrote.
    let o = grade("forbidden.jsonl");
    assert_exit(&o, 1);
    let out = stdout(&o);
    assert!(out.contains("FAIL MP/rel_acq/gpu/same_cta (10 runs)\n  forbidden 1:r0=1 1:r1=0 | x=1 y=1 seen 2 times: 8.10.6 Causality\n"), "{out}");
    assert!(out.contains("FAIL CoRR/relaxed/sys/other_ctas (1 runs)\n  impossible 1:r0=7 1:r1=7 | x=1 seen 1 times"), "{out}");
    assert!(out.ends_with("2 of 1132 tests graded, 0 pass, 2 fail; weak outcomes seen in 0 of the 0 passing tests that allow one\n"), "{out}");
}

#[test]
fn a_corrupt_results_file_is_an_error_at_its_line_and_column() {
    // corrupt.jsonl: line 2's count is -1 at character 115 (counted: the `-` is the
    // 115th character of the line); line 3 names no test. Line 1 is graded.
    let o = grade("corrupt.jsonl");
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("tests/fixtures/litmus/corrupt.jsonl:2:115: invalid value: integer `-1`, expected u64"), "{err}");
    assert!(err.contains("corrupt.jsonl:3:1: no litmus test has the id \"SB/nothing\""), "{err}");
    assert!(stdout(&o).starts_with("pass MP/rel_acq/gpu/same_cta (8 runs)"), "{}", stdout(&o));
}

#[test]
fn litmus_is_graded_alone() {
    let o = crate::support::ptxvec().args(["grade", "--litmus", "x.jsonl", "--syntax", "y.jsonl"]).output().unwrap();
    assert_exit(&o, 2);
}

/// The schema's test lines (vectors/validate_schemas.py holds them to
/// vectors/litmus-results.schema.json) read by the Rust reader as the schema says.
#[test]
fn the_results_schema_fixtures_read_as_the_schema_says() {
    let dir = repo_root().join("tests/fixtures/schemas");
    let lines = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name)).unwrap().lines().filter(|l| !l.trim().is_empty()).map(str::to_owned).collect()
    };
    let valid = lines("litmus-results.valid.jsonl");
    assert!(!valid.is_empty());
    for l in &valid {
        assert!(LitmusResult::read(l).is_ok(), "{l}");
    }
    let invalid = lines("litmus-results.invalid.jsonl");
    assert!(!invalid.is_empty());
    for l in &invalid {
        assert!(LitmusResult::read(l).is_err(), "{l}");
    }
    assert!(Path::new(&repo_root().join("vectors/litmus-results.schema.json")).is_file());
}

/// Every test's instructions in modules ptxas assembles: one kernel per thread, the
/// record's text as is (`[x]` names a `.global .u32 x`). ptxas 13.5 has no `sm_70`,
/// so the tests that need PTX ISA 6.0 and `sm_70` are assembled at 6.3 and `sm_75`,
/// the first version of the first target it takes.
#[test]
#[cfg_attr(not(ptxas), ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)")]
fn ptxas_assembles_every_litmus_instruction() {
    let ptxas = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let mut modules: std::collections::BTreeMap<(String, String), Vec<String>> = Default::default();
    for t in generated() {
        let r = record::record(&t).unwrap();
        let (ptx, target) = match r.requires.target.as_str() {
            "sm_70" => ("6.3".to_owned(), "sm_75".to_owned()),
            _ => (r.requires.ptx.clone(), r.requires.target.clone()),
        };
        let kernels = modules.entry((ptx, target)).or_default();
        for th in &r.threads {
            let body: Vec<String> = th.instructions.iter().map(|i| format!("  {i}")).collect();
            kernels.push(format!(".entry k{}() {{\n  .reg .b32 %r<8>;\n{}\n  ret;\n}}", kernels.len(), body.join("\n")));
        }
    }
    assert_eq!(modules.len(), 2);
    for ((ptx, target), kernels) in &modules {
        let path = dir.path().join(format!("litmus_{target}.ptx"));
        let text = format!(
            ".version {ptx}\n.target {target}\n.address_size 64\n.global .u32 x;\n.global .u32 y;\n{}\n",
            kernels.join("\n")
        );
        std::fs::write(&path, text).unwrap();
        let o = std::process::Command::new(&ptxas)
            .args([&format!("-arch={target}"), path.to_str().unwrap(), "-o", "/dev/null"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
    }
}
