//! What the warp collectives share: their inputs per lane, the catalogs of warps
//! (membermasks × executing lanes × lane values, lanes that exit), and the turning
//! of the oracle's lanes into expectations. Each family (redux, vote, shfl, match,
//! activemask) says how it reads its lanes and which oracle function it calls.

use ptxvec_oracle::warp::{DestPred, Lane, WARP_SIZE};

use super::catalog::{self, Named};
use super::{Draft, Sampling};
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Inputs, LaneMask, LaneValue, Out, Outputs, WarpInputs};

/// Who takes part in a collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Members {
    /// The threads its membermask operand names (the `.sync` forms).
    Membermask,
    /// The warp's active threads: the non-sync `vote` and `shfl` (PTX ISA 9.1,
    /// 9.7.13.8 and 9.7.9.5), which the oracle computes as the `.sync` rules with
    /// the executing lanes for the membermask.
    Active,
}

impl Members {
    /// Who takes part in spelling `s` of a family whose non-sync form is spelled
    /// with `non_sync` (the mnemonic without `.sync`).
    pub fn of(s: &crate::syntax::spelling::Spelling<'_>, non_sync: &str) -> Members {
        if s.form.syntax.mnemonic.spelling() == non_sync {
            Members::Active
        } else {
            Members::Membermask
        }
    }

    /// The oracle's membermask for inputs `x`.
    pub fn mask(self, x: &LaneInputs) -> u32 {
        match self {
            Members::Membermask => x.membermask,
            Members::Active => x.executing,
        }
    }
}

/// A warp's inputs, one entry per lane where they vary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneInputs {
    /// The membermask operand (`activemask` has none and ignores it).
    pub membermask: u32,
    /// The lanes that execute the instruction.
    pub executing: u32,
    /// `a` per lane: the source value (64 bits for `match.*.b64`), or a predicate
    /// as 0/1.
    pub a: [u64; WARP_SIZE],
    /// shfl's `b` per lane.
    pub b: [u32; WARP_SIZE],
    /// shfl's `c` per lane.
    pub c: [u32; WARP_SIZE],
}

impl LaneInputs {
    /// The per-lane form of a warp's inputs: one `b` and one `c` for the warp, as
    /// the instruction's operands are written; an absent input reads as zeros.
    pub fn of(w: &WarpInputs) -> LaneInputs {
        let value = |b: Option<Bits>| b.map_or(0, |b| b.value);
        let lane = |v: &Option<LaneValue>, l: usize| v.as_ref().map_or(0, |v| v.lane(l));
        LaneInputs {
            membermask: value(w.membermask) as u32,
            executing: w.executing.warp(0),
            a: std::array::from_fn(|l| lane(&w.a, l)),
            b: std::array::from_fn(|l| lane(&w.b, l) as u32),
            c: std::array::from_fn(|l| lane(&w.c, l) as u32),
        }
    }

    /// `a`'s low words.
    pub fn a32(&self) -> [u32; WARP_SIZE] {
        self.a.map(|v| v as u32)
    }

    /// `a` as predicates.
    pub fn pred(&self) -> [bool; WARP_SIZE] {
        self.a.map(|v| v != 0)
    }
}

/// A warp's outputs per lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneOutputs {
    /// `d`: its bits, a predicate as 0/1.
    pub d: [Lane<u64>; WARP_SIZE],
    /// The width `d` is written at: 4 for a predicate (one hex digit), else 32.
    pub d_width: u32,
    /// `p`, for the instructions that have one (`shfl`, `match.all`).
    pub p: Option<[Lane<bool>; WARP_SIZE]>,
}

impl LaneOutputs {
    /// A predicate destination.
    pub fn pred(d: [Lane<bool>; WARP_SIZE]) -> LaneOutputs {
        LaneOutputs {
            d: d.map(|l| l.map(u64::from)),
            d_width: 4,
            p: None,
        }
    }

    /// A 32-bit destination.
    pub fn d32(d: [Lane<u32>; WARP_SIZE]) -> LaneOutputs {
        LaneOutputs {
            d: d.map(|l| l.map(u64::from)),
            d_width: 32,
            p: None,
        }
    }

    /// A 32-bit destination with its predicate.
    pub fn with_p(r: [DestPred<u32>; WARP_SIZE]) -> LaneOutputs {
        LaneOutputs {
            d: r.map(|x| x.d.map(u64::from)),
            d_width: 32,
            p: Some(r.map(|x| x.p)),
        }
    }
}

/// The expectations of a collective whose oracle gives `eval` on the lanes of
/// `inputs`; an error for inputs that are not a warp's.
pub fn outputs(
    inputs: &Inputs,
    eval: impl FnOnce(&LaneInputs) -> LaneOutputs,
) -> Result<Outputs<Expectation>> {
    let r = eval(&LaneInputs::of(warp_of(inputs)?));
    let mut out = Outputs::one(
        Out::D,
        r.d.iter()
            .map(|l| Expectation::of_lane(*l, |v| Bits::new(v, r.d_width)))
            .collect(),
    );
    if let Some(p) = r.p {
        out.set(
            Out::P,
            p.iter()
                .map(|l| Expectation::of_lane(*l, Bits::pred))
                .collect(),
        );
    }
    Ok(out)
}

/// A warp instruction's inputs, or the error for a memory record given to it.
pub fn warp_of(inputs: &Inputs) -> Result<&WarpInputs> {
    match inputs {
        Inputs::Warp(w) => Ok(w),
        _ => Err(Error::Input(
            "a warp collective takes \"executing\" and lanes, not memory inputs".to_owned(),
        )),
    }
}

/// How a collective with a source `a` draws its lanes from the catalogs.
pub struct Lanes {
    /// The width `a` is written at: a predicate's one digit, 64 for both words of
    /// `match.*.b64`, else 32 bits.
    pub width: u32,
    /// Catalog lane values as the variant reads them.
    pub read: fn([u64; WARP_SIZE]) -> [u64; WARP_SIZE],
    /// The predicate source may be written `!` (vote): each input twice.
    pub negatable: bool,
    /// Whether the catalog's all-equal lane values are drawn (a reduction over
    /// equal values says little; match and vote.uni need them).
    pub all_equal: bool,
    /// The value patterns the catalog lacks, for a membermask, drawn with the full
    /// and the alternating mask, every member executing.
    pub patterns: fn(u32) -> Vec<(String, [u64; WARP_SIZE])>,
}

fn lane_bits(a: &[u64; WARP_SIZE], width: u32) -> Vec<Bits> {
    a.iter().map(|x| Bits::new(*x, width)).collect()
}

/// A warp's inputs: membermask (none for activemask), executing lanes, exited
/// non-members (0 for none), per-lane `a` at `width` bits, shfl's `b` and `c`.
pub struct Warp {
    /// The membermask operand.
    pub membermask: Option<u64>,
    /// The lanes that execute.
    pub executing: u64,
    /// The lanes that exited before (0 for none).
    pub exited: u64,
    /// `a` per lane, at a width.
    pub a: Option<([u64; WARP_SIZE], u32)>,
    /// shfl's `b`.
    pub b: Option<LaneValue>,
    /// shfl's `c`.
    pub c: Option<u64>,
}

impl Warp {
    /// As a record's inputs.
    pub fn inputs(self) -> Inputs {
        Inputs::Warp(WarpInputs {
            membermask: self.membermask.map(|m| Bits::new(m, 32)),
            executing: LaneMask::new(self.executing, 32),
            exited: (self.exited != 0).then(|| LaneMask::new(self.exited, 32)),
            a: self.a.map(|(a, w)| LaneValue::PerLane(lane_bits(&a, w))),
            b: self.b,
            c: self.c.map(|c| LaneValue::Warp(Bits::new(c, 32))),
        })
    }
}

/// Membermasks × executing sets × lane values (each twice where the source is
/// negatable).
pub fn crossed(at: &Sampling<'_>, lanes: &Lanes) -> Vec<Draft> {
    let mut out = Vec::new();
    for m in catalog::membermasks(at.seed) {
        for e in catalog::executing_sets(m.bits as u32) {
            for (vclass, a) in catalog::lane_values(at.seed) {
                if !lanes.all_equal && vclass == "all_equal" {
                    continue;
                }
                let w = Warp {
                    membermask: Some(m.bits),
                    executing: e.bits,
                    exited: 0,
                    a: Some(((lanes.read)(a), lanes.width)),
                    b: None,
                    c: None,
                };
                let class = vec![m.class.clone(), e.class.clone(), vclass.clone()];
                out.extend(at.drafts(lanes.negatable, w.inputs(), class));
            }
        }
    }
    out
}

/// Beyond [`crossed`]: every exit scenario with the first lane values; then the
/// value patterns the catalog lacks with the full and the alternating mask.
pub fn rarer(at: &Sampling<'_>, lanes: &Lanes) -> Vec<Draft> {
    let mut out = Vec::new();
    let mut push = |m: u64, e: u64, x: u64, a: [u64; WARP_SIZE], class: Vec<String>| {
        let w = Warp {
            membermask: Some(m),
            executing: e,
            exited: x,
            a: Some((a, lanes.width)),
            b: None,
            c: None,
        };
        out.extend(at.drafts(lanes.negatable, w.inputs(), class));
    };
    let (first, a) = &catalog::lane_values(at.seed)[0];
    for (m, e, x) in exit_scenarios(at.seed) {
        push(
            m.bits,
            e.bits,
            x,
            (lanes.read)(*a),
            vec![m.class, e.class, first.clone()],
        );
    }
    for m in [0xffff_ffffu64, 0xaaaa_aaaa] {
        let mclass = if m == 0xffff_ffff {
            "full"
        } else {
            "alternating_odd"
        };
        for (class, a) in (lanes.patterns)(m as u32) {
            push(
                m,
                m,
                0,
                a,
                vec![mclass.to_owned(), "members_execute".to_owned(), class],
            );
        }
    }
    out
}

/// Every membermask with the executing sets that exit lanes: one member, every
/// fourth member, non-members; then the irregular masks with every member
/// executing. Each is (mask, executing, exited non-members).
pub fn exit_scenarios(seed: u64) -> Vec<(Named, Named, u64)> {
    let mut out = Vec::new();
    for m in catalog::membermasks(seed) {
        for (e, x) in catalog::exit_sets(m.bits as u32) {
            out.push((m.clone(), e, x));
        }
    }
    for m in catalog::more_membermasks() {
        let e = Named {
            class: "members_execute".to_owned(),
            bits: m.bits,
        };
        out.push((m.clone(), e, 0));
        for (e, x) in catalog::exit_sets(m.bits as u32) {
            out.push((m.clone(), e, x));
        }
    }
    out
}

/// A `.sync` form's draft as the non-sync form's: its executing lanes alone,
/// where they are its membermask (every member executes), and its membermask's
/// class naming the active lanes (`members_execute` becomes `active`); `None` for
/// a draft the non-sync form cannot state.
pub fn active_only(d: Draft) -> Option<Draft> {
    let Inputs::Warp(mut w) = d.inputs else {
        return None;
    };
    let mm = w.membermask.take()?;
    if LaneMask::from(mm) != w.executing || w.exited.is_some() {
        return None;
    }
    Some(Draft {
        inputs: Inputs::Warp(w),
        class: d
            .class
            .into_iter()
            .map(|c| c.replace("members_execute", "active"))
            .collect(),
        ..d
    })
}

