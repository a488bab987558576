//! Argument parsing and dispatch. Errors are printed once, here, at the edge;
//! input and usage errors exit with 2.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Turns the PTX ISA's syntax tables into conformance test vectors.
#[derive(Debug, Parser)]
#[command(name = "ptxvec", version, about)]
pub struct Cli {
    /// The spec folder (instructions/, targets.yaml, errata.yaml, seeds/).
    #[arg(long, global = true, default_value = "spec")]
    pub spec: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List what the spec encodes: each instruction, its forms, qualifier and spelling counts.
    Spec,
}

/// Exit status for a failure caused by the input or the command line.
pub const EXIT_INPUT: u8 = 2;

/// Parses the command line, runs it, and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    match cli.command {
        Command::Spec => {
            let spec = ptxvec_spec::Spec::load(&cli.spec).map_err(|e| e.to_string())?;
            print!("{}", crate::spec_summary::render(&spec));
            Ok(())
        }
    }
}
