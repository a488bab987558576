//! The parent side that the sweep subcommands share (`silicon-sweep`,
//! `silicon-sweep-wide`): their arguments (the runners' [`RunnerArgs`] and
//! `--sweep`), and the one loop that writes the PTX
//! modules, answers as a child, or runs each chosen sweep in a child process of its
//! own and rewrites the evidence file after each. What a sweep is, how it runs on
//! the device and how its file reads are each subcommand's ([`Kind`]).

use serde::de::DeserializeOwned;
use serde::Serialize;

pub mod bits16;
pub mod wide;

use crate::device::silicon::args::RunnerArgs;
use crate::device::silicon::device::Device;
use crate::device::silicon::header::Header;
use crate::sweep::{Catalog, Swept};
use crate::error::{Error, Outcome, Result};
use crate::io::files::write_atomic;
use crate::io::output::note;
use crate::io::progress::Progress;

/// Threads per block of every sweep kernel (the bulk reduce moves one block's
/// elements at once).
pub const THREADS: u32 = 1024;
/// Rows re-run raw per sweep when digests differ.
pub const MAX_RAW_ROWS: usize = 16;
/// Mismatching pairs recorded per sweep.
pub const MAX_PAIRS: usize = 64;

/// Arguments of a sweep subcommand.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the evidence or the modules go; the child's sweep.
    #[command(flatten)]
    pub runner: RunnerArgs,
    /// Only these sweeps (by instruction name, e.g. `red.global.add.f32`).
    #[arg(long = "sweep")]
    pub sweeps: Vec<String>,
}

/// What a sweep subcommand gives the loop.
pub trait Kind {
    /// The subcommand's catalog of sweeps.
    type Catalog: Catalog;
    /// What a child reports for one sweep.
    type Result: Serialize + DeserializeOwned;
    /// The subcommand, as the children are started with it.
    const COMMAND: &'static str;
    /// The evidence file, in `--out`.
    const FILE: &'static str;
    /// How long one sweep's child may run.
    const CHILD_TIMEOUT: std::time::Duration;

    /// A sweep's PTX module.
    fn module(s: &Swept<Self::Catalog>) -> String;
    /// Runs one sweep on the device and compares it with the oracle (a child's
    /// work).
    fn one(s: &'static Swept<Self::Catalog>) -> Result<Self::Result>;
    /// Whether a result differs from the oracle.
    fn differs(r: &Self::Result) -> bool;
    /// The evidence file's `format`.
    const FORMAT: &'static str;
    /// The evidence file's text.
    fn render(header: &Header, records: &[Self::Result]) -> String;
}

/// Runs a sweep subcommand: findings when a sweep failed or differs from the
/// oracle.
pub fn run<K: Kind>(args: &Args) -> Result<Outcome> {
    let sweeps = select::<K>(&args.sweeps)?;
    let runner = &args.runner;
    if let Some(dir) = &runner.emit_ptx {
        for s in &sweeps {
            let path = dir.join(format!("{}.ptx", s.name.replace("::", "_")));
            write_atomic(&path, K::module(s).as_bytes()).map_err(|e| Error::io(&path, e))?;
        }
        return Ok(Outcome::Pass);
    }
    if let Some(name) = &runner.child {
        let r = select::<K>(std::slice::from_ref(name)).and_then(|s| K::one(s[0]));
        return crate::device::silicon::child::answer(r, &mut std::io::stdout().lock());
    }
    // Fail early, and with one clear message, where there is no GPU.
    let dev = Device::open()?;
    let info = dev.info()?;
    drop(dev);
    note(format_args!("{}: {info}", K::COMMAND));
    let header = Header::of(&info, K::FORMAT);
    let mut records = Vec::new();
    let mut failed = false;
    let path = runner.out.join(K::FILE);
    let progress = Progress::new(sweeps.len() as u64, "sweeps");
    for s in sweeps {
        let argv = runner.child_argv(K::COMMAND, s.name);
        match crate::device::silicon::child::run::<K::Result>(&argv, K::CHILD_TIMEOUT) {
            Ok(r) => {
                failed |= K::differs(&r);
                records.push(r);
            }
            Err(e) => {
                progress.suspend(|| note(format_args!("{}: {e}", s.name)));
                failed = true;
            }
        }
        // Rewritten after every sweep: a run cut short keeps what it finished.
        let text = K::render(&header, &records);
        write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
        progress.inc(1);
    }
    progress.finish();
    note(format_args!(
        "{}: {} sweeps -> {}",
        K::COMMAND,
        records.len(),
        path.display()
    ));
    Ok(Outcome::findings_if(failed))
}

/// The sweeps named, or every one when none is.
fn select<K: Kind>(names: &[String]) -> Result<Vec<&'static Swept<K::Catalog>>> {
    let all = <K::Catalog as Catalog>::ALL;
    if names.is_empty() {
        return Ok(all.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            Swept::<K::Catalog>::find(n).ok_or_else(|| {
                let known: Vec<&str> = all.iter().map(|s| s.name).collect();
                Error::Usage(format!(
                    "unknown {} {n:?} (known: {})",
                    <K::Catalog as Catalog>::NOUN,
                    known.join(", ")
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use super::{bits16 as sweep, wide};
    use crate::sweep::wide::WideSweep;
    use crate::sweep::Sweep;

    #[test]
    fn unknown_sweep_is_a_usage_error() {
        let e = select::<sweep::Command>(&["red.global.add.f32".to_owned()]).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown sweep \"red.global.add.f32\""),
            "{e}"
        );
        assert_eq!(select::<sweep::Command>(&[]).unwrap().len(), Sweep::ALL.len());
        let e = select::<wide::Command>(&["red.global.add.f16".to_owned()]).unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown wide sweep \"red.global.add.f16\""),
            "{e}"
        );
        assert_eq!(select::<wide::Command>(&[]).unwrap().len(), WideSweep::ALL.len());
    }
}
