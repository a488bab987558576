//! The E025 probe: every `.shared::cluster` bulk reduce of the vectors, each CTA
//! reducing into its own shared memory (the self-checking module with its peer
//! being itself), once in an entry without cluster dimensions and once in one that
//! declares a cluster of one (`.reqnctapercluster 1, 1, 1`); both launched plainly
//! (`cuLaunchKernel`, no cluster attribute). Evidence: `cluster-probe.json`, one
//! row per variant: a driver fault by name, or the run judged as `ptxvec silicon`
//! judges it (`raw_sha256`, matches per profile), which the replay rebuilds.

use std::io::Write;
use std::path::Path;

use ptxvec_spec::Spec;
use serde::{Deserialize, Serialize};

use super::{attempt, unhex, Args, Attempt, Observed, Shape};
use crate::error::{Error, Result};
use crate::io::output::note;
use crate::device::selfcheck::{self, Execution, MemSpace, Suite};
use crate::device::silicon::device::DeviceInfo;
use crate::device::silicon::header::{render_list, Evidence, Header};
use crate::device::silicon::vectors::{evaluate, AGREES};

/// The evidence file's name.
pub const FILE: &str = "cluster-probe.json";
/// Its `format`.
pub const FORMAT: &str = "ptxvec-silicon-cluster-probe/1";
/// The two modules each variant runs in, in the order they run.
pub const SHAPES: [Shape; 2] = [Shape::NoClusterDims, Shape::ClusterOfOne];

/// One variant: what each module did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The entry without cluster dimensions.
    pub no_cluster_dims: Observed,
    /// The entry with `.reqnctapercluster 1, 1, 1`.
    pub reqnctapercluster_1: Observed,
    /// The variant id.
    pub variant: String,
}

/// The whole file: the device, then a row per variant.
pub type ClusterFile = Evidence<ClusterRows>;

/// The file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterRows {
    /// One row per variant, in `index.json` order.
    pub variants: Vec<Row>,
}

/// Reads the file.
pub fn parse(text: &str) -> std::result::Result<ClusterFile, serde_json::Error> {
    serde_json::from_str(text)
}

/// Every variant whose self-checking module runs the `.shared::cluster` bulk
/// reduce, in `index.json` order.
pub fn variants(spec: &Spec, vectors: &Path) -> Result<Vec<Suite>> {
    let mut out = Vec::new();
    for entry in selfcheck::index(vectors)? {
        let s = selfcheck::load(spec, &entry, vectors)?;
        if matches!(
            s.exec,
            Execution::Memory {
                space: MemSpace::BulkCluster,
                ..
            }
        ) {
            out.push(s);
        }
    }
    Ok(out)
}

/// What running `s` in `shape` did.
fn observe(
    args: &Args,
    spec_dir: Option<&Path>,
    s: &Suite,
    shape: Shape,
    module: &(String, String),
) -> Observed {
    match attempt(args, spec_dir, &s.id, shape) {
        Ok(Attempt::Faulted(f)) => Observed::Faulted(f),
        Ok(Attempt::Ran { raw, check }) => {
            let raw = unhex(&raw);
            let check = check.as_deref().map(unhex).transpose();
            match (raw, check) {
                (Ok(raw), Ok(check)) => Observed::Ran(Box::new(evaluate(
                    s,
                    &module.0,
                    &module.1,
                    &raw,
                    &check.unwrap_or_default(),
                ))),
                (Err(e), _) | (_, Err(e)) => Observed::Failed(e.to_string()),
            }
        }
        Err(why) => Observed::Failed(why),
    }
}

/// One cell of the table: the fault's name, or the records sm_90 matched.
fn cell(o: &Observed) -> String {
    match o {
        Observed::Faulted(f) => f.error.clone(),
        Observed::Ran(r) => format!(
            "ran: sm_90 {}/{}{}",
            r.matched("sm_90"),
            r.run.unwrap_or(0),
            if r.selfcheck.as_deref() == Some(AGREES) {
                ""
            } else {
                " (selfcheck disagrees)"
            }
        ),
        Observed::Failed(why) => format!("failed: {why}"),
    }
}

/// Whether a run is a finding: silicon ran it and differs from the sm_90 profile.
fn differs(o: &Observed) -> bool {
    match o {
        Observed::Ran(r) => r.mismatched("sm_90") != 0 || r.selfcheck.as_deref() != Some(AGREES),
        Observed::Faulted(_) | Observed::Failed(_) => false,
    }
}

/// Runs the probe and writes `cluster-probe.json`; `true` where silicon ran a
/// module and differs from the sm_90 profile.
pub fn run(
    args: &Args,
    spec: &Spec,
    spec_dir: Option<&Path>,
    info: &DeviceInfo,
    out: &mut dyn Write,
) -> Result<bool> {
    let mut rows = Vec::new();
    let mut findings = false;
    writeln!(
        out,
        "{:<80} {:<34} .reqnctapercluster 1, 1, 1",
        "variant", "no cluster dims"
    )
    .map_err(Error::Stdout)?;
    for s in variants(spec, &args.vectors()?)? {
        let module = s
            .module_for(info.cc)
            .ok_or_else(|| Error::Usage(format!("{}: the device cannot run it", s.id)))?;
        let [a, b] = SHAPES.map(|shape| observe(args, spec_dir, &s, shape, &module));
        writeln!(out, "{:<80} {:<34} {}", s.id, cell(&a), cell(&b)).map_err(Error::Stdout)?;
        findings |= differs(&a) || differs(&b);
        rows.push(Row {
            no_cluster_dims: a,
            reqnctapercluster_1: b,
            variant: s.id.clone(),
        });
    }
    let text = render_list(&Header::of(info, FORMAT), "variants", &rows);
    let path = args.runner.out.join(FILE);
    crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    note(format_args!(
        "silicon-probe: {} variants -> {}",
        rows.len(),
        path.display()
    ));
    Ok(findings)
}
