//! The digests a sweep is recorded as, and the oracle's side of them.
//!
//! The digest of a range of pairs is `Σ mix(p << 32 | result(p)) mod 2^64`, with
//! `mix` the splitmix64 finalizer. Why it is exactly reproducible on both sides:
//! integer wrapping addition is associative and commutative, so the GPU may add the
//! terms in any order (warp shuffles, atomics) and still get the same u64; `mix` uses
//! only 64-bit add, xor, shift and low-half multiply, which PTX and Rust define
//! identically. Why it catches a wrong result: `p << 32 | result` is injective and
//! `mix` is a bijection, so one changed result changes exactly one term, and the
//! digest with it. And digests compose: the digest of a range is the sum of the
//! digests of its parts, which is how a block's digest comes from its rows'.

use std::ops::Range;

use ptxvec_oracle::float::Expect;
use ptxvec_oracle::profile::Profile;
use rayon::prelude::*;

use super::catalog::{Layout, Sweep};

/// Pairs in a sweep: every (memory, operand) pair of 16-bit patterns.
pub const PAIRS: u64 = 1 << 32;
/// Pairs in a row: one memory value, every operand.
pub const ROW_PAIRS: u64 = 1 << 16;
/// Rows in a sweep.
pub const ROWS: u32 = 1 << 16;
/// Pairs in a recorded block: 256 memory values, every operand.
pub const BLOCK_PAIRS: u64 = 1 << 24;
/// Recorded blocks per sweep.
pub const BLOCKS: usize = (PAIRS / BLOCK_PAIRS) as usize;
/// Rows per recorded block.
pub const ROWS_PER_BLOCK: usize = (BLOCK_PAIRS / ROW_PAIRS) as usize;

/// A pair whose sm_90 expectation is not one bit pattern: no digest can be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("pair {pair:#010x}: the sm_90 profile gives {expect:x?}, not exact bits")]
pub struct Inexact {
    /// The pair, `mem << 16 | operand`.
    pub pair: u32,
    /// What the oracle gave.
    pub expect: Expect,
}

impl From<Inexact> for crate::error::Error {
    fn from(e: Inexact) -> Self {
        crate::error::Error::Inexact(Box::new(e))
    }
}

impl Sweep {
    /// The result for pair `p` under the sm_90 profile, which must be exact.
    pub fn result(&self, p: u32) -> Result<u32, Inexact> {
        let (mem, operand) = (p >> 16, p & 0xffff);
        let one =
            |r: u32, s: u32| match self
                .reduction
                .element(Profile::Sm90, u64::from(r), u64::from(s))
            {
                Expect::Bits(b) => Ok((b & 0xffff) as u32),
                expect => Err(Inexact { pair: p, expect }),
            };
        match self.layout {
            Layout::Scalar => one(mem, operand),
            Layout::Swapped => Ok(one(mem, operand)? | one(operand, mem)? << 16),
        }
    }

    /// The digest of `pairs` (a range inside `0..PAIRS`).
    pub fn digest(&self, pairs: Range<u64>) -> Result<u64, Inexact> {
        let mut sum = 0u64;
        for p in pairs {
            let p = p as u32;
            sum = sum.wrapping_add(term(p, self.result(p)?));
        }
        Ok(sum)
    }

    /// The digest of each row in `rows`, in row order, spread over rayon's pool
    /// (`RAYON_NUM_THREADS` threads, or one per core). An error is the first inexact
    /// pair of the first row that has one, whatever order the rows ran in.
    pub fn row_digests(&self, rows: Range<u32>) -> Result<Vec<u64>, Inexact> {
        // One row per job: NaN rows cost less than others, so rayon balances them.
        let digests: Vec<Result<u64, Inexact>> = rows
            .into_par_iter()
            .map(|row| {
                let row = u64::from(row);
                self.digest(row * ROW_PAIRS..(row + 1) * ROW_PAIRS)
            })
            .collect();
        digests.into_iter().collect()
    }
}

/// [`mix`]'s additive constant (the golden-ratio increment of splitmix64).
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// [`mix`]'s first multiplier.
pub const M1: u64 = 0xbf58_476d_1ce4_e5b9;
/// [`mix`]'s second multiplier.
pub const M2: u64 = 0x94d0_49bb_1331_11eb;

/// The splitmix64 finalizer (Steele, Lea, Flood 2014; the constants of
/// `java.util.SplittableRandom`): a bijection on u64.
pub const fn mix(x: u64) -> u64 {
    mix_after_gamma(x.wrapping_add(GAMMA))
}

/// [`mix`] less its first step: `mix(x) == mix_after_gamma(x + GAMMA)`. The fast
/// kernels add [`GAMMA`] once to a row's running pair vector instead of per term.
pub const fn mix_after_gamma(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(M1);
    let z = (z ^ (z >> 27)).wrapping_mul(M2);
    z ^ (z >> 31)
}

/// One pair's term of a digest.
pub const fn term(p: u32, result: u32) -> u64 {
    mix((p as u64) << 32 | result as u64)
}

/// Block digests from row digests: each block is the wrapping sum of its rows.
pub fn blocks_from_rows(rows: &[u64]) -> Vec<u64> {
    rows.chunks(ROWS_PER_BLOCK)
        .map(|c| c.iter().fold(0u64, |a, &d| a.wrapping_add(d)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_matches_splitmix64_reference_values() {
        // splitmix64 seeded with 0: its outputs are mix(0), mix(γ), mix(2γ), …
        // (reference: Vigna's splitmix64.c, first outputs from seed 0).
        let table: [(u64, u64); 3] = [
            (0, 0xe220_a839_7b1d_cdaf),
            (0x9e37_79b9_7f4a_7c15, 0x6e78_9e6a_a1b9_65f4),
            (0x3c6e_f372_fe94_f82a, 0x06c4_5d18_8009_454f),
        ];
        for (x, want) in table {
            assert_eq!(mix(x), want, "mix({x:#x})");
        }
    }

    #[test]
    fn every_sweep_is_exact_on_sm_90() {
        // A few rows full of specials: zeros, subnormals, inf, NaNs, both signs.
        for s in Sweep::ALL {
            for mem in [
                0x0000u32, 0x0001, 0x7c00, 0x7c01, 0x7e00, 0x7f80, 0x7fff, 0x8000, 0xff81,
            ] {
                let row = u64::from(mem) * ROW_PAIRS;
                if let Err(e) = s.digest(row..row + ROW_PAIRS) {
                    panic!("{}: {e}", s.name);
                }
            }
        }
    }

    #[test]
    fn results_hand_worked() {
        let add_f16 = Sweep::find("red.global.add.noftz.f16").unwrap();
        let v2_min_bf16 = Sweep::find("red.global.v2.bf16.min.noftz").unwrap();
        // (sweep, mem, operand, result)
        let table: [(&Sweep, u32, u32, u32); 4] = [
            // 1 + 1 = 2.
            (add_f16, 0x3c00, 0x3c00, 0x4000),
            // Any NaN in an f16 add gives the canonical NaN on sm_90.
            (add_f16, 0x7c01, 0x3c00, 0x7fff),
            // min(1, 2) in both elements.
            (v2_min_bf16, 0x3f80, 0x4000, 0x3f80_3f80),
            // −0 < +0 on sm_90, in either order.
            (v2_min_bf16, 0x0000, 0x8000, 0x8000_8000),
        ];
        for (s, m, o, want) in table {
            let got = s.result(m << 16 | o).unwrap();
            assert_eq!(
                got, want,
                "{} mem {m:#06x} operand {o:#06x}: got {got:#010x}",
                s.name
            );
        }
    }

    #[test]
    fn digests_compose_and_threads_change_nothing() {
        let s = &Sweep::ALL[2];
        let rows = 0x7bfe..0x7c02;
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| s.row_digests(rows.clone())).unwrap()
        };
        let one = on(1);
        assert_eq!(one, on(2));
        let whole = s
            .digest(u64::from(rows.start) * ROW_PAIRS..u64::from(rows.end) * ROW_PAIRS)
            .unwrap();
        assert_eq!(one.iter().fold(0u64, |a, &d| a.wrapping_add(d)), whole);
        let blocks = blocks_from_rows(&vec![1u64; ROWS as usize]);
        assert_eq!(blocks.len(), BLOCKS);
        assert!(blocks.iter().all(|&b| b == ROWS_PER_BLOCK as u64));
    }

    #[test]
    fn one_changed_result_changes_the_digest() {
        // Each term is a bijection of (pair, result): the sum moves by the
        // difference of two distinct terms, never zero.
        let p = 0x3c00_4000u32;
        for r in [0u32, 1, 0x4000, 0x7fff, 0xffff_ffff] {
            for r2 in [r ^ 1, r ^ 0x8000, r.wrapping_add(0x1_0000)] {
                assert_ne!(
                    term(p, r),
                    term(p, r2),
                    "pair {p:#x} results {r:#x} {r2:#x}"
                );
            }
        }
    }
}
