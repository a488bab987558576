//! The `ptxvec` command line. Kept thin: parsing and dispatch live in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    ptxvec_generator::cli::main()
}
