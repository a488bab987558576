//! `bar.red` and `barrier.red`: a reduction of one predicate per thread over the
//! threads of a CTA at a barrier. The records run a CTA of one warp (the self-
//! checking module launches one block of 32 threads per record): the lanes that
//! exited first take no part, every other lane arrives with its `c`. A CTA of
//! several warps needs a record of more than 32 lanes, which no record has yet.

use ptxvec_oracle::barrier::{bar_red, Reduction, Thread};
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::WARP_SIZE;
use ptxvec_spec::{Mnemonic, Qualifier};

use super::collective::{self, LaneInputs};
use super::{catalog, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Field, Inputs, LaneValue, Out, Outputs, Shape, Source, WarpInputs, WarpShape};
use crate::syntax::spelling::Spelling;

/// A `bar.red` or `barrier.red` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BarrierRed {
    /// The reduction.
    pub op: Reduction,
    /// Every thread of the CTA executes the same instruction: `bar.red` ("equivalent
    /// to `barrier{.cta}.red.aligned`") and `barrier.red.aligned`. It changes no
    /// value, but what a device may run: a `barrier.red` without it stays a
    /// variant of its own.
    pub aligned: bool,
}

/// The barrier the records use: "Each CTA instance has sixteen barriers numbered
/// `0..15`"; the last is drawn for one class.
const BARRIERS: [(&str, u64); 2] = [("barrier_0", 0), ("barrier_15", 15)];

impl Family for BarrierRed {
    fn read(s: &Spelling<'_>) -> std::result::Result<BarrierRed, NotComputed> {
        let q = Quals::of(s);
        let op = if q.has(Qualifier::Popc) {
            Reduction::Popc
        } else if q.has(Qualifier::And) {
            Reduction::And
        } else if q.has(Qualifier::Or) {
            Reduction::Or
        } else {
            return Err(q.missing("barrier reduction"));
        };
        let aligned = s.form.syntax.mnemonic == Mnemonic::BarRed || q.has(Qualifier::Aligned);
        Ok(BarrierRed { op, aligned })
    }

    fn shape(self) -> Shape {
        let d = match self.op {
            Reduction::Popc => Field::Bits(32),
            Reduction::And | Reduction::Or => Field::Pred,
        };
        Shape::Warp(WarpShape {
            membermask: false,
            // The barrier number, one for the CTA; the predicate, one per thread.
            a: Some(Source::warp(Field::Bits(32))),
            b: None,
            c: Some(Source::lane(Field::Pred)),
            d,
            p: false,
            float: None,
        })
    }

    /// The threads that do not exit first (the catalog's masks: all, one, halves,
    /// alternating, random) × the predicate patterns over them, each with `c` and
    /// `!c`, at barrier 0; the first of each at barrier 15 too.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let mut out = Vec::new();
        for live in catalog::membermasks(at.seed) {
            for (k, pattern) in catalog::pred_patterns(live.bits as u32).into_iter().enumerate() {
                let barriers = if k == 0 { &BARRIERS[..] } else { &BARRIERS[..1] };
                for &(bclass, barrier) in barriers {
                    let inputs = Inputs::Warp(WarpInputs {
                        membermask: None,
                        executing: Bits::new(live.bits, 32),
                        exited: (live.bits != 0xffff_ffff).then(|| Bits::new(!live.bits & 0xffff_ffff, 32)),
                        a: Some(LaneValue::Warp(Bits::new(barrier, 32))),
                        b: None,
                        c: Some(LaneValue::PerLane((0..WARP_SIZE).map(|l| Bits::pred(pattern.bits >> l & 1 == 1)).collect())),
                    });
                    let class = vec![live.class.clone(), pattern.class.clone(), bclass.to_owned()];
                    out.extend(at.drafts(true, inputs, class));
                }
            }
        }
        out
    }

    /// The document's reading and sm_90's are one (E-ledger entries name any
    /// difference silicon shows).
    fn outputs(self, negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        let x = LaneInputs::of(collective::warp_of(inputs)?);
        let threads: Vec<Thread> = (0..WARP_SIZE)
            .map(|l| match x.executing >> l & 1 {
                1 => Thread::Arrives((x.c[l] != 0) != negate),
                _ => Thread::Exited,
            })
            .collect();
        let lanes = bar_red(self.op, &threads)
            .ok_or_else(|| Error::Input("bar.red: no thread arrives at the barrier".to_owned()))?;
        let bits = |v: u32| match self.op {
            Reduction::Popc => Bits::new(u64::from(v), 32),
            Reduction::And | Reduction::Or => Bits::pred(v != 0),
        };
        Ok(Outputs::one(
            Out::D,
            lanes.into_iter().map(|l| Expectation::of_lane(l, bits)).collect(),
        ))
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
