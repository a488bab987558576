//! The fast oracle's row loop ([`fast::row`]) compiled for each instruction-set
//! level and chosen at run time. The loop is the same Rust for every level;
//! `#[target_feature]` lets LLVM vectorize it with AVX-512 (16 f32 or 8 f64 lanes,
//! and AVX-512DQ's 64-bit multiply for the digest) or AVX2 (8 or 4 lanes, the
//! multiply from 32-bit ones). The portable level is the same loop as the build's
//! baseline compiles it.
//!
//! The module's only `unsafe` is calling a `#[target_feature]` function: sound where
//! the CPU has those features, which each call checks first.
#![allow(unsafe_code)]

use super::kernel::{self as fast, Lane};
use crate::sweep::level::Level;

/// The levels the row loop is compiled for, best first: a level runs the best of
/// them whose features it has ([`Level::compiled_as`]).
pub const COMPILED: &[Level] = &[Level::Avx512, Level::Avx2F16c, Level::Portable];

/// [`fast::row`] in the compilation `level` runs; at the portable level where this
/// CPU lacks `level`'s features (the result is the same, only slower).
#[inline]
pub fn row<L: Lane, const FLUSH: bool, const NAN: u8>(
    level: Level,
    m: L,
    ops: &[L],
    default: L,
    key0: u64,
) -> u64 {
    match level.compiled_as(COMPILED) {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 if level.available() => {
            // SAFETY: `available()` just found `level`'s features on this CPU, and
            // a level that runs the AVX-512 compilation has avx512f, avx512dq,
            // avx512vl and avx512bw among them, the features `row_avx512` is
            // compiled with (`Level::compiled_as`; the levels nest).
            unsafe { row_avx512::<L, FLUSH, NAN>(m, ops, default, key0) }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx2F16c if level.available() => {
            // SAFETY: as above; a level that runs the AVX2 compilation has avx2,
            // the feature of `row_avx2`.
            unsafe { row_avx2::<L, FLUSH, NAN>(m, ops, default, key0) }
        }
        _ => fast::row::<L, FLUSH, NAN>(m, ops, default, key0),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
fn row_avx512<L: Lane, const FLUSH: bool, const NAN: u8>(
    m: L,
    ops: &[L],
    default: L,
    key0: u64,
) -> u64 {
    fast::row::<L, FLUSH, NAN>(m, ops, default, key0)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn row_avx2<L: Lane, const FLUSH: bool, const NAN: u8>(
    m: L,
    ops: &[L],
    default: L,
    key0: u64,
) -> u64 {
    fast::row::<L, FLUSH, NAN>(m, ops, default, key0)
}
