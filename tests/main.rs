//! ptxvec's integration tests: one binary, one module per concern.

use std::path::PathBuf;

mod seed_text;
mod spec_presence;

/// The repository's spec/ folder.
pub fn spec_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec")
}
mod cli;
mod ptxas_targets;
mod spec_errors;
mod target_model;
