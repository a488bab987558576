//! The wide sweeps: f32 and f64 memory reductions over a structured set of pairs,
//! 2^36 for f32 and 2^32 for f64 per instruction, where the 16-bit sweeps take every
//! pair. Which instructions (`catalog`), which pairs (`set`: every exponent of a
//! chosen 256 against every other, crossed with TestFloat-style significand
//! patterns), how the results are condensed (`digest`), and a fast CPU oracle that
//! replays them (`fast`, `simd`): the host's own adds with the sm_90 profile's
//! flushing and NaN bits laid over them, checked against the scalar oracle before
//! use. The GPU side is `ptxvec silicon-sweep-wide` (`sweep::gpu::wide`); the recorded
//! digests are in vectors/silicon/sm_90/wide-sweeps.json.

mod catalog;
mod digest;
mod fast;
mod kernel;
mod set;
mod simd;

pub use catalog::{Wide, WideSweep};
pub use digest::{blocks_from_rows, term, Replay, BLOCKS};
pub use fast::{boundary_values, Plan, Rows};
pub use kernel::{Lane, NanRule};
pub use set::{Pairs, Recipe, Set, EXPONENTS};

use ptxvec_oracle::float::Expect;

/// The key multiplier γ (splitmix64's increment; odd).
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// Why a wide sweep's oracle cannot answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WideError {
    /// The sm_90 profile gives a class, not bits.
    #[error("{sweep}: mem {mem:#x} + operand {operand:#x}: the sm_90 profile gives {expect:x?}, not exact bits")]
    Inexact {
        /// The sweep.
        sweep: String,
        /// The memory bits.
        mem: u64,
        /// The operand bits.
        operand: u64,
        /// What the oracle gave.
        expect: Expect,
    },
    /// No plan of the fast oracle reproduces the scalar oracle.
    #[error("{sweep}: the fast oracle cannot compute it: {why}")]
    NoPlan {
        /// The sweep.
        sweep: String,
        /// Why not.
        why: String,
    },
    /// The fast oracle's digest of a row is not the scalar oracle's.
    #[error("{sweep}: row {row:#x}: the fast oracle ({level}) gives {fast:016x}, the scalar oracle {scalar:016x}")]
    FastDiffers {
        /// The sweep.
        sweep: String,
        /// The row (memory index).
        row: u64,
        /// The fast digest.
        fast: u64,
        /// The scalar digest.
        scalar: u64,
        /// The fast oracle's level.
        level: &'static str,
    },
    /// The CPU lacks the level asked for.
    #[error(transparent)]
    Level(#[from] crate::sweep::level::LevelError),
}

impl From<WideError> for crate::error::Error {
    fn from(e: WideError) -> Self {
        crate::error::Error::Wide(Box::new(e))
    }
}
