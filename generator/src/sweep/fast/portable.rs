//! The portable level: plain Rust for any target. Adds run in host f32 (IEEE
//! round-to-nearest-even with subnormals, as Rust defines `f32 +`), the conversions
//! and min/max on integer bits. A row goes in chunks: one loop computes a chunk's
//! results with selects and no control flow, so that the compiler can vectorize it
//! for whatever the target has; a second digests them with the scalar [`term`].

use super::super::digest::term;
use super::{Op, Plan, ROW};
use crate::sweep::Layout;

/// sm_90's NaN for every 16-bit result that is NaN.
const CANONICAL: u32 = 0x7fff;
/// 2^-24, the f16 subnormal quantum, as f32.
const F16_QUANTUM: f32 = 1.0 / 16_777_216.0;
/// Results per chunk.
const CHUNK: usize = 64;

/// Row `mem`'s digest, and its results into `out` when given.
pub(super) fn row(plan: Plan, mem: u16, out: Option<&mut [u32]>) -> u64 {
    match (plan.op, plan.bf16) {
        (Op::Add, false) => row_with(plan.layout, mem, out, add_f16),
        (Op::Add, true) => row_with(plan.layout, mem, out, add_bf16),
        (Op::Min, false) => row_with(plan.layout, mem, out, min_max::<false, false>),
        (Op::Min, true) => row_with(plan.layout, mem, out, min_max::<false, true>),
        (Op::Max, false) => row_with(plan.layout, mem, out, min_max::<true, false>),
        (Op::Max, true) => row_with(plan.layout, mem, out, min_max::<true, true>),
    }
}

/// `op` takes and gives 16-bit patterns in u32s (the lanes the compiler widens to).
#[inline(always)]
fn row_with(
    layout: Layout,
    mem: u16,
    mut out: Option<&mut [u32]>,
    op: impl Fn(u32, u32) -> u32,
) -> u64 {
    let m = u32::from(mem);
    let mut sum = 0u64;
    let mut results = [0u32; CHUNK];
    for first in (0..ROW).step_by(CHUNK) {
        for (i, r) in results.iter_mut().enumerate() {
            let o = (first + i) as u32;
            *r = match layout {
                Layout::Scalar => op(m, o),
                Layout::Swapped => op(m, o) | op(o, m) << 16,
            };
        }
        if let Some(out) = out.as_deref_mut() {
            out[first..first + CHUNK].copy_from_slice(&results);
        }
        for (i, &r) in results.iter().enumerate() {
            sum = sum.wrapping_add(term(m << 16 | (first + i) as u32, r));
        }
    }
    sum
}

/// The floor: every pair's result is its operand.
pub(super) fn floor_row(mem: u16) -> u64 {
    let mut sum = 0u64;
    for o in 0..ROW as u32 {
        sum = sum.wrapping_add(term(u32::from(mem) << 16 | o, o));
    }
    sum
}

/// `if c { a } else { b }`, written where the compiler should select, not branch.
#[inline(always)]
fn select(c: bool, a: u32, b: u32) -> u32 {
    if c {
        a
    } else {
        b
    }
}

/// f16 bits to f32, exactly.
#[inline(always)]
fn f16_to_f32(h: u32) -> f32 {
    let sign = (h & 0x8000) << 16;
    let mag = h & 0x7fff;
    // A subnormal (or zero) is its significand times 2^-24: exact in f32.
    let subnormal = (mag as f32 * F16_QUANTUM).to_bits();
    // A normal moves its fields into place and rebiases the exponent, 15 to 127;
    // infinity and NaN rebias the all-ones exponent 31 to 255.
    let normal = (mag << 13) + ((127 - 15) << 23);
    let special = (mag << 13) + ((255 - 31) << 23);
    let bits = select(
        mag < 0x0400,
        subnormal,
        select(mag < 0x7c00, normal, special),
    );
    f32::from_bits(sign | bits)
}

/// f32 to f16, rounded to nearest even, overflowing to infinity; a NaN becomes the
/// canonical NaN.
#[inline(always)]
fn f32_to_f16(s: f32) -> u32 {
    let x = s.to_bits();
    let sign = (x >> 16) & 0x8000;
    let mag = x & 0x7fff_ffff;
    // Below 2^-14 the result is a multiple of 2^-24: adding 0.5, whose f32 ulp is
    // 2^-24, makes the FPU round |s| to that grid; the bits above 0.5's count the
    // quanta (1024 of them is the smallest normal, encoded alike).
    let small = (f32::from_bits(mag) + 0.5)
        .to_bits()
        .wrapping_sub(0.5f32.to_bits());
    // Otherwise rebias 127 to 15 and drop 13 bits, to nearest even; a carry moves
    // into the exponent.
    let t = mag.wrapping_sub((127 - 15) << 23);
    let normal = t.wrapping_add(0xfff + ((t >> 13) & 1)) >> 13;
    // 65520 = 65504 + half its ulp: at or beyond it, infinity.
    let r = select(
        mag < 0x3880_0000,
        small,
        select(mag < 0x477f_f000, normal, 0x7c00),
    );
    select(mag > 0x7f80_0000, CANONICAL, r | sign)
}

/// f16 `a + b` through f32 (innocuous double rounding: `ptxvec_oracle::float::add_via_f32`).
#[inline(always)]
fn add_f16(a: u32, b: u32) -> u32 {
    f32_to_f16(f16_to_f32(a) + f16_to_f32(b))
}

/// bf16 `a + b` through f32, rounded back on the bits.
#[inline(always)]
fn add_bf16(a: u32, b: u32) -> u32 {
    let s = f32::from_bits(a << 16) + f32::from_bits(b << 16);
    let x = s.to_bits();
    let rounded = x.wrapping_add(0x7fff + ((x >> 16) & 1)) >> 16;
    select(x & 0x7fff_ffff > 0x7f80_0000, CANONICAL, rounded)
}

/// min (`IS_MAX` false) or max of two 16-bit floats, sm_90's way.
#[inline(always)]
fn min_max<const IS_MAX: bool, const BF16: bool>(a: u32, b: u32) -> u32 {
    let inf = if BF16 { 0x7f80 } else { 0x7c00 };
    let (a_nan, b_nan) = (a & 0x7fff > inf, b & 0x7fff > inf);
    // Negative patterns flip their magnitude bits and go below zero: key order is
    // value order, −0 < +0 (the oracle's `order_key`, in 32-bit lanes).
    let key = |x: u32| {
        let negative = x >> 15;
        (x ^ (negative * 0x7fff)) as i32 - (negative << 16) as i32
    };
    let a_first = if IS_MAX {
        key(a) >= key(b)
    } else {
        key(a) <= key(b)
    };
    let pick_a = (a_first & !a_nan) | b_nan;
    select(a_nan & b_nan, CANONICAL, select(pick_a, a, b))
}
