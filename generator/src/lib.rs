//! ptxvec-generator: joins the spec and the oracle into conformance vectors, and
//! holds the `ptxvec` command line.
// Tests unwrap freely: a panic there is the failure report.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cli;
pub mod output;
pub mod spec_summary;
pub mod syntax;
pub mod check_syntax;
pub mod lint;
pub mod generate;
pub mod ptx;
pub mod ptx_module;
pub mod audit;
pub mod differential;
pub mod explore;
pub mod ptxas;
pub mod silicon;
pub mod engine;
pub mod sweep;
pub mod family;
pub mod semvec;
pub mod selfcheck;
pub mod bench;
pub mod bench_batch;
pub mod bench_lint;
pub mod record;
pub mod files;
pub mod gz;
pub mod lines;
pub mod batch;
pub mod staging;
pub mod exports;
pub mod error;
pub mod grade;
pub mod coverage;
pub mod fuzz;
pub mod progress;

/// The repository's spec, for the unit tests (the integration tests have their
/// own, `tests/main.rs`).
#[cfg(test)]
pub(crate) fn repo_spec() -> ptxvec_spec::Spec {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
    match ptxvec_spec::Spec::load(&root) {
        Ok(spec) => spec,
        Err(e) => panic!("{}: {e}", root.display()),
    }
}
