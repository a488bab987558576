//! ptxvec-generator: joins the spec and the oracle into conformance vectors, and
//! holds the `ptxvec` command line.

pub mod cli;
pub mod spec_summary;
