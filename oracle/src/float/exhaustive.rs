//! Exhaustive tests of the 16-bit formats: all 2^32 operand pairs of f16 and of bf16
//! for add, min and max, against a reference built from host `f64` arithmetic and
//! the definition of rounding to nearest even, as rustc_apfloat's
//! `fuzz/src/exhaustive.rs` does for its formats.
//!
//! Run: `cargo test -p ptxvec-oracle --release -- --ignored --nocapture --test-threads=1 exhaustive`.
//! Each test spreads its pairs over rayon's pool (one thread per core). The checks
//! of one pair (add, add_via_f32, two mins, two maxes and their references) cost
//! about 34 ns of CPU on the project's 2-core machine, so both formats in full take
//! about 2.5 minutes there; `PTXVEC_EXHAUSTIVE_SHARD=K/N` checks the first operands
//! `a % N == K` only (CI runs a quarter, a different one each day: `.ci/run`).
//!
//! The reference, and why it is independent of the code under test:
//! - Operands become `f64` through the `half` crate (widening is exact).
//! - The host computes `s = x + y` (IEEE binary64, RNE) and, by Knuth's TwoSum, the
//!   exact error `t` with `x + y = s + t`. For f16 `t` is always 0: f16 values are
//!   multiples of 2^−24 below 2^16, so a sum is k·2^−24 with |k| < 2^41 < 2^53.
//!   For bf16 it is not (operands up to 260 binades apart), hence TwoSum.
//! - The host rounds `s` to the format's quantum at `s` (2^q: p − 1 bits below its
//!   leading bit, never finer than the subnormals'), to nearest even, by adding and
//!   subtracting 1.5 · 2^(q + 52): beside that constant the f64 spacing is exactly
//!   2^q. Midpoints between adjacent 16-bit values have at most 12 significant bits,
//!   so are f64s, and rounding is monotone: `s` above (below) a midpoint puts the
//!   exact sum above (below) it too; where `s` is a midpoint, the sign of `t`
//!   decides. A result at 2^(emax + 1) is the overflow to infinity.
//! - The rounded value is a value of the format, so `half`'s conversion encodes it
//!   exactly. That conversion is no correct rounding by itself: its software path
//!   (half 2.4 `f64_to_f16_fallback`) drops the low 32 bits of the f64 significand
//!   before rounding, so a tie plus a far sticky bit (2048 + (1 + 2^−10) =
//!   2049 + 2^−10 in f16) rounds down instead of up, and its f16c path rounds twice,
//!   through f32. Here it never has to round.
//! - The sign of an exact zero sum is the host's (IEEE 754 §6.3, same as ours by
//!   specification, computed independently).

use super::NanOut;
use super::{add, add_via_f32, convert, min_max, Format, Ftz, MinMax, MinMaxMode, MinMaxNan};
use crate::shard::{Shard, EXHAUSTIVE_VAR};
use rayon::prelude::*;
use std::cmp::Ordering;
use std::time::Instant;

/// A 16-bit format with its host conversions from the `half` crate.
struct Host16 {
    fmt: Format,
    to_f64: fn(u16) -> f64,
    /// The bits of an f64 that is a value of the format (exact there; its rounding
    /// of other values is not relied on).
    encode: fn(f64) -> u16,
}

const HOST_F16: Host16 = Host16 {
    fmt: Format::F16,
    to_f64: |b| half::f16::from_bits(b).to_f64(),
    encode: |x| half::f16::from_f64(x).to_bits(),
};

const HOST_BF16: Host16 = Host16 {
    fmt: Format::BF16,
    to_f64: |b| half::bf16::from_bits(b).to_f64(),
    encode: |x| half::bf16::from_f64(x).to_bits(),
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
    // The format's quantum at s: 2^q, p - 1 bits below s's leading bit, never finer
    // than the subnormals' (s is a normal f64: at least 2^-133).
    let lead = (s.to_bits() >> 52) as i32 - 1023;
    let p_less_1 = fmt.frac_bits as i32;
    let q = (lead - p_less_1).max(fmt.emin() - p_less_1);
    let pow2 = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    // The host rounds s to a multiple of 2^q, to nearest even: next to
    // c = 1.5 * 2^(q + 52) (an even multiple of 2^q) the f64 spacing is 2^q.
    let c = pow2(q + 52) * 1.5;
    let mut r = (s + c) - c;
    // s is the exact sum rounded to 53 bits. Midpoints between the format's values
    // have at most 12 significant bits, so are f64s, and rounding is monotone: s
    // above (below) a midpoint means the exact sum is above (below) it too. Only
    // where s is a midpoint can the exact sum s + t lie off it; it then rounds
    // towards t.
    let half = pow2(q - 1);
    if (r - s).abs() == half && t != 0.0 {
        r = if t > 0.0 { s + half } else { s - half };
    }
    // With an unbounded exponent the largest finite rounds up to 2^(emax + 1): the
    // overflow, to infinity.
    if r >= pow2(fmt.bias() + 1) {
        return Some(fmt.inf(false) as u16 | sign);
    }
    // r is a value of the format now: encoding it is exact.
    Some((h.encode)(r) | sign)
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

/// The failures of a check: how many, and the first few in full. Each kind has its
/// own cold function taking plain values: formatting inside the checking loops made
/// them two to three times slower.
#[derive(Default)]
struct Failures {
    count: u64,
    first: Vec<String>,
}

impl Failures {
    fn push(&mut self, message: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.len() < 8 {
            self.first.push(message());
        }
    }

    #[cold]
    #[inline(never)]
    fn add(&mut self, fmt: Format, a: u16, b: u16, got: u64, want: Option<u16>) {
        self.push(|| {
            format!(
                "{} add {a:#06x} + {b:#06x} = {got:#06x}, reference {want:x?}",
                fmt.name
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn via(&mut self, fmt: Format, a: u16, b: u16, via: u64, got: u64) {
        self.push(|| {
            format!(
                "{} add_via_f32 {a:#06x} + {b:#06x} = {via:#06x}, add {got:#06x}",
                fmt.name
            )
        });
    }

    #[cold]
    #[inline(never)]
    fn min_max(
        &mut self,
        fmt: Format,
        (op, nan): (MinMax, MinMaxNan),
        (a, b): (u16, u16),
        got: u64,
        want: u16,
    ) {
        self.push(|| {
            format!(
                "{} {op:?} {nan:?} ({a:#06x}, {b:#06x}) = {got:#06x}, reference {want:#06x}",
                fmt.name
            )
        });
    }
}

/// Checks the pairs (a, b) for every `a` in `a_values` and every `b`; returns the
/// failures, each printing the whole case. `BF16` picks the format at compile time,
/// so that the inlined operations see constant masks.
fn check_rows<const BF16: bool>(h: &Host16, table: &[f64], a_values: &[u16]) -> Failures {
    let fmt = if BF16 { Format::BF16 } else { Format::F16 };
    assert_eq!(fmt, h.fmt);
    let mut failures = Failures::default();
    for &a16 in a_values {
        let a64 = u64::from(a16);
        for b16 in 0..=u16::MAX {
            let b64 = u64::from(b16);
            let got = add(fmt, a64, b64, Ftz::Preserve, NanOut::Canonical);
            let want = reference_add(h, table, a16, b16);
            let ok = match want {
                None => fmt.is_nan(got),
                Some(w) => got == u64::from(w),
            };
            if !ok {
                failures.add(fmt, a16, b16, got, want);
            }
            let via = add_via_f32(fmt, a64, b64, Ftz::Preserve, NanOut::Canonical);
            if via != got {
                failures.via(fmt, a16, b16, via, got);
            }
            // One pair of host values serves the four min/max references.
            let values = (table[usize::from(a16)], table[usize::from(b16)]);
            for &op in MinMax::ALL {
                for &nan in MinMaxNan::ALL {
                    let mode = MinMaxMode {
                        ftz: Ftz::Preserve,
                        nan,
                        abs: false,
                    };
                    let got = min_max(op, fmt, a64, b64, mode);
                    let want = reference_min_max(fmt, values, op, nan, a16, b16);
                    if got != u64::from(want) {
                        failures.min_max(fmt, (op, nan), (a16, b16), got, want);
                    }
                }
            }
        }
    }
    failures
}

/// Runs [`check_rows`] over `a_values` on rayon's pool and prints the time it took.
/// The failures are listed in `a_values` order, whatever order the chunks ran in.
fn exhaust(h: &Host16, a_values: &[u16]) -> Failures {
    let table = value_table(h);
    let threads = rayon::current_num_threads();
    let started = Instant::now();
    // Small chunks keep the threads' loads even: NaN rows cost less than others.
    let results: Vec<Failures> = a_values
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
    let mut all = Failures::default();
    for f in results {
        all.count += f.count;
        all.first.extend(f.first);
    }
    all
}

fn assert_exhaustive(h: &Host16, a_values: &[u16]) {
    let f = exhaust(h, a_values);
    assert_eq!(
        f.count,
        0,
        "{} failures, first:\n{}",
        f.count,
        f.first.join("\n")
    );
}

/// Checks this run's shard of `h`'s pairs, and says which in the log:
/// `PTXVEC_EXHAUSTIVE_SHARD=K/N` ([`EXHAUSTIVE_VAR`]) checks the first operands `a`
/// with `a % N == K` (against every second operand), so that N runs with K = 0 …
/// N − 1 cover every pair. Unset: all of them.
fn exhaustive(h: &Host16) {
    let shard = Shard::from_var(EXHAUSTIVE_VAR, std::env::var(EXHAUSTIVE_VAR).ok().as_deref(), 65536)
        .unwrap_or_else(|e| panic!("{e}"));
    let rows: Vec<u16> = (0..=u16::MAX)
        .filter(|&a| shard.contains(u64::from(a)))
        .collect();
    println!(
        "exhaustive {}: shard {shard} ({} first operands x 65536)",
        h.fmt.name,
        rows.len()
    );
    assert_exhaustive(h, &rows);
}

#[test]
#[ignore = "exhaustive: run with --release -- --ignored"]
fn exhaustive_f16_add_min_max() {
    exhaustive(&HOST_F16);
}

#[test]
#[ignore = "exhaustive: run with --release -- --ignored"]
fn exhaustive_bf16_add_min_max() {
    exhaustive(&HOST_BF16);
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
fn reference_rounds_hand_worked_cases() {
    // 2048 + (1 + 2^-10) = 2049 + 2^-10: a tie at 2049 broken upwards by a sticky bit
    // 21 bits below the leading one. Correct: 2050 (0x6801).
    let table = value_table(&HOST_F16);
    assert_eq!(
        reference_add(&HOST_F16, &table, 0x6800, 0x3c01),
        Some(0x6801)
    );
    // half's software conversion drops that sticky bit and says 2048: why the
    // reference rounds on the host and asks half only to encode.
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
