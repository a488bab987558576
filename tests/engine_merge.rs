//! `ptxvec merge-runs`: the folders of `run-engine` calls made per variant merge
//! into the folder one call over all of them writes, byte for byte; a run two
//! folders hold differently, folders of different engines, and a folder that
//! `run-engine` did not write are refused (exit 2).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use crate::support::{ptxvec, stderr, stdout};

/// A variant with one run, one with four windows, one that needs sm_100a (not
/// run), in index order.
const VARIANTS: [&str; 3] = ["activemask.b32", "atom.and.b32", "redux.sync.min.f32"];

/// A fake engine (run by /bin/sh) whose buffers depend on the module's name alone
/// (`<run>.<call>.ptx`), so that separate calls of run-engine write the same bytes.
const ENGINE: &str = "yes \"$(basename \"$1\")\" | head -c \"$5\" > \"$7\"\n";

/// Runs `ptxvec ARGS` in `dir`.
fn ptxvec_in(dir: &Path, args: &[&str]) -> Output {
    ptxvec().current_dir(dir).args(args).output().unwrap()
}

/// `run-engine` of `variants` into `dir/out` as `engine`.
fn run_engine(dir: &Path, engine: &str, variants: &[&str], out: &str) {
    let mut args = vec!["run-engine", "--engine", engine, "--runner", "/bin/sh", "--runner-arg", "engine.sh", "--out", out];
    for v in variants {
        args.extend(["--variant", v]);
    }
    let o = ptxvec_in(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// Every file of a folder, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn per_variant_runs_merge_into_the_whole_run_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("engine.sh"), ENGINE).unwrap();
    run_engine(dir, "fake", &VARIANTS, "whole");
    for v in VARIANTS {
        run_engine(dir, "fake", &[v], v);
    }
    // Given out of order, and one folder twice (the same runs: no conflict).
    let o = ptxvec_in(dir, &["merge-runs", VARIANTS[2], VARIANTS[1], VARIANTS[0], VARIANTS[1], "--out", "merged"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("run-engine: 6 runs, 5 ran, 1 not run"), "{}", stdout(&o));
    let (whole, merged) = (files(&dir.join("whole")), files(&dir.join("merged")));
    assert_eq!(whole.keys().collect::<Vec<_>>(), merged.keys().collect::<Vec<_>>());
    assert_eq!(whole.len(), 6, "five buffers and runs.json: {:?}", whole.keys());
    for (name, bytes) in &whole {
        assert!(merged[name] == *bytes, "{name} differs");
    }
    // Merged into one of its own inputs: the same again.
    let o = ptxvec_in(dir, &["merge-runs", VARIANTS[0], VARIANTS[1], VARIANTS[2], "--out", VARIANTS[0]]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(files(&dir.join(VARIANTS[0])), whole);
}

#[test]
fn conflicts_other_engines_and_strange_folders_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("engine.sh"), ENGINE).unwrap();
    run_engine(dir, "fake", &VARIANTS[..1], "a");
    run_engine(dir, "fake", &VARIANTS[..1], "b");
    run_engine(dir, "other", &VARIANTS[1..2], "c");
    let refused = |args: &[&str], says: &str| {
        let o = ptxvec_in(dir, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(!dir.join("out").exists(), "{args:?}: wrote out/");
    };
    // The same run, a byte of its buffer changed.
    let bin = dir.join("b/activemask.b32.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&bin, &bytes).unwrap();
    refused(&["merge-runs", "a", "b", "--out", "out"], "a and b both hold run activemask.b32.bin, with different raw buffers");
    // The same run, told differently in runs.json.
    let runs = std::fs::read_to_string(dir.join("a/runs.json")).unwrap();
    std::fs::write(dir.join("b/runs.json"), runs.replace("\"calls\":1", "\"calls\":2")).unwrap();
    std::fs::copy(dir.join("a/activemask.b32.bin"), &bin).unwrap();
    refused(&["merge-runs", "a", "b", "--out", "out"], "with different runs.json");
    // Other engines, unless the merged one is named.
    refused(&["merge-runs", "a", "c", "--out", "out"], "the folders name different engines: \"fake\" (a), \"other\" (c); name the merged one with --engine");
    let o = ptxvec_in(dir, &["merge-runs", "a", "c", "--engine", "fake and other", "--out", "named"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let named = ptxvec_generator::device::engine::RunsFile::read(&dir.join("named")).unwrap().unwrap();
    assert_eq!(named.engine, "fake and other");
    assert_eq!(named.runs.len(), 5);
    // A folder without runs.json; one whose buffer is missing; a run of no launch.
    std::fs::create_dir(dir.join("empty")).unwrap();
    refused(&["merge-runs", "a", "empty", "--out", "out"], "empty: no runs.json (expected a folder `ptxvec run-engine --out` wrote)");
    std::fs::remove_file(dir.join("c/atom.and.b32.shared.bin")).unwrap();
    refused(&["merge-runs", "c", "--out", "out"], "lists run atom.and.b32.shared.bin as run, but the folder has no atom.and.b32.shared.bin or atom.and.b32.shared.bin.gz");
    std::fs::write(dir.join("a/runs.json"), runs.replace("\"run\":\"activemask.b32.bin\"", "\"run\":\"no.such.bin\"")).unwrap();
    refused(&["merge-runs", "a", "--out", "out"], "run no.such.bin is not one of");
    let o = ptxvec_in(dir, &["merge-runs", "--out", "out"]);
    assert_eq!(o.status.code(), Some(2));
}
