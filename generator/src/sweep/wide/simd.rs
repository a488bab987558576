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

use super::fast::{self, Lane};

/// An instruction-set level with its own compilation of the row loop, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// AVX-512 F, DQ, VL and BW.
    Avx512,
    /// AVX2.
    Avx2,
    /// The build's baseline.
    Portable,
}

impl Level {
    /// Every level, best first.
    pub const ALL: &'static [Level] = &[Level::Avx512, Level::Avx2, Level::Portable];

    /// The name in logs.
    pub fn name(self) -> &'static str {
        match self {
            Level::Avx512 => "avx512",
            Level::Avx2 => "avx2",
            Level::Portable => "portable",
        }
    }

    /// Whether this CPU has the level's features.
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Level::Avx512 | Level::Avx2 => false,
            Level::Portable => true,
        }
    }

    /// The best level this CPU has.
    pub fn best() -> Level {
        Level::ALL
            .iter()
            .copied()
            .find(|l| l.available())
            .unwrap_or(Level::Portable)
    }
}

/// [`fast::row`] at `level`; at the portable level where this CPU lacks `level`'s
/// features (the result is the same, only slower).
#[inline]
pub fn row<L: Lane, const FLUSH: bool, const NAN: u8>(
    level: Level,
    m: L,
    ops: &[L],
    default: L,
    key0: u64,
) -> u64 {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 if level.available() => {
            // SAFETY: `available()` just found avx512f, avx512dq, avx512vl and
            // avx512bw on this CPU, the features `row_avx512` is compiled with.
            unsafe { row_avx512::<L, FLUSH, NAN>(m, ops, default, key0) }
        }
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 if level.available() => {
            // SAFETY: `available()` just found avx2, the feature of `row_avx2`.
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
