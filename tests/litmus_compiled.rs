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
/// scope; nvcc's `fence.sc; atom.acq_rel` (the published mapping) forbids it.
#[test]
fn llvm_drops_seq_cst_on_atomicrmw() {
    let rs = reports();
    for scope in ["block", "device", "system"] {
        let id = format!("SB+rmws.sc.{scope}");
        for r in rs {
            let llvm = r.compiler.starts_with("llvm-");
            assert_eq!(r.findings().contains(&id.as_str()), llvm, "{} {id}", r.compiler);
        }
    }
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
        assert_eq!(hits.len(), 3, "{prefix}: one per scope");
        for t in hits {
            assert_eq!(cxx::forbidden(t).is_some(), forbids, "{}", t.id);
        }
    }
    for t in &m.tests {
        assert!(cxx::placement_within(t), "{}: threads outside the scope", t.id);
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
    assert!(String::from_utf8_lossy(&o.stdout).contains("llvm-22.1.0: 96 tests, 96 judged, 18 findings"));
}
