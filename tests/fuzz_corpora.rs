//! The fuzz corpora replayed on stable Rust: every committed unit of
//! `fuzz/corpus/<target>/` through its target's body (`ptxvec_generator::cmd::fuzz`,
//! which the cargo-fuzz targets wrap), so that CI holds every corpus without a
//! nightly toolchain (`bash fuzz/smoke.sh` and the long runs stay the
//! maintainer's: fuzz/README.md). Every unit runs even after a failure; the
//! failures are listed by file: a panic (in the differential targets, a fast path
//! that answers otherwise than the definition) and, in release, a unit over the
//! second that libFuzzer's `-timeout=1` allows.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ptxvec_generator::cmd::fuzz::{self, GradeSample, TARGETS};
use ptxvec_spec::Spec;

use crate::spec_root;

/// A unit's time limit in release, as libFuzzer's `-timeout=1` in the long runs.
/// The slowest committed unit takes under 100 ms there (fuzz/README.md); a debug
/// build is not held to it.
const UNIT_LIMIT: Duration = Duration::from_secs(1);

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::load(&spec_root()).unwrap())
}

/// The file names in `dir` (of files, or of folders when `folders`), sorted.
fn names(dir: &Path, folders: bool) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir() == folders)
        .map(|e| e.file_name().into_string().unwrap())
        .collect()
}

/// Runs `body` on every unit of `target`'s corpus and fails listing every unit
/// that panicked or ran over [`UNIT_LIMIT`].
fn replay(target: &str, body: impl Fn(&[u8])) {
    let dir = fuzz_dir().join("corpus").join(target);
    let units = names(&dir, false);
    assert!(!units.is_empty(), "{}: no units", dir.display());
    let mut failed = Vec::new();
    for name in &units {
        let data = std::fs::read(dir.join(name)).unwrap();
        let start = Instant::now();
        // The body is read-only over what it shares (the spec, the grade sample):
        // a unit that panics leaves nothing half-changed for the next.
        let outcome = catch_unwind(AssertUnwindSafe(|| body(&data)));
        let took = start.elapsed();
        match outcome {
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                // The panic hook has printed the whole message above.
                let first = message.lines().next().unwrap_or_default();
                failed.push(format!("fuzz/corpus/{target}/{name}: panicked: {first}"));
            }
            Ok(()) if took > UNIT_LIMIT && !cfg!(debug_assertions) => failed.push(format!(
                "fuzz/corpus/{target}/{name}: {} ms, over the limit of {} ms",
                took.as_millis(),
                UNIT_LIMIT.as_millis()
            )),
            Ok(()) => {}
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} units of {target} failed:\n{}",
        failed.len(),
        units.len(),
        failed.join("\n")
    );
}

#[test]
fn every_fuzz_target_has_a_corpus() {
    let targets: BTreeSet<String> = TARGETS.iter().map(|t| t.to_string()).collect();
    assert_eq!(
        names(&fuzz_dir().join("corpus"), true),
        targets,
        "fuzz/corpus/"
    );
    let sources: BTreeSet<String> = names(&fuzz_dir().join("fuzz_targets"), false)
        .into_iter()
        .map(|f| f.strip_suffix(".rs").unwrap_or(&f).to_owned())
        .collect();
    assert_eq!(sources, targets, "fuzz/fuzz_targets/");
}

#[test]
fn corpus_spec_loader() {
    replay("spec_loader", |data| fuzz::spec_loader(spec(), data));
}

#[test]
fn corpus_check_syntax_line() {
    replay("check_syntax_line", |data| {
        fuzz::check_syntax_line(spec(), data)
    });
}

#[test]
fn corpus_eval_record() {
    replay("eval_record", |data| fuzz::eval_record(spec(), data));
}

#[test]
fn corpus_grade_results_line() {
    let vectors = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors");
    let sample = GradeSample::load(spec(), &vectors).unwrap();
    replay("grade_results_line", |data| {
        fuzz::grade_results_line(&sample, data)
    });
}

/// `make_corpus.py` picks the ids of the corpus's graded units among the sample
/// that the target grades: the two agree on what it holds.
#[test]
fn make_corpus_samples_as_the_target_grades() {
    let script = std::fs::read_to_string(fuzz_dir().join("make_corpus.py")).unwrap();
    for (name, value) in [
        ("SYNTAX_STRIDE", GradeSample::SYNTAX_STRIDE),
        ("SEMANTIC_RECORDS", GradeSample::SEMANTIC_RECORDS),
    ] {
        let line = format!("{name} = {value}");
        assert!(
            script.lines().any(|l| l == line),
            "fuzz/make_corpus.py: no line `{line}`"
        );
    }
}
