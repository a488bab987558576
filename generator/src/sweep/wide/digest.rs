//! The digests a wide sweep is recorded as, and the two oracles' sides of them.
//!
//! Pair `p` of a sweep over a set of `N = 2^B` values is `mem_index << B |
//! operand_index` (36 bits for f32, 32 for f64); its result is the memory word after
//! the reduction, zero-extended to 64 bits. Its term is
//!
//! `term(p, result) = mix((p · γ mod 2^64) ^ result)`
//!
//! with `mix` the splitmix64 finalizer and `γ = 0x9e3779b97f4a7c15` (odd). A range's
//! digest is the sum of its terms mod 2^64.
//!
//! One changed result changes exactly one term, and so the digest. Proof: for a
//! fixed `p`, `x ↦ (p·γ) ^ x` is a bijection on u64 (its own inverse) and `mix` is a
//! bijection, so `result ↦ term(p, result)` is injective; a changed result changes
//! its term by a nonzero amount mod 2^64, and no other term. Distinct pairs get
//! distinct keys (`p ↦ p·γ` is a bijection mod 2^64, γ being odd), so no two pairs
//! share a term function. The 16-bit sweeps' `p << 32 | result` does not fit here:
//! p has 36 bits and an f64 result 64.
//!
//! Why `p·γ` and not a second `mix`: along a row the key grows by γ from one
//! operand to the next, one vector add a lane in the CPU loop; the only
//! multiplications left are `mix`'s two.
//!
//! Both sides compute it alike: wrapping sums are order-free (the GPU adds by warp
//! shuffles and atomics), and 64-bit add, xor, shift and low multiply are defined
//! identically in PTX and Rust. Digests compose: the device keeps one per row (one
//! memory value), a block is [`BLOCKS`]-th of the rows, and its digest the sum of
//! theirs.

use std::ops::Range;

use ptxvec_oracle::float::{Expect, Format};
use ptxvec_oracle::profile::Profile;
use rayon::prelude::*;

use super::catalog::WideSweep;
use super::fast::{Plan, Rows};
use super::simd::COMPILED;
use crate::sweep::level::{Level, LevelError};
use super::{WideError, GAMMA};
use crate::sweep::mix;

/// Recorded blocks per sweep.
pub const BLOCKS: usize = 256;

/// One pair's term of a digest.
pub const fn term(p: u64, result: u64) -> u64 {
    mix(p.wrapping_mul(GAMMA) ^ result)
}

impl WideSweep {
    /// Rows of the sweep (memory values), also the pairs in a row.
    pub fn rows(&self) -> u64 {
        self.set().len() as u64
    }

    /// Rows in a recorded block.
    pub fn rows_per_block(&self) -> u64 {
        self.rows() / BLOCKS as u64
    }

    /// Pairs in a recorded block.
    pub fn block_pairs(&self) -> u64 {
        self.rows_per_block() * self.rows()
    }

    /// Pairs of the sweep.
    pub fn pairs(&self) -> u64 {
        self.set().pairs()
    }

    /// The memory and operand bits of pair `p`.
    pub fn operands(&self, p: u64) -> (u64, u64) {
        let set = self.set();
        let b = set.index_bits();
        (set.value(p >> b), set.value(p & ((1 << b) - 1)))
    }

    /// The scalar oracle's sm_90 result for memory `m` and operand `o`.
    pub fn oracle(&self, m: u64, o: u64) -> Result<u64, WideError> {
        match self.reduction.element(Profile::Sm90, m, o) {
            Expect::Bits(b) => Ok(b),
            expect => Err(WideError::Inexact {
                sweep: self.name.to_owned(),
                mem: m,
                operand: o,
                expect,
            }),
        }
    }

    /// The scalar oracle's result for pair `p`.
    pub fn result(&self, p: u64) -> Result<u64, WideError> {
        let (m, o) = self.operands(p);
        self.oracle(m, o)
    }

    /// The scalar oracle's digest of row `row`: the definition, pair by pair.
    pub fn scalar_row_digest(&self, row: u64) -> Result<u64, WideError> {
        let n = self.rows();
        let mut sum = 0u64;
        for p in row * n..(row + 1) * n {
            sum = sum.wrapping_add(term(p, self.result(p)?));
        }
        Ok(sum)
    }

    /// Rows of every class, 24: the memory values with the exponents 0, 1, the
    /// bias, the largest finite's and ∞'s, each with the patterns zero and all ones,
    /// and the smallest subnormal and the signalling NaN of payload 1; both signs.
    pub fn spot_rows(&self) -> Vec<u64> {
        let set = self.set();
        let p = set.recipe.pattern_bits;
        let fmt = self.format();
        let (bias, max) = (fmt.bias() as u64, fmt.exp_max());
        let mut rows = Vec::new();
        for sign in 0..2u64 {
            for exp in [0, 1, bias, max - 1, max] {
                // Every one of these exponents is in the set (set::tests).
                let e = set.exponents.iter().position(|&x| x == exp).unwrap_or(0) as u64;
                for k in [0, 1] {
                    rows.push(sign << (8 + p) | e << p | k);
                }
            }
            rows.push(sign << (8 + p) | 2);
            rows.push(sign << (8 + p) | (set.exponents.len() as u64 - 1) << p | 2);
        }
        rows
    }
}

/// The row loop of one plan in its lane type.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Typed {
    F32(Rows<u32>),
    F64(Rows<u64>),
}

/// The fast oracle of one sweep: its plan, checked against the scalar oracle, at an
/// instruction-set level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    sweep: &'static WideSweep,
    plan: Plan,
    level: Level,
    rows: Typed,
}

impl Replay {
    /// At the best level this CPU has.
    pub fn new(sweep: &'static WideSweep) -> Result<Replay, WideError> {
        Replay::at(sweep, Level::best())
    }

    /// At `level` (in the compilation it runs: [`Replay::level`]); an error where
    /// this CPU lacks it, or where no plan reproduces the scalar oracle on the
    /// boundary values.
    pub fn at(sweep: &'static WideSweep, level: Level) -> Result<Replay, WideError> {
        if !level.available() {
            return Err(LevelError::Unavailable(level).into());
        }
        let level = level.compiled_as(COMPILED);
        let plan = Plan::of(sweep.name, &sweep.reduction)?;
        let ops = sweep.set().values();
        let rows = if plan.format == Format::F32 {
            Typed::F32(Rows::new(plan, &ops))
        } else {
            Typed::F64(Rows::new(plan, &ops))
        };
        Ok(Replay {
            sweep,
            plan,
            level,
            rows,
        })
    }

    /// The sweep.
    pub fn sweep(&self) -> &'static WideSweep {
        self.sweep
    }

    /// The plan: sweeps with equal plans have equal digests.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// The level whose compilation it runs.
    pub fn level(&self) -> Level {
        self.level
    }

    /// The digest of row `row`.
    pub fn row_digest(&self, row: u64) -> u64 {
        let set = self.sweep.set();
        let m = set.value(row);
        let key0 = (row << set.index_bits()).wrapping_mul(GAMMA);
        match &self.rows {
            Typed::F32(r) => r.digest(self.level, m, key0),
            Typed::F64(r) => r.digest(self.level, m, key0),
        }
    }

    /// The digests of `rows`, in order, over rayon's pool.
    pub fn row_digests(&self, rows: Range<u64>) -> Vec<u64> {
        rows.into_par_iter().map(|r| self.row_digest(r)).collect()
    }

    /// The digest of block `block`.
    pub fn block_digest(&self, block: usize) -> u64 {
        let n = self.sweep.rows_per_block();
        let b = block as u64;
        self.row_digests(b * n..(b + 1) * n)
            .iter()
            .fold(0u64, |a, &d| a.wrapping_add(d))
    }

    /// Holds the fast digest of each of `rows` to the scalar oracle's.
    pub fn check_rows(&self, rows: &[u64]) -> Result<(), WideError> {
        rows.par_iter().try_for_each(|&row| {
            let scalar = self.sweep.scalar_row_digest(row)?;
            let fast = self.row_digest(row);
            if fast == scalar {
                Ok(())
            } else {
                Err(WideError::FastDiffers {
                    sweep: self.sweep.name.to_owned(),
                    row,
                    fast,
                    scalar,
                    level: self.level.name(),
                })
            }
        })
    }
}

/// Block digests from row digests: each block is the wrapping sum of its rows.
pub fn blocks_from_rows(rows: &[u64]) -> Vec<u64> {
    rows.chunks((rows.len() / BLOCKS).max(1))
        .map(|c| c.iter().fold(0u64, |a, &d| a.wrapping_add(d)))
        .collect()
}

#[cfg(test)]
mod tests;
