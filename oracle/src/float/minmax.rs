//! Floating-point min and max on raw bits, with the `.abs` and `.NaN` qualifiers of
//! redux.sync.
//!
//! PTX ISA 9.7.13.12 (redux.sync): "For `.f32` instruction type, if the input value is
//! 0.0 then +0.0 > -0.0." The red and cp.reduce.async.bulk seeds do not say how their
//! 16-bit min/max order zeros or treat NaN; this module applies redux.sync's rules to
//! every format, which silicon must confirm for red.min/max.f16/bf16.

use super::{Format, Ftz};

/// Which of the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MinMax {
    /// The smaller.
    Min,
    /// The larger.
    Max,
}

impl MinMax {
    /// Both operations.
    pub const ALL: &'static [MinMax] = &[MinMax::Min, MinMax::Max];
}

/// How min and max treat NaN inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MinMaxNan {
    /// No `.NaN`: PTX ISA 9.7.13.12: "only non-NaN values are considered for the
    /// reduction operation and the result will be canonical NaN when all inputs are
    /// NaNs". One NaN input gives the other input; two give the canonical NaN.
    Ignore,
    /// `.NaN`: PTX ISA 9.7.13.12: "the result of the reduction operation is canonical
    /// NaN if the input to the reduction operation from any participating thread is NaN".
    Propagate,
}

impl MinMaxNan {
    /// Both policies.
    pub const ALL: &'static [MinMaxNan] = &[MinMaxNan::Ignore, MinMaxNan::Propagate];
}

/// The qualifiers of a min or max: flushing, NaN policy and `.abs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MinMaxMode {
    /// Subnormal inputs become zero of the same sign first. The result is one of the
    /// (flushed) inputs, so it is never subnormal.
    pub ftz: Ftz,
    /// NaN inputs: ignored or propagated.
    pub nan: MinMaxNan,
    /// `.abs`: PTX ISA 9.7.13.12: "the absolute value of the input is considered for
    /// the reduction operation". Applied to each input first, NaNs included.
    pub abs: bool,
}

impl MinMaxMode {
    /// No qualifiers: subnormals kept, NaN ignored, no `.abs`.
    pub const PLAIN: MinMaxMode = MinMaxMode {
        ftz: Ftz::Preserve,
        nan: MinMaxNan::Ignore,
        abs: false,
    };
}

/// A key whose integer order is the order of non-NaN values with −0 < +0: magnitudes
/// ascending for positives, descending below zero for negatives.
#[inline]
fn order_key(fmt: Format, x: u64) -> i64 {
    let magnitude = fmt.abs(x) as i64;
    if fmt.sign(x) {
        -magnitude - 1
    } else {
        magnitude
    }
}

/// `op(a, b)` in `fmt` under `mode`; see [`MinMaxMode`] and [`MinMaxNan`]. A NaN
/// result is always [`Format::canonical_nan`], as redux.sync specifies.
#[inline]
pub fn min_max(op: MinMax, fmt: Format, a: u64, b: u64, mode: MinMaxMode) -> u64 {
    let pre = |x: u64| {
        let x = if mode.abs { fmt.abs(x) } else { x & fmt.mask() };
        fmt.flush(x, mode.ftz)
    };
    let (a, b) = (pre(a), pre(b));
    match (fmt.is_nan(a), fmt.is_nan(b), mode.nan) {
        (false, false, _) => {}
        (true, true, _) | (_, _, MinMaxNan::Propagate) => return fmt.canonical_nan(),
        (true, false, MinMaxNan::Ignore) => return b,
        (false, true, MinMaxNan::Ignore) => return a,
    }
    let a_first = match op {
        MinMax::Min => order_key(fmt, a) <= order_key(fmt, b),
        MinMax::Max => order_key(fmt, a) >= order_key(fmt, b),
    };
    if a_first {
        a
    } else {
        b
    }
}

/// The smaller of `a` and `b`: [`min_max`] with [`MinMax::Min`].
pub fn min(fmt: Format, a: u64, b: u64, mode: MinMaxMode) -> u64 {
    min_max(MinMax::Min, fmt, a, b, mode)
}

/// The larger of `a` and `b`: [`min_max`] with [`MinMax::Max`].
pub fn max(fmt: Format, a: u64, b: u64, mode: MinMaxMode) -> u64 {
    min_max(MinMax::Max, fmt, a, b, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F16: Format = Format::F16;
    const BF16: Format = Format::BF16;
    const F32: Format = Format::F32;
    const F64: Format = Format::F64;
    const MIN: MinMax = MinMax::Min;
    const MAX: MinMax = MinMax::Max;

    const fn mode(ftz: Ftz, nan: MinMaxNan, abs: bool) -> MinMaxMode {
        MinMaxMode { ftz, nan, abs }
    }
    const PLAIN: MinMaxMode = MinMaxMode::PLAIN;
    const PROP: MinMaxMode = mode(Ftz::Preserve, MinMaxNan::Propagate, false);
    const ABS: MinMaxMode = mode(Ftz::Preserve, MinMaxNan::Ignore, true);
    const ABS_PROP: MinMaxMode = mode(Ftz::Preserve, MinMaxNan::Propagate, true);
    const FTZ: MinMaxMode = mode(Ftz::Flush, MinMaxNan::Ignore, false);

    /// (op, format, mode, a, b, expected, why), from the redux.sync text.
    #[rustfmt::skip]
    const CASES: &[(MinMax, Format, MinMaxMode, u64, u64, u64, &str)] = &[
        // "+0.0 > -0.0", in both operand orders.
        (MIN, F32, PLAIN, 0x0000_0000, 0x8000_0000, 0x8000_0000, "min(+0, -0) = -0"),
        (MIN, F32, PLAIN, 0x8000_0000, 0x0000_0000, 0x8000_0000, "min(-0, +0) = -0"),
        (MAX, F32, PLAIN, 0x0000_0000, 0x8000_0000, 0x0000_0000, "max(+0, -0) = +0"),
        (MAX, F32, PLAIN, 0x8000_0000, 0x0000_0000, 0x0000_0000, "max(-0, +0) = +0"),
        (MIN, F16, PLAIN, 0x0000, 0x8000, 0x8000, "f16 min(+0, -0)"),
        (MAX, BF16, PLAIN, 0x8000, 0x0000, 0x0000, "bf16 max(-0, +0)"),
        (MIN, F64, PLAIN, 0, 1 << 63, 1 << 63, "f64 min(+0, -0)"),
        // Ordinary ordering across signs, subnormals and infinities.
        (MIN, F32, PLAIN, 0x3f80_0000, 0xbf80_0000, 0xbf80_0000, "min(1, -1)"),
        (MAX, F32, PLAIN, 0xc000_0000, 0xbf80_0000, 0xbf80_0000, "max(-2, -1)"),
        (MIN, F32, PLAIN, 0x8000_0001, 0x0000_0000, 0x8000_0001, "-tiny < +0"),
        (MAX, F32, PLAIN, 0xff80_0000, 0xff7f_ffff, 0xff7f_ffff, "max(-inf, -max)"),
        (MIN, F16, PLAIN, 0x7c00, 0x7bff, 0x7bff, "min(inf, max)"),
        // NaN without .NaN: one NaN gives the other input; two give the canonical NaN.
        (MIN, F32, PLAIN, 0x7fc0_0001, 0x3f80_0000, 0x3f80_0000, "min(NaN, 1) = 1"),
        (MAX, F32, PLAIN, 0xbf80_0000, 0xff80_0001, 0xbf80_0000, "max(-1, sNaN) = -1"),
        (MIN, F32, PLAIN, 0x7fc0_0000, 0xffc0_0000, 0x7fff_ffff, "two NaNs: canonical"),
        (MAX, F16, PLAIN, 0x7e00, 0x8000, 0x8000, "f16 max(NaN, -0) = -0"),
        (MAX, BF16, PLAIN, 0xffc1, 0x7f81, 0x7fff, "bf16 two NaNs"),
        // .NaN: any NaN input gives the canonical NaN.
        (MIN, F32, PROP, 0x7fc0_0001, 0x3f80_0000, 0x7fff_ffff, "min.NaN(NaN, 1)"),
        (MAX, F32, PROP, 0x3f80_0000, 0xff80_0001, 0x7fff_ffff, "max.NaN(1, sNaN)"),
        (MAX, F16, PROP, 0x7c00, 0xfe00, 0x7fff, "f16 max.NaN(inf, -NaN)"),
        (MIN, F32, PROP, 0x3f80_0000, 0x4000_0000, 0x3f80_0000, "no NaN: ordinary"),
        // .abs: each input's absolute value is compared and returned.
        (MIN, F32, ABS, 0xc000_0000, 0x3f80_0000, 0x3f80_0000, "min.abs(-2, 1) = 1"),
        (MAX, F32, ABS, 0xc000_0000, 0x3f80_0000, 0x4000_0000, "max.abs(-2, 1) = 2"),
        (MIN, F32, ABS, 0x8000_0000, 0x0000_0000, 0x0000_0000, "min.abs(-0, +0) = +0"),
        (MAX, F32, ABS, 0xff80_0000, 0x7f7f_ffff, 0x7f80_0000, "max.abs(-inf, max) = inf"),
        (MIN, F32, ABS, 0xffc0_0000, 0xbf80_0000, 0x3f80_0000, "min.abs(-NaN, -1) = 1"),
        (MIN, F32, ABS_PROP, 0xffc0_0000, 0xbf80_0000, 0x7fff_ffff, "min.abs.NaN(-NaN, -1)"),
        // ftz: subnormal inputs compare (and return) as signed zeros.
        (MIN, F32, FTZ, 0x8000_0001, 0x0000_0000, 0x8000_0000, "min(-tiny, +0) = -0"),
        (MAX, F32, FTZ, 0x0000_0001, 0x8000_0000, 0x0000_0000, "max(tiny, -0) = +0"),
        (MAX, F32, FTZ, 0x0000_0002, 0x0000_0001, 0x0000_0000, "two flushed: +0"),
        (MIN, F16, FTZ, 0x03ff, 0x0400, 0x0000, "f16 min(subnormal, normal) = +0"),
        (MIN, F32, PLAIN, 0x0000_0002, 0x0000_0001, 0x0000_0001, "kept without ftz"),
    ];

    #[test]
    fn min_max_special_cases() {
        for &(op, fmt, mode, a, b, want, why) in CASES {
            let got = min_max(op, fmt, a, b, mode);
            assert_eq!(
                got, want,
                "{op:?} {} {mode:?}: ({a:#x}, {b:#x}) = {got:#x}, want {want:#x} ({why})",
                fmt.name
            );
        }
    }

    #[test]
    fn min_max_are_symmetric_and_pick_an_input() {
        // Symmetric bit for bit: the only NaN they return is the canonical one.
        for &fmt in Format::ALL {
            let one = (fmt.bias() as u64) << fmt.frac_bits;
            let mut v = vec![
                0,
                1,
                fmt.frac_mask(),
                1 << fmt.frac_bits,
                one,
                one + 1,
                fmt.max_finite(false),
                fmt.inf(false),
                fmt.inf(false) | 1,
                fmt.canonical_nan(),
            ];
            let negs: Vec<u64> = v.iter().map(|&x| fmt.neg(x)).collect();
            v.extend(negs);
            for &a in &v {
                for &b in &v {
                    for &op in MinMax::ALL {
                        for &ftz in Ftz::ALL {
                            for &nan in MinMaxNan::ALL {
                                for abs in [false, true] {
                                    let m = MinMaxMode { ftz, nan, abs };
                                    let ab = min_max(op, fmt, a, b, m);
                                    let ba = min_max(op, fmt, b, a, m);
                                    let case = format!("{op:?} {} {m:?} {a:#x} {b:#x}", fmt.name);
                                    assert_eq!(ab, ba, "{case}");
                                    let pre =
                                        |x: u64| fmt.flush(if abs { fmt.abs(x) } else { x }, ftz);
                                    assert!(
                                        ab == pre(a) || ab == pre(b) || ab == fmt.canonical_nan(),
                                        "{case}: {ab:#x}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(min(F32, 0x3f80_0000, 0x4000_0000, PLAIN), 0x3f80_0000);
        assert_eq!(max(F32, 0x3f80_0000, 0x4000_0000, PLAIN), 0x4000_0000);
    }
}
