//! The AVX2 level: 16 16-bit elements per operation, f16 through f32 with F16C
//! (`vcvtph2ps`, `vaddps`, `vcvtps2ph`), the digest on 4 u64 lanes, each 64-bit
//! multiply made of three 32-bit ones (AVX2 has no `vpmullq`).
//!
//! Every function here is `#[target_feature]`: the dispatch in `super` calls them
//! only for a [`super::Kernel`] whose level was detected on this CPU.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::super::digest::{GAMMA, M1, M2};
use super::{Op, Plan, ROW};
use crate::sweep::Layout;

/// sm_90's NaN for every 16-bit result that is NaN.
const CANONICAL: i16 = 0x7fff;
const ADD: u8 = 0;
const MIN: u8 = 1;
const MAX: u8 = 2;

// ------------------------------------------------------------------ the digest

/// `z * c` mod 2^64 per lane: lo·lo + ((hi·lo + lo·hi) << 32).
#[inline]
#[target_feature(enable = "avx2")]
fn mul_const(z: __m256i, c: u64) -> __m256i {
    let lo = _mm256_set1_epi64x((c & 0xffff_ffff) as i64);
    let hi = _mm256_set1_epi64x((c >> 32) as i64);
    let low = _mm256_mul_epu32(z, lo);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(_mm256_srli_epi64::<32>(z), lo),
        _mm256_mul_epu32(z, hi),
    );
    _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross))
}

/// `mix` from its second step, on 4 lanes (`super::super::digest::mix_after_gamma`).
#[inline]
#[target_feature(enable = "avx2")]
fn mix_after_gamma(z: __m256i) -> __m256i {
    let z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64::<30>(z)), M1);
    let z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64::<27>(z)), M2);
    _mm256_xor_si256(z, _mm256_srli_epi64::<31>(z))
}

/// The sum of the 4 lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn lane_sum(acc: __m256i) -> u64 {
    let s = _mm_add_epi64(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    (_mm_cvtsi128_si64(s) as u64).wrapping_add(_mm_extract_epi64::<1>(s) as u64)
}

/// Stores 8 results.
#[inline]
#[target_feature(enable = "avx2")]
fn store8(out: &mut [u32], v: __m256i) {
    let out = &mut out[..8];
    // SAFETY: `out` holds 8 u32 (the slice above is bounds-checked), and the store
    // is unaligned.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) }
}

// ------------------------------------------------------------------ the element operations

/// Every NaN word becomes the canonical NaN. Magnitudes are below 0x8000, so the
/// signed word compare orders them.
#[inline]
#[target_feature(enable = "avx2")]
fn canonical_nan(r: __m256i, inf: i16) -> __m256i {
    let magnitude = _mm256_and_si256(r, _mm256_set1_epi16(0x7fff));
    let nan = _mm256_cmpgt_epi16(magnitude, _mm256_set1_epi16(inf));
    _mm256_blendv_epi8(r, _mm256_set1_epi16(CANONICAL), nan)
}

/// f16 `a + b` on 16 words through f32 (innocuous double rounding:
/// `ptxvec_oracle::float::add_via_f32`). `vaddps` rounds as MXCSR says: to nearest
/// even, which Rust never changes.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn add_f16(a: __m256i, b: __m256i) -> __m256i {
    let lo = |x: __m256i| _mm256_cvtph_ps(_mm256_castsi256_si128(x));
    let hi = |x: __m256i| _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(x));
    let s_lo = _mm256_add_ps(lo(a), lo(b));
    let s_hi = _mm256_add_ps(hi(a), hi(b));
    let r = _mm256_set_m128i(
        _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(s_hi),
        _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(s_lo),
    );
    canonical_nan(r, 0x7c00)
}

/// An f32 sum rounded to bf16 on the bits, nearest even, in the high word.
#[inline]
#[target_feature(enable = "avx2")]
fn bf16_in_high_word(s: __m256) -> __m256i {
    let x = _mm256_castps_si256(s);
    let odd = _mm256_and_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(1));
    _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), odd)
}

/// bf16 `a + b` on 16 words through f32, even and odd words apart. A NaN sum
/// stays NaN through the rounding (see the AVX-512 level's `add_bf16`).
#[inline]
#[target_feature(enable = "avx2")]
fn add_bf16(a: __m256i, b: __m256i) -> __m256i {
    let high = _mm256_set1_epi32(0xffff_0000u32 as i32);
    let even = |x: __m256i| _mm256_castsi256_ps(_mm256_slli_epi32::<16>(x));
    let odd = |x: __m256i| _mm256_castsi256_ps(_mm256_and_si256(x, high));
    let te = bf16_in_high_word(_mm256_add_ps(even(a), even(b)));
    let to = bf16_in_high_word(_mm256_add_ps(odd(a), odd(b)));
    let r = _mm256_or_si256(_mm256_srli_epi32::<16>(te), _mm256_and_si256(to, high));
    canonical_nan(r, 0x7f80)
}

/// min (`IS_MAX` false) or max on 16 words: integer keys, NaN ignored.
#[inline]
#[target_feature(enable = "avx2")]
fn min_max<const IS_MAX: bool>(a: __m256i, b: __m256i, inf: i16) -> __m256i {
    let magnitude = _mm256_set1_epi16(0x7fff);
    let inf = _mm256_set1_epi16(inf);
    let a_nan = _mm256_cmpgt_epi16(_mm256_and_si256(a, magnitude), inf);
    let b_nan = _mm256_cmpgt_epi16(_mm256_and_si256(b, magnitude), inf);
    // Negative patterns flip their magnitude: signed order is value order, −0 < +0.
    let key =
        |x: __m256i| _mm256_xor_si256(x, _mm256_and_si256(_mm256_srai_epi16::<15>(x), magnitude));
    let (ka, kb) = (key(a), key(b));
    // `a` comes first unless `b` is strictly before it.
    let b_before = if IS_MAX {
        _mm256_cmpgt_epi16(kb, ka)
    } else {
        _mm256_cmpgt_epi16(ka, kb)
    };
    // pick a = (a first and a not NaN) or b NaN.
    let pick_a = _mm256_or_si256(
        _mm256_andnot_si256(_mm256_or_si256(b_before, a_nan), _mm256_set1_epi16(-1)),
        b_nan,
    );
    let r = _mm256_blendv_epi8(b, a, pick_a);
    _mm256_blendv_epi8(
        r,
        _mm256_set1_epi16(CANONICAL),
        _mm256_and_si256(a_nan, b_nan),
    )
}

#[inline]
#[target_feature(enable = "avx2,f16c")]
fn op<const OP: u8, const BF16: bool>(a: __m256i, b: __m256i) -> __m256i {
    let inf = if BF16 { 0x7f80 } else { 0x7c00 };
    match OP {
        ADD if BF16 => add_bf16(a, b),
        ADD => add_f16(a, b),
        MIN => min_max::<false>(a, b, inf),
        _ => min_max::<true>(a, b, inf),
    }
}

// ------------------------------------------------------------------ the rows

/// The pairs `mem << 16 | o` as dwords, in the order the steps' unpacking takes
/// them: dword `4L + m` holds operand `8L + first + m` (see the AVX-512 level).
#[inline]
#[target_feature(enable = "avx2")]
fn pair_dwords(mem: u16, first: i32) -> __m256i {
    let o = |d: i32| d / 4 * 8 + first + d % 4;
    let operands = _mm256_set_epi32(o(7), o(6), o(5), o(4), o(3), o(2), o(1), o(0));
    _mm256_or_si256(_mm256_set1_epi32(i32::from(mem) << 16), operands)
}

/// 16 operands per step against the broadcast memory value, `r` the results
/// `(mem, o)`; the swapped layout's `(o, mem)` is the same word (the operations
/// commute bit for bit: [`super::Plan`]). Unpacking widens `r` to four vectors of
/// 4 u64 lanes, each term's input `pair << 32 | result`.
#[target_feature(enable = "avx2,f16c")]
fn steps<const OP: u8, const BF16: bool, const SWAPPED: bool, const STORE: bool>(
    mem: u16,
    out: &mut [u32],
) -> u64 {
    let a = _mm256_set1_epi16(mem as i16);
    let mut b = _mm256_set_epi16(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let step_b = _mm256_set1_epi16(16);
    let (mut pairs_lo, mut pairs_hi) = (pair_dwords(mem, 0), pair_dwords(mem, 4));
    let step_pairs = _mm256_set1_epi32(16);
    let gamma = _mm256_set1_epi64x(GAMMA as i64);
    let zero = _mm256_setzero_si256();
    let mut acc = zero;
    for i in 0..ROW / 16 {
        let r = op::<OP, BF16>(a, b);
        let high = if SWAPPED { r } else { zero };
        let (d_lo, d_hi) = (
            _mm256_unpacklo_epi16(r, high),
            _mm256_unpackhi_epi16(r, high),
        );
        if STORE {
            let both = |x: __m256i| {
                if SWAPPED {
                    _mm256_or_si256(x, _mm256_slli_epi32::<16>(x))
                } else {
                    x
                }
            };
            let lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(r));
            let hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256::<1>(r));
            store8(&mut out[16 * i..], both(lo));
            store8(&mut out[16 * i + 8..], both(hi));
        }
        let x = [
            _mm256_unpacklo_epi32(d_lo, pairs_lo),
            _mm256_unpackhi_epi32(d_lo, pairs_lo),
            _mm256_unpacklo_epi32(d_hi, pairs_hi),
            _mm256_unpackhi_epi32(d_hi, pairs_hi),
        ];
        for x in x {
            acc = _mm256_add_epi64(acc, mix_after_gamma(_mm256_add_epi64(x, gamma)));
        }
        b = _mm256_add_epi16(b, step_b);
        pairs_lo = _mm256_add_epi32(pairs_lo, step_pairs);
        pairs_hi = _mm256_add_epi32(pairs_hi, step_pairs);
    }
    lane_sum(acc)
}

#[target_feature(enable = "avx2,f16c")]
fn layout<const OP: u8, const BF16: bool>(plan: Plan, mem: u16, out: Option<&mut [u32]>) -> u64 {
    match (plan.layout, out) {
        (Layout::Scalar, None) => steps::<OP, BF16, false, false>(mem, &mut []),
        (Layout::Scalar, Some(out)) => steps::<OP, BF16, false, true>(mem, out),
        (Layout::Swapped, None) => steps::<OP, BF16, true, false>(mem, &mut []),
        (Layout::Swapped, Some(out)) => steps::<OP, BF16, true, true>(mem, out),
    }
}

/// Row `mem`'s digest, and its results into `out` when given.
#[target_feature(enable = "avx2,f16c")]
pub(super) fn row(plan: Plan, mem: u16, out: Option<&mut [u32]>) -> u64 {
    match (plan.op, plan.bf16) {
        (Op::Add, false) => layout::<ADD, false>(plan, mem, out),
        (Op::Add, true) => layout::<ADD, true>(plan, mem, out),
        (Op::Min, false) => layout::<MIN, false>(plan, mem, out),
        (Op::Min, true) => layout::<MIN, true>(plan, mem, out),
        (Op::Max, false) => layout::<MAX, false>(plan, mem, out),
        (Op::Max, true) => layout::<MAX, true>(plan, mem, out),
    }
}

/// The floor: the digest of row `mem` with every result its operand, 16 pairs per
/// step as the scalar layout.
#[target_feature(enable = "avx2")]
pub(super) fn floor_row(mem: u16) -> u64 {
    let row = u64::from(mem) << 48;
    // Lane l of group j: operand o = 4j + l, the term's input (mem << 16 | o) << 32
    // | o, plus GAMMA.
    let group = |j: i64| {
        let lanes = _mm256_set_epi64x(3, 2, 1, 0);
        let first = (row | (4 * j as u64) << 32 | (4 * j as u64)).wrapping_add(GAMMA);
        _mm256_add_epi64(
            _mm256_set1_epi64x(first as i64),
            _mm256_add_epi64(lanes, _mm256_slli_epi64::<32>(lanes)),
        )
    };
    let mut x = [group(0), group(1), group(2), group(3)];
    let step = _mm256_set1_epi64x((16 << 32) | 16);
    let mut acc = _mm256_setzero_si256();
    for _ in 0..ROW / 16 {
        for x in &mut x {
            acc = _mm256_add_epi64(acc, mix_after_gamma(*x));
            *x = _mm256_add_epi64(*x, step);
        }
    }
    lane_sum(acc)
}
