//! ptxvec-generator: joins the spec and the oracle into conformance vectors, and
//! holds the `ptxvec` command line.

pub mod cli;
pub mod spec_summary;
pub mod syntax;
pub mod check_syntax;
pub mod generate;
