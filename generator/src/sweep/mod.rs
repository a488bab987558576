//! The exhaustive 16-bit sweeps, planned: which memory reductions are swept and how
//! each spells its instruction (`catalog`), and how every (memory, operand) pair of
//! one, 2^32 in all, is condensed into digests that a GPU and this crate compute
//! alike (`digest`). The GPU side is `ptxvec silicon-sweep` (`gpu::bits16`; `gpu::wide` for the wide
//! sweeps, `gpu` their one loop); the
//! recorded digests are in vectors/silicon/sm_90/sweeps.json. What a reduction
//! computes on a pair is the oracle's (`ptxvec_oracle::memory::Reduction`); nothing
//! here decides a result. `fast` computes the same row digests with SIMD kernels,
//! held to the oracle, so that a whole sweep takes about a second (the replay of
//! every recorded sweep); `bench` times them. `level` is the one run-time detection
//! of the CPU's instruction-set levels, for `fast` and `wide` alike.
//!
//! Pair `p` (a u32) is `mem << 16 | operand`. A sweep's result for `p` is the memory
//! after the reduction, as a u32: the 16-bit element for a scalar layout; for a
//! two-element layout (packed `x2` or `.v2`), element 0 (the low half / the first
//! register) reduces `(mem, operand)` and element 1 reduces `(operand, mem)`, so both
//! element positions see every pair, in both orders.

pub mod bench;
mod catalog;
mod digest;
pub mod wide;
pub mod fast;
pub mod gpu;
pub mod level;

pub use catalog::{Bits16, Catalog, Layout, Sweep, Swept};
pub use digest::{
    blocks_from_rows, mix, mix_after_gamma, term, Inexact, BLOCKS, BLOCK_PAIRS, GAMMA, M1, M2,
    PAIRS, ROWS, ROWS_PER_BLOCK, ROW_PAIRS,
};
