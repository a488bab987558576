//! ptxvec's integration tests: one binary, one module per concern.
// Tests unwrap freely: a panic there is the failure report.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

mod seed_text;
mod support;
mod spec_presence;

/// The repository's spec/ folder.
pub fn spec_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}
mod cli;
mod lint;
mod syntax_cases;
mod syntax_check;
mod syntax_ptxas;
mod ptxas_targets;
mod spec_errors;
mod hostile;
mod target_model;
mod silicon_evidence;
mod semantics_coverage;
mod semantic_vectors;
mod silicon_vectors;
mod silicon_sweeps;
mod silicon_wide_sweeps;
mod silicon_probes;
mod silicon_litmus;
mod grade;
mod coverage;
mod batch_fast_path;
mod explore;
mod fuzz_corpora;
mod engine;
mod engine_faults;
mod engine_merge;
mod layering;
mod readme;
mod anywhere;
mod schemas;
mod litmus;
mod litmus_compiled;
mod litmus_engine;
