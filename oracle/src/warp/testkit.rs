//! Test helpers shared by the warp modules: a seeded random source of warp states
//! and the lane-kind check every instruction must pass.

use super::{status, Lane, Status, WARP_SIZE};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded ChaCha8 stream; the seed is written in each test so that a failure
/// reproduces.
pub struct Rng(ChaCha8Rng);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }

    pub fn word(&mut self) -> u32 {
        self.0.next_u32()
    }

    pub fn below(&mut self, n: u32) -> u32 {
        self.word() % n
    }

    /// A `(membermask, executing)` pair, weighted towards the shapes that matter:
    /// full warps, executing == membermask, exited members and active non-members.
    pub fn masks(&mut self) -> (u32, u32) {
        let membermask = match self.below(4) {
            0 => u32::MAX,
            1 => 0x0000_ffff,
            _ => self.word(),
        };
        let executing = match self.below(5) {
            0 => u32::MAX,
            1 => membermask,
            2 => membermask & self.word(),
            3 => membermask | self.word(),
            _ => self.word(),
        };
        (membermask, executing)
    }

    /// 32 values, drawn from a small set half the time so that equal values occur.
    pub fn words(&mut self) -> [u32; WARP_SIZE] {
        let small = self.word() & 1 == 1;
        std::array::from_fn(|_| if small { self.below(4) } else { self.word() })
    }
}

/// Lane `i`'s predicate is bit `i` of `mask`.
pub fn bools(mask: u32) -> [bool; WARP_SIZE] {
    std::array::from_fn(|lane| mask >> lane & 1 == 1)
}

/// Every `.sync` result: lanes outside `executing` are `NotExecuted`, executing lanes
/// outside `membermask` are `Undefined`, and participants ran the instruction.
pub fn lane_kinds_hold<T: std::fmt::Debug>(
    membermask: u32,
    executing: u32,
    out: &[Lane<T>; WARP_SIZE],
    case: &str,
) {
    for (lane, got) in out.iter().enumerate() {
        match status(membermask, executing, lane) {
            Status::NotExecuted => {
                assert!(
                    matches!(got, Lane::NotExecuted),
                    "lane {lane} got {got:?}: {case}"
                )
            }
            Status::OutsideMask => {
                assert!(
                    matches!(got, Lane::Undefined),
                    "lane {lane} got {got:?}: {case}"
                )
            }
            Status::Participant => {
                assert!(
                    !matches!(got, Lane::NotExecuted),
                    "lane {lane} got {got:?}: {case}"
                )
            }
        }
    }
}
