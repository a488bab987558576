//! The subcommands' edges: the command line (`cli`), and the subcommands that are
//! no stage of their own (`check_syntax`, `bench`, `spec_summary`, and the fuzz
//! targets' bodies, `fuzz`).

pub mod cli;
pub mod check_syntax;
pub mod bench;
pub mod spec_summary;
pub mod fuzz;
