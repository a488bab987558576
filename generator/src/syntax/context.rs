//! Modules to judge a case in: the lowest one that meets its needs, one that ptxas
//! can assemble, and the nearest ones that do not meet them.

use ptxvec_spec::{PtxVersion, Spec, Target, TargetModel, Variant};

use crate::error::{Error, Result};

use super::needs::Need;

/// A `.version` and `.target` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Module {
    /// `.version`.
    pub ptx: PtxVersion,
    /// `.target`.
    pub target: Target,
}

impl Module {
    fn at(model: &TargetModel, ptx: PtxVersion, target: Target) -> Option<Module> {
        let introduced = model.info(target)?.ptx;
        let m = Module {
            ptx: ptx.max(introduced),
            target,
        };
        model.check_version(m.ptx, m.target).ok().map(|()| m)
    }
}

/// The lowest target of the model that meets a target need: the need itself when
/// the model lists it, else the lowest plain target above it.
fn lowest_meeting(model: &TargetModel, need: Option<Target>) -> Option<Target> {
    if let Some(t) = need.filter(|t| model.info(*t).is_some()) {
        return Some(t);
    }
    let mut plain: Vec<Target> = model
        .targets
        .iter()
        .map(|t| t.name)
        .filter(|t| t.variant == Variant::Plain)
        .collect();
    plain.sort();
    match need {
        Some(t) => plain.into_iter().find(|p| model.satisfies(*p, t)),
        None => plain.into_iter().next(),
    }
}

/// The lowest module that meets a need.
pub fn minimum(model: &TargetModel, need: &Need) -> Option<Module> {
    Module::at(model, need.ptx, lowest_meeting(model, need.target)?)
}

/// The lowest module that meets a need and whose target the newest ptxas knows
/// (a target that targets.yaml records a ptxas 13.5 probe for).
pub fn checkable(model: &TargetModel, need: &Need, ptxas: &str) -> Option<Module> {
    let mut known: Vec<Target> = model
        .targets
        .iter()
        .filter(|t| t.ptxas.as_ref().is_some_and(|p| p.version == ptxas))
        .map(|t| t.name)
        .filter(|t| need.target.is_none_or(|n| model.satisfies(*t, n)))
        .collect();
    known.sort_by_key(|t| (t.arch, t.variant));
    known
        .into_iter()
        .find_map(|t| Module::at(model, need.ptx, t))
}

/// The module one PTX ISA version below the minimum, on the same target, if that
/// target can be named there; `None` when the target's own introduction is the bound.
pub fn version_below(model: &TargetModel, min: Module) -> Option<Module> {
    let below = model.version_before(min.ptx)?;
    model
        .check_version(below, min.target)
        .ok()
        .map(|()| Module {
            ptx: below,
            target: min.target,
        })
}

/// The nearest targets that do not meet a target need, each at the lowest version
/// that can name it and meets the version need:
/// - for a plain `sm_XY`: the highest plain target below it;
/// - for `sm_XYa`: the other variants of the same architecture;
/// - for `sm_XYf`: the plain `sm_XY`, and the lowest family-specific target of a later
///   architecture outside the family.
pub fn outside(model: &TargetModel, need: &Need) -> Vec<Module> {
    let Some(t) = need.target else {
        return Vec::new();
    };
    let mut all: Vec<Target> = model.targets.iter().map(|i| i.name).collect();
    all.sort();
    let candidates: Vec<Target> = match t.variant {
        Variant::Plain => all
            .iter()
            .copied()
            .rfind(|c| c.variant == Variant::Plain && c.arch < t.arch)
            .into_iter()
            .collect(),
        Variant::Arch => all
            .iter()
            .copied()
            .filter(|c| c.arch == t.arch && c.variant != Variant::Arch)
            .collect(),
        Variant::Family => {
            let plain = all
                .iter()
                .copied()
                .filter(|c| c.arch == t.arch && c.variant == Variant::Plain);
            let next = all
                .iter()
                .copied()
                .filter(|c| c.variant == Variant::Family && c.arch > t.arch && !model.satisfies(*c, t))
                .find(|c| Module::at(model, need.ptx, *c).is_some());
            plain.chain(next).collect()
        }
    };
    candidates
        .into_iter()
        .filter(|c| !model.satisfies(*c, t))
        .filter_map(|c| Module::at(model, need.ptx, c))
        .collect()
}
/// Parses the module's `.version` and `.target`, and holds them to what the target
/// model knows: a version or target it does not list cannot be judged, so it is a
/// usage error, never a verdict.
pub fn module(spec: &Spec, ptx: Option<&str>, target: Option<&str>) -> Result<(PtxVersion, Target)> {
    let usage = |m: &str| Error::Usage(m.to_owned());
    let ptx = ptx
        .ok_or_else(|| usage("missing the PTX ISA version (--ptx 8.6, or \"ptx\" in the line)"))?;
    let target = target
        .ok_or_else(|| usage("missing the target (--target sm_90, or \"target\" in the line)"))?;
    Ok((known_version(spec, ptx)?, known_target(spec, target)?))
}

/// `.version`'s word, if the target model lists it.
pub fn known_version(spec: &Spec, ptx: &str) -> Result<PtxVersion> {
    let v: PtxVersion = ptx.parse().map_err(|e| Error::Usage(format!("{e}")))?;
    let versions = &spec.targets.ptx_versions.values;
    if !versions.contains(&v) {
        let range = match (versions.first(), versions.last()) {
            (Some(a), Some(b)) => format!(" (it lists {a} to {b})"),
            _ => String::new(),
        };
        return Err(Error::Usage(format!(
            "unknown PTX ISA version {v}: spec/targets.yaml does not list it{range}"
        )));
    }
    Ok(v)
}

/// `.target`'s architecture, if the target model lists it.
pub fn known_target(spec: &Spec, target: &str) -> Result<Target> {
    let t: Target = target.parse().map_err(|e| Error::Usage(format!("{e}")))?;
    if spec.targets.info(t).is_none() {
        return Err(Error::Usage(format!(
            "unknown target {t}: spec/targets.yaml does not list it"
        )));
    }
    Ok(t)
}
