//! Warp-level instructions: `vote.sync`, `shfl.sync`, `match.sync`, `redux.sync`,
//! `activemask` and `elect.sync`, as pure functions of one warp's state.
//!
//! # The model
//!
//! A warp has [`WARP_SIZE`] lanes; bit `i` of every mask is lane `i` ("the bit
//! position corresponds to thread's `laneid`", PTX ISA 9.7.13.9, seed 002). The
//! inputs are
//!
//! * `membermask`: the instruction's operand, one value for the whole warp. The
//!   doc requires every thread to pass "the same `membermask` value" (seed 002,
//!   vote.sync, Description), so a per-lane membermask is outside the model;
//! * `executing`: the lanes that run this instruction. A lane outside it writes
//!   nothing and reads as [`Lane::NotExecuted`];
//! * one source value per lane (`[u32; 32]`, `[u64; 32]`, `[bool; 32]`); the values
//!   of lanes that do not take part are never read into a defined result.
//!
//! # What `executing` means (a modelling decision)
//!
//! The doc says each `.sync` instruction "will cause executing thread to wait until
//! all non-exited threads corresponding to `membermask` have executed `vote.sync`
//! with the same qualifiers and same `membermask` value before resuming execution"
//! (seed 002), and reduces "across all non-exited threads in `membermask`". So on
//! sm_70 and later a lane named in `membermask` that does not run the instruction
//! is either exited, and then takes no part, or has yet to arrive, and then the
//! others wait for it, so that it runs the same dynamic instance after all.
//!
//! This oracle therefore reads a lane of `membermask` that is not in `executing` as
//! *exited*. A lane that is alive but diverged or predicated off for good would make
//! the others wait for ever; the doc does not say what happens then, and no
//! vector is generated for it.
//!
//! The participants are `membermask & executing` ([`participants`]).
//!
//! An executing lane outside `membermask` gets [`Lane::Undefined`] in every
//! destination: "The behavior of `vote.sync` is undefined if the executing thread is
//! not in the `membermask`" (seed 002; seed 000 says the same of redux.sync, seed
//! 004 of every `.sync` instruction). The doc's "behavior" could be read as the
//! whole warp's; we read it as that thread's own, since the doc goes on to define
//! the other lanes' results (ballot: "A thread not specified in `membermask` will
//! contribute a 0"). That reading is an errata-ledger finding.
//!
//! For sm_6x and below the doc is stricter: "all threads in `membermask` must
//! execute the same `vote.sync` instruction in convergence, and only threads
//! belonging to some `membermask` can be active when the `vote.sync` instruction is
//! executed. Otherwise, the behavior is undefined." (seed 002, Note). The functions
//! here model sm_70 and later; [`defined_on_sm6x`] says whether a state is also
//! defined on sm_6x.

pub mod activemask;
pub mod elect;
pub mod matching;
pub mod redux;
pub mod shfl;
pub mod vote;

#[cfg(test)]
mod testkit;

/// The number of lanes in a warp.
pub const WARP_SIZE: usize = 32;

/// What one lane's destination holds after the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lane<T> {
    /// The value the doc defines.
    Value(T),
    /// The lane ran the instruction but the doc leaves its result undefined: any
    /// value may appear, so a test must not check it.
    Undefined,
    /// The lane did not run the instruction and wrote nothing.
    NotExecuted,
}

impl<T> Lane<T> {
    /// The defined value, if there is one.
    pub fn value(self) -> Option<T> {
        match self {
            Lane::Value(v) => Some(v),
            Lane::Undefined | Lane::NotExecuted => None,
        }
    }

    /// The same lane with `f` applied to a defined value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Lane<U> {
        match self {
            Lane::Value(v) => Lane::Value(f(v)),
            Lane::Undefined => Lane::Undefined,
            Lane::NotExecuted => Lane::NotExecuted,
        }
    }
}

/// One result per lane, indexed by lane id.
pub type PerLane<T> = [Lane<T>; WARP_SIZE];

/// The two destinations of `shfl.sync d|p` and `match.all.sync d|p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DestPred<T> {
    /// The value destination `d`.
    pub d: Lane<T>,
    /// The predicate destination `p`.
    pub p: Lane<bool>,
}

impl<T> DestPred<T> {
    /// Both destinations [`Lane::Undefined`].
    pub fn undefined() -> Self {
        DestPred {
            d: Lane::Undefined,
            p: Lane::Undefined,
        }
    }

    /// Both destinations [`Lane::NotExecuted`].
    pub fn not_executed() -> Self {
        DestPred {
            d: Lane::NotExecuted,
            p: Lane::NotExecuted,
        }
    }
}

/// The lanes that take part: the doc's "non-exited threads in `membermask`".
pub fn participants(membermask: u32, executing: u32) -> u32 {
    membermask & executing
}

/// Whether the doc defines this state on sm_6x and below, where "all threads in
/// `membermask` must execute the same `vote.sync` instruction in convergence, and
/// only threads belonging to some `membermask` can be active" (seed 002, Note; the
/// same Note stands in shfl.sync, seed 004). With one `membermask` for the warp that
/// is `executing == membermask`: an exited lane of `membermask` cannot "execute" the
/// instruction, so it too makes the behavior undefined there.
pub fn defined_on_sm6x(membermask: u32, executing: u32) -> bool {
    executing == membermask
}

/// Where a lane stands for a `.sync` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Not in `executing`.
    NotExecuted,
    /// Executing but not in `membermask`: undefined behavior for that lane.
    OutsideMask,
    /// Executing and in `membermask`.
    Participant,
}

fn bit(mask: u32, lane: usize) -> bool {
    mask >> lane & 1 == 1
}

fn status(membermask: u32, executing: u32, lane: usize) -> Status {
    match (bit(executing, lane), bit(membermask, lane)) {
        (false, _) => Status::NotExecuted,
        (true, false) => Status::OutsideMask,
        (true, true) => Status::Participant,
    }
}

/// The result of a `.sync` instruction with one destination: `f(lane)` for the
/// participants, [`Lane::Undefined`] for executing lanes outside `membermask`.
fn sync_lanes<T>(
    membermask: u32,
    executing: u32,
    mut f: impl FnMut(usize) -> Lane<T>,
) -> PerLane<T> {
    std::array::from_fn(|lane| match status(membermask, executing, lane) {
        Status::NotExecuted => Lane::NotExecuted,
        Status::OutsideMask => Lane::Undefined,
        Status::Participant => f(lane),
    })
}

/// The lane ids whose bits are set in `mask`, in increasing order.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |&lane| bit(mask, lane))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_lanes_sorts_lanes_into_the_three_kinds() {
        let out = sync_lanes(0x0000_00ff, 0x0000_0f0f, Lane::Value);
        for (lane, got) in out.iter().enumerate() {
            let want = match lane {
                0..=3 => Lane::Value(lane),
                8..=11 => Lane::Undefined,
                _ => Lane::NotExecuted,
            };
            assert_eq!(*got, want, "lane {lane}");
        }
    }

    #[test]
    fn lanes_of_lists_set_bits_in_order() {
        assert_eq!(lanes_of(0x8000_0005).collect::<Vec<_>>(), vec![0, 2, 31]);
        assert_eq!(lanes_of(0).count(), 0);
        assert_eq!(lanes_of(u32::MAX).count(), WARP_SIZE);
    }

    #[test]
    fn sm6x_needs_exactly_the_membermask_to_execute() {
        // (membermask, executing, defined on sm_6x)
        for &(m, e, want) in &[
            (u32::MAX, u32::MAX, true),
            (0xff, 0xff, true),
            (0xff, 0x7f, false),  // an exited member
            (0xff, 0x1ff, false), // an active non-member
        ] {
            assert_eq!(
                defined_on_sm6x(m, e),
                want,
                "membermask {m:#x} executing {e:#x}"
            );
        }
    }

    #[test]
    fn lane_map_and_value() {
        assert_eq!(Lane::Value(2).map(|v| v * 3), Lane::Value(6));
        assert_eq!(Lane::<u32>::Undefined.map(|v| v * 3), Lane::Undefined);
        assert_eq!(Lane::<u32>::NotExecuted.map(|v| v * 3), Lane::NotExecuted);
        assert_eq!(Lane::Value(1).value(), Some(1));
        assert_eq!(Lane::<u32>::Undefined.value(), None);
    }
}
