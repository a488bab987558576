//! Rounding to nearest even on integer bits: the one routine every operation and
//! conversion ends in, and format conversion built on it.
//!
//! PTX ISA 9.7.13.6 (red): "The floating-point operation `.add` operation rounds to
//! nearest even"; IEEE 754-2019 §4.3.1 defines roundTiesToEven, §7.4 overflow and
//! §7.5 underflow.

use super::{Class, Format, NanOut};

/// A finite value as `significand × 2^exp`, with the sign apart.
#[derive(Debug, Clone, Copy)]
pub(super) struct Unpacked {
    pub(super) negative: bool,
    pub(super) sig: u64,
    pub(super) exp: i32,
}

/// Splits a finite `x` (zero, subnormal or normal) into sign, integer significand and
/// the exponent of its last bit.
#[inline(always)]
pub(super) fn unpack(fmt: Format, x: u64) -> Unpacked {
    let biased = ((x >> fmt.frac_bits) & fmt.exp_max()) as i32;
    let frac = x & fmt.frac_mask();
    let (sig, e) = if biased == 0 {
        // Subnormals share the smallest normal's scale, without the hidden bit.
        (frac, fmt.emin())
    } else {
        (frac | (1u64 << fmt.frac_bits), biased - fmt.bias())
    };
    Unpacked {
        negative: fmt.sign(x),
        sig,
        exp: e - fmt.frac_bits as i32,
    }
}

/// `x >> n`, with every bit shifted out ORed into bit 0 (the sticky bit).
#[inline(always)]
pub(super) fn shift_right_jam(x: u64, n: u32) -> u64 {
    if n == 0 {
        x
    } else if n >= 64 {
        u64::from(x != 0)
    } else {
        (x >> n) | u64::from(x & ((1u64 << n) - 1) != 0)
    }
}

/// Rounds `sig × 2^exp` to nearest even in `fmt` and encodes it, overflowing to
/// infinity and underflowing gradually through the subnormals. `sig` may carry a
/// sticky bit in bit 0, provided at least two bits are dropped whenever it is set.
/// A result that rounds to zero keeps `negative`.
#[inline(always)]
pub(super) fn round_pack(fmt: Format, negative: bool, sig: u64, exp: i32) -> u64 {
    if sig == 0 {
        return fmt.zero(negative);
    }
    let p = fmt.frac_bits as i32 + 1;
    let len = 64 - sig.leading_zeros() as i32;
    // The exponent of the leading bit, and of the result's last bit (its quantum):
    // p bits below the leading bit, but never finer than the subnormals' quantum.
    let top = exp + len - 1;
    let mut quantum = (top - (p - 1)).max(fmt.emin() - (p - 1));
    let drop = quantum - exp;
    let mut kept = if drop <= 0 {
        // Exact: fewer significant bits than the format holds.
        sig << (-drop) as u32
    } else if drop > 64 {
        // Below half of the quantum: rounds to zero.
        0
    } else {
        let d = drop as u32;
        let kept = if d == 64 { 0 } else { sig >> d };
        let rest = if d == 64 {
            sig
        } else {
            sig & ((1u64 << d) - 1)
        };
        let half = 1u64 << (d - 1);
        // Round to nearest; on a tie, to the even neighbour.
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    if kept >> p != 0 {
        // Rounding carried into a new leading bit: 2^p is 2^(p-1) one binade up.
        kept >>= 1;
        quantum += 1;
    }
    // A significand with the hidden bit set is normal; the biased exponent follows
    // from the quantum. This also turns a subnormal that rounded up to 2^(p-1) into
    // the smallest normal.
    let biased = if kept >> (p - 1) != 0 {
        i64::from(quantum + (p - 1) + fmt.bias())
    } else {
        0
    };
    if biased >= fmt.exp_max() as i64 {
        // IEEE 754-2019 §7.4: overflow under roundTiesToEven gives infinity.
        return fmt.inf(negative);
    }
    let bits = ((biased as u64) << fmt.frac_bits) | (kept & fmt.frac_mask());
    if negative {
        bits | fmt.sign_bit()
    } else {
        bits
    }
}

/// The value of `x` in format `to`: exact when `to` holds it, otherwise rounded to
/// nearest even with overflow to infinity and gradual underflow. No flushing. A NaN
/// becomes the canonical NaN of `to`, or under [`NanOut::QuietFirst`] keeps its sign
/// and the top of its payload, quieted (as IEEE 754 conversions do).
#[inline(always)]
pub fn convert(from: Format, to: Format, x: u64, nan: NanOut) -> u64 {
    let x = x & from.mask();
    let negative = from.sign(x);
    match from.classify(x) {
        Class::QuietNan | Class::SignalingNan => match nan {
            NanOut::Canonical => to.canonical_nan(),
            NanOut::QuietFirst => {
                let payload = x & from.frac_mask();
                let payload = if to.frac_bits >= from.frac_bits {
                    payload << (to.frac_bits - from.frac_bits)
                } else {
                    payload >> (from.frac_bits - to.frac_bits)
                };
                let bits = to.inf(false) | payload | to.quiet_bit();
                if negative {
                    bits | to.sign_bit()
                } else {
                    bits
                }
            }
        },
        Class::Infinite => to.inf(negative),
        Class::Zero => to.zero(negative),
        Class::Normal if to.frac_bits >= from.frac_bits && to.exp_bits >= from.exp_bits => {
            // Exact widening (f16 or bf16 to f32, anything to f64): rebias the
            // exponent and extend the significand; the general path below agrees, this
            // one only saves the exhaustive tests time.
            let biased = ((x >> from.frac_bits) & from.exp_max()) as i32 - from.bias() + to.bias();
            let frac = (x & from.frac_mask()) << (to.frac_bits - from.frac_bits);
            to.signed(negative, ((biased as u64) << to.frac_bits) | frac)
        }
        Class::Subnormal | Class::Normal => {
            let u = unpack(from, x);
            round_pack(to, negative, u.sig, u.exp)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::float::Ftz;

    const F16: Format = Format::F16;
    const BF16: Format = Format::BF16;
    const F32: Format = Format::F32;
    const F64: Format = Format::F64;
    const FL: Ftz = Ftz::Flush;
    const C: NanOut = NanOut::Canonical;
    const Q: NanOut = NanOut::QuietFirst;

    #[test]
    fn flush_applies_after_rounding() {
        // Addition of f32 values cannot land between the largest subnormal and the
        // smallest normal (sums are multiples of 2^-149), so round_pack shows the
        // order directly: (2^24 - 1)·2^-150 = 2^-126 - 2^-150 is 2^23 - 1/2 quanta of
        // 2^-149, a tie between 0x007fffff (odd) and 0x00800000 (even). It rounds to
        // the smallest normal, which Flush keeps.
        let r = round_pack(F32, false, (1 << 24) - 1, -150);
        assert_eq!(r, 0x0080_0000);
        assert_eq!(F32.flush(r, FL), 0x0080_0000);
        // (2^26 - 5)·2^-152 is 2^23 - 5/8 quanta: rounds down to the largest
        // subnormal, which Flush zeroes with its sign.
        let r = round_pack(F32, true, (1 << 26) - 5, -152);
        assert_eq!(r, 0x807f_ffff);
        assert_eq!(F32.flush(r, FL), 0x8000_0000);
    }

    /// (from, to, x, expected): conversions, exact and rounded.
    #[rustfmt::skip]
    const CONVERT_CASES: &[(Format, Format, u64, u64)] = &[
        (F16, F32, 0x3c00, 0x3f80_0000),        // 1
        (F16, F32, 0x0001, 0x3380_0000),        // 2^-24 is normal in f32
        (F16, F32, 0x8000, 0x8000_0000),
        (F16, F32, 0xfc00, 0xff80_0000),
        (BF16, F32, 0x0001, 0x0001_0000),       // bf16 is f32's top half
        (F32, BF16, 0x3f80_8000, 0x3f80),       // tie to even (down)
        (F32, BF16, 0x3f81_8000, 0x3f82),       // tie to even (up)
        (F32, BF16, 0x7f7f_ffff, 0x7f80),       // overflows
        (F32, F16, 0x477f_f000, 0x7c00),        // 65520: tie above 65504 -> inf
        (F32, F16, 0x477f_efff, 0x7bff),
        (F32, F16, 0x3300_0000, 0x0000),        // 2^-25: tie to 0 (even)
        (F32, F16, 0x3300_0001, 0x0001),        // just above: the smallest subnormal
        (F32, F16, 0xb3c0_0000, 0x8002),        // -1.5·2^-24: tie to even 2
        (F64, F16, 0x0000_0000_0000_0001, 0x0000), // underflows to zero
        (F64, F32, 0x3ff0_0000_1000_0000, 0x3f80_0000), // tie, even
        (F64, F32, 0x3ff0_0000_1000_0001, 0x3f80_0001), // sticky below the tie
    ];

    #[test]
    fn convert_cases() {
        for &(from, to, x, want) in CONVERT_CASES {
            let got = convert(from, to, x, C);
            assert_eq!(
                got, want,
                "{} -> {}: {x:#x} gave {got:#x}, want {want:#x}",
                from.name, to.name
            );
        }
        assert_eq!(
            convert(F32, F16, 0xffc0_2000, Q),
            0xfe01,
            "payload top bits kept"
        );
        assert_eq!(
            convert(F16, F32, 0x7d01, Q),
            0x7fe0_2000,
            "sNaN widened and quieted"
        );
        assert_eq!(convert(F16, F32, 0x7d01, C), 0x7fff_ffff);
    }
}
