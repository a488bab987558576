//! `.target` names and the rules that say which targets a feature is available on.
//!
//! PTX ISA 9.x, "Target directives": a plain target `sm_XY` has every feature of the
//! plain targets below it (the onion rule); an arch-specific target `sm_XYa` adds
//! features available on that exact target only; a family-specific target `sm_XYf`
//! adds features available on the later targets of the same family. ptxas 13.5's
//! `--help` puts the same rule as "PTX for .target sm_XYf can be compiled to GPU
//! targets sm_XZ, sm_XZf, sm_XZa where Z >= Y and sm_XY and sm_XZ belong in same
//! family. PTX with .target sm_XYa can only be compiled to GPU target sm_XYa."

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

use crate::source::Source;
use crate::version::PtxVersion;

/// Which of the three kinds of target a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// `sm_90`: the onion rule applies.
    Plain,
    /// `sm_100f`: family-specific features.
    Family,
    /// `sm_90a`: arch-specific features, that exact target only.
    Arch,
}

/// A `.target` value such as `sm_90`, `sm_90a` or `sm_100f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Target {
    /// The architecture number: 90 for `sm_90a`.
    pub arch: u16,
    /// Plain, family-specific or arch-specific.
    pub variant: Variant,
}

impl Target {
    /// A plain target `sm_<arch>`.
    pub const fn plain(arch: u16) -> Self {
        Target {
            arch,
            variant: Variant::Plain,
        }
    }

    /// The compute-capability major number, which names the family: 10 for sm_103.
    pub const fn major(self) -> u16 {
        self.arch / 10
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Plain => "",
            Variant::Family => "f",
            Variant::Arch => "a",
        };
        write!(f, "sm_{}{}", self.arch, suffix)
    }
}

/// Text that is not a `.target` name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a target (expected sm_NN, sm_NNa or sm_NNf, such as sm_90 or sm_100a)")]
pub struct BadTarget(pub String);

impl FromStr for Target {
    type Err = BadTarget;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || BadTarget(s.to_owned());
        let rest = s.strip_prefix("sm_").ok_or_else(bad)?;
        let (digits, variant) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Variant::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Plain),
        };
        if !(2..=3).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        Ok(Target {
            arch: digits.parse().map_err(|_| bad())?,
            variant,
        })
    }
}

impl<'de> Deserialize<'de> for Target {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One `.target` the PTX ISA has defined, and the version that introduced it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetInfo {
    /// The target.
    pub name: Target,
    /// The first PTX ISA version whose `.version` may name it.
    pub ptx: PtxVersion,
    /// The PTX ISA version from which the name is no longer accepted, if any.
    #[serde(default)]
    pub withdrawn: Option<PtxVersion>,
    /// Why it was withdrawn, or anything else worth knowing.
    #[serde(default)]
    pub note: Option<String>,
    /// Where the fact comes from.
    pub source: Source,
    /// What ptxas said when we asked it, if we did.
    #[serde(default)]
    pub ptxas: Option<PtxasProbe>,
}

/// The smallest `.version` a ptxas accepted for a target, and what it said one below.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxasProbe {
    /// The ptxas release asked, e.g. "13.5".
    pub version: String,
    /// The smallest `.version` it accepted with this `.target`.
    pub min_version: PtxVersion,
    /// Its message for one version below, verbatim.
    #[serde(default)]
    pub below: Option<String>,
}

/// Which PTX ISA version a CUDA toolkit release carries.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaRelease {
    /// The CUDA release, e.g. "12.8".
    pub cuda: String,
    /// The PTX ISA version its tools accept at most.
    pub ptx: PtxVersion,
    /// Where the fact comes from.
    pub sources: Vec<Source>,
}

/// An architecture family: family-specific targets whose features carry forward.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// The doc's name for it, e.g. `sm_10x`.
    pub family: String,
    /// Its family-specific targets, e.g. `[sm_100f, sm_103f]`. Not derivable from the
    /// number: sm_101f is in sm_11x (PTX ISA 9.1, Table 58).
    pub members: Vec<Target>,
    /// Where the fact comes from.
    pub sources: Vec<Source>,
}

/// spec/targets.yaml: every known target, CUDA release and family.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetModel {
    /// Every known target, plain, `a` and `f`.
    pub targets: Vec<TargetInfo>,
    /// Every PTX ISA version, in order.
    pub ptx_versions: PtxVersions,
    /// CUDA release → PTX ISA version.
    pub cuda_releases: Vec<CudaRelease>,
    /// The target families.
    pub families: Vec<Family>,
}

/// The PTX ISA versions there have been, oldest first.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxVersions {
    /// The versions, ascending.
    pub values: Vec<PtxVersion>,
    /// Where the list comes from.
    pub source: Source,
}

/// Why a `.version` cannot name a `.target`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetVersionError {
    /// The target is not in the model at all.
    #[error("{0} is not a known target")]
    Unknown(Target),
    /// The version predates the target.
    #[error(".version {version} cannot name .target {target}: it was introduced in PTX ISA {introduced}")]
    TooOld {
        /// The `.version` asked about.
        version: PtxVersion,
        /// The `.target` asked about.
        target: Target,
        /// Its first version.
        introduced: PtxVersion,
    },
    /// The target was withdrawn before this version.
    #[error(
        ".version {version} cannot name .target {target}: it was withdrawn in PTX ISA {withdrawn}"
    )]
    Withdrawn {
        /// The `.version` asked about.
        version: PtxVersion,
        /// The `.target` asked about.
        target: Target,
        /// The version that withdrew it.
        withdrawn: PtxVersion,
    },
}

impl TargetModel {
    /// What the model knows of a target.
    pub fn info(&self, target: Target) -> Option<&TargetInfo> {
        self.targets.iter().find(|t| t.name == target)
    }

    /// Whether a module with this `.version` may say `.target target`.
    pub fn check_version(
        &self,
        version: PtxVersion,
        target: Target,
    ) -> Result<(), TargetVersionError> {
        let info = self
            .info(target)
            .ok_or(TargetVersionError::Unknown(target))?;
        if version < info.ptx {
            return Err(TargetVersionError::TooOld {
                version,
                target,
                introduced: info.ptx,
            });
        }
        match info.withdrawn {
            Some(withdrawn) if version >= withdrawn => Err(TargetVersionError::Withdrawn {
                version,
                target,
                withdrawn,
            }),
            _ => Ok(()),
        }
    }

    /// The family that a target's architecture belongs to, if it has one.
    pub fn family_of(&self, target: Target) -> Option<&Family> {
        let f = Target {
            arch: target.arch,
            variant: Variant::Family,
        };
        self.families.iter().find(|fam| fam.members.contains(&f))
    }

    /// Whether a module whose `.target` is `have` may use a feature that needs `need`.
    ///
    /// - plain `need`: any target of an equal or later architecture (the onion rule);
    /// - `need` = `sm_XYa`: exactly that target;
    /// - `need` = `sm_XYf`: an `f` or `a` target of the same family, architecture XY or later.
    pub fn satisfies(&self, have: Target, need: Target) -> bool {
        match need.variant {
            Variant::Plain => have.arch >= need.arch,
            Variant::Arch => have == need,
            Variant::Family => {
                have.variant != Variant::Plain
                    && have.arch >= need.arch
                    && match (self.family_of(have), self.family_of(need)) {
                        (Some(a), Some(b)) => a.family == b.family,
                        _ => false,
                    }
            }
        }
    }

    /// The first `.version` at which some target meeting `need` can be named: the
    /// earliest version a module meeting `need` can have. Not always `need`'s own:
    /// sm_35 (PTX ISA 3.1) meets a plain sm_32 (4.0). `None` when the model has no
    /// such target.
    pub fn earliest_version_meeting(&self, need: Target) -> Option<PtxVersion> {
        self.targets
            .iter()
            .filter(|t| self.satisfies(t.name, need))
            .map(|t| t.ptx)
            .min()
    }

    /// The PTX ISA version released just before `version`: "one version below".
    pub fn version_before(&self, version: PtxVersion) -> Option<PtxVersion> {
        self.ptx_versions
            .values
            .iter()
            .copied()
            .take_while(|v| *v < version)
            .last()
    }

    /// The newest PTX ISA version the model knows.
    pub fn newest_version(&self) -> Option<PtxVersion> {
        self.ptx_versions.values.last().copied()
    }

    /// The PTX ISA version a CUDA release carries.
    pub fn ptx_of_cuda(&self, cuda: &str) -> Option<PtxVersion> {
        self.cuda_releases
            .iter()
            .find(|c| c.cuda == cuda)
            .map(|c| c.ptx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_three_variants() {
        let t = |s: &str| s.parse::<Target>().unwrap();
        assert_eq!(t("sm_90"), Target::plain(90));
        assert_eq!(
            t("sm_90a"),
            Target {
                arch: 90,
                variant: Variant::Arch
            }
        );
        assert_eq!(
            t("sm_100f"),
            Target {
                arch: 100,
                variant: Variant::Family
            }
        );
        for s in ["sm_90", "sm_90a", "sm_100f", "sm_121a"] {
            assert_eq!(t(s).to_string(), s);
        }
        assert_eq!(t("sm_103f").major(), 10);
    }

    #[test]
    fn rejects_non_targets() {
        for bad in [
            "",
            "sm_",
            "sm_9",
            "sm_1000",
            "compute_90",
            "sm_90b",
            "SM_90",
            "sm_9x",
            "sm_90af",
        ] {
            assert!(bad.parse::<Target>().is_err(), "{bad:?}");
        }
    }
}
