//! `ptxvec litmus-compiled`: the compiled litmus tests' reports are what the
//! committed modules give now, every finding is in the errata ledger (and every
//! ledgered one still found), and the published C++-to-PTX mapping forbids, under
//! the oracle, what the C++ rules forbid.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use ptxvec_generator::compiled_litmus::{self, cxx, manifest, report};
use ptxvec_oracle::model;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tests() -> manifest::Manifest {
    manifest::load(&root().join("clients/compilers/litmus.json")).unwrap()
}

/// Every compiler's report, recomputed from the committed modules once for the
/// tests that read it.
fn reports() -> &'static [report::Report] {
    static REPORTS: std::sync::OnceLock<Vec<report::Report>> = std::sync::OnceLock::new();
    REPORTS.get_or_init(|| {
        let m = tests();
        compiled_litmus::compiler_folders(&root().join("vectors/clients"))
            .unwrap()
            .iter()
            .filter_map(|d| report::build(&m, d).unwrap())
            .collect()
    })
}

/// Each compiler's litmus.json is what reading its modules back gives now.
#[test]
fn the_reports_are_current() {
    let rs = reports();
    let names: Vec<&str> = rs.iter().map(|r| r.compiler.as_str()).collect();
    assert_eq!(names, ["llvm-19.1.7", "llvm-22.1.0", "nvcc-13.5.37"]);
    for r in rs {
        let path = root().join("vectors/clients").join(&r.compiler).join(compiled_litmus::REPORT);
        let want = std::fs::read_to_string(&path).unwrap();
        assert!(r.to_json() == want, "{} is stale: rerun `ptxvec litmus-compiled`", path.display());
    }
}

/// Each compiler's report holds every test of the manifest written in its language,
/// in manifest order (a test a compiler's manifest.json lacks would otherwise go
/// unjudged unseen): the LLVM folders every test, nvcc those with a CUDA C++ source,
/// which are all but the cluster-scope ones (each saying why it has none).
#[test]
fn every_test_is_compiled_by_every_compiler_of_its_language() {
    let m = tests();
    for r in reports() {
        let llvm = r.compiler.starts_with("llvm-");
        let want: Vec<&str> = m.tests.iter().filter(|t| llvm || t.sources.cuda.is_some()).map(|t| t.id.as_str()).collect();
        let got: Vec<&str> = r.tests.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(got, want, "{}", r.compiler);
    }
    for t in &m.tests {
        let cluster = t.scope == manifest::ThreadScope::Cluster;
        assert_eq!(t.sources.cuda.is_none(), cluster, "{}", t.id);
        assert_eq!(t.why_no_cuda.as_deref().is_some_and(|w| w.contains("thread_scope") && w.contains("scopes.h")), cluster, "{}", t.id);
    }
}

/// Every compiled test whose PTX allows what the source forbids is listed in
/// spec/errata.yaml (kind compiler_vs_model), and every listed one is found.
#[test]
fn every_finding_is_ledgered_and_every_entry_still_found() {
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let ledgered: BTreeSet<String> = compiled_litmus::ledgered(&spec).into_iter().map(|(k, _)| k).collect();
    let found: BTreeSet<String> = reports()
        .iter()
        .flat_map(|r| r.findings().into_iter().map(move |f| format!("litmus:{}:{f}", r.compiler)))
        .collect();
    let missing: Vec<_> = found.difference(&ledgered).collect();
    let stale: Vec<_> = ledgered.difference(&found).collect();
    assert!(missing.is_empty(), "findings not in spec/errata.yaml: {missing:?}");
    assert!(stale.is_empty(), "ledgered but no longer found: {stale:?}");
}

/// The known fact: LLVM 19 and 22 lower a seq_cst atomicrmw to a bare
/// `atom` (relaxed, .gpu, no fence), so store buffering with seq_cst
/// read-modify-writes, forbidden in C++, is allowed by what they emit, at every
/// scope (cluster scope too: a CTA each in one cluster, which `.gpu` includes);
/// nvcc's `fence.sc; atom.acq_rel` (the published mapping) forbids it. nvcc has no
/// cluster-scope test (CUDA C++ cannot write one).
#[test]
fn llvm_drops_seq_cst_on_atomicrmw() {
    let rs = reports();
    for scope in ["block", "cluster", "device", "system"] {
        let id = format!("SB+rmws.sc.{scope}");
        for r in rs {
            let llvm = r.compiler.starts_with("llvm-");
            assert_eq!(r.findings().contains(&id.as_str()), llvm, "{} {id}", r.compiler);
            assert_eq!(r.tests.iter().any(|t| t.id == id), llvm || scope != "cluster", "{} {id}", r.compiler);
        }
    }
}

/// A test of one compiler's report.
fn reported<'a>(compiler: &str, id: &str) -> &'a report::TestReport {
    let r = reports().iter().find(|r| r.compiler == compiler).unwrap();
    r.tests.iter().find(|t| t.id == id).unwrap_or_else(|| panic!("{compiler}: no test {id}"))
}

/// The allowed outcomes of a judged test, and whether it is a finding.
fn judged(t: &report::TestReport) -> (Vec<&str>, bool) {
    match &t.status {
        report::Status::Judged { allowed, verdict } => (allowed.iter().map(String::as_str).collect(), matches!(verdict, Some(Ok(())))),
        other => panic!("{}: not judged: {other:?}", t.id),
    }
}

/// Message passing, release/acquire, block scope, the reader in another CTA: the
/// example of libcu++'s "Memory model", "Data Races" (a `thread_scope_block` store
/// in block 0, its load in block 1: "introducing a data-race", undefined behavior),
/// so the source forbids nothing. The PTX answer by hand: nvcc and LLVM 22 write
/// `st.release.cta` / `ld.acquire.cta` (or `.cta` fences around relaxed accesses);
/// a `.cta` operation's scope does not include a thread of another CTA (PTX ISA,
/// "Scope", Table 21), so the two are not morally strong, no release pattern
/// synchronizes with the acquire pattern, and each load may read 0 or 1: all four
/// outcomes, none a finding. Within one CTA the same code forbids 1:r0=1 1:r1=0.
/// At device scope with a GPU each (`.gpu` does not include another device's
/// threads) the answer is the same.
#[test]
fn outside_its_scope_the_compiled_ptx_allows_every_outcome() {
    let all = ["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=0", "1:r0=1 1:r1=1"];
    for compiler in ["nvcc-13.5.37", "llvm-22.1.0"] {
        for id in ["MP.rel_acq.block.across_ctas", "MP.rel_acq.device.across_gpus"] {
            let t = reported(compiler, id);
            assert!(t.forbidden.is_none(), "{compiler} {id}");
            assert_eq!(judged(t), (all.to_vec(), false), "{compiler} {id}");
        }
        let within = judged(reported(compiler, "MP.rel_acq.block")).0;
        assert_eq!(within, ["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=1"], "{compiler}");
    }
}

/// syncscope("cluster"): LLVM 22 maps it to `.cluster` (NVPTXScopes: "cluster" is
/// NVPTX::Scope::Cluster), so message passing release/acquire between two CTAs of
/// one cluster is `st.release.cluster` read by `ld.acquire.cluster`: each scope
/// includes the other thread (Table 21: "the same cluster"), morally strong, the
/// release synchronizes with the acquire, and the data load cannot read 0 after
/// the flag's 1 (Causality), which the source forbids too: three outcomes, no
/// finding. The same in two clusters: not morally strong, all four, and the
/// source (outside its scope) forbids nothing. With the flag an `atomicrmw xchg`
/// (MP+rmw), LLVM 22 writes a bare `atom.global.exch` (relaxed, `.gpu`): no
/// release, so the forbidden outcome is allowed, a finding (as at every scope).
#[test]
fn cluster_scope_is_dot_cluster_in_llvm_22() {
    let t = reported("llvm-22.1.0", "MP.rel_acq.cluster");
    assert_eq!(t.forbidden.as_ref().map(|f| report::cond_text(&f.cond)).as_deref(), Some("1:r0=1 1:r1=0"));
    let flag_store = t.threads[0].last().unwrap();
    let flag_load = &t.threads[1][0];
    assert!(flag_store.ends_with("st.release.cluster [flag], 1"), "{flag_store}");
    assert!(flag_load.ends_with("ld.acquire.cluster r0 <- [flag]"), "{flag_load}");
    assert_eq!(judged(t), (vec!["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=1"], false));
    let across = reported("llvm-22.1.0", "MP.rel_acq.cluster.across_clusters");
    assert!(across.forbidden.is_none());
    assert_eq!(judged(across), (vec!["1:r0=0 1:r1=0", "1:r0=0 1:r1=1", "1:r0=1 1:r1=0", "1:r0=1 1:r1=1"], false));
    assert!(judged(reported("llvm-22.1.0", "MP+rmw.rel_acq.cluster")).1);
}

/// The C++ rules, held to the standard's classic results by hand (the shape at
/// these orders is forbidden or not), and to the oracle on the published mapping
/// (proven sound by Lustig et al.: the mapped PTX forbids what C++ forbids).
#[test]
fn the_mapping_forbids_what_the_source_forbids() {
    // (test id prefix, forbidden by C++)
    let by_hand = [
        ("MP.rlx.", false),
        ("MP.rel_acq.", true),
        ("MP.rel_rlx.", false),
        ("MP.rlx_acq.", false),
        ("MP.sc.", true),
        ("MP+fences.rel_acq.", true),
        ("MP+fences.sc.", true),
        ("MP+rmw.rel_acq.", true),
        ("MP+rmws.rel_acq.", true),
        ("SB.rel_acq.", false),
        ("SB.sc.", true),
        ("SB+fences.acq_rel.", false),
        ("SB+fences.sc.", true),
        ("SB+rmws.sc.", true),
        ("LB.rlx.", false),
        ("LB.rel_acq.", true),
        ("IRIW.rel_acq.", false),
        ("IRIW.sc.", true),
        ("WRC.rlx.", false),
        ("WRC.rel_acq.", true),
        ("CoRR.rlx.", true),
        ("2+2W.rlx.", false),
        ("2+2W.rel.", false),
        ("2+2W.sc.", true),
    ];
    let m = tests();
    for (prefix, forbids) in by_hand {
        let hits: Vec<_> = m.tests.iter().filter(|t| t.id.starts_with(prefix)).collect();
        let (across, within): (Vec<_>, Vec<_>) = hits.into_iter().partition(|t| t.id.contains(".across_"));
        assert_eq!(within.len(), 4, "{prefix}: one per scope (block, cluster, device, system)");
        assert_eq!(across.len(), 3, "{prefix}: across CTAs, clusters and GPUs");
        for t in within {
            assert_eq!(cxx::forbidden(t).is_some(), forbids, "{}", t.id);
        }
        for t in across {
            assert_eq!(cxx::forbidden(t), None, "{}: outside its scope", t.id);
        }
    }
    for t in &m.tests {
        assert_eq!(cxx::placement_within(t), !t.id.contains(".across_"), "{}: threads outside the scope", t.id);
        let Some(f) = cxx::forbidden(t) else { continue };
        let verdict = model::judge(&cxx::abi_litmus(t)).unwrap();
        let names = cxx::abi_names(t);
        assert!(
            report::answer(t, &names, &verdict, &f.cond).is_err(),
            "{}: the published mapping allows {}, which C++ forbids",
            t.id,
            report::cond_text(&f.cond)
        );
    }
}

/// Bad input exits 2 with the file named; no report is written.
#[test]
fn bad_input_exits_2() {
    let dir = std::env::temp_dir().join(format!("ptxvec-litmus-compiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("litmus.json");
    std::fs::write(&bad, "{\"generated\": 1,\n").unwrap();
    let run = |args: &[&std::ffi::OsStr]| Command::new(env!("CARGO_BIN_EXE_ptxvec")).args(args).output().unwrap();
    let o = run(&["litmus-compiled".as_ref(), root().join("vectors/clients").as_os_str(), "--tests".as_ref(), bad.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("litmus.json:") && err.contains("not a litmus manifest"), "{err}");
    let o = run(&["litmus-compiled".as_ref(), dir.join("nowhere").as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let real = root().join("clients/compilers/litmus.json");
    let o = run(&["litmus-compiled".as_ref(), dir.as_os_str(), "--tests".as_ref(), real.as_os_str()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no compiler folder"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The scoped model forbids nothing for threads outside the scope: the same test
/// at block scope with its threads in two CTAs.
#[test]
fn outside_its_scope_the_source_forbids_nothing() {
    let m = tests();
    let mut t = m.tests.iter().find(|t| t.id == "MP.rel_acq.block").unwrap().clone();
    assert!(cxx::forbidden(&t).is_some());
    t.threads[1].place.cluster = 1;
    assert!(!cxx::placement_within(&t));
    assert_eq!(cxx::forbidden(&t), None);
}

/// `--check` on the committed reports and ledger passes.
#[test]
fn check_mode_passes_on_the_committed_reports() {
    let o = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .args(["--spec", "spec", "litmus-compiled", "vectors/clients", "--check"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stdout).contains("llvm-22.1.0: 224 tests, 224 judged, 24 findings"));
}
