//! The arguments the GPU runners share (`silicon`, `silicon-sweep`,
//! `silicon-sweep-wide`, `silicon-probe`), flattened into each subcommand's own:
//! where the evidence goes, where the modules go instead of the device, and the
//! hidden flag each runner starts its children with ([`super::child`]).
//!
//! `run-engine` takes none of them: its child is the runner program, whose modules
//! `ptxvec emit-ptx --variant` writes, and its `--out` holds raw buffers and
//! `runs.json` rather than evidence. It shares the variant selection with
//! `silicon` (`selfcheck::Selection`).

use std::ffi::OsString;
use std::path::PathBuf;

/// What every GPU runner takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RunnerArgs {
    /// The folder the evidence goes to (vectors/silicon/README.md names each
    /// runner's file).
    #[arg(long)]
    pub out: PathBuf,
    /// Write every PTX module the run would load to this folder, and run nothing
    /// (no GPU needed).
    #[arg(long)]
    pub emit_ptx: Option<PathBuf>,
    /// Run one job (a variant, a sweep) in this process and print its answer as one
    /// JSON line: what each child does.
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

impl RunnerArgs {
    /// The arguments that start `command`'s child for the job `name`:
    /// `COMMAND --out OUT --child NAME`; the caller adds what else it needs.
    pub fn child_argv(&self, command: &str, name: &str) -> Vec<OsString> {
        vec![
            command.into(),
            "--out".into(),
            self.out.clone().into(),
            "--child".into(),
            name.into(),
        ]
    }
}
