//! Exhaustive tests of the 16-bit formats: all 2^32 operand pairs of f16 and of bf16
//! for add, min and max, against a reference built from host `f64` arithmetic and
//! the definition of rounding to nearest even, as rustc_apfloat's
//! `fuzz/src/exhaustive.rs` does for its formats.
//!
//! Run: `cargo test -p ptxvec-oracle --release -- --ignored --nocapture --test-threads=1 exhaustive`.
//! Each test spreads its pairs over rayon's pool (one thread per core). Measured on the project's 2-core
//! machine: f16 133 s, bf16 138 s (about 31 ns per pair for add, add_via_f32, two
//! mins, two maxes and their references).
//!
//! The reference, and why it is independent of the code under test:
//! - Operands become `f64` through the `half` crate (widening is exact).
//! - The host computes `s = x + y` (IEEE binary64, RNE) and, by Knuth's TwoSum, the
//!   exact error `t` with `x + y = s + t`. For f16 `t` is always 0: f16 values are
//!   multiples of 2^−24 below 2^16, so a sum is k·2^−24 with |k| < 2^41 < 2^53.
//!   For bf16 it is not (operands up to 260 binades apart), hence TwoSum.
//! - The sum is rounded to the 16-bit format *by definition*: starting from a hint,
//!   step to the neighbour while the exact sum lies beyond the midpoint between two
//!   adjacent representable values, ties to the even bit pattern. Each midpoint is
//!   exact in f64 (two adjacent 16-bit values have at most 11 significant bits), and
//!   comparing `s + t` with a midpoint `m` is exact: RNE is monotone and `m` is an f64,
//!   so `s > m` implies `x + y > m`, `s < m` implies `x + y < m`, and if `s == m` the
//!   sign of `t` decides.
//! - The hint is `half`'s `from_f64`. It is NOT a correct reference by itself: its
//!   software path (half 2.4 `f64_to_f16_fallback`) drops the low 32 bits of the f64
//!   significand before rounding, so a tie plus a far sticky bit (2048 + (1 + 2^−10)
//!   = 2049 + 2^−10 in f16) rounds down instead of up, and its f16c path rounds
//!   twice, through f32. The step loop corrects either.
//! - The sign of an exact zero sum is the host's (IEEE 754 §6.3, same as ours by
//!   specification, computed independently).

use super::NanOut;
use super::{add, add_via_f32, convert, min_max, Format, Ftz, MinMax, MinMaxMode, MinMaxNan};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::time::Instant;

/// A 16-bit format with its host conversions from the `half` crate.
struct Host16 {
    fmt: Format,
    to_f64: fn(u16) -> f64,
    /// A rounding of an f64 to the format, trusted only as a starting point.
    hint: fn(f64) -> u16,
}

const HOST_F16: Host16 = Host16 {
    fmt: Format::F16,
    to_f64: |b| half::f16::from_bits(b).to_f64(),
    hint: |x| half::f16::from_f64(x).to_bits(),
};

const HOST_BF16: Host16 = Host16 {
    fmt: Format::BF16,
    to_f64: |b| half::bf16::from_bits(b).to_f64(),
    hint: |x| half::bf16::from_f64(x).to_bits(),
};

/// The value of every bit pattern, as f64.
fn value_table(h: &Host16) -> Vec<f64> {
    (0..=u16::MAX).map(h.to_f64).collect()
}

/// The reference sum of two 16-bit values; `None` for NaN.
fn reference_add(h: &Host16, table: &[f64], a: u16, b: u16) -> Option<u16> {
    let fmt = h.fmt;
    let (x, y) = (table[usize::from(a)], table[usize::from(b)]);
    let s = x + y;
    if s.is_nan() {
        return None;
    }
    let sign = if s.is_sign_negative() {
        fmt.sign_bit() as u16
    } else {
        0
    };
    if s.is_infinite() {
        // Only from an infinite operand: two finite 16-bit values never overflow f64.
        return Some(fmt.inf(false) as u16 | sign);
    }
    if s == 0.0 {
        return Some(sign);
    }
    // Knuth's TwoSum: x + y = s + t exactly.
    let bb = s - x;
    let t = (x - (s - bb)) + (y - bb);
    let (s, t) = if s < 0.0 { (-s, -t) } else { (s, t) };
    // The exact sum s + t compared with m, an f64.
    let cmp = |m: f64| match s.partial_cmp(&m) {
        Some(Ordering::Equal) | None => t.partial_cmp(&0.0).unwrap_or(Ordering::Equal),
        Some(o) => o,
    };
    let value = |i: u16| table[usize::from(i)];
    let max = fmt.max_finite(false) as u16;
    let mut i = (h.hint)(s) & !(fmt.sign_bit() as u16);
    i = i.min(max);
    // Up while beyond the midpoint to the next value (at a tie, to the even pattern).
    while i < max {
        let o = cmp((value(i) + value(i + 1)) / 2.0);
        if o == Ordering::Greater || (o == Ordering::Equal && i & 1 == 1) {
            i += 1;
        } else {
            break;
        }
    }
    // Down while below the midpoint to the previous value.
    while i > 0 {
        let o = cmp((value(i - 1) + value(i)) / 2.0);
        if o == Ordering::Less || (o == Ordering::Equal && i & 1 == 1) {
            i -= 1;
        } else {
            break;
        }
    }
    if i == max {
        // The overflow threshold is the midpoint between the largest finite (odd
        // pattern) and the next power of two: at or beyond it, infinity.
        let threshold = value(max) + (value(max) - value(max - 1)) / 2.0;
        if cmp(threshold) != Ordering::Less {
            return Some(fmt.inf(false) as u16 | sign);
        }
    }
    Some(i | sign)
}

/// The reference min/max of `a` and `b`, whose values are `(x, y)`: host
/// comparisons, with `f64::total_cmp` (−0 < +0) on non-NaN values, and the
/// redux.sync NaN rules written out again.
fn reference_min_max(
    fmt: Format,
    (x, y): (f64, f64),
    op: MinMax,
    nan: MinMaxNan,
    a: u16,
    b: u16,
) -> u16 {
    let canonical = fmt.canonical_nan() as u16;
    match (x.is_nan(), y.is_nan()) {
        (true, true) => return canonical,
        (true, false) | (false, true) if nan == MinMaxNan::Propagate => return canonical,
        (true, false) => return b,
        (false, true) => return a,
        (false, false) => {}
    }
    let a_is_less = x.total_cmp(&y) == Ordering::Less;
    match (op, a_is_less) {
        (MinMax::Min, true) | (MinMax::Max, false) => a,
        _ => b,
    }
}

/// Checks the pairs (a, b) for every `a` in `a_values` and every `b`; returns the
/// number of failures and the first few, each printing the whole case. `BF16` picks
/// the format at compile time, so that the inlined operations see constant masks.
fn check_rows<const BF16: bool>(h: &Host16, table: &[f64], a_values: &[u16]) -> (u64, Vec<String>) {
    let fmt = if BF16 { Format::BF16 } else { Format::F16 };
    assert_eq!(fmt, h.fmt);
    let mut failures = 0u64;
    let mut first = Vec::new();
    let mut fail = |msg: String| {
        failures += 1;
        if first.len() < 8 {
            first.push(msg);
        }
    };
    for &a16 in a_values {
        for b16 in 0..=u16::MAX {
            let (a64, b64) = (u64::from(a16), u64::from(b16));
            let got = add(fmt, a64, b64, Ftz::Preserve, NanOut::Canonical);
            let want = reference_add(h, table, a16, b16);
            let ok = match want {
                None => fmt.is_nan(got),
                Some(w) => got == u64::from(w),
            };
            if !ok {
                fail(format!(
                    "{} add {a16:#06x} + {b16:#06x} = {got:#06x}, reference {want:x?}",
                    fmt.name
                ));
            }
            let via = add_via_f32(fmt, a64, b64, Ftz::Preserve, NanOut::Canonical);
            if via != got {
                fail(format!(
                    "{} add_via_f32 {a16:#06x} + {b16:#06x} = {via:#06x}, add {got:#06x}",
                    fmt.name
                ));
            }
            // One host comparison serves the four min/max references.
            let order = (table[usize::from(a16)], table[usize::from(b16)]);
            for &op in MinMax::ALL {
                for &nan in MinMaxNan::ALL {
                    let mode = MinMaxMode {
                        ftz: Ftz::Preserve,
                        nan,
                        abs: false,
                    };
                    let got = min_max(op, fmt, a64, b64, mode);
                    let want = reference_min_max(fmt, order, op, nan, a16, b16);
                    if got != u64::from(want) {
                        fail(format!(
                            "{} {op:?} {nan:?} ({a16:#06x}, {b16:#06x}) = {got:#06x}, reference {want:#06x}",
                            fmt.name
                        ));
                    }
                }
            }
        }
    }
    (failures, first)
}

/// Runs [`check_rows`] over `a_values` on rayon's pool and prints the time it took.
/// The failures are listed in `a_values` order, whatever order the chunks ran in.
fn exhaust(h: &Host16, a_values: &[u16]) -> (u64, Vec<String>) {
    let table = value_table(h);
    let threads = rayon::current_num_threads();
    let started = Instant::now();
    // Small chunks keep the threads' loads even: NaN rows cost less than others.
    let results: Vec<(u64, Vec<String>)> = a_values
        .par_chunks(16)
        .map(|chunk| {
            if h.fmt == Format::BF16 {
                check_rows::<true>(h, &table, chunk)
            } else {
                check_rows::<false>(h, &table, chunk)
            }
        })
        .collect();
    let elapsed = started.elapsed();
    let pairs = a_values.len() as f64 * 65536.0;
    println!(
        "exhaustive {}: {pairs} pairs x (add, add_via_f32, 2 min, 2 max) on {threads} threads in {elapsed:.1?} ({:.1} ns/pair)",
        h.fmt.name,
        elapsed.as_secs_f64() * 1e9 / pairs
    );
    results
        .into_iter()
        .fold((0, Vec::new()), |(n, mut v), (m, w)| {
            v.extend(w);
            (n + m, v)
        })
}

fn assert_exhaustive(h: &Host16, a_values: &[u16]) {
    let (failures, first) = exhaust(h, a_values);
    assert_eq!(
        failures,
        0,
        "{failures} failures, first:\n{}",
        first.join("\n")
    );
}

#[test]
#[ignore = "exhaustive: run with --release -- --ignored"]
fn exhaustive_f16_add_min_max() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    assert_exhaustive(&HOST_F16, &all);
}

#[test]
#[ignore = "exhaustive: run with --release -- --ignored"]
fn exhaustive_bf16_add_min_max() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    assert_exhaustive(&HOST_BF16, &all);
}

/// A sample of first operands for the quick run: each sign's zero, subnormals, the
/// smallest normal, one, the largest finite, infinity, both NaN kinds, and a stride.
fn sample_a(fmt: Format) -> Vec<u16> {
    let one = (fmt.bias() as u16) << fmt.frac_bits;
    let mut v = vec![
        0,
        1,
        fmt.frac_mask() as u16,
        1 << fmt.frac_bits,
        one,
        one + 1,
        fmt.max_finite(false) as u16,
        fmt.inf(false) as u16,
        fmt.inf(false) as u16 | 1,
        fmt.canonical_nan() as u16,
    ];
    v.extend((0..=u16::MAX).step_by(4099));
    let negs: Vec<u16> = v.iter().map(|&x| x ^ fmt.sign_bit() as u16).collect();
    v.extend(negs);
    v
}

#[test]
fn quick_16_bit_add_min_max_against_every_b() {
    // The exhaustive tests' check for a few dozen first operands against all 65536
    // second operands: runs in every `cargo test`, also in debug builds.
    for h in [&HOST_F16, &HOST_BF16] {
        assert_exhaustive(h, &sample_a(h.fmt));
    }
}

#[test]
fn reference_tables_agree_with_convert() {
    // The reference's widening (half) and ours (convert) agree on every non-NaN
    // pattern: both are exact, so this checks the two decoders against each other.
    for h in [&HOST_F16, &HOST_BF16] {
        for x in 0..=u16::MAX {
            let w = (h.to_f64)(x);
            if !w.is_nan() {
                let ours = convert(h.fmt, Format::F64, u64::from(x), NanOut::Canonical);
                assert_eq!(ours, w.to_bits(), "{} {x:#06x}", h.fmt.name);
            }
        }
    }
}

#[test]
fn reference_corrects_the_hint() {
    // 2048 + (1 + 2^-10) = 2049 + 2^-10: a tie at 2049 broken upwards by a sticky bit
    // 21 bits below the leading one. Correct: 2050 (0x6801). The hint may say 2048.
    let table = value_table(&HOST_F16);
    assert_eq!(
        reference_add(&HOST_F16, &table, 0x6800, 0x3c01),
        Some(0x6801)
    );
    // half's software conversion drops that sticky bit and says 2048: why it is only
    // a hint.
    let sum = 2049.0 + 2f64.powi(-10);
    assert_eq!(half::f16::from_f64_const(sum).to_bits(), 0x6800);
    // A plain tie goes to even: 2048 + 1 = 2049 rounds to 2048.
    assert_eq!(
        reference_add(&HOST_F16, &table, 0x6800, 0x3c00),
        Some(0x6800)
    );
    // 65504 + 16 = 65520, the overflow threshold: infinity.
    assert_eq!(
        reference_add(&HOST_F16, &table, 0x7bff, 0x4c00),
        Some(0x7c00)
    );
    assert_eq!(reference_add(&HOST_F16, &table, 0x7c00, 0xfc00), None);
    // bf16: a tie goes to even, 1 + 2^-8 = 1; and an operand 133 binades below the
    // other is only a sticky bit (s = -1, t = 2^-133): -1 + 2^-133 rounds to -1.
    let table = value_table(&HOST_BF16);
    assert_eq!(
        reference_add(&HOST_BF16, &table, 0x3f80, 0x3b80),
        Some(0x3f80)
    );
    assert_eq!(
        reference_add(&HOST_BF16, &table, 0xbf80, 0x0001),
        Some(0xbf80)
    );
}
