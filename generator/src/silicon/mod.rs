//! `ptxvec silicon-probe`: runs the probe catalog on a GPU and records what the
//! silicon did, as evidence files that a machine without a GPU can replay against
//! the oracle. Nothing here computes an expected value.
//!
//! Each family runs in a child process of its own: a kernel that faults leaves the
//! CUDA context unusable, and that must not cost the other families.

pub mod catalog;
pub mod evidence;
pub mod gpu;
pub mod probes;
pub mod replay;
pub mod vectors;
pub mod sweep;

use std::path::{Path, PathBuf};
use std::process::Command;

use evidence::{Header, Record, FORMAT};
use gpu::Gpu;
use probes::Family;

/// Arguments of `ptxvec silicon-probe`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder the evidence files go to (one `<family>.jsonl` each).
    #[arg(long)]
    pub out: PathBuf,
    /// Only these families (red, red.vector, cp.reduce.async.bulk, shfl.sync,
    /// vote.sync, match.sync, redux.sync, activemask).
    #[arg(long = "family")]
    pub families: Vec<String>,
    /// Run the families in this process rather than one child process each.
    #[arg(long)]
    pub in_process: bool,
    /// Write each probe's PTX module to this folder and run nothing.
    #[arg(long)]
    pub emit_ptx: Option<PathBuf>,
}

/// Exit status when the device ran but some probe failed.
const EXIT_PROBE_FAILED: u8 = 1;

/// Runs the subcommand. `Err` is a usage or environment error (exit 2).
pub fn run(args: &Args) -> Result<u8, String> {
    let families = select(&args.families)?;
    if let Some(dir) = &args.emit_ptx {
        return emit(dir, &families).map(|()| 0);
    }
    // Fail early, and with one clear message, where there is no GPU.
    let gpu = Gpu::open().map_err(|e| format!("silicon-probe: {e}"))?;
    if args.in_process || families.len() == 1 {
        return in_process(&gpu, &args.out, &families);
    }
    drop(gpu);
    let exe = std::env::current_exe()
        .map_err(|e| format!("silicon-probe: cannot find own binary: {e}"))?;
    let mut worst = 0;
    for f in families {
        let status = Command::new(&exe)
            .arg("silicon-probe")
            .arg("--out")
            .arg(&args.out)
            .args(["--family", f.name()])
            .status()
            .map_err(|e| format!("silicon-probe: cannot start {}: {e}", exe.display()))?;
        if !status.success() {
            eprintln!("{}: child exited with {status}", f.name());
            worst = EXIT_PROBE_FAILED;
        }
    }
    Ok(worst)
}

fn select(names: &[String]) -> Result<Vec<Family>, String> {
    if names.is_empty() {
        return Ok(Family::ALL.to_vec());
    }
    let mut out = Vec::new();
    for n in names {
        let f = Family::parse(n).ok_or_else(|| {
            let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            format!(
                "silicon-probe: unknown family {n:?} (known: {})",
                known.join(", ")
            )
        })?;
        out.push(f);
    }
    Ok(out)
}

fn emit(dir: &Path, families: &[Family]) -> Result<(), String> {
    for f in families {
        for (i, p) in probes::of(*f).iter().enumerate() {
            let name = format!("{}.{i:02}.ptx", f.name());
            evidence::write_atomic(dir, &name, p.module.as_bytes()).map_err(|e| {
                format!("silicon-probe: writing {}: {e}", dir.join(&name).display())
            })?;
        }
    }
    Ok(())
}

fn in_process(gpu: &Gpu, out: &Path, families: &[Family]) -> Result<u8, String> {
    let info = gpu.info().map_err(|e| format!("silicon-probe: {e}"))?;
    eprintln!("silicon-probe: {info}");
    let mut code = 0;
    for &f in families {
        let header = Header {
            device: info.name.clone(),
            cc: info.cc_text(),
            driver: info.driver.clone(),
            cuda_driver_api: info.driver_api,
            family: f.name().to_owned(),
            format: FORMAT.to_owned(),
            ptx: probes::PTX_VERSION.to_owned(),
            target: probes::TARGET.to_owned(),
        };
        let mut records: Vec<Record> = Vec::new();
        let mut failed = 0;
        let list = probes::of(f);
        for p in &list {
            let l = p.launch();
            match gpu.run(
                &p.module,
                probes::ENTRY,
                [&l.bufs[0], &l.bufs[1]],
                l.n,
                l.grid,
                l.block,
            ) {
                Ok(bufs) => records.extend(evidence::records(p, &bufs[l.result])),
                Err(e) => {
                    eprintln!("{}: {}: {e}", f.name(), p.text);
                    records.push(evidence::failed(p, &e.to_string()));
                    failed += 1;
                }
            }
        }
        let text =
            evidence::render(&header, &records).map_err(|e| format!("silicon-probe: {e}"))?;
        let name = format!("{}.jsonl", f.name());
        let path = evidence::write_atomic(out, &name, text.as_bytes())
            .map_err(|e| format!("silicon-probe: writing {}: {e}", out.join(&name).display()))?;
        eprintln!(
            "{}: {} probes, {} records, {failed} failed -> {}",
            f.name(),
            list.len(),
            records.len(),
            path.display()
        );
        if failed > 0 {
            code = EXIT_PROBE_FAILED;
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        not(ptxas),
        ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
    )]
    fn every_probe_kernel_assembles_with_ptxas() {
        let ptxas = crate::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap();
        let mut failures = Vec::new();
        for (i, p) in probes::all().iter().enumerate() {
            if let Err(e) = crate::ptxas::assemble_module(&ptxas, probes::TARGET, &p.module, dir.path(), &i.to_string()) {
                failures.push(format!("{}: {e}", p.text));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn unknown_family_is_a_usage_error() {
        let e = select(&["nope".to_owned()]).unwrap_err();
        assert!(e.contains("unknown family \"nope\""), "{e}");
        assert_eq!(select(&[]).unwrap(), Family::ALL.to_vec());
    }
}
