//! `bar.red` and `barrier.red`: a reduction of one predicate per thread over the
//! threads of a CTA at a barrier (PTX ISA 9.7.13.1, bar, barrier). A record runs
//! a CTA of 32 warps, 1024 threads (the self-checking module launches one block
//! per record): the threads that exited first take no part ("causes executing
//! thread to wait for all non-exited threads from its warp", "wait for
//! non-exited threads of all other warps participating"), every other thread
//! arrives with its `c`. Whole warps exit where a record stands for a smaller
//! CTA (two or four warps arrive) or leaves warps out; lanes of warps exit where
//! a warp arrives with some of its threads ("marks warps' arrival at barrier":
//! the warp counts whole). `bar.red` is "equivalent to
//! `barrier{.cta}.red.aligned`", and ".aligned" says "all threads in CTA will
//! execute the same barrier{.cta} instruction": every arriving thread runs the
//! one instruction, so a record is the same for either.
//!
//! The thread count `b` "specifies the number of threads participating in the
//! barrier. If no thread count is specified, all threads in the CTA participate
//! in the barrier. When specifying a thread count, the value must be a multiple
//! of the warp size": a record leaves it out, or gives the count of the warps
//! that arrive, one warp, or half of them where the oracle finds one value for
//! any half (`ptxvec_oracle::barrier`).

use ptxvec_oracle::barrier::{bar_red, Reduction, Thread};
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::WARP_SIZE;
use ptxvec_spec::Qualifier;

use super::collective;
use super::{catalog, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Field, Inputs, LaneMask, LaneValue, Out, Outputs, Shape, Source, WarpInputs, WarpShape};
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

/// The warps of a record's CTA: the largest CTA a device launches, 1024 threads
/// (CUDA's limit per block on every target since sm_20), so that every thread
/// count the document allows, a multiple of the warp size up to the CTA's
/// threads, is one a record may give. A smaller CTA is this one with the warps
/// past it exited first, which the document's barrier ("wait for all non-exited
/// threads", 9.7.13.1) does not tell apart: the module launches one block shape
/// for all of a variant's records.
const WARPS: usize = 32;

/// The CTA's threads.
const THREADS: usize = WARPS * WARP_SIZE;

/// A set of the CTA's threads, thread `t` at index `t`.
type Threads = Vec<bool>;

fn threads(set: impl Fn(usize) -> bool) -> Threads {
    (0..THREADS).map(set).collect()
}

/// The warps with a thread in `set`.
fn warps_in(set: &[bool]) -> usize {
    set.chunks(WARP_SIZE).filter(|w| w.contains(&true)).count()
}

/// The threads that do not exit first: the CTA whole; the first two or four
/// warps alone (a CTA of two or four warps, the rest gone); one warp; a warp
/// gone, every other warp gone; lanes of every warp gone; and single threads;
/// the catalog's random membermask in each warp.
fn live_sets(seed: u64) -> Vec<(&'static str, Threads)> {
    let random = catalog::membermasks(seed).last().map_or(1, |m| m.bits);
    vec![
        ("cta_whole", threads(|_| true)),
        ("two_warps_arrive", threads(|t| t < 2 * WARP_SIZE)),
        ("four_warps_arrive", threads(|t| t < 4 * WARP_SIZE)),
        ("last_warp_only", threads(|t| t >= THREADS - WARP_SIZE)),
        ("first_warp_exited", threads(|t| t >= WARP_SIZE)),
        ("odd_warps_exited", threads(|t| (t / WARP_SIZE).is_multiple_of(2))),
        ("high_lanes_of_every_warp_exited", threads(|t| t % WARP_SIZE < 16)),
        ("alternating", threads(|t| t % 2 == 0)),
        ("lowest_and_highest", threads(|t| t == 0 || t == THREADS - 1)),
        ("random", threads(|t| random >> (t % WARP_SIZE) & 1 == 1)),
    ]
}

/// Predicates over the CTA: all, one thread, all but one, one warp, one lane of
/// every warp, the live threads and their complement.
fn pred_patterns(live: &[bool]) -> Vec<(&'static str, Threads)> {
    vec![
        ("all_set", threads(|_| true)),
        ("lowest_thread_only", threads(|t| t == 0)),
        ("highest_thread_only", threads(|t| t == THREADS - 1)),
        ("all_but_lowest", threads(|t| t != 0)),
        ("first_warp_only", threads(|t| t < WARP_SIZE)),
        ("lane_0_of_every_warp", threads(|t| t % WARP_SIZE == 0)),
        ("live_threads", live.to_vec()),
        ("complement_of_live", live.iter().map(|l| !l).collect()),
    ]
}

/// The thread counts a record is drawn with: none written, the warps with a
/// thread that arrives, one warp where more than one arrives, and half of them
/// where that is a count of more than one warp (a record keeps it only where
/// the value is the document's: [`bar_red`]).
fn counts(live: &[bool]) -> Vec<(&'static str, Option<u64>)> {
    let warps = warps_in(live) as u64;
    let mut out = vec![("no_count", None), ("count_of_arriving_warps", Some(warps * WARP_SIZE as u64))];
    if warps > 1 {
        out.push(("count_of_one_warp", Some(WARP_SIZE as u64)));
    }
    if warps >= 4 && warps.is_multiple_of(2) {
        out.push(("count_of_half_the_arriving_warps", Some(warps / 2 * WARP_SIZE as u64)));
    }
    out
}

/// The oracle's threads: the live ones arriving with their predicate (after any
/// `!`), the others exited.
fn arrivals(live: &[bool], c: impl Fn(usize) -> bool) -> Vec<Thread> {
    (0..live.len()).map(|t| if live[t] { Thread::Arrives(c(t)) } else { Thread::Exited }).collect()
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
        let aligned = s.form.syntax.mnemonic.spelling() == "bar.red" || q.has(Qualifier::Aligned);
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
            // The threads that arrive, the predicates, the thread count, the barrier.
            classes: 4,
        })
    }

    /// The threads that do not exit first × the predicate patterns over them ×
    /// the thread counts, each with `c` and `!c`, at barrier 0; the first pattern
    /// without a count at barrier 15 too. A count the oracle leaves open for `c`
    /// or `!c` (which warps meet) is not drawn.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let mut out = Vec::new();
        let mask = |set: &[bool]| LaneMask::from_fn(THREADS as u32, |t| set[t]);
        for (live_class, live) in live_sets(at.seed) {
            let exited: Threads = live.iter().map(|l| !l).collect();
            for (k, (pattern_class, pattern)) in pred_patterns(&live).into_iter().enumerate() {
                for (n, (count_class, count)) in counts(&live).into_iter().enumerate() {
                    let b = count.map(|b| b as u32);
                    let modelled = [false, true].iter().all(|&negate| {
                        bar_red(self.op, &arrivals(&live, |t| pattern[t] != negate), b).is_some()
                    });
                    if !modelled {
                        continue;
                    }
                    let barriers = if k == 0 && n == 0 { &BARRIERS[..] } else { &BARRIERS[..1] };
                    for &(bclass, barrier) in barriers {
                        let inputs = Inputs::Warp(WarpInputs {
                            membermask: None,
                            executing: mask(&live),
                            exited: exited.contains(&true).then(|| mask(&exited)),
                            a: Some(LaneValue::Warp(Bits::new(barrier, 32))),
                            b: count.map(|b| LaneValue::Warp(Bits::new(b, 32))),
                            c: Some(LaneValue::PerLane(pattern.iter().map(|&p| Bits::pred(p)).collect())),
                        });
                        let class = [live_class, pattern_class, count_class, bclass].map(str::to_owned).to_vec();
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
            .map(|t| if w.executing.get(t) { Thread::Arrives((c.lane(t) != 0) != negate) } else { Thread::Exited })
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

#[cfg(test)]
mod tests {
    use super::*;

    const POPC: BarrierRed = BarrierRed {
        op: Reduction::Popc,
        aligned: true,
    };

    fn drafts() -> Vec<Draft> {
        let at = Sampling {
            id: "bar.red.popc.u32",
            text: "bar.red.popc.u32 %r1, %r2, %p1;",
            negated: "bar.red.popc.u32 %r1, %r2, !%p1;",
            optional: ["bar.red.popc.u32 %r1, %r2, %r3, %p1;", "bar.red.popc.u32 %r1, %r2, %r3, !%p1;"],
            seed: 1,
            count: 0,
        };
        POPC.drafts(&at)
    }

    fn classed<'d>(drafts: &'d [Draft], class: [&str; 4], negate: bool) -> &'d Draft {
        drafts
            .iter()
            .find(|d| d.class == class && d.negate == negate)
            .unwrap_or_else(|| panic!("no draft {class:?}"))
    }

    /// Every draft states the whole CTA of 1024 threads: its masks fit the
    /// shape's threads and partition them, a predicate per thread.
    #[test]
    fn every_draft_states_a_cta_of_1024_threads() {
        let shape = POPC.shape();
        let Shape::Warp(ws) = shape else { panic!("a warp shape") };
        assert_eq!(ws.threads(), 1024);
        for d in drafts() {
            let Inputs::Warp(w) = d.inputs.clone().fit(shape).unwrap() else { panic!() };
            assert_eq!(w.executing.width(), 1024, "{:?}", d.class);
            let exited = w.exited.as_ref().map_or(0, LaneMask::count_ones);
            assert_eq!(w.executing.count_ones() + exited, 1024, "{:?}", d.class);
        }
    }

    /// Four warps arrive (the rest exited), lane 0 of each true: the count of
    /// two warps (64) meets two warps a barrier, one true thread each, so every
    /// arriving thread counts 2 whichever pair meets; no count counts 4; an
    /// exited thread gets nothing. With `!c`, 31 per warp: 62.
    #[test]
    fn four_arriving_warps_at_a_count_of_two() {
        let all = drafts();
        let d = classed(&all, ["four_warps_arrive", "lane_0_of_every_warp", "count_of_half_the_arriving_warps", "barrier_0"], false);
        assert_eq!(d.inputs_b(), Some(64));
        let want = |v: u64| -> Vec<Expectation> {
            (0..1024)
                .map(|t| if t < 128 { Expectation::Exact(Bits::new(v, 32)) } else { Expectation::NotExecuted })
                .collect()
        };
        let got = POPC.outputs(false, &d.inputs, Profile::PtxIsa).unwrap();
        assert_eq!(got.get(Out::D), Some(&want(2)[..]));
        let negated = classed(&all, ["four_warps_arrive", "lane_0_of_every_warp", "count_of_half_the_arriving_warps", "barrier_0"], true);
        let got = POPC.outputs(true, &negated.inputs, Profile::PtxIsa).unwrap();
        assert_eq!(got.get(Out::D), Some(&want(62)[..]));
        let none = classed(&all, ["four_warps_arrive", "lane_0_of_every_warp", "no_count", "barrier_0"], false);
        assert_eq!(POPC.outputs(false, &none.inputs, Profile::PtxIsa).unwrap().get(Out::D), Some(&want(4)[..]));
    }

    /// The counts drawn for the whole CTA: none, every warp (1024), one warp
    /// (32) and half (512); for the warps that differ, no half (it would depend
    /// on which warps meet).
    #[test]
    fn the_counts_of_the_whole_cta() {
        let all = drafts();
        let counts: std::collections::BTreeSet<Option<u64>> = all
            .iter()
            .filter(|d| d.class[0] == "cta_whole")
            .map(Draft::inputs_b)
            .collect();
        assert_eq!(counts, [None, Some(32), Some(512), Some(1024)].into_iter().collect());
        assert!(!all.iter().any(|d| d.class[0] == "cta_whole"
            && d.class[1] == "lowest_thread_only"
            && d.class[2] == "count_of_half_the_arriving_warps"));
    }

    impl Draft {
        fn inputs_b(&self) -> Option<u64> {
            match &self.inputs {
                Inputs::Warp(w) => w.b.as_ref().map(|b| b.lane(0)),
                _ => None,
            }
        }
    }
}
