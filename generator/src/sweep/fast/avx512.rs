//! The AVX-512 levels: 32 16-bit elements per operation, the digest on 8 u64 lanes
//! (`vpmullq`, AVX-512DQ). [`row_fp16`] adds f16 with `vaddph` (AVX-512 FP16, through
//! `asm!`: its intrinsics take the unstable `f16` type); [`row`] adds f16 through
//! f32 (`vcvtph2ps`, `vaddps`, `vcvtps2ph`). Both share bf16, min/max and the digest.
//!
//! Every function here is `#[target_feature]`: the dispatch in `super` calls them
//! only for a [`super::Kernel`] whose level was detected on this CPU.
#![allow(unsafe_code)]

use std::arch::asm;
use std::arch::x86_64::*;

use super::super::digest::{GAMMA, M1, M2};
use super::{Op, Plan, ROW};
use crate::sweep::Layout;

/// sm_90's NaN for every 16-bit result that is NaN.
const CANONICAL: i16 = 0x7fff;
/// Round to nearest even whatever MXCSR says, exceptions suppressed.
const RNE: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
const ADD: u8 = 0;
const MIN: u8 = 1;
const MAX: u8 = 2;

// ------------------------------------------------------------------ the digest

/// `mix` from its second step, on 8 lanes (`super::super::digest::mix_after_gamma`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mix_after_gamma(z: __m512i) -> __m512i {
    let z = _mm512_xor_si512(z, _mm512_srli_epi64::<30>(z));
    let z = _mm512_mullo_epi64(z, _mm512_set1_epi64(M1 as i64));
    let z = _mm512_xor_si512(z, _mm512_srli_epi64::<27>(z));
    let z = _mm512_mullo_epi64(z, _mm512_set1_epi64(M2 as i64));
    _mm512_xor_si512(z, _mm512_srli_epi64::<31>(z))
}

/// The pairs `mem << 16 | o` as dwords, in the order the steps' unpacking takes
/// them: unpacking works inside each 128-bit lane, so dword `4L + m` holds operand
/// `8L + first + m` (`first` 0 for the lower half of each lane's words, 4 for the
/// upper).
#[inline]
#[target_feature(enable = "avx512f")]
fn pair_dwords(mem: u16, first: i32) -> __m512i {
    let o = |d: i32| d / 4 * 8 + first + d % 4;
    #[rustfmt::skip]
    let operands = _mm512_set_epi32(
        o(15), o(14), o(13), o(12), o(11), o(10), o(9), o(8),
        o(7), o(6), o(5), o(4), o(3), o(2), o(1), o(0),
    );
    _mm512_or_si512(_mm512_set1_epi32(i32::from(mem) << 16), operands)
}

/// Stores 16 results.
#[inline]
#[target_feature(enable = "avx512f")]
fn store16(out: &mut [u32], v: __m512i) {
    let out = &mut out[..16];
    // SAFETY: `out` holds 16 u32 (the slice above is bounds-checked), and the store
    // is unaligned.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) }
}

// ------------------------------------------------------------------ the element operations

/// Every NaN word becomes the canonical NaN.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn canonical_nan<const BF16: bool>(r: __m512i) -> __m512i {
    let inf = _mm512_set1_epi16(if BF16 { 0x7f80 } else { 0x7c00 });
    let magnitude = _mm512_and_si512(r, _mm512_set1_epi16(0x7fff));
    let nan = _mm512_cmpgt_epu16_mask(magnitude, inf);
    _mm512_mask_mov_epi16(r, nan, _mm512_set1_epi16(CANONICAL))
}

/// f16 `a + b` on 32 words, in f16.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512fp16")]
fn add_f16_fp16(a: __m512i, b: __m512i) -> __m512i {
    let r: __m512i;
    // SAFETY: vaddph reads two zmm registers and writes a third; it touches no
    // memory, stack or flags ({rn-sae}: rounding to nearest even, no exception
    // raised), and this function requires avx512fp16.
    unsafe {
        asm!(
            "vaddph {r}, {a}, {b}, {{rn-sae}}",
            r = lateout(zmm_reg) r,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    canonical_nan::<false>(r)
}

/// f16 `a + b` on 32 words, through f32: exact widening, one f32 rounding, one
/// f16 rounding (innocuous: `ptxvec_oracle::float::add_via_f32`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn add_f16_f32(a: __m512i, b: __m512i) -> __m512i {
    let half = |x: __m512i, hi: bool| {
        let words = if hi {
            _mm512_extracti64x4_epi64::<1>(x)
        } else {
            _mm512_castsi512_si256(x)
        };
        _mm512_cvtph_ps(words)
    };
    let lo = _mm512_add_round_ps::<RNE>(half(a, false), half(b, false));
    let hi = _mm512_add_round_ps::<RNE>(half(a, true), half(b, true));
    let r = _mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(_mm512_cvtps_ph::<RNE>(lo)),
        _mm512_cvtps_ph::<RNE>(hi),
    );
    canonical_nan::<false>(r)
}

/// An f32 sum rounded to bf16 on the bits, nearest even (a carry runs into the
/// exponent, up to infinity), in the high word.
#[inline]
#[target_feature(enable = "avx512f")]
fn bf16_in_high_word(s: __m512) -> __m512i {
    let x = _mm512_castps_si512(s);
    let odd = _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x1_0000));
    let t = _mm512_add_epi32(x, _mm512_set1_epi32(0x7fff));
    _mm512_mask_add_epi32(t, odd, t, _mm512_set1_epi32(1))
}

/// bf16 `a + b` on 32 words, through f32. A bf16 pattern shifted left 16 is its
/// f32: the even words widen by a shift, the odd words by clearing the low half.
/// A NaN sum stays NaN through the rounding: x86 returns a quiet NaN (an operand's,
/// quieted, or its default 0xffc00000), whose low 16 bits are zero here since every
/// operand came from a bf16, so the rounding add never reaches its high word.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn add_bf16(a: __m512i, b: __m512i) -> __m512i {
    let high = _mm512_set1_epi32(0xffff_0000u32 as i32);
    let even = |x: __m512i| _mm512_castsi512_ps(_mm512_slli_epi32::<16>(x));
    let odd = |x: __m512i| _mm512_castsi512_ps(_mm512_and_si512(x, high));
    let te = bf16_in_high_word(_mm512_add_round_ps::<RNE>(even(a), even(b)));
    let to = bf16_in_high_word(_mm512_add_round_ps::<RNE>(odd(a), odd(b)));
    // (te >> 16) | (to & high): 0xf8 is A | (B & C).
    let r = _mm512_ternarylogic_epi32::<0xf8>(_mm512_srli_epi32::<16>(te), to, high);
    canonical_nan::<true>(r)
}

/// min (`MAX` false) or max on 32 words: integer keys, NaN ignored.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn min_max<const IS_MAX: bool, const BF16: bool>(a: __m512i, b: __m512i) -> __m512i {
    let magnitude = _mm512_set1_epi16(0x7fff);
    let inf = _mm512_set1_epi16(if BF16 { 0x7f80 } else { 0x7c00 });
    let a_nan = _mm512_cmpgt_epu16_mask(_mm512_and_si512(a, magnitude), inf);
    let b_nan = _mm512_cmpgt_epu16_mask(_mm512_and_si512(b, magnitude), inf);
    // x ^ (sign-fill & 0x7fff) (0x78 is A ^ (B & C)): negative patterns flip their
    // magnitude, so that signed word order is value order with −0 < +0.
    let key =
        |x: __m512i| _mm512_ternarylogic_epi32::<0x78>(x, _mm512_srai_epi16::<15>(x), magnitude);
    let (ka, kb) = (key(a), key(b));
    let a_first = if IS_MAX {
        _mm512_cmpge_epi16_mask(ka, kb)
    } else {
        _mm512_cmple_epi16_mask(ka, kb)
    };
    let pick_a = (a_first & !a_nan) | b_nan;
    let r = _mm512_mask_blend_epi16(pick_a, b, a);
    _mm512_mask_mov_epi16(r, a_nan & b_nan, _mm512_set1_epi16(CANONICAL))
}

// ------------------------------------------------------------------ the rows

/// One level's row functions: `$features` enabled, `$add_f16` its f16 add.
macro_rules! level {
    ($module:ident, $features:literal, $add_f16:ident) => {
        mod $module {
            use super::*;

            #[inline]
            #[target_feature(enable = $features)]
            fn op<const OP: u8, const BF16: bool>(a: __m512i, b: __m512i) -> __m512i {
                match OP {
                    ADD if BF16 => add_bf16(a, b),
                    ADD => $add_f16(a, b),
                    MIN => min_max::<false, BF16>(a, b),
                    _ => min_max::<true, BF16>(a, b),
                }
            }

            /// 32 operands per step against the broadcast memory value, `r` the
            /// results `(mem, o)`; the swapped layout's `(o, mem)` is the same word
            /// (the operations commute bit for bit: [`super::super::Plan`]).
            /// Unpacking widens `r` to four vectors of 8 u64 lanes, each term's
            /// input `pair << 32 | result` ([`pair_dwords`] holds the pairs), the
            /// result `r` (scalar) or `r | r << 16` (swapped).
            #[target_feature(enable = $features)]
            fn steps<const OP: u8, const BF16: bool, const SWAPPED: bool, const STORE: bool>(
                mem: u16,
                out: &mut [u32],
            ) -> u64 {
                let a = _mm512_set1_epi16(mem as i16);
                let mut b = iota_words();
                let step_b = _mm512_set1_epi16(32);
                let (mut pairs_lo, mut pairs_hi) = (pair_dwords(mem, 0), pair_dwords(mem, 4));
                let step_pairs = _mm512_set1_epi32(32);
                let gamma = _mm512_set1_epi64(GAMMA as i64);
                let zero = _mm512_setzero_si512();
                let mut acc = zero;
                for i in 0..ROW / 32 {
                    let r = op::<OP, BF16>(a, b);
                    let high = if SWAPPED { r } else { zero };
                    let (d_lo, d_hi) = (
                        _mm512_unpacklo_epi16(r, high),
                        _mm512_unpackhi_epi16(r, high),
                    );
                    if STORE {
                        let lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(r));
                        let hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(r));
                        let both = |x: __m512i| {
                            if SWAPPED {
                                _mm512_or_si512(x, _mm512_slli_epi32::<16>(x))
                            } else {
                                x
                            }
                        };
                        store16(&mut out[32 * i..], both(lo));
                        store16(&mut out[32 * i + 16..], both(hi));
                    }
                    let x = [
                        _mm512_unpacklo_epi32(d_lo, pairs_lo),
                        _mm512_unpackhi_epi32(d_lo, pairs_lo),
                        _mm512_unpacklo_epi32(d_hi, pairs_hi),
                        _mm512_unpackhi_epi32(d_hi, pairs_hi),
                    ];
                    for x in x {
                        acc = _mm512_add_epi64(acc, mix_after_gamma(_mm512_add_epi64(x, gamma)));
                    }
                    b = _mm512_add_epi16(b, step_b);
                    pairs_lo = _mm512_add_epi32(pairs_lo, step_pairs);
                    pairs_hi = _mm512_add_epi32(pairs_hi, step_pairs);
                }
                _mm512_reduce_add_epi64(acc) as u64
            }

            #[target_feature(enable = $features)]
            fn layout<const OP: u8, const BF16: bool>(
                plan: Plan,
                mem: u16,
                out: Option<&mut [u32]>,
            ) -> u64 {
                match (plan.layout, out) {
                    (Layout::Scalar, None) => steps::<OP, BF16, false, false>(mem, &mut []),
                    (Layout::Scalar, Some(out)) => steps::<OP, BF16, false, true>(mem, out),
                    (Layout::Swapped, None) => steps::<OP, BF16, true, false>(mem, &mut []),
                    (Layout::Swapped, Some(out)) => steps::<OP, BF16, true, true>(mem, out),
                }
            }

            /// Row `mem`'s digest, and its results into `out` when given.
            #[target_feature(enable = $features)]
            pub(in super::super) fn row(plan: Plan, mem: u16, out: Option<&mut [u32]>) -> u64 {
                match (plan.op, plan.bf16) {
                    (Op::Add, false) => layout::<ADD, false>(plan, mem, out),
                    (Op::Add, true) => layout::<ADD, true>(plan, mem, out),
                    (Op::Min, false) => layout::<MIN, false>(plan, mem, out),
                    (Op::Min, true) => layout::<MIN, true>(plan, mem, out),
                    (Op::Max, false) => layout::<MAX, false>(plan, mem, out),
                    (Op::Max, true) => layout::<MAX, true>(plan, mem, out),
                }
            }
        }
    };
}

level!(
    fp16,
    "avx512f,avx512bw,avx512dq,avx512vl,avx512fp16",
    add_f16_fp16
);
level!(f32_route, "avx512f,avx512bw,avx512dq,avx512vl", add_f16_f32);

pub(super) use f32_route::row;
pub(super) use fp16::row as row_fp16;

/// Words 0, 1, …, 31.
#[inline]
#[target_feature(enable = "avx512f")]
#[rustfmt::skip]
fn iota_words() -> __m512i {
    let pair = |w: i32| (w + 1) << 16 | w;
    _mm512_set_epi32(
        pair(30), pair(28), pair(26), pair(24), pair(22), pair(20), pair(18), pair(16),
        pair(14), pair(12), pair(10), pair(8), pair(6), pair(4), pair(2), pair(0),
    )
}

/// The floor: the digest of row `mem` with every result its operand, 32 pairs per
/// step as the scalar layout.
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) fn floor_row(mem: u16) -> u64 {
    let row = u64::from(mem) << 48;
    // Lane l of group j: operand o = 8j + l, the term's input (mem << 16 | o) << 32
    // | o, plus GAMMA.
    let group = |j: i64| {
        let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
        let first = _mm512_set1_epi64(
            (row | (8 * j as u64) << 32 | (8 * j as u64)).wrapping_add(GAMMA) as i64,
        );
        _mm512_add_epi64(
            first,
            _mm512_add_epi64(lanes, _mm512_slli_epi64::<32>(lanes)),
        )
    };
    let mut x = [group(0), group(1), group(2), group(3)];
    let step = _mm512_set1_epi64((32 << 32) | 32);
    let mut acc = _mm512_setzero_si512();
    for _ in 0..ROW / 32 {
        for x in &mut x {
            acc = _mm512_add_epi64(acc, mix_after_gamma(*x));
            *x = _mm512_add_epi64(*x, step);
        }
    }
    _mm512_reduce_add_epi64(acc) as u64
}
