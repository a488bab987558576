//! `shfl.sync` and the non-sync `shfl`: a lane reads another lane's `a`, chosen by
//! `.up`, `.down`, `.bfly` or `.idx` from `b` and `c`; `p` says whether the source
//! lane was in range.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::shfl::{segment_c, shfl_under, ShflMode};
use ptxvec_spec::{QualKind, Qualifier};

use super::collective::{self, LaneOutputs, Members, Warp};
use super::{catalog, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::Result;
use crate::record::{Bits, Expectation, Field, Inputs, LaneValue, Outputs, Per, Shape, Source, WarpShape};
use crate::syntax::spelling::Spelling;

/// One `shfl` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shfl {
    /// How the source lane is chosen.
    pub mode: ShflMode,
    /// Who takes part.
    pub members: Members,
}

impl Family for Shfl {
    fn read(s: &Spelling<'_>) -> std::result::Result<Shfl, NotComputed> {
        let q = Quals::of(s);
        let mode = match q.first(QualKind::Mode) {
            Some(Qualifier::Up) => ShflMode::Up,
            Some(Qualifier::Down) => ShflMode::Down,
            Some(Qualifier::Bfly) => ShflMode::Bfly,
            Some(Qualifier::Idx) => ShflMode::Idx,
            _ => return Err(q.missing("shfl mode")),
        };
        Ok(Shfl {
            mode,
            members: Members::of(s, "shfl"),
        })
    }

    fn shape(self) -> Shape {
        let b32 = Field::Bits(32);
        Shape::Warp(WarpShape {
            membermask: self.members == Members::Membermask,
            // `b` is one lane or offset for the warp, or one per lane; `c` one.
            b: Some(Source { field: b32, per: Per::Either, optional: false }),
            c: Some(Source::warp(b32)),
            p: true,
            ..WarpShape::collective(Some(b32), b32)
        })
    }

    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let drafts = shfl_inputs(self.mode, at.seed).into_iter().map(|(i, c)| at.draft(i, c));
        match self.members {
            Members::Membermask => drafts
                .chain(more_shfl_inputs(at.seed).into_iter().map(|(i, c)| at.draft(i, c)))
                .collect(),
            Members::Active => drafts.filter_map(collective::active_only).collect(),
        }
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
        // The non-sync form: undefined "if an active thread sources a register
        // from an inactive thread" (PTX ISA 9.1, 9.7.9.5).
        collective::outputs(inputs, |x| {
            LaneOutputs::with_p(shfl_under(
                profile,
                self.mode,
                self.members.mask(x),
                x.executing,
                &x.a32(),
                &x.b,
                &x.c,
            ))
        })
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}

/// In a full warp, every b from 0 to 33 with the whole-warp segment and with a
/// clamp, and every segment width and clamp with the b at its edges; then partial
/// masks and absent lanes.
fn shfl_inputs(mode: ShflMode, seed: u64) -> Vec<(Inputs, Vec<String>)> {
    let (_, a) = &catalog::lane_values(seed)[0];
    let mut out = Vec::new();
    let mut push = |mm: u64, ex: u64, b: u64, c: u64, class: String| {
        let w = Warp {
            membermask: Some(mm),
            executing: ex,
            exited: 0,
            a: Some((*a, 32)),
            b: Some(LaneValue::Warp(Bits::new(b, 32))),
            c: Some(c),
        };
        out.push((w.inputs(), vec![class]));
    };
    for c in catalog::shfl_c(mode) {
        let sweep = c.class == "segment_width_32" || c.class == "clamp_7";
        for b in catalog::shfl_b()
            .into_iter()
            .filter(|b| sweep || [0, 1, 3, 7, 8, 15, 16, 31, 32, 33].contains(&b.bits))
        {
            push(
                0xffff_ffff,
                0xffff_ffff,
                b.bits,
                c.bits,
                format!("full {} b={} {}", b.class, b.bits, c.class),
            );
        }
    }
    let whole = u64::from(segment_c(mode, 32).unwrap_or(0x1f));
    for m in catalog::membermasks(seed) {
        for e in catalog::executing_sets(m.bits as u32) {
            for b in [1u64, 5] {
                push(
                    m.bits,
                    e.bits,
                    b,
                    whole,
                    format!("{} {} b={b}", m.class, e.class),
                );
            }
        }
    }
    out
}

/// Beyond [`shfl_inputs`]: a per-lane `b` (lane l reads 31 - l, then a uniform 1)
/// in every exit scenario, and clamps beyond the segment in a full warp.
fn more_shfl_inputs(seed: u64) -> Vec<(Inputs, Vec<String>)> {
    let (_, a) = &catalog::lane_values(seed)[0];
    let reversal = LaneValue::PerLane((0..32).map(|l| Bits::new(31 - l, 32)).collect());
    let one = LaneValue::Warp(Bits::new(1, 32));
    let mut out = Vec::new();
    for (m, e, x) in collective::exit_scenarios(seed) {
        for (b, bclass) in [(&reversal, "b=31-lane"), (&one, "b=1")] {
            let w = Warp {
                membermask: Some(m.bits),
                executing: e.bits,
                exited: x,
                a: Some((*a, 32)),
                b: Some(b.clone()),
                c: Some(0x1f),
            };
            out.push((
                w.inputs(),
                vec![format!("{} {} {bclass}", m.class, e.class)],
            ));
        }
    }
    for c in catalog::shfl_c_beyond_segment() {
        for b in [0u64, 1, 2, 5, 16, 31, 32, 33] {
            let w = Warp {
                membermask: Some(0xffff_ffff),
                executing: 0xffff_ffff,
                exited: 0,
                a: Some((*a, 32)),
                b: Some(LaneValue::Warp(Bits::new(b, 32))),
                c: Some(c.bits),
            };
            out.push((w.inputs(), vec![format!("full b={b} {}", c.class)]));
        }
    }
    out
}
