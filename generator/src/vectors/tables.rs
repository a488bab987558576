//! The data files beside the vectors that say what their fields mean, so that a
//! consumer needs neither the spec nor this code: vectors/rules.json (every rule a
//! syntax case's `rule` names, and how case ids are built) and vectors/targets.json
//! (every target a `requires` names, and the targets whose modules meet it).

use std::path::Path;

use serde::Serialize;

use ptxvec_spec::target::Variant;
use ptxvec_spec::Spec;

use crate::error::{Error, Result};
use crate::io::files::write_atomic;
use crate::syntax::rules;

/// One target, as vectors/targets.json lists it.
#[derive(Debug, Clone, Serialize)]
pub struct TargetEntry {
    /// `sm_90`, `sm_90a`, `sm_100f`.
    pub target: String,
    /// The first PTX ISA version whose `.version` may name it.
    pub ptx: String,
    /// `plain` (that architecture or later), `arch` (that target only) or
    /// `family` (that family's `a` and `f` targets from that architecture on).
    pub variant: &'static str,
    /// The architecture family, for a target that has one (`sm_10x`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Every target whose module may use what needs this one: a `requires`
    /// entry naming it is met by a module of any of these targets (and a
    /// `.version` at least the entry's `ptx`).
    pub met_by: Vec<String>,
}

/// The file.
#[derive(Debug, Clone, Serialize)]
pub struct TargetsFile {
    /// What the file is.
    pub about: &'static str,
    /// Every target the spec knows, in its order.
    pub targets: Vec<TargetEntry>,
}

/// Every target of the spec, with the targets that meet it.
pub fn targets(spec: &Spec) -> TargetsFile {
    let model = &spec.targets;
    let all: Vec<_> = model.targets.iter().map(|t| t.name).collect();
    TargetsFile {
        about: "Every .target the spec knows: the PTX ISA version that introduced it, its kind, its family, and every target whose module meets a `requires` entry naming it. Written by `ptxvec generate` from spec/targets.yaml; do not edit.",
        targets: model
            .targets
            .iter()
            .map(|t| TargetEntry {
                target: t.name.to_string(),
                ptx: t.ptx.to_string(),
                variant: match t.name.variant {
                    Variant::Plain => "plain",
                    Variant::Arch => "arch",
                    Variant::Family => "family",
                },
                family: model.family_of(t.name).map(|f| f.family.clone()),
                met_by: all
                    .iter()
                    .filter(|have| model.satisfies(**have, t.name))
                    .map(ToString::to_string)
                    .collect(),
            })
            .collect(),
    }
}

/// `rules.json` and `targets.json`: each file's name and text.
pub fn files(spec: &Spec) -> [(&'static str, String); 2] {
    // Both hold strings and lists only: serde_json cannot fail on them.
    let rules = serde_json::to_string_pretty(&rules::catalog(spec)).unwrap_or_default() + "\n";
    let targets = serde_json::to_string_pretty(&targets(spec)).unwrap_or_default() + "\n";
    [("rules.json", rules), ("targets.json", targets)]
}

/// Writes `out/rules.json` and `out/targets.json`.
pub fn write(spec: &Spec, out: &Path) -> Result<()> {
    for (name, text) in files(spec) {
        let path = out.join(name);
        write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}
