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
//! A thread count `b` smaller than the CTA leaves open which threads take part
//! (whichever warps arrive first), so it is outside the model; the document gives
//! no meaning to a CTA whose live threads do not all arrive, nor to a thread
//! count of 0, and neither is modelled.

use crate::warp::Lane;

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

/// What each thread's destination holds after `bar.red` of `op`: the count
/// (`.popc`) or the predicate as 0 or 1 (`.and`, `.or`) in every thread that
/// arrives, nothing in an exited one. `None` where no thread arrives, which no CTA
/// can run.
pub fn bar_red(op: Reduction, threads: &[Thread]) -> Option<Vec<Lane<u32>>> {
    let arriving: Vec<bool> = threads
        .iter()
        .filter_map(|t| match t {
            Thread::Arrives(c) => Some(*c),
            Thread::Exited => None,
        })
        .collect();
    if arriving.is_empty() {
        return None;
    }
    let value = match op {
        Reduction::Popc => arriving.iter().filter(|c| **c).count() as u32,
        Reduction::And => u32::from(arriving.iter().all(|c| *c)),
        Reduction::Or => u32::from(arriving.iter().any(|c| *c)),
    };
    Some(
        threads
            .iter()
            .map(|t| match t {
                Thread::Arrives(_) => Lane::Value(value),
                Thread::Exited => Lane::NotExecuted,
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Thread::{Arrives, Exited};

    fn values(op: Reduction, threads: &[Thread]) -> Vec<Lane<u32>> {
        bar_red(op, threads).unwrap()
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
        assert_eq!(bar_red(Reduction::Or, &[Exited; 32]), None);
    }
}
