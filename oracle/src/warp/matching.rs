//! `match.sync`: PTX ISA 9.7.13.10, seed 004 (condensed, PTX ISA 9.1). Where the seed
//! is silent we quote the full section: the description is checked against a copy of
//! the PTX ISA 9.0 text; the `.all` sentence is quoted from memory and marked so.
//!
//! ```text
//! match.any.sync.type  d, a, membermask;
//! match.all.sync.type  d[|p], a, membermask;
//!
//! .type = { .b32, .b64 };
//! ```
//!
//! One generic function serves `.b32` (`T = u32`) and `.b64` (`T = u64`): the
//! comparison is of bit patterns, so the type only sets the width.

use super::{
    lanes_of, participants, status, sync_lanes, DestPred, Lane, PerLane, Status, WARP_SIZE,
};

/// The participants whose `a` equals `value`.
fn equal_lanes<T: Copy + Eq>(who: u32, a: &[T; WARP_SIZE], value: T) -> u32 {
    lanes_of(who)
        .filter(|&lane| a[lane] == value)
        .fold(0, |m, lane| m | 1 << lane)
}

/// `match.any.sync.type d, a, membermask`.
///
/// Seed 004: "Mask of non-exited threads in membermask whose `a` equals this
/// thread's `a`." The mask always holds the lane itself.
pub fn match_any<T: Copy + Eq>(
    membermask: u32,
    executing: u32,
    a: &[T; WARP_SIZE],
) -> PerLane<u32> {
    let who = participants(membermask, executing);
    sync_lanes(membermask, executing, |lane| {
        Lane::Value(equal_lanes(who, a, a[lane]))
    })
}

/// `match.all.sync.type d|p, a, membermask`.
///
/// Seed 004: `d` is the "Mask of non-exited threads if all have same `a`; else `0`",
/// and `p` is "True if all match, false otherwise". The full section (quoted from
/// memory, unchecked) says "`d` is set to mask corresponding to non-exited threads in
/// `membermask` if all non-exited threads in `membermask` have same value of operand
/// `a`", and both agree that the comparison is "across all non-exited threads in
/// `membermask`" (checked). So `d` is `membermask & executing`, not `membermask`: an
/// exited member's bit is 0.
pub fn match_all<T: Copy + Eq>(
    membermask: u32,
    executing: u32,
    a: &[T; WARP_SIZE],
) -> [DestPred<u32>; WARP_SIZE] {
    let who = participants(membermask, executing);
    // Every lane compares against the same first participant; with no participant
    // no lane reaches the `Participant` arm below.
    let same = lanes_of(who)
        .next()
        .map_or(0, |first| equal_lanes(who, a, a[first]))
        == who;
    std::array::from_fn(|lane| match status(membermask, executing, lane) {
        Status::NotExecuted => DestPred::not_executed(),
        // "The behavior of match.sync is undefined if the executing thread is not in
        // the membermask."
        Status::OutsideMask => DestPred::undefined(),
        Status::Participant => DestPred {
            d: Lane::Value(if same { who } else { 0 }),
            p: Lane::Value(same),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::bit;
    use crate::warp::testkit::{lane_kinds_hold, Rng};

    const FULL: u32 = u32::MAX;

    /// A hand-worked case: the values, and for one lane the expected `.any` mask and
    /// `.all` (d, p).
    #[derive(Debug)]
    struct Case {
        why: &'static str,
        membermask: u32,
        executing: u32,
        a: [u64; WARP_SIZE],
        lane: usize,
        any: Lane<u32>,
        all: DestPred<u32>,
    }

    fn value(d: u32, p: bool) -> DestPred<u32> {
        DestPred {
            d: Lane::Value(d),
            p: Lane::Value(p),
        }
    }

    fn cases() -> Vec<Case> {
        let mod3: [u64; WARP_SIZE] = std::array::from_fn(|i| (i % 3) as u64);
        let mut low4 = [9u64; WARP_SIZE];
        low4[..4].fill(7);
        // Equal in the low 32 bits only: .b64 compares all 64.
        let mut wide = [0u64; WARP_SIZE];
        wide[1] = 1 << 32;
        vec![
            Case {
                why: "collisions: lane values i % 3",
                membermask: FULL,
                executing: FULL,
                a: mod3,
                lane: 0,
                any: Lane::Value(0x4924_9249),
                all: value(0, false),
            },
            Case {
                why: "collisions: lane 1's class",
                membermask: FULL,
                executing: FULL,
                a: mod3,
                lane: 1,
                any: Lane::Value(0x9249_2492),
                all: value(0, false),
            },
            Case {
                // The mask keeps only membermask lanes of the class.
                why: "collisions within a partial mask",
                membermask: 0x0000_00ff,
                executing: FULL,
                a: mod3,
                lane: 2,
                any: Lane::Value(0x24),
                all: value(0, false),
            },
            Case {
                // Lanes outside membermask hold 9 and do not spoil .all.
                why: "all equal within a partial mask",
                membermask: 0xf,
                executing: FULL,
                a: low4,
                lane: 3,
                any: Lane::Value(0xf),
                all: value(0xf, true),
            },
            Case {
                // "mask corresponding to non-exited threads in membermask": exited
                // lane 2 is left out of d.
                why: "all equal with an exited member",
                membermask: 0xf,
                executing: !0b100,
                a: low4,
                lane: 0,
                any: Lane::Value(0xb),
                all: value(0xb, true),
            },
            Case {
                why: "an exited member with a different value does not spoil .all",
                membermask: 0x1f,
                executing: 0xf,
                a: low4,
                lane: 1,
                any: Lane::Value(0xf),
                all: value(0xf, true),
            },
            Case {
                why: "the executing lane outside membermask is undefined",
                membermask: 0xf,
                executing: FULL,
                a: low4,
                lane: 4,
                any: Lane::Undefined,
                all: DestPred::undefined(),
            },
            Case {
                why: "the exited lane writes nothing",
                membermask: 0xf,
                executing: 0x7,
                a: low4,
                lane: 3,
                any: Lane::NotExecuted,
                all: DestPred::not_executed(),
            },
            Case {
                why: "b64 compares the high word",
                membermask: 0x3,
                executing: FULL,
                a: wide,
                lane: 0,
                any: Lane::Value(0x1),
                all: value(0, false),
            },
            Case {
                why: "a single participant matches itself",
                membermask: 0x8000_0000,
                executing: 0x8000_0000,
                a: mod3,
                lane: 31,
                any: Lane::Value(0x8000_0000),
                all: value(0x8000_0000, true),
            },
        ]
    }

    #[test]
    fn hand_worked_matches() {
        for case in cases() {
            assert_eq!(
                match_any(case.membermask, case.executing, &case.a)[case.lane],
                case.any,
                "{case:#x?}"
            );
            assert_eq!(
                match_all(case.membermask, case.executing, &case.a)[case.lane],
                case.all,
                "{case:#x?}"
            );
            // .b32 on the low words agrees unless the case is about the high word.
            if !case.why.starts_with("b64") {
                let low: [u32; WARP_SIZE] = case.a.map(|v| v as u32);
                assert_eq!(
                    match_any(case.membermask, case.executing, &low)[case.lane],
                    case.any,
                    "b32 {case:#x?}"
                );
            }
        }
    }

    #[test]
    fn property_any_partitions_the_participants() {
        let mut rng = Rng::new(0x6d61_7463);
        for _ in 0..2000 {
            let (membermask, executing) = rng.masks();
            let a = rng.words();
            let who = participants(membermask, executing);
            let case = format!("membermask {membermask:#x} executing {executing:#x} a {a:#x?}");
            let any = match_any(membermask, executing, &a);
            let all = match_all(membermask, executing, &a);
            lane_kinds_hold(membermask, executing, &any, &case);
            lane_kinds_hold(membermask, executing, &all.map(|o| o.d), &case);
            lane_kinds_hold(membermask, executing, &all.map(|o| o.p), &case);
            let mut union = 0;
            for lane in lanes_of(who) {
                let Lane::Value(mask) = any[lane] else {
                    panic!("lane {lane}: {case}")
                };
                // The lane itself is always in its own class.
                assert!(bit(mask, lane), "lane {lane}: {case}");
                assert_eq!(mask & !who, 0, "lane {lane}: {case}");
                for other in lanes_of(who) {
                    assert_eq!(
                        bit(mask, other),
                        a[other] == a[lane],
                        "lanes {lane} {other}: {case}"
                    );
                }
                union |= mask;
                // .all holds exactly when this lane's class is every participant.
                let same = mask == who;
                let want = value(if same { who } else { 0 }, same);
                assert_eq!(all[lane], want, "lane {lane}: {case}");
            }
            assert_eq!(union, who, "{case}");
            // Values of lanes that do not take part change nothing.
            let mut a2 = a;
            let first = a[lanes_of(who).next().unwrap_or(0)];
            for (lane, v) in a2.iter_mut().enumerate() {
                if !bit(who, lane) {
                    *v = first;
                }
            }
            assert_eq!(match_any(membermask, executing, &a2), any, "{case}");
            assert_eq!(match_all(membermask, executing, &a2), all, "{case}");
        }
    }
}
