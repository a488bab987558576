//! `elect.sync`: PTX ISA 9.1, 9.7.13.14 (no seed prints it).
//!
//! ```text
//! elect.sync d|p, membermask;
//! ```
//!
//! "`elect.sync` elects one predicated active leader thread from among a set of
//! threads specified by `membermask`. `laneid` of the elected thread is returned in
//! the 32-bit destination operand `d`. [...] The predicate destination `p` is set to
//! `True` for the leader thread, and `False` for all other threads."
//!
//! Which member is elected the document does not say; it promises only that "the
//! same leader thread is elected for the same `membermask` every time". So under the
//! document a participant reads [`Elected::AnyOf`] the candidates, one leader for
//! the whole warp (exact where there is one candidate); a device's own rule
//! ([`Rule::Lowest`], measured on sm_90) makes it exact.

use super::{participants, sync_lanes, PerLane};

/// How the leader is chosen among the candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// As the document leaves it: any candidate, the same one for every lane.
    Document,
    /// The lowest-numbered candidate (what sm_90 silicon elects:
    /// vectors/silicon/sm_90/).
    Lowest,
}

/// What one participant of an election reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Elected {
    /// The leader's lane id in `d`, and whether this lane is the leader in `p`.
    Exactly {
        /// The leader's `laneid`.
        d: u32,
        /// This lane is the leader.
        p: bool,
    },
    /// The document's promise: `d` the lane id of one of these lanes (a mask), the
    /// same in every participant, and `p` true in that lane alone.
    AnyOf(u32),
}

/// The lanes a leader may be: the participants, `membermask & executing` (the
/// "predicated active" threads of `membermask`; an exited member is not active).
pub fn candidates(membermask: u32, executing: u32) -> u32 {
    participants(membermask, executing)
}

/// `elect.sync d|p, membermask` on the lanes `executing`, electing by `rule`.
///
/// A lane that executes outside `membermask` is undefined ("The behavior is
/// undefined if the executing thread is not in `membermask`"); a lane that does not
/// execute writes nothing.
pub fn elect(rule: Rule, membermask: u32, executing: u32) -> PerLane<Elected> {
    let who = candidates(membermask, executing);
    sync_lanes(membermask, executing, |lane| {
        super::Lane::Value(match rule {
            // One candidate leaves the document no choice.
            Rule::Document if who.count_ones() > 1 => Elected::AnyOf(who),
            // A participant exists (this lane), so `who` is not zero.
            Rule::Document | Rule::Lowest => {
                let leader = who.trailing_zeros();
                Elected::Exactly {
                    d: leader,
                    p: lane as u32 == leader,
                }
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::Lane;
    use super::*;

    /// Worked by hand from 9.7.13.14's sentences.
    #[test]
    fn hand_worked_elections() {
        // Every lane a member and executing: under the document any lane, under
        // sm_90's rule lane 0, which alone has p.
        let all = elect(Rule::Document, u32::MAX, u32::MAX);
        assert!(all.iter().all(|l| *l == Lane::Value(Elected::AnyOf(u32::MAX))));
        let low = elect(Rule::Lowest, u32::MAX, u32::MAX);
        assert_eq!(low[0], Lane::Value(Elected::Exactly { d: 0, p: true }));
        assert_eq!(low[31], Lane::Value(Elected::Exactly { d: 0, p: false }));

        // membermask 0xf0, lanes 5 and 6 executing (4 and 7 exited): the leader is
        // one of 5 and 6, lowest 5; lanes 4 and 7 write nothing.
        let got = elect(Rule::Lowest, 0xf0, 0x60);
        assert_eq!(got[5], Lane::Value(Elected::Exactly { d: 5, p: true }));
        assert_eq!(got[6], Lane::Value(Elected::Exactly { d: 5, p: false }));
        assert_eq!(got[4], Lane::NotExecuted);
        assert_eq!(got[7], Lane::NotExecuted);
        assert_eq!(elect(Rule::Document, 0xf0, 0x60)[6], Lane::Value(Elected::AnyOf(0x60)));

        // "The behavior is undefined if the executing thread is not in
        // `membermask`": lane 8 executes outside 0xf0.
        let got = elect(Rule::Lowest, 0xf0, 0x1f0);
        assert_eq!(got[8], Lane::Undefined);
        assert_eq!(got[4], Lane::Value(Elected::Exactly { d: 4, p: true }));

        // One candidate: the document leaves no choice, under either rule.
        assert_eq!(candidates(0x8000_0000, 0x8000_0000), 0x8000_0000);
        for rule in [Rule::Document, Rule::Lowest] {
            let got = elect(rule, 0x8000_0000, 0x8000_0000);
            assert_eq!(got[31], Lane::Value(Elected::Exactly { d: 31, p: true }));
        }
        // Lane 2 the only member that executes, lanes 0 and 1 exited.
        assert_eq!(elect(Rule::Document, 0x7, 0x4)[2], Lane::Value(Elected::Exactly { d: 2, p: true }));
    }
}
