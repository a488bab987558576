//! The sweeps at the hardware floor: the same row digests as [`Sweep::row_digests`],
//! computed by SIMD kernels instead of the scalar oracle, one kernel per ISA level
//! chosen at run time.
//!
//! The oracle stays the definition. A [`Kernel`] exists only for a sweep whose
//! reduction it can express ([`Plan::of`] reads the sm_90 profile's choices from
//! the oracle and refuses anything else), and only after it has reproduced
//! [`Sweep::result`] on every pair of the boundary values ([`boundary_values`]) at
//! its level. The tests hold every level to the oracle on whole rows of boundary
//! values, and one op exhaustively (tests/silicon_sweeps.rs).
//!
//! What each level computes, per 16-bit element:
//! - add: the hardware's IEEE addition in round-to-nearest-even, then sm_90's NaN
//!   (every NaN result is the canonical 0x7fff) blended in on the result bits. x86
//!   returns the first operand's quieted NaN or its own default NaN, never 0x7fff.
//!   f16 on [`Level::Avx512Fp16`] adds in f16 (`vaddph`, rounding fixed by `{rn-sae}`);
//!   every other level and bf16 add in f32 and round back once more, which equals a
//!   single rounding for every pair (Figueroa's p' ≥ 2p + 2, with the exponent-range
//!   cases: `ptxvec_oracle::float::add_via_f32`). f32 to f16 is `vcvtps2ph` with
//!   round-to-nearest-even (x86) or integer rounding (portable); f32 to bf16 is always
//!   integer round-to-nearest-even on the bits, never `vcvtneps2bf16`, which flushes
//!   subnormals. Rust leaves MXCSR's FTZ and DAZ off, so the f32 adds keep
//!   subnormals, as `.noftz` requires; the zero signs are IEEE's, as the oracle's.
//! - min/max: integer code on every level. A 16-bit pattern maps to a key whose
//!   signed order is the values' order with −0 < +0, the oracle's `order_key`; a NaN
//!   operand yields the other operand, two NaNs the canonical NaN (sm_90's
//!   `min_max_mode`).
//!
//! A SIMD step computes the results of one memory value against 32 (AVX-512) or 16
//! (AVX2) consecutive operands, one vector of 16-bit lanes, and unpacks them into
//! the digest's u64 lanes beside their pairs; a swapped layout's two elements are one
//! result placed twice (the operations commute bit for bit: [`Plan`]).
//!
//! The digest (`mix` over u64 lanes) is vectorized too: 8 lanes with AVX-512DQ's
//! 64-bit multiply, 4 lanes with AVX2 (the multiply from three 32-bit ones), plain
//! u64 on the portable level. It is the floor: [`floor_row_digest`] digests every
//! pair with a trivial result (the operand), and `ptxvec bench` compares the sweeps
//! with it.
//!
//! A level is forced with `PTXVEC_SWEEP_LEVEL` (one of [`Level::ALL`]'s names); a
//! level this CPU lacks is then an error, not a fallback.

use std::ops::Range;

use ptxvec_oracle::float::{Format, MinMax, MinMaxMode};
use ptxvec_oracle::memory::{Element, Op as OracleOp};
use ptxvec_oracle::memory::sm90;
use rayon::prelude::*;

use super::catalog::{Layout, Sweep};
use super::digest::{term, Inexact, ROW_PAIRS};
pub use super::level::{Level, LevelError, LEVEL_VAR};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod portable;

/// Pairs in one row, as a slice length.
const ROW: usize = ROW_PAIRS as usize;

/// Why no fast kernel runs a sweep, or why one disagrees with the oracle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FastError {
    /// The level is unknown or missing on this CPU.
    #[error(transparent)]
    Level(#[from] LevelError),
    /// The sweep's reduction is not one the kernels express.
    #[error("{sweep}: no fast kernel: {why}")]
    Unsupported {
        /// The sweep's name.
        sweep: &'static str,
        /// What the kernels lack.
        why: &'static str,
    },
    /// A boundary pair where the kernel and the oracle differ.
    #[error("{sweep} at {level}: pair {pair:#010x} gives {fast:#010x}, the oracle {oracle:#010x}")]
    Disagrees {
        /// The sweep's name.
        sweep: &'static str,
        /// The level.
        level: Level,
        /// The pair, `mem << 16 | operand`.
        pair: u32,
        /// The kernel's result.
        fast: u32,
        /// The oracle's.
        oracle: u32,
    },
    /// The oracle gave no exact bits for a boundary pair.
    #[error(transparent)]
    Inexact(#[from] Inexact),
}

impl From<FastError> for crate::error::Error {
    fn from(e: FastError) -> Self {
        crate::error::Error::Fast(Box::new(e))
    }
}

/// The element operation of a sweep, as the kernels implement it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// IEEE addition rounded to nearest even, subnormals kept, NaN results canonical.
    Add,
    /// The smaller, −0 < +0, a NaN operand ignored.
    Min,
    /// The larger, likewise.
    Max,
}

/// What a kernel computes: the element operation, the format and the layout.
///
/// Each operation commutes bit for bit, so the SIMD levels compute a swapped
/// layout's element 1, `(operand, mem)`, as its element 0, `(mem, operand)`, and
/// place it twice. Addition: the exact sum commutes, hence its rounding and the
/// sign of a zero sum (IEEE 754-2019 §6.3), and every NaN result is the one
/// canonical NaN. min and max: the key is injective on non-NaN patterns (the two
/// compare equal only as the same pattern), one NaN yields the other operand in
/// either order, two yield the canonical NaN. The tests hold element 1 to the
/// oracle's `(operand, mem)` on every boundary row at every level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Plan {
    /// The element operation.
    pub op: Op,
    /// bf16 (`true`) or f16.
    pub bf16: bool,
    /// How a pair lies in the access.
    pub layout: Layout,
}

impl Plan {
    /// The plan of a sweep, from the oracle's sm_90 choices for its reduction.
    pub fn of(s: &Sweep) -> Result<Plan, FastError> {
        let r = &s.reduction;
        let unsupported = |why| FastError::Unsupported { sweep: s.name, why };
        let bf16 = match r.element {
            Element::Float(f) if f == Format::F16 => false,
            Element::Float(f) if f == Format::BF16 => true,
            _ => return Err(unsupported("not a 16-bit float")),
        };
        let op = match r.op {
            OracleOp::Add => {
                // The oracle gives either window's bits for a scalar generic red.
                if r.generic_by_window() {
                    return Err(unsupported("a generic address may be either window"));
                }
                if sm90::flushes(r) {
                    return Err(unsupported("flushes subnormals"));
                }
                Op::Add
            }
            OracleOp::MinMax(m) => {
                if sm90::min_max_mode(r) != MinMaxMode::PLAIN {
                    return Err(unsupported("min/max with ftz, .NaN or .abs"));
                }
                match m {
                    MinMax::Min => Op::Min,
                    MinMax::Max => Op::Max,
                }
            }
            OracleOp::Int(_) => return Err(unsupported("an integer reduction")),
        };
        Ok(Plan {
            op,
            bf16,
            layout: s.layout,
        })
    }
}

/// A sweep's kernel at one level: built only where the level is available and the
/// kernel reproduces the oracle on the boundary pairs.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    sweep: &'static Sweep,
    plan: Plan,
    // Private, and set only by `new` after `level.available()`: the unsafe calls
    // into the level's `#[target_feature]` code rely on it.
    level: Level,
}

impl Kernel {
    /// The kernel of `sweep` at `level`, checked against [`Sweep::result`] on every
    /// pair of [`boundary_values`].
    pub fn new(sweep: &'static Sweep, level: Level) -> Result<Kernel, FastError> {
        if !level.available() {
            return Err(LevelError::Unavailable(level).into());
        }
        let k = Kernel {
            sweep,
            plan: Plan::of(sweep)?,
            level,
        };
        k.check_boundary(|p| sweep.result(p))?;
        Ok(k)
    }

    /// The level it runs at.
    pub fn level(&self) -> Level {
        self.level
    }

    /// What it computes.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// Compares every pair of boundary values with `oracle`.
    fn check_boundary(
        &self,
        oracle: impl Fn(u32) -> Result<u32, Inexact>,
    ) -> Result<(), FastError> {
        let values = boundary_values(self.sweep.format());
        let mut row = vec![0u32; ROW];
        for &m in &values {
            self.row_results(m, &mut row);
            for &o in &values {
                let pair = u32::from(m) << 16 | u32::from(o);
                let want = oracle(pair)?;
                let got = row[usize::from(o)];
                if got != want {
                    return Err(FastError::Disagrees {
                        sweep: self.sweep.name,
                        level: self.level,
                        pair,
                        fast: got,
                        oracle: want,
                    });
                }
            }
        }
        Ok(())
    }

    /// The digest of row `mem` (pairs `mem << 16 | operand`, every operand).
    pub fn row_digest(&self, mem: u16) -> u64 {
        self.run(mem, None)
    }

    /// Row `mem`'s results into `out` (indexed by operand), and its digest.
    ///
    /// # Panics
    /// If `out` does not hold exactly one row (65536 results).
    pub fn row_results(&self, mem: u16, out: &mut [u32]) -> u64 {
        assert_eq!(out.len(), ROW, "a row holds 65536 results");
        self.run(mem, Some(out))
    }

    /// The digest of each row in `rows`, in row order, over rayon's pool.
    pub fn row_digests(&self, rows: Range<u32>) -> Vec<u64> {
        rows.into_par_iter()
            .map(|row| self.row_digest(row as u16))
            .collect()
    }

    // The one place a kernel's `#[target_feature]` code is entered.
    #[allow(unsafe_code)]
    fn run(&self, mem: u16, out: Option<&mut [u32]>) -> u64 {
        match self.level {
            Level::Portable => portable::row(self.plan, mem, out),
            // SAFETY (each arm): `Kernel::new` built this kernel only after
            // `self.level.available()` detected the level's features on this CPU.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512Fp16 => unsafe { avx512::row_fp16(self.plan, mem, out) },
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { avx512::row(self.plan, mem, out) },
            #[cfg(target_arch = "x86_64")]
            Level::Avx2F16c => unsafe { avx2::row(self.plan, mem, out) },
            // Never built elsewhere: `available()` is false for them.
            #[cfg(not(target_arch = "x86_64"))]
            Level::Avx512Fp16 | Level::Avx512 | Level::Avx2F16c => {
                portable::row(self.plan, mem, out)
            }
        }
    }
}

/// The floor of a sweep at `level`: the digest of row `mem` with the operand as
/// every pair's result (`Σ term(mem << 16 | o, o)`), the same loop and digest with
/// nothing computed. `None` where the level is not available.
#[allow(unsafe_code)]
pub fn floor_row_digest(level: Level, mem: u16) -> Option<u64> {
    if !level.available() {
        return None;
    }
    Some(match level {
        Level::Portable => portable::floor_row(mem),
        // SAFETY (each arm): `level.available()` detected the level's features.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512Fp16 | Level::Avx512 => unsafe { avx512::floor_row(mem) },
        #[cfg(target_arch = "x86_64")]
        Level::Avx2F16c => unsafe { avx2::floor_row(mem) },
        #[cfg(not(target_arch = "x86_64"))]
        Level::Avx512Fp16 | Level::Avx512 | Level::Avx2F16c => portable::floor_row(mem),
    })
}

/// The scalar floor of row `mem`, from [`term`]: what [`floor_row_digest`] must equal.
pub fn floor_row_reference(mem: u16) -> u64 {
    (0..=u16::MAX).fold(0u64, |a, o| {
        a.wrapping_add(term(u32::from(mem) << 16 | u32::from(o), u32::from(o)))
    })
}

/// The memory values whose rows the kernels are checked on: the input catalog's
/// specials of the format (both zeros, the subnormal and normal extremes, one and
/// its neighbours, the ties of one and of the largest normal, infinity, quiet,
/// signalling and canonical NaNs, both signs), and their neighbours one pattern
/// up and down (the largest subnormal's up is the smallest normal: the carry).
pub fn boundary_values(fmt: Format) -> Vec<u16> {
    use crate::family::catalog::{float_specials, more_float_specials};
    let mut v: Vec<u16> = float_specials(fmt)
        .into_iter()
        .chain(more_float_specials(fmt))
        .flat_map(|n| {
            let x = n.bits as u16;
            [x.wrapping_sub(1), x, x.wrapping_add(1)]
        })
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests;
