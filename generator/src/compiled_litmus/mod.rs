//! `ptxvec litmus-compiled`: the litmus tests of clients/compilers/ (CUDA C++ with
//! `cuda::atomic_ref`, LLVM IR atomics), as each recorded compiler compiled them
//! (vectors/clients/<compiler>/modules/), read back as litmus tests of the PTX
//! memory model ([`ptx`]) and judged by the oracle (`ptxvec_oracle::model`); each
//! outcome the source language forbids ([`cxx`]) that the compiled PTX allows is a
//! finding, which the errata ledger must list (kind `compiler_vs_model`,
//! disagreement `litmus:<compiler folder>:<test id>`).
//!
//! The report, `vectors/clients/<compiler>/litmus.json`, is written for every
//! compiler folder whose manifest.json holds litmus sources; it is deterministic
//! (tests in manifest order, outcomes sorted) so that a test can recompute it.

pub mod cxx;
pub mod manifest;
pub mod ptx;
pub mod report;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::{Error, Outcome, Result};

/// The report's file name in each compiler folder.
pub const REPORT: &str = "litmus.json";

/// `ptxvec litmus-compiled`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The recorded clients' folder: each subfolder with a manifest.json is a compiler.
    #[arg(default_value = "vectors/clients")]
    pub clients: PathBuf,
    /// The litmus manifest (its sources are named relative to the folder it is in).
    #[arg(long, default_value = "clients/compilers/litmus.json")]
    pub tests: PathBuf,
    /// Write nothing; exit 1 if a report differs from what is recomputed.
    #[arg(long)]
    pub check: bool,
}

/// Runs the command: writes (or checks) each compiler's report, prints one line
/// per compiler, and exits 1 on a finding the ledger does not list (or, with
/// --check, a stale report).
pub fn run(spec: &ptxvec_spec::Spec, args: &Args, out: &mut impl std::io::Write) -> Result<Outcome> {
    let tests = manifest::load(&args.tests)?;
    let folders = compiler_folders(&args.clients)?;
    let ledgered = ledgered(spec);
    let mut bad = false;
    for dir in folders {
        let Some(rep) = report::build(&tests, &dir)? else { continue };
        let text = rep.to_json();
        let path = dir.join(REPORT);
        let mut line = format!(
            "{}: {} tests, {} judged, {} findings",
            dir.display(),
            rep.tests.len(),
            rep.judged(),
            rep.findings().len()
        );
        for f in rep.findings() {
            let key = format!("litmus:{}:{}", rep.compiler, f);
            if !ledgered.iter().any(|(k, _)| k == &key) {
                bad = true;
                line.push_str(&format!("\n  {key}: not in spec/errata.yaml"));
            }
        }
        if args.check {
            let old = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
            if old != text {
                bad = true;
                line.push_str(&format!("\n  {} is stale: rerun `ptxvec litmus-compiled`", path.display()));
            }
        } else {
            crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
        }
        writeln!(out, "{line}").map_err(crate::io::output::write_error)?;
    }
    Ok(if bad { Outcome::Findings } else { Outcome::Pass })
}

/// The ledger's litmus disagreements: (`litmus:<compiler>:<test>`, erratum id).
pub fn ledgered(spec: &ptxvec_spec::Spec) -> Vec<(String, String)> {
    spec.errata
        .errata
        .iter()
        .filter(|e| e.kind == ptxvec_spec::ErratumKind::CompilerVsModel)
        .flat_map(|e| e.disagreements.iter().map(move |d| (d.clone(), e.id.clone())))
        .collect()
}

/// The subfolders of `clients` with a manifest.json, in name order.
pub fn compiler_folders(clients: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(clients).map_err(|e| Error::io(clients, e))?;
    let mut dirs = Vec::new();
    for e in entries {
        let e = e.map_err(|e| Error::io(clients, e))?;
        let p = e.path();
        if p.join("manifest.json").is_file() {
            dirs.push(p);
        }
    }
    if dirs.is_empty() {
        return Err(Error::Usage(format!(
            "{}: no compiler folder (a subfolder with manifest.json, as vectors/clients has)",
            clients.display()
        )));
    }
    dirs.sort();
    Ok(dirs)
}

/// The findings the recorded reports hold (`litmus:<compiler>:<test>`), read from
/// each `<clients>/*/litmus.json` as committed; none where `clients` is absent.
pub fn recorded_findings(clients: &Path) -> Result<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    if !clients.is_dir() {
        return Ok(out);
    }
    for dir in compiler_folders(clients)? {
        let path = dir.join(REPORT);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&path, e)),
        };
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("{}:{}:{}: not a litmus report: {e}", path.display(), e.line(), e.column())))?;
        let compiler = doc.get("compiler").and_then(serde_json::Value::as_str).unwrap_or_default();
        for t in doc.get("tests").and_then(serde_json::Value::as_array).into_iter().flatten() {
            if t.get("finding").and_then(serde_json::Value::as_bool) == Some(true) {
                if let Some(id) = t.get("id").and_then(serde_json::Value::as_str) {
                    out.insert(format!("litmus:{compiler}:{id}"));
                }
            }
        }
    }
    Ok(out)
}
