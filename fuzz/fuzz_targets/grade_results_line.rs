//! One line of a `ptxvec grade` results file: the first byte's bit 0 picks syntax
//! results (0) or semantic results (1), bit 1 also grades what was read against the
//! repository's vectors (syntax: bit 2 is `--parser`; semantic: bit 2 is
//! `--profile sm_90`), and the rest is the file's text, read by
//! `grade::results::parse`. No panic, and each unit well under a second.
//!
//! Grading walks every record of each variant a result names, and every case of
//! its instruction: the target grades against a sample of the vectors (every
//! `SYNTAX_STRIDE`th case, the first `SEMANTIC_RECORDS` records of each variant;
//! `make_corpus.py` picks its ids among them), so that a unit costs a line's work
//! rather than a whole file's.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use ptxvec_generator::grade::results::{parse, Line, SemanticResult, SyntaxResult};
use ptxvec_generator::grade::{semantic, syntax};
use ptxvec_generator::syntax::case::Case;
use ptxvec_oracle::profile::Profile;

/// Every how-many-th case of vectors/syntax is graded.
const SYNTAX_STRIDE: usize = 32;
/// The records of each variant graded.
const SEMANTIC_RECORDS: usize = 8;

fn syntax_vectors() -> &'static [(String, Vec<Case>)] {
    static V: OnceLock<Vec<(String, Vec<Case>)>> = OnceLock::new();
    V.get_or_init(|| {
        let mut v = syntax::load(ptxvec_fuzz::spec(), &ptxvec_fuzz::root().join("vectors"))
            .unwrap_or_else(|e| {
                eprintln!("ptxvec-fuzz: vectors/syntax: {e}");
                std::process::exit(3)
            });
        for (_, cases) in &mut v {
            *cases = cases.iter().step_by(SYNTAX_STRIDE).cloned().collect();
        }
        v
    })
}

fn semantic_vectors() -> &'static [semantic::Variant] {
    static V: OnceLock<Vec<semantic::Variant>> = OnceLock::new();
    V.get_or_init(|| {
        let mut v = semantic::load(ptxvec_fuzz::spec(), &ptxvec_fuzz::root().join("vectors"))
            .unwrap_or_else(|e| {
                eprintln!("ptxvec-fuzz: vectors/semantic: {e}");
                std::process::exit(3)
            });
        for variant in &mut v {
            variant.suite.records.truncate(SEMANTIC_RECORDS);
        }
        v
    })
}

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        syntax_vectors();
        semantic_vectors();
    },
    |data: &[u8]| {
        let Some((&select, bytes)) = data.split_first() else {
            return;
        };
        let grade = select & 2 != 0;
        let flag = select & 4 != 0;
        let mut bad = Vec::new();
        if select & 1 == 0 {
            let vectors = syntax_vectors();
            ptxvec_fuzz::timed(data, || {
                let results: Vec<Line<SyntaxResult>> = parse("r.jsonl", bytes, &mut bad);
                if grade {
                    let mode = syntax::Mode {
                        parser: flag,
                        all: false,
                    };
                    let _ = syntax::grade(vectors, &results, mode);
                }
            });
        } else {
            let variants = semantic_vectors();
            ptxvec_fuzz::timed(data, || {
                let results: Vec<Line<SemanticResult>> = parse("r.jsonl", bytes, &mut bad);
                if grade {
                    let profile = if flag { Profile::Sm90 } else { Profile::PtxIsa };
                    let mode = semantic::Mode {
                        profile,
                        all: false,
                    };
                    let _ = semantic::grade(variants, &results, mode);
                }
            });
        }
    }
);
