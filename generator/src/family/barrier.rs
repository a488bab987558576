//! `bar.red` and `barrier.red`: a reduction of one predicate per thread over the
//! threads of a CTA at a barrier. A record runs a CTA of two warps (the self-
//! checking module launches one block of 64 threads per record): the threads that
//! exited first take no part, every other thread arrives with its `c`, and the
//! thread count `b` is left out (every thread of the CTA), the count of the warps
//! that arrive, or one warp.

use ptxvec_oracle::barrier::{bar_red, Reduction, Thread};
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::WARP_SIZE;
use ptxvec_spec::{Mnemonic, Qualifier};

use super::collective;
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

/// The warps of a record's CTA: enough for a reduction across warps and a warp
/// that exits whole; a lane mask of one bit pattern holds no more.
const WARPS: usize = 2;

/// The CTA's threads.
const THREADS: usize = WARPS * WARP_SIZE;

/// Every thread of the CTA.
const ALL: u64 = u64::MAX >> (64 - THREADS);

/// The threads that do not exit first: both warps whole, one warp gone, a warp
/// with lanes gone, and the catalog's shapes across the CTA.
fn live_sets(seed: u64) -> Vec<(String, u64)> {
    let random = catalog::membermasks(seed).last().map_or(1, |m| m.bits);
    [
        ("cta_whole", ALL),
        ("second_warp_exited", 0xffff_ffff),
        ("first_warp_exited", 0xffff_ffff_0000_0000),
        ("high_lanes_of_first_warp_exited", 0xffff_ffff_0000_ffff),
        ("lanes_of_both_warps_exited", 0x0000_ffff_ffff_ff00),
        ("alternating", 0x5555_5555_5555_5555),
        ("lowest_and_highest", 0x8000_0000_0000_0001),
        ("single_lowest", 1),
        // The catalog's random membermask, in each warp.
        ("random", random << 32 | random),
    ]
    .into_iter()
    .map(|(c, b)| (c.to_owned(), b))
    .collect()
}

/// Predicates over the CTA: all, one thread, all but one, one warp, the live
/// threads and their complement.
fn pred_patterns(live: u64) -> Vec<(&'static str, u64)> {
    vec![
        ("all_set", ALL),
        ("lowest_thread_only", 1),
        ("highest_thread_only", 1 << (THREADS - 1)),
        ("all_but_lowest", ALL & !1),
        ("first_warp_only", 0xffff_ffff),
        ("live_threads", live),
        ("complement_of_live", ALL & !live),
    ]
}

/// The thread counts a record is drawn with: none written, the count of the warps
/// with a thread that arrives, and one warp where more than one arrives.
fn counts(live: u64) -> Vec<(&'static str, Option<u64>)> {
    let warps = (0..WARPS).filter(|w| live >> (w * WARP_SIZE) & 0xffff_ffff != 0).count() as u64;
    let mut out = vec![("no_count", None), ("count_of_arriving_warps", Some(warps * WARP_SIZE as u64))];
    if warps > 1 {
        out.push(("count_of_one_warp", Some(WARP_SIZE as u64)));
    }
    out
}

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
            warps: WARPS,
            membermask: false,
            // The barrier number and the thread count, one for the CTA (a record may
            // leave the count out); the predicate, one per thread.
            a: Some(Source::warp(Field::Bits(32))),
            b: Some(Source::warp(Field::Bits(32)).optional()),
            c: Some(Source::lane(Field::Pred)),
            d,
            p: false,
            float: None,
        })
    }

    /// The threads that do not exit first × the predicate patterns over them ×
    /// the thread counts, each with `c` and `!c`, at barrier 0; the first pattern
    /// without a count at barrier 15 too.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let mut out = Vec::new();
        for (live_class, live) in live_sets(at.seed) {
            for (k, (pattern_class, pattern)) in pred_patterns(live).into_iter().enumerate() {
                for (n, (count_class, count)) in counts(live).into_iter().enumerate() {
                    let barriers = if k == 0 && n == 0 { &BARRIERS[..] } else { &BARRIERS[..1] };
                    for &(bclass, barrier) in barriers {
                        let inputs = Inputs::Warp(WarpInputs {
                            membermask: None,
                            executing: Bits::new(live, THREADS as u32),
                            exited: (live != ALL).then(|| Bits::new(ALL & !live, THREADS as u32)),
                            a: Some(LaneValue::Warp(Bits::new(barrier, 32))),
                            b: count.map(|b| LaneValue::Warp(Bits::new(b, 32))),
                            c: Some(LaneValue::PerLane((0..THREADS).map(|t| Bits::pred(pattern >> t & 1 == 1)).collect())),
                        });
                        let class = [&live_class, pattern_class, count_class, bclass].map(str::to_owned).to_vec();
                        out.extend(at.drafts_written(count.is_some(), true, inputs, class));
                    }
                }
            }
        }
        out
    }

    /// The document's reading and sm_90's are one (E-ledger entries name any
    /// difference silicon shows).
    fn outputs(self, negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        let w = collective::warp_of(inputs)?;
        let c = w.c.as_ref().ok_or_else(|| Error::Input("bar.red: no `c`".to_owned()))?;
        let threads: Vec<Thread> = (0..THREADS)
            .map(|t| match w.executing.value >> t & 1 {
                1 => Thread::Arrives((c.lane(t) != 0) != negate),
                _ => Thread::Exited,
            })
            .collect();
        let count = w.b.as_ref().map(|b| b.lane(0) as u32);
        let lanes = bar_red(self.op, &threads, count).ok_or_else(|| {
            Error::Input("bar.red: no thread arrives, or a thread count the model leaves open".to_owned())
        })?;
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
