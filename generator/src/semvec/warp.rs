//! A warp collective evaluated on typed inputs: the one place that maps a
//! [`Semantics`] to the oracle's warp functions. `expect` writes its result as the
//! vectors' expectations; the silicon replay compares recorded lanes with it. Each
//! reads its own input format and hands over the same typed inputs.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::{self, DestPred, Lane, WARP_SIZE};

use crate::semantics::Semantics;

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

fn d_only(d: [Lane<u32>; WARP_SIZE]) -> LaneOutputs {
    LaneOutputs {
        d: d.map(|l| l.map(u64::from)),
        d_width: 32,
        p: None,
    }
}

fn with_p(r: [DestPred<u32>; WARP_SIZE]) -> LaneOutputs {
    LaneOutputs {
        d: r.map(|x| x.d.map(u64::from)),
        d_width: 32,
        p: Some(r.map(|x| x.p)),
    }
}

/// What `sem` gives on `x` under `profile`; `negate` is the `!` of vote's predicate
/// source. An error for a semantics that is not a warp collective.
pub fn evaluate(
    sem: Semantics,
    negate: bool,
    x: &LaneInputs,
    profile: Profile,
) -> crate::error::Result<LaneOutputs> {
    let (mm, ex) = (x.membermask, x.executing);
    let a32: [u32; WARP_SIZE] = x.a.map(|v| v as u32);
    let pred: [bool; WARP_SIZE] = x.a.map(|v| v != 0);
    Ok(match sem {
        Semantics::Vote(mode) => LaneOutputs {
            d: warp::vote::vote(mode, negate, mm, ex, &pred).map(|l| l.map(u64::from)),
            d_width: 4,
            p: None,
        },
        Semantics::Ballot => d_only(warp::vote::ballot(negate, mm, ex, &pred)),
        Semantics::ReduxInt(form) => d_only(warp::redux::redux_int(form, mm, ex, &a32)),
        Semantics::ReduxF32(q) => d_only(warp::redux::redux_f32(q, mm, ex, &a32)),
        Semantics::Activemask => d_only(warp::activemask::activemask(ex)),
        Semantics::Match { all: false, wide } => d_only(if wide {
            warp::matching::match_any(mm, ex, &x.a)
        } else {
            warp::matching::match_any(mm, ex, &a32)
        }),
        Semantics::Match { all: true, wide } => with_p(if wide {
            warp::matching::match_all(mm, ex, &x.a)
        } else {
            warp::matching::match_all(mm, ex, &a32)
        }),
        Semantics::Shfl(mode) => with_p(warp::shfl::shfl_under(
            profile, mode, mm, ex, &a32, &x.b, &x.c,
        )),
        // The non-sync forms take the warp's active threads where the .sync forms
        // take the membermask: the same rules with the executing lanes for it
        // (PTX ISA 9.1: vote "across all active threads in a warp", an inactive
        // thread's ballot bit 0; shfl undefined "if an active thread sources a
        // register from an inactive thread").
        Semantics::VoteActive(mode) => LaneOutputs {
            d: warp::vote::vote(mode, negate, ex, ex, &pred).map(|l| l.map(u64::from)),
            d_width: 4,
            p: None,
        },
        Semantics::BallotActive => d_only(warp::vote::ballot(negate, ex, ex, &pred)),
        Semantics::ShflActive(mode) => with_p(warp::shfl::shfl_under(
            profile, mode, ex, ex, &a32, &x.b, &x.c,
        )),
        Semantics::Memory(_) => {
            return Err(crate::error::Error::Input(
                "a memory reduction is not a warp collective".to_owned(),
            ))
        }
    })
}
