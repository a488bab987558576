//! ptxvec-generator: joins the spec and the oracle into conformance vectors, and
//! holds the `ptxvec` command line.
// Tests unwrap freely: a panic there is the failure report.
#![cfg_attr(test, allow(clippy::unwrap_used))]

// The stages, lowest first: each uses only those above it in this list
// (tests/layering.rs holds the code to it, and to no cycle at any depth).
pub mod error;
pub mod io;
pub mod syntax;
pub mod record;
pub mod family;
pub mod litmus;
pub mod device;
pub mod sweep;
pub mod vectors;
pub mod lint;
pub mod compiled_litmus;
pub mod grade;
pub mod ptxas;
pub mod coverage;
pub mod cmd;

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
