//! ptxvec-oracle: what the instructions compute, as pure functions on raw bit
//! patterns. No I/O, no YAML, no knowledge of files: the generator joins this crate
//! with the spec.
#![forbid(unsafe_code)]
// Tests unwrap freely: a panic there is the failure report.
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod barrier;
pub mod float;
pub mod int;
pub mod memory;
pub mod model;
pub mod profile;
pub mod shard;
pub mod warp;
