//! What a spelling needs of its module: a PTX ISA version and a target.
//!
//! A rule's `requires` is a disjunction (redux.sync `.f32`: PTX 8.6 with sm_100a, or
//! 8.8 with sm_100f); several rules that apply together form a conjunction. `Needs`
//! holds the conjunction multiplied out into its alternatives, each one version and
//! at most one target, with dominated alternatives dropped.

use ptxvec_spec::model::Requirement;
use ptxvec_spec::{PtxVersion, Target, TargetModel};

/// One way to meet every applicable rule: this `.version` or later, on this target
/// (in the target model's sense: plain means "or later", `a` exactly, `f` the family).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Need {
    /// The lowest `.version`.
    pub ptx: PtxVersion,
    /// The weakest target; `None` when no rule names one.
    pub target: Option<Target>,
}

/// The alternatives, any one of which suffices. Empty means no module can meet them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needs(pub Vec<Need>);

/// The strongest of two target needs: the one every target meeting both must meet,
/// or `None` when no target meets both (sm_100a and sm_110f).
///
/// `satisfies` is transitive, so when `a` satisfies `b`, every target that satisfies
/// `a` satisfies `b` too, and `a` alone stands for both.
pub fn meet(model: &TargetModel, a: Target, b: Target) -> Option<Target> {
    if model.satisfies(a, b) {
        Some(a)
    } else if model.satisfies(b, a) {
        Some(b)
    } else {
        None
    }
}

impl Need {
    /// One alternative of a rule: no version named is any version.
    fn of_requirement(r: &Requirement) -> Need {
        Need {
            ptx: r.ptx.unwrap_or(PtxVersion { major: 1, minor: 0 }),
            target: r.target,
        }
    }

    /// Whether a module with this `.version` and `.target` meets the need.
    pub fn met_by(&self, model: &TargetModel, ptx: PtxVersion, target: Target) -> bool {
        ptx >= self.ptx && self.target.is_none_or(|t| model.satisfies(target, t))
    }

    /// Whether every module meeting `self` also meets `other`.
    fn implies(&self, model: &TargetModel, other: &Need) -> bool {
        self.ptx >= other.ptx
            && match (self.target, other.target) {
                (_, None) => true,
                (None, Some(_)) => false,
                (Some(a), Some(b)) => model.satisfies(a, b),
            }
    }

    /// Both needs at once, or `None` if no target meets both.
    fn and(&self, model: &TargetModel, other: &Need) -> Option<Need> {
        let target = match (self.target, other.target) {
            (None, t) | (t, None) => t,
            (Some(a), Some(b)) => Some(meet(model, a, b)?),
        };
        Some(Need {
            ptx: self.ptx.max(other.ptx),
            target,
        })
    }

    /// The need with its version raised to the first one at which a target meeting
    /// it can be named: a module cannot name sm_90 or later before PTX ISA 7.8,
    /// whatever the instruction needs. The earliest target meeting it counts, not
    /// the named one: sm_35 (3.1) meets sm_32 (4.0), so 64-bit `red.and` (3.1 with
    /// sm_32) keeps its 3.1.
    fn with_target_version(self, model: &TargetModel) -> Need {
        let earliest = self
            .target
            .and_then(|t| model.earliest_version_meeting(t))
            .unwrap_or(self.ptx);
        Need {
            ptx: self.ptx.max(earliest),
            ..self
        }
    }
}

impl Needs {
    /// No requirement at all: any module.
    pub fn none() -> Needs {
        Needs(vec![Need {
            ptx: PtxVersion { major: 1, minor: 0 },
            target: None,
        }])
    }

    /// One rule's alternatives.
    pub fn of_rule(requirements: &[Requirement]) -> Needs {
        Needs(requirements.iter().map(Need::of_requirement).collect())
    }

    /// `Needs::of_rule(requirements).met_by(..)`, without collecting the
    /// alternatives: the batch judge asks it of nearly every line that reads.
    pub fn rule_met_by(requirements: &[Requirement], model: &TargetModel, ptx: PtxVersion, target: Target) -> bool {
        requirements.iter().any(|r| Need::of_requirement(r).met_by(model, ptx, target))
    }

    /// Both sets of alternatives at once.
    pub fn and(&self, model: &TargetModel, other: &Needs) -> Needs {
        let mut out = Vec::new();
        for a in &self.0 {
            for b in &other.0 {
                if let Some(n) = a.and(model, b) {
                    out.push(n.with_target_version(model));
                }
            }
        }
        Needs(out).minimal(model)
    }

    /// Drops every alternative that another one implies, keeps one of equals, and
    /// sorts, so that equal needs compare equal.
    fn minimal(self, model: &TargetModel) -> Needs {
        let mut alts = self.0;
        alts.sort();
        alts.dedup();
        let keep: Vec<Need> = alts
            .iter()
            .filter(|n| !alts.iter().any(|m| m != *n && n.implies(model, m)))
            .copied()
            .collect();
        Needs(keep)
    }

    /// Whether some alternative is met by a module with this `.version` and `.target`.
    pub fn met_by(&self, model: &TargetModel, ptx: PtxVersion, target: Target) -> bool {
        self.0.iter().any(|n| n.met_by(model, ptx, target))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> TargetModel {
        crate::repo_spec().targets
    }

    fn t(s: &str) -> Target {
        s.parse().unwrap()
    }

    fn v(s: &str) -> PtxVersion {
        s.parse().unwrap()
    }

    fn need(ptx: &str, target: Option<&str>) -> Need {
        Need {
            ptx: v(ptx),
            target: target.map(t),
        }
    }

    #[test]
    fn meet_keeps_the_stronger_target() {
        let m = model();
        // (a, b, meet) — PTX ISA "Target directives": the onion rule, a exact, f family.
        let cases = [
            ("sm_80", "sm_90", Some("sm_90")),
            ("sm_90", "sm_100a", Some("sm_100a")),
            ("sm_80", "sm_100f", Some("sm_100f")),
            ("sm_100", "sm_100f", Some("sm_100f")),
            ("sm_100a", "sm_100f", Some("sm_100a")),
            ("sm_103f", "sm_100f", Some("sm_103f")),
            ("sm_100a", "sm_110f", None),
            ("sm_100a", "sm_103a", None),
            ("sm_120f", "sm_100f", None),
            ("sm_110", "sm_100a", None),
        ];
        for (a, b, want) in cases {
            assert_eq!(meet(&m, t(a), t(b)), want.map(t), "{a} ∧ {b}");
            assert_eq!(meet(&m, t(b), t(a)), want.map(t), "{b} ∧ {a}");
        }
    }

    #[test]
    fn conjunction_multiplies_out_and_drops_dominated_alternatives() {
        let m = model();
        // redux.sync .f32 (seed 000): 8.6 with sm_100a, or 8.8 with sm_100f; with the
        // base rule 7.0 and sm_80 it stays the same two alternatives.
        let f32 = Needs(vec![need("8.6", Some("sm_100a")), need("8.8", Some("sm_100f"))]);
        let base = Needs(vec![need("7.0", Some("sm_80"))]);
        let both = base.and(&m, &f32);
        assert_eq!(
            both,
            Needs(vec![need("8.6", Some("sm_100a")), need("8.8", Some("sm_100f"))])
        );
        // Version and target of different rules combine: .L2::cache_hint (7.4, sm_80)
        // with bf16 (7.8, sm_90).
        let hint = Needs(vec![need("7.4", Some("sm_80"))]);
        let bf16 = Needs(vec![need("7.8", Some("sm_90"))]);
        assert_eq!(hint.and(&m, &bf16), Needs(vec![need("7.8", Some("sm_90"))]));
        // A target raises the version to its own introduction: sm_90 is PTX 7.8.
        let red_base = Needs(vec![need("1.2", None)]);
        let vector = Needs(vec![need("1.0", Some("sm_90"))]);
        assert_eq!(red_base.and(&m, &vector), Needs(vec![need("7.8", Some("sm_90"))]));
        // The earliest target meeting the need counts: sm_35 (PTX ISA 3.1) meets sm_32
        // (4.0), so 64-bit red.and's 3.1 with sm_32 stays 3.1 (seed 001, PTX ISA Notes).
        let bitwise_64 = Needs(vec![need("3.1", Some("sm_32"))]);
        assert_eq!(red_base.and(&m, &bitwise_64), Needs(vec![need("3.1", Some("sm_32"))]));
        assert!(bitwise_64.met_by(&m, v("3.1"), t("sm_35")));
        // Contradictory targets leave nothing.
        let a = Needs(vec![need("8.6", Some("sm_100a"))]);
        let b = Needs(vec![need("8.6", Some("sm_120a"))]);
        assert_eq!(a.and(&m, &b), Needs(vec![]));
    }

    #[test]
    fn met_by_follows_the_target_model() {
        let m = model();
        let n = Needs(vec![need("8.6", Some("sm_100a")), need("8.8", Some("sm_100f"))]);
        let cases = [
            ("8.6", "sm_100a", true),
            ("8.5", "sm_100a", false),
            ("8.7", "sm_100f", false),
            ("8.8", "sm_100f", true),
            ("8.8", "sm_103f", true),
            ("8.8", "sm_103a", true),
            ("9.0", "sm_100", false),
            ("9.0", "sm_110f", false),
            ("9.0", "sm_120a", false),
        ];
        for (ptx, target, want) in cases {
            assert_eq!(n.met_by(&m, v(ptx), t(target)), want, "{ptx} {target}");
        }
    }
}
