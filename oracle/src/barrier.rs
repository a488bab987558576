//! `bar.red` and `barrier.red` (PTX ISA 9.1, 9.7.13.1): a reduction of one
//! predicate per thread over the threads of a CTA that arrive at a barrier, as a
//! pure function of those threads.
//!
//! # The model
//!
//! The CTA's threads are given in order, each either exited before the barrier or
//! arriving with its predicate `c` (after any `!`). "If no thread count is
//! specified, all threads in the CTA participate in the barrier"; the instruction
//! "causes executing thread to wait for all non-exited threads from its warp" and
//! for "non-exited threads of all other warps participating": so an exited thread
//! takes no part. The document's "The `c` predicate (or its complement) from all
//! threads in the CTA are combined" is read as the threads that arrive: an exited
//! thread has no predicate to give, and silicon is the witness of that reading.
//!
//! "Once the barrier count is reached, the final value is written to the
//! destination register in all threads waiting at the barrier": every arriving
//! thread gets the same value, an exited one none ([`Lane::NotExecuted`]).
//!
//! # The thread count
//!
//! "Operand `b` specifies the number of threads participating in the barrier. If
//! no thread count is specified, all threads in the CTA participate", and it "must
//! be a multiple of the warp size". The instruction "marks warps’ arrival at
//! barrier": a warp arrives as one, with the warp size, whatever lanes of it have
//! exited. So a count reached by the warps that arrive completes one barrier with
//! them all; a count of one warp completes a barrier per warp, each reducing its
//! own warp's threads ("the final value is written to the destination register in
//! all threads waiting at the barrier"). A count of `g` warps between the two,
//! where `g` divides the warps that arrive, completes the barrier once per `g`
//! warps, as a count of one warp completes it once per warp (a completed
//! barrier is used again by the warps after): which warps meet is whichever
//! arrive first, so it is
//! modelled only where that cannot matter, every arriving warp's own reduction
//! being the same (`.popc`: the same count, so each barrier's is `g` times it).
//! Any other count leaves part of the warps waiting for a barrier never reached,
//! and a count above the warps that arrive is never reached at all: neither is
//! modelled. The document gives no meaning to a count of 0 (ptxas takes it), so
//! it is not modelled either.

use crate::warp::{Lane, WARP_SIZE};

/// The reduction a `bar.red` spelling names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reduction {
    /// `.popc.u32`: "the number of threads with a `True` predicate".
    Popc,
    /// `.and.pred`: "if all the threads had a `True` predicate".
    And,
    /// `.or.pred`: "if any of the threads had a `True` predicate".
    Or,
}

/// One thread of the CTA when the barrier is executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thread {
    /// Exited before the barrier: it takes no part.
    Exited,
    /// Arrives at the barrier with this predicate (`c`, or `!c` where written so).
    Arrives(bool),
}

/// What each thread's destination holds after `bar.red` of `op` over a CTA of
/// `threads`, warp after warp, with the thread count `count` (`None` where the
/// text gives none): the count (`.popc`) or the predicate as 0 or 1 (`.and`,
/// `.or`) in every thread that arrives, nothing in an exited one. `None` where no
/// thread arrives, or the count is outside the model (see the module's words).
pub fn bar_red(op: Reduction, threads: &[Thread], count: Option<u32>) -> Option<Vec<Lane<u32>>> {
    let arrives = |w: &[Thread]| w.iter().any(|t| matches!(t, Thread::Arrives(_)));
    let warps = threads.chunks(WARP_SIZE).filter(|w| arrives(w)).count() as u64;
    // The warps each barrier completes with: every warp that arrives, one (each
    // warp alone), or `g` of them where `g` divides the warps that arrive.
    let group = match count.map(u64::from) {
        _ if warps == 0 => return None,
        None => warps,
        Some(b) if b == 0 || b % WARP_SIZE as u64 != 0 => return None,
        Some(b) if warps.is_multiple_of(b / WARP_SIZE as u64) => b / WARP_SIZE as u64,
        Some(_) => return None,
    };
    let reduce = |ts: &[Thread]| {
        let c: Vec<bool> = ts
            .iter()
            .filter_map(|t| match t {
                Thread::Arrives(c) => Some(*c),
                Thread::Exited => None,
            })
            .collect();
        match op {
            Reduction::Popc => c.iter().filter(|c| **c).count() as u32,
            Reduction::And => u32::from(c.iter().all(|c| *c)),
            Reduction::Or => u32::from(c.iter().any(|c| *c)),
        }
    };
    let whole = reduce(threads);
    // Fewer warps than arrive meet at each barrier, in an order the document
    // leaves open: a value only where every arriving warp's own is the same, so
    // that any `group` of them gives one value.
    let per_warp: Vec<u32> = threads.chunks(WARP_SIZE).filter(|w| arrives(w)).map(reduce).collect();
    let met = match group {
        g if g == warps => None,
        1 => None,
        g if per_warp.windows(2).all(|p| p[0] == p[1]) => Some(match op {
            Reduction::Popc => per_warp[0] * g as u32,
            Reduction::And | Reduction::Or => per_warp[0],
        }),
        _ => return None,
    };
    Some(
        threads
            .chunks(WARP_SIZE)
            .flat_map(|w| {
                let value = match (group, met) {
                    (_, Some(v)) => v,
                    (1, None) if warps > 1 => reduce(w),
                    _ => whole,
                };
                w.iter().map(move |t| match t {
                    Thread::Arrives(_) => Lane::Value(value),
                    Thread::Exited => Lane::NotExecuted,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Thread::{Arrives, Exited};

    fn values(op: Reduction, threads: &[Thread]) -> Vec<Lane<u32>> {
        bar_red(op, threads, None).unwrap()
    }

    /// "The result of `.popc` is the number of threads with a `True` predicate",
    /// "written to the destination register in all threads waiting at the barrier".
    #[test]
    fn popc_counts_the_true_predicates_into_every_thread() {
        let t = [Arrives(true), Arrives(false), Arrives(true), Arrives(true)];
        assert_eq!(values(Reduction::Popc, &t), vec![Lane::Value(3); 4]);
        assert_eq!(values(Reduction::Popc, &[Arrives(false); 64]), vec![Lane::Value(0); 64]);
        assert_eq!(values(Reduction::Popc, &[Arrives(true); 1024]), vec![Lane::Value(1024); 1024]);
    }

    /// "`.and` and `.or` indicate if all the threads had a `True` predicate or if
    /// any of the threads had a `True` predicate."
    #[test]
    fn and_is_all_true_or_is_any_true() {
        let mixed = [Arrives(true), Arrives(false)];
        assert_eq!(values(Reduction::And, &mixed), vec![Lane::Value(0); 2]);
        assert_eq!(values(Reduction::Or, &mixed), vec![Lane::Value(1); 2]);
        let all = [Arrives(true); 3];
        assert_eq!(values(Reduction::And, &all), vec![Lane::Value(1); 3]);
        let none = [Arrives(false); 3];
        assert_eq!(values(Reduction::Or, &none), vec![Lane::Value(0); 3]);
    }

    /// "wait for all non-exited threads": an exited thread neither counts nor
    /// receives the value; the others still do.
    #[test]
    fn exited_threads_take_no_part() {
        let t = [Exited, Arrives(true), Exited, Arrives(false)];
        assert_eq!(
            values(Reduction::Popc, &t),
            vec![Lane::NotExecuted, Lane::Value(1), Lane::NotExecuted, Lane::Value(1)]
        );
        // The false predicate of an exited thread cannot make `.and` false.
        assert_eq!(values(Reduction::And, &[Arrives(true), Exited]), vec![Lane::Value(1), Lane::NotExecuted]);
        assert_eq!(bar_red(Reduction::Or, &[Exited; 32], None), None);
    }

    /// A CTA of two warps: one thread true in each.
    fn two_warps() -> Vec<Thread> {
        let mut t = vec![Arrives(false); 64];
        t[3] = Arrives(true);
        t[40] = Arrives(true);
        t
    }

    /// "If no thread count is specified, all threads in the CTA participate": the
    /// reduction spans the warps; a count of every warp is the same barrier.
    #[test]
    fn the_reduction_spans_every_warp_of_the_cta() {
        let t = two_warps();
        assert_eq!(bar_red(Reduction::Popc, &t, None).unwrap(), vec![Lane::Value(2); 64]);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(64)).unwrap(), vec![Lane::Value(2); 64]);
        assert_eq!(bar_red(Reduction::And, &t, Some(64)).unwrap(), vec![Lane::Value(0); 64]);
    }

    /// "wait for non-exited threads of all other warps participating in the
    /// barrier": a warp whose threads have all exited does not arrive, so the count
    /// the others reach is theirs alone; a count that needs it is never reached.
    #[test]
    fn an_exited_warp_does_not_arrive() {
        let mut t = two_warps();
        t[32..].fill(Exited);
        let mut want = vec![Lane::Value(1); 32];
        want.extend([Lane::NotExecuted; 32]);
        assert_eq!(bar_red(Reduction::Popc, &t, None).unwrap(), want);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(32)).unwrap(), want);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(64)), None);
    }

    /// "marks warps’ arrival at barrier": a warp with exited lanes still arrives
    /// as a whole warp, so a count of both warps is reached.
    #[test]
    fn a_warp_with_exited_lanes_arrives_whole() {
        let mut t = two_warps();
        t[16..32].fill(Exited);
        let got = bar_red(Reduction::Popc, &t, Some(64)).unwrap();
        assert_eq!(got[3], Lane::Value(2));
        assert_eq!(got[20], Lane::NotExecuted);
    }

    /// A count of one warp: "Once the barrier count is reached, the final value is
    /// written to the destination register in all threads waiting at the
    /// barrier", so each warp gets its own reduction; a count between one warp and
    /// all of them depends on which arrive first.
    #[test]
    fn a_count_of_one_warp_reduces_each_warp_alone() {
        let mut t = two_warps();
        t[33] = Arrives(true);
        let got = bar_red(Reduction::Popc, &t, Some(32)).unwrap();
        assert_eq!((got[0], got[63]), (Lane::Value(1), Lane::Value(2)));
        let four = [t.clone(), t].concat();
        assert_eq!(bar_red(Reduction::Popc, &four, Some(64)), None);
        assert_eq!(bar_red(Reduction::Popc, &four, Some(0)), None);
    }

    /// A CTA of four warps, 128 threads: warp `w` has `true` in its first `n[w]`
    /// lanes, `false` in the rest.
    fn four_warps(n: [usize; 4]) -> Vec<Thread> {
        (0..128).map(|t| Arrives(t % 32 < n[t / 32])).collect()
    }

    /// Four warps, no count: "all threads in the CTA participate", and `.popc`
    /// counts the true predicates of all 128 threads (1 + 2 + 3 + 4), `.and` is
    /// false where one is, `.or` true where one is.
    #[test]
    fn four_warps_reduce_over_all_128_threads() {
        let t = four_warps([1, 2, 3, 4]);
        assert_eq!(bar_red(Reduction::Popc, &t, None).unwrap(), vec![Lane::Value(10); 128]);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(128)).unwrap(), vec![Lane::Value(10); 128]);
        assert_eq!(bar_red(Reduction::And, &t, None).unwrap(), vec![Lane::Value(0); 128]);
        assert_eq!(bar_red(Reduction::Or, &t, None).unwrap(), vec![Lane::Value(1); 128]);
        let all = four_warps([32; 4]);
        assert_eq!(bar_red(Reduction::And, &all, Some(128)).unwrap(), vec![Lane::Value(1); 128]);
    }

    /// Four warps of which the last exited whole: the three that arrive make
    /// `b = 96` ("a multiple of the warp size"), the count they reach; 128 is
    /// never reached, and the exited warp's threads get nothing.
    #[test]
    fn three_of_four_warps_reach_a_count_of_96() {
        let mut t = four_warps([1, 2, 3, 4]);
        t[96..].fill(Exited);
        let got = bar_red(Reduction::Popc, &t, Some(96)).unwrap();
        assert_eq!(got[..96], vec![Lane::Value(6); 96][..]);
        assert_eq!(got[96..], vec![Lane::NotExecuted; 32][..]);
        assert_eq!(bar_red(Reduction::Popc, &t, None).unwrap(), got);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(128)), None);
        // 64 does not divide the three warps: one would wait on a barrier never
        // reached.
        assert_eq!(bar_red(Reduction::Popc, &t, Some(64)), None);
    }

    /// `b = 64` over four arriving warps: two barriers of two warps each, which
    /// pair unknown; one value only where every warp's own reduction is the same
    /// (three true each: 6 per pair), none where they differ.
    #[test]
    fn a_count_of_two_of_four_warps_needs_equal_warps() {
        let even = four_warps([3; 4]);
        assert_eq!(bar_red(Reduction::Popc, &even, Some(64)).unwrap(), vec![Lane::Value(6); 128]);
        assert_eq!(bar_red(Reduction::And, &even, Some(64)).unwrap(), vec![Lane::Value(0); 128]);
        assert_eq!(bar_red(Reduction::Or, &even, Some(64)).unwrap(), vec![Lane::Value(1); 128]);
        assert_eq!(bar_red(Reduction::Popc, &four_warps([1, 2, 3, 4]), Some(64)), None);
        // `.and` and `.or` need only the warps' truth to agree.
        let ors = four_warps([1, 2, 3, 4]);
        assert_eq!(bar_red(Reduction::Or, &ors, Some(64)).unwrap(), vec![Lane::Value(1); 128]);
        assert_eq!(bar_red(Reduction::And, &ors, Some(64)).unwrap(), vec![Lane::Value(0); 128]);
        // A count of one warp: each warp its own count.
        let got = bar_red(Reduction::Popc, &ors, Some(32)).unwrap();
        assert_eq!([got[0], got[32], got[64], got[127]], [1, 2, 3, 4].map(Lane::Value));
        // Not a multiple of the warp size: outside the model.
        assert_eq!(bar_red(Reduction::Popc, &even, Some(48)), None);
    }

    /// The largest CTA, 32 warps (1024 threads): a count of 16 warps over equal
    /// warps, and an exited warp among them that does not arrive.
    #[test]
    fn thirty_two_warps() {
        let t: Vec<Thread> = (0..1024).map(|t| Arrives(t % 32 == 0)).collect();
        assert_eq!(bar_red(Reduction::Popc, &t, None).unwrap(), vec![Lane::Value(32); 1024]);
        assert_eq!(bar_red(Reduction::Popc, &t, Some(512)).unwrap(), vec![Lane::Value(16); 1024]);
        let mut gone = t.clone();
        gone[992..].fill(Exited);
        // 31 warps arrive: 1024 is never reached, 31 × 32 is.
        assert_eq!(bar_red(Reduction::Popc, &gone, Some(1024)), None);
        assert_eq!(bar_red(Reduction::Popc, &gone, Some(992)).unwrap()[0], Lane::Value(31));
    }
}
