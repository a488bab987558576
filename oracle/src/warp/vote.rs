//! `vote.sync`: PTX ISA 9.7.13.9, seeds 002 (full section) and 004 (condensed).
//!
//! ```text
//! vote.sync.mode.pred  d, {!}a, membermask;
//! vote.sync.ballot.b32 d, {!}a, membermask;  // 'ballot' form, returns bitmask
//!
//! .mode = { .all, .any, .uni };
//! ```

use super::{participants, sync_lanes, Lane, PerLane, WARP_SIZE};

/// The reduction modes of `vote.sync.mode.pred`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VoteMode {
    /// `.all`: the predicate is true in every participant.
    All,
    /// `.any`: the predicate is true in some participant.
    Any,
    /// `.uni`: the predicate has the same value in every participant.
    Uni,
}

impl VoteMode {
    /// Every mode.
    pub const ALL: &'static [VoteMode] = &[VoteMode::All, VoteMode::Any, VoteMode::Uni];
}

/// The participants whose source predicate (after the optional `!`) is true.
///
/// Exited lanes of `membermask` contribute 0. The doc says ballot "simply copies
/// the predicate from each thread in `membermask`" (seed 002) and does not say what
/// an exited thread copies; an exited thread has no predicate to copy, and CUDA's
/// `__ballot_sync` counts only non-exited threads, so we take 0 (a finding).
fn true_lanes(negate: bool, membermask: u32, executing: u32, a: &[bool; WARP_SIZE]) -> u32 {
    let set = (0..WARP_SIZE)
        .filter(|&lane| a[lane] != negate)
        .fold(0u32, |m, lane| m | 1 << lane);
    set & participants(membermask, executing)
}

/// `vote.sync.mode.pred d, {!}a, membermask` with `negate` for the `!`.
///
/// Every participant gets the same value: "The destination operand `d` is a
/// predicate register and its value is the same across all threads in
/// `membermask`" (seed 002).
pub fn vote(
    mode: VoteMode,
    negate: bool,
    membermask: u32,
    executing: u32,
    a: &[bool; WARP_SIZE],
) -> PerLane<bool> {
    let who = participants(membermask, executing);
    let yes = true_lanes(negate, membermask, executing, a);
    let d = match mode {
        // PTX ISA 9.7.13.9: "`True` if source predicate is `True` for all non-exited
        // threads in `membermask`."
        VoteMode::All => yes == who,
        // PTX ISA 9.7.13.9: "`True` if source predicate is `True` for some thread in
        // `membermask`." The sentence drops "non-exited"; an exited thread has no
        // predicate, so it cannot be the "some thread" (a finding).
        VoteMode::Any => yes != 0,
        // PTX ISA 9.7.13.9: "`True` if source predicate has the same value in all
        // non-exited threads in `membermask`."
        VoteMode::Uni => yes == 0 || yes == who,
    };
    sync_lanes(membermask, executing, |_| Lane::Value(d))
}

/// `vote.sync.ballot.b32 d, {!}a, membermask` with `negate` for the `!`.
///
/// PTX ISA 9.7.13.9: "`vote.sync.ballot.b32` simply copies the predicate from each
/// thread in `membermask` into the corresponding bit position of destination
/// register `d`, where the bit position corresponds to the thread's lane id. A
/// thread not specified in `membermask` will contribute a 0 for its entry".
pub fn ballot(
    negate: bool,
    membermask: u32,
    executing: u32,
    a: &[bool; WARP_SIZE],
) -> PerLane<u32> {
    let d = true_lanes(negate, membermask, executing, a);
    sync_lanes(membermask, executing, |_| Lane::Value(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::testkit::{bools, lane_kinds_hold, Rng};

    /// A hand-worked case: the source predicates as a mask (bit i = lane i's `a`),
    /// and the value every participant should get.
    #[derive(Debug)]
    struct Case {
        why: &'static str,
        membermask: u32,
        executing: u32,
        a: u32,
        negate: bool,
        all: bool,
        any: bool,
        uni: bool,
        ballot: u32,
    }

    const FULL: u32 = u32::MAX;

    const CASES: &[Case] = &[
        Case {
            why: "full warp, all true",
            membermask: FULL,
            executing: FULL,
            a: FULL,
            negate: false,
            all: true,
            any: true,
            uni: true,
            ballot: FULL,
        },
        Case {
            // "A thread not specified in membermask will contribute a 0"; and .all
            // looks only at "non-exited threads in membermask".
            why: "partial mask: false predicates outside the mask do not count",
            membermask: 0xff,
            executing: 0xff,
            a: 0xff,
            negate: false,
            all: true,
            any: true,
            uni: true,
            ballot: 0xff,
        },
        Case {
            why: "partial mask, one member false",
            membermask: 0xff,
            executing: 0xff,
            a: 0x7f,
            negate: false,
            all: false,
            any: true,
            uni: false,
            ballot: 0x7f,
        },
        Case {
            // "Negate the source predicate to compute .none."
            why: "negated all-false computes .none",
            membermask: 0xff,
            executing: 0xff,
            a: 0xff00,
            negate: true,
            all: true,
            any: true,
            uni: true,
            ballot: 0xff,
        },
        Case {
            // "Negate the source predicate to compute .not_all."
            why: "negated .any computes .not_all",
            membermask: 0xff,
            executing: 0xff,
            a: 0xfe,
            negate: true,
            all: false,
            any: true,
            uni: false,
            ballot: 0x01,
        },
        Case {
            // ".uni: True if source predicate has the same value in all non-exited
            // threads in membermask" -- all false is uniform too.
            why: "all participants false: uniform, not any",
            membermask: 0xf0,
            executing: FULL,
            a: 0x0f,
            negate: false,
            all: false,
            any: false,
            uni: true,
            ballot: 0,
        },
        Case {
            // ".all: True if source predicate is True for all non-exited threads in
            // membermask": exited lane 7 (a false) is left out.
            why: "an exited member is left out of .all and .uni and the ballot",
            membermask: 0xff,
            executing: 0x7f,
            a: 0x7f,
            negate: false,
            all: true,
            any: true,
            uni: true,
            ballot: 0x7f,
        },
        Case {
            // The exited lane 7 has no predicate to negate: its ballot bit stays 0.
            why: "negation does not set the exited member's ballot bit",
            membermask: 0xff,
            executing: 0x7f,
            a: 0,
            negate: true,
            all: true,
            any: true,
            uni: true,
            ballot: 0x7f,
        },
        Case {
            why: "scattered mask, scattered predicates",
            membermask: 0x8000_0101,
            executing: FULL,
            a: 0x8000_0001,
            negate: false,
            all: false,
            any: true,
            uni: false,
            ballot: 0x8000_0001,
        },
    ];

    #[test]
    fn hand_worked_votes_and_ballots() {
        for case in CASES {
            let a = bools(case.a);
            let want_mode = [case.all, case.any, case.uni];
            for (mode, want) in VoteMode::ALL.iter().zip(want_mode) {
                let out = vote(*mode, case.negate, case.membermask, case.executing, &a);
                lane_kinds_hold(case.membermask, case.executing, &out, &format!("{case:?}"));
                for (lane, got) in out.iter().enumerate() {
                    if let Lane::Value(got) = *got {
                        assert_eq!(got, want, "{} {mode:?} lane {lane}: {case:#x?}", case.why);
                    }
                }
            }
            let out = ballot(case.negate, case.membermask, case.executing, &a);
            lane_kinds_hold(case.membermask, case.executing, &out, &format!("{case:?}"));
            for (lane, got) in out.iter().enumerate() {
                if let Lane::Value(got) = *got {
                    assert_eq!(
                        got, case.ballot,
                        "{} ballot lane {lane}: {case:#x?}",
                        case.why
                    );
                }
            }
        }
    }

    #[test]
    fn lanes_outside_the_mask_are_undefined_and_idle_lanes_not_executed() {
        // "The behavior of vote.sync is undefined if the executing thread is not in
        // the membermask."
        let out = vote(VoteMode::All, false, 0x0f, 0xff, &bools(FULL));
        assert_eq!(out[0], Lane::Value(true));
        assert_eq!(out[4], Lane::Undefined);
        assert_eq!(out[8], Lane::NotExecuted);
        let out = ballot(false, 0x0f, 0xff, &bools(FULL));
        assert_eq!(out[3], Lane::Value(0x0f));
        assert_eq!(out[7], Lane::Undefined);
        assert_eq!(out[31], Lane::NotExecuted);
    }

    #[test]
    fn property_votes_agree_with_the_ballot() {
        let mut rng = Rng::new(0x766f_7465);
        for _ in 0..2000 {
            let (membermask, executing) = rng.masks();
            let a = bools(rng.word());
            let negate = rng.word() & 1 == 1;
            let who = participants(membermask, executing);
            let b = ballot(negate, membermask, executing, &a);
            let case = format!(
                "membermask {membermask:#x} executing {executing:#x} a {a:?} negate {negate}"
            );
            lane_kinds_hold(membermask, executing, &b, &case);
            let all_true = ballot(false, membermask, executing, &bools(FULL));
            for (lane, got) in b.iter().enumerate() {
                let Lane::Value(bits) = *got else { continue };
                // Ballot bits are the participants' predicates.
                for (i, &ai) in a.iter().enumerate() {
                    let want = who >> i & 1 == 1 && ai != negate;
                    assert_eq!(bits >> i & 1 == 1, want, "bit {i}: {case}");
                }
                assert_eq!(all_true[lane], Lane::Value(who), "{case}");
                let all = vote(VoteMode::All, negate, membermask, executing, &a)[lane];
                let any = vote(VoteMode::Any, negate, membermask, executing, &a)[lane];
                let uni = vote(VoteMode::Uni, negate, membermask, executing, &a)[lane];
                assert_eq!(all, Lane::Value(bits == who), "{case}");
                assert_eq!(any, Lane::Value(bits != 0), "{case}");
                assert_eq!(uni, Lane::Value(bits == 0 || bits == who), "{case}");
                // .none via .all of !a; .not_all via .any of !a.
                let none = vote(VoteMode::All, !negate, membermask, executing, &a)[lane];
                assert_eq!(none, Lane::Value(bits == 0), "{case}");
                let not_all = vote(VoteMode::Any, !negate, membermask, executing, &a)[lane];
                assert_eq!(not_all, Lane::Value(bits != who), "{case}");
                // "Negating the source predicate also computes .uni."
                let uni_neg = vote(VoteMode::Uni, !negate, membermask, executing, &a)[lane];
                assert_eq!(uni_neg, uni, "{case}");
            }
        }
    }

    #[test]
    fn every_mode_is_listed() {
        for mode in VoteMode::ALL {
            let out = vote(*mode, false, u32::MAX, u32::MAX, &bools(u32::MAX));
            assert_eq!(out[0], Lane::Value(true), "{mode:?}");
        }
        assert_eq!(VoteMode::ALL.len(), 3);
    }
}
