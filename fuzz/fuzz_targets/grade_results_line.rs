//! A `ptxvec grade` results file (byte 0 picks syntax or semantic results, and
//! whether and how they are graded), read and graded against a sample of the
//! repository's vectors (`ptxvec_generator::cmd::fuzz::GradeSample`): the body is
//! `ptxvec_generator::cmd::fuzz::grade_results_line`, which the tests also replay over
//! the corpus (`tests/fuzz_corpora.rs`). No panic, and each unit well under a second.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ptxvec_generator::cmd::fuzz::GradeSample;

fn sample() -> &'static GradeSample {
    static SAMPLE: OnceLock<GradeSample> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let vectors = ptxvec_fuzz::root().join("vectors");
        GradeSample::load(ptxvec_fuzz::spec(), &vectors).unwrap_or_else(|e| {
            eprintln!("ptxvec-fuzz: {}: {e}", vectors.display());
            std::process::exit(3)
        })
    })
}

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        sample();
    },
    |data: &[u8]| {
        let sample = sample();
        ptxvec_fuzz::timed(data, || ptxvec_generator::cmd::fuzz::grade_results_line(sample, data));
    }
);
