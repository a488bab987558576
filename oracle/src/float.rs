//! Bit-exact IEEE 754 binary floating point for the float forms of `red`,
//! `cp.reduce.async.bulk` and `redux.sync`: addition rounded to nearest even, min and
//! max, on raw bit patterns.
//!
//! One generic implementation serves every format; each format is one row of
//! [`Format`] (as rustc_apfloat's `ieee_semantics!` table). Values travel as raw bits
//! in the low bits of a `u64`. Nothing here computes with the host's `f32`/`f64`: the
//! host arithmetic is the independent reference in the tests.
//!
//! What the PTX text leaves to the implementation is a parameter, never a copy of a
//! function: [`Ftz`] (flush subnormals), [`NanOut`] (which NaN bits an arithmetic
//! result carries) and [`MinMaxNan`] (whether min/max ignore or propagate NaN).
//! [`Expect`] says how much of a result the document pins down.

mod add;
mod minmax;
mod round;

#[cfg(test)]
mod exhaustive;

pub use add::{add, add_via, add_via_f32, expect_add};
pub use minmax::{max, min, min_max, MinMax, MinMaxMode, MinMaxNan};
pub use round::convert;

/// A binary interchange format: one row of the format table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Format {
    /// The PTX type name without the dot: `f16`, `bf16`, `f32`, `f64`.
    pub name: &'static str,
    /// Width of the biased exponent field.
    pub exp_bits: u32,
    /// Width of the trailing significand field (the precision less the hidden bit).
    pub frac_bits: u32,
}

/// The class of a value, as IEEE 754 `class()` without the sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// ±0.
    Zero,
    /// Biased exponent 0, significand not 0.
    Subnormal,
    /// Biased exponent neither 0 nor all ones.
    Normal,
    /// ±infinity.
    Infinite,
    /// NaN with the quiet bit (the significand's top bit) set.
    QuietNan,
    /// NaN with the quiet bit clear.
    SignalingNan,
}

impl Class {
    /// Every class.
    pub const ALL: &'static [Class] = &[
        Class::Zero,
        Class::Subnormal,
        Class::Normal,
        Class::Infinite,
        Class::QuietNan,
        Class::SignalingNan,
    ];
}

/// Whether subnormals are flushed: `.ftz` versus `.noftz` (or no qualifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ftz {
    /// PTX ISA 9.7.13.6 (red): "flushes subnormal inputs and results to
    /// sign-preserving zero". Inputs are flushed before the operation; a result is
    /// flushed after rounding (see [`add`]).
    Flush,
    /// PTX ISA 9.7.13.6 (red): `.noftz` "preserves subnormal inputs and results, and
    /// does not flush them to zero".
    Preserve,
}

impl Ftz {
    /// Both modes.
    pub const ALL: &'static [Ftz] = &[Ftz::Flush, Ftz::Preserve];
}

/// Which bits an arithmetic result carries when it is NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NanOut {
    /// Always [`Format::canonical_nan`]: what NVIDIA GPUs are believed to produce;
    /// the seeds say "canonical NaN" only for redux.sync, so silicon must confirm it
    /// for each instruction.
    Canonical,
    /// The first NaN operand (in operand order), quieted, sign and payload kept;
    /// the canonical NaN when no operand is NaN (inf − inf). IEEE 754-2019 §6.2.3
    /// recommends that a NaN result carry an input NaN's payload; this is the
    /// x86/ARM-like choice.
    QuietFirst,
}

impl NanOut {
    /// Both policies.
    pub const ALL: &'static [NanOut] = &[NanOut::Canonical, NanOut::QuietFirst];
}

impl Format {
    /// IEEE 754 binary16: `.f16`.
    pub const F16: Format = Format {
        name: "f16",
        exp_bits: 5,
        frac_bits: 10,
    };
    /// bfloat16, binary32's top half: `.bf16`.
    pub const BF16: Format = Format {
        name: "bf16",
        exp_bits: 8,
        frac_bits: 7,
    };
    /// IEEE 754 binary32: `.f32`.
    pub const F32: Format = Format {
        name: "f32",
        exp_bits: 8,
        frac_bits: 23,
    };
    /// IEEE 754 binary64: `.f64`.
    pub const F64: Format = Format {
        name: "f64",
        exp_bits: 11,
        frac_bits: 52,
    };
    /// Every format.
    pub const ALL: &'static [Format] = &[Format::F16, Format::BF16, Format::F32, Format::F64];

    /// Total width in bits: sign, exponent, significand.
    #[inline]
    pub const fn width(self) -> u32 {
        1 + self.exp_bits + self.frac_bits
    }

    /// The bits a value of this format occupies.
    #[inline]
    pub const fn mask(self) -> u64 {
        if self.width() == 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        }
    }

    /// The sign bit.
    #[inline]
    pub const fn sign_bit(self) -> u64 {
        1u64 << (self.width() - 1)
    }

    /// The trailing significand field.
    #[inline]
    pub const fn frac_mask(self) -> u64 {
        (1u64 << self.frac_bits) - 1
    }

    /// The quiet bit: the trailing significand's top bit (IEEE 754-2019 §3.4).
    #[inline]
    pub const fn quiet_bit(self) -> u64 {
        1u64 << (self.frac_bits - 1)
    }

    /// The all-ones biased exponent of infinities and NaNs.
    #[inline]
    pub const fn exp_max(self) -> u64 {
        (1u64 << self.exp_bits) - 1
    }

    /// The exponent bias: 15, 127, 127, 1023.
    #[inline]
    pub const fn bias(self) -> i32 {
        (1i32 << (self.exp_bits - 1)) - 1
    }

    /// The unbiased exponent of the smallest normal, also the scale of subnormals.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// Infinity with the given sign (`true`: negative).
    #[inline]
    pub const fn inf(self, negative: bool) -> u64 {
        self.signed(negative, self.exp_max() << self.frac_bits)
    }

    /// Zero with the given sign (`true`: negative).
    #[inline]
    pub const fn zero(self, negative: bool) -> u64 {
        self.signed(negative, 0)
    }

    /// The largest finite magnitude with the given sign.
    #[inline]
    pub const fn max_finite(self, negative: bool) -> u64 {
        self.signed(negative, (self.exp_max() << self.frac_bits) - 1)
    }

    /// The canonical NaN of NVIDIA GPUs: sign 0, exponent and significand all ones
    /// (f32 0x7fffffff, f16 and bf16 0x7fff, f64 0x7fffffffffffffff).
    // PTX ISA 9.7.13.12 (redux.sync): "the result of the reduction operation is
    // canonical NaN", without the bits. The all-ones pattern is NVIDIA's convention as
    // the project records it (CUDA's CUDART_NAN_F is 0x7fffffff); not in the seeds, so
    // silicon (sm_90, sm_100a) must confirm it for every width.
    #[inline]
    pub const fn canonical_nan(self) -> u64 {
        self.mask() >> 1
    }

    #[inline]
    const fn signed(self, negative: bool, magnitude: u64) -> u64 {
        if negative {
            magnitude | self.sign_bit()
        } else {
            magnitude
        }
    }

    #[inline]
    fn biased_exp(self, x: u64) -> u64 {
        (x >> self.frac_bits) & self.exp_max()
    }

    /// The class of `x`. Bits above the width are ignored, here and in every function
    /// of this module; results have them clear.
    #[inline]
    pub fn classify(self, x: u64) -> Class {
        let frac = x & self.frac_mask();
        match (self.biased_exp(x), frac) {
            (0, 0) => Class::Zero,
            (0, _) => Class::Subnormal,
            (e, 0) if e == self.exp_max() => Class::Infinite,
            (e, _) if e == self.exp_max() => {
                if frac & self.quiet_bit() != 0 {
                    Class::QuietNan
                } else {
                    Class::SignalingNan
                }
            }
            _ => Class::Normal,
        }
    }

    /// The sign bit of `x` (`true`: negative), for NaNs too.
    #[inline]
    pub fn sign(self, x: u64) -> bool {
        x & self.sign_bit() != 0
    }

    /// Whether `x` is a NaN, quiet or signalling: its magnitude encodes above infinity.
    #[inline]
    pub fn is_nan(self, x: u64) -> bool {
        self.abs(x) > self.inf(false)
    }

    /// Whether `x` is a subnormal: its magnitude encodes between zero and the
    /// smallest normal.
    #[inline]
    pub fn is_subnormal(self, x: u64) -> bool {
        let magnitude = self.abs(x);
        magnitude != 0 && magnitude < 1u64 << self.frac_bits
    }

    /// `x` with the quiet bit set: a signalling NaN becomes quiet with the same sign
    /// and remaining payload (IEEE 754-2019 §6.2.1). Only meaningful for NaNs.
    #[inline]
    pub fn quiet(self, x: u64) -> u64 {
        (x & self.mask()) | self.quiet_bit()
    }

    /// `x` with its sign flipped, NaNs included (IEEE 754 `negate` is a bit operation).
    #[inline]
    pub fn neg(self, x: u64) -> u64 {
        (x ^ self.sign_bit()) & self.mask()
    }

    /// `x` with its sign cleared, NaNs included (IEEE 754 `abs` is a bit operation).
    #[inline]
    pub fn abs(self, x: u64) -> u64 {
        x & self.mask() & !self.sign_bit()
    }

    /// `x`, or zero of the same sign if `x` is subnormal and `ftz` is [`Ftz::Flush`].
    // PTX ISA 9.7.13.6 (red): "flushes subnormal inputs and results to sign-preserving zero".
    #[inline]
    pub fn flush(self, x: u64, ftz: Ftz) -> u64 {
        let x = x & self.mask();
        if ftz == Ftz::Flush && self.is_subnormal(x) {
            x & self.sign_bit()
        } else {
            x
        }
    }
}

/// What a conformance vector accepts as a result: the document's looseness made
/// explicit. Where the document says "NaN" without saying which, the expectation is
/// a class, not a guess at bits.
///
/// The generator maps these onto WebAssembly-test-suite-style accept classes:
/// [`Expect::Bits`] to an exact bit pattern, [`Expect::AnyNan`] to a NaN class
/// (`nan:arithmetic` once silicon shows the results are always quiet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Expect {
    /// Exactly these bits.
    Bits(u64),
    /// Any NaN: sign, quiet bit and payload unspecified.
    AnyNan,
    /// Either of two bit patterns: the document leaves a choice open (whether a
    /// generic-address f32 add flushes; which zero a 16-bit `min(+0, -0)` returns).
    Either(u64, u64),
    /// These bits or any NaN: the document does not say whether a NaN operand of a
    /// 16-bit `min`/`max` is ignored (giving the other operand) or propagated.
    BitsOrNan(u64),
    /// Nothing is promised: the document calls the behaviour undefined.
    Undefined,
}

impl Expect {
    /// The expectation for a computed result whose NaN bits the document leaves
    /// unspecified: exact bits unless `bits` is a NaN, which becomes [`Expect::AnyNan`].
    pub fn nan_unspecified(fmt: Format, bits: u64) -> Expect {
        if fmt.is_nan(bits) {
            Expect::AnyNan
        } else {
            Expect::Bits(bits & fmt.mask())
        }
    }

    /// What is accepted when either of two expectations may hold (two readings of
    /// the document). Only the combinations two computed results can produce are
    /// exact; anything wider is [`Expect::Undefined`], never a narrowing.
    pub fn either(a: Expect, b: Expect) -> Expect {
        match (a, b) {
            _ if a == b => a,
            (Expect::Bits(x), Expect::Bits(y)) => Expect::Either(x, y),
            (Expect::Bits(x), Expect::AnyNan) | (Expect::AnyNan, Expect::Bits(x)) => {
                Expect::BitsOrNan(x)
            }
            _ => Expect::Undefined,
        }
    }

    /// Whether a measured result `got` satisfies this expectation.
    pub fn accepts(self, fmt: Format, got: u64) -> bool {
        let got = got & fmt.mask();
        match self {
            Expect::Bits(want) => got == want,
            Expect::AnyNan => fmt.is_nan(got),
            Expect::Either(x, y) => got == x || got == y,
            Expect::BitsOrNan(x) => got == x || fmt.is_nan(got),
            Expect::Undefined => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (format, bits, class): the edges of each class, written from the IEEE 754 layout.
    const CLASSES: &[(Format, u64, Class)] = &[
        (Format::F16, 0x0000, Class::Zero),
        (Format::F16, 0x8000, Class::Zero),
        (Format::F16, 0x0001, Class::Subnormal),
        (Format::F16, 0x83ff, Class::Subnormal),
        (Format::F16, 0x0400, Class::Normal),
        (Format::F16, 0x7bff, Class::Normal),
        (Format::F16, 0x7c00, Class::Infinite),
        (Format::F16, 0xfc00, Class::Infinite),
        (Format::F16, 0x7e00, Class::QuietNan),
        (Format::F16, 0x7c01, Class::SignalingNan),
        (Format::F16, 0xfdff, Class::SignalingNan),
        (Format::BF16, 0x007f, Class::Subnormal),
        (Format::BF16, 0x0080, Class::Normal),
        (Format::BF16, 0x7f80, Class::Infinite),
        (Format::BF16, 0x7fc0, Class::QuietNan),
        (Format::BF16, 0x7f81, Class::SignalingNan),
        (Format::F32, 0x8000_0000, Class::Zero),
        (Format::F32, 0x007f_ffff, Class::Subnormal),
        (Format::F32, 0x0080_0000, Class::Normal),
        (Format::F32, 0x7f80_0000, Class::Infinite),
        (Format::F32, 0x7fc0_0000, Class::QuietNan),
        (Format::F32, 0x7fbf_ffff, Class::SignalingNan),
        (Format::F64, 0x0000_0000_0000_0001, Class::Subnormal),
        (Format::F64, 0x7ff0_0000_0000_0000, Class::Infinite),
        (Format::F64, 0xfff8_0000_0000_0000, Class::QuietNan),
        (Format::F64, 0x7ff0_0000_0000_0001, Class::SignalingNan),
        // Bits above the width are ignored.
        (Format::F16, 0xffff_0000, Class::Zero),
    ];

    #[test]
    fn classify_table() {
        for &(fmt, x, want) in CLASSES {
            let got = fmt.classify(x);
            assert_eq!(got, want, "{} {x:#x}: got {got:?}, want {want:?}", fmt.name);
        }
        // Every class appears in the table.
        for c in Class::ALL {
            assert!(CLASSES.iter().any(|&(_, _, k)| k == *c), "{c:?} untested");
        }
    }

    #[test]
    fn format_rows_match_the_host_layout() {
        // The host's own constants are the independent source for f32 and f64.
        let f32s = [
            (Format::F32.canonical_nan(), 0x7fff_ffff),
            (
                Format::F32.inf(true),
                u64::from(f32::NEG_INFINITY.to_bits()),
            ),
            (Format::F32.max_finite(false), u64::from(f32::MAX.to_bits())),
            (Format::F64.inf(false), f64::INFINITY.to_bits()),
            (Format::F64.max_finite(true), f64::MIN.to_bits()),
            (Format::F64.canonical_nan(), 0x7fff_ffff_ffff_ffff),
            (Format::F16.canonical_nan(), 0x7fff),
            (Format::BF16.canonical_nan(), 0x7fff),
            (
                Format::F16.max_finite(false),
                u64::from(half::f16::MAX.to_bits()),
            ),
            (
                Format::BF16.max_finite(false),
                u64::from(half::bf16::MAX.to_bits()),
            ),
        ];
        for (got, want) in f32s {
            assert_eq!(got, want, "{got:#x} != {want:#x}");
        }
        for fmt in Format::ALL {
            assert_eq!(fmt.width() % 16, 0, "{}", fmt.name);
            assert_eq!(fmt.classify(fmt.canonical_nan()), Class::QuietNan);
            assert_eq!(fmt.emin(), 1 - fmt.bias());
        }
        assert_eq!(Format::ALL.len(), 4);
    }

    #[test]
    fn sign_helpers_are_bit_operations() {
        for fmt in Format::ALL {
            let snan = (fmt.exp_max() << fmt.frac_bits) | 1;
            assert_eq!(fmt.classify(fmt.quiet(snan)), Class::QuietNan);
            assert_eq!(fmt.quiet(snan) & 1, 1, "payload kept");
            assert_eq!(fmt.neg(fmt.zero(false)), fmt.zero(true));
            assert_eq!(fmt.abs(fmt.neg(snan)), snan, "abs of a NaN clears its sign");
            assert!(fmt.sign(fmt.neg(fmt.canonical_nan())));
            let sub = fmt.sign_bit() | 1;
            assert_eq!(fmt.flush(sub, Ftz::Flush), fmt.zero(true));
            assert_eq!(fmt.flush(sub, Ftz::Preserve), sub);
            let normal = 1u64 << fmt.frac_bits;
            assert_eq!(fmt.flush(normal, Ftz::Flush), normal);
        }
    }

    #[test]
    fn expect_accepts_by_class() {
        let f = Format::F32;
        assert_eq!(Expect::nan_unspecified(f, 0x7fc0_0000), Expect::AnyNan);
        assert_eq!(
            Expect::nan_unspecified(f, 0x8000_0000),
            Expect::Bits(0x8000_0000)
        );
        assert!(Expect::AnyNan.accepts(f, 0xffc0_0001));
        assert!(Expect::AnyNan.accepts(f, 0x7f80_0001));
        assert!(!Expect::AnyNan.accepts(f, 0x7f80_0000));
        assert!(Expect::Bits(0).accepts(f, 0));
        assert!(
            !Expect::Bits(0).accepts(f, 0x8000_0000),
            "the sign of zero counts"
        );
        // Two readings of the document: exact pairs stay exact, a NaN joins as a class.
        assert_eq!(
            Expect::either(Expect::Bits(1), Expect::Bits(1)),
            Expect::Bits(1)
        );
        assert_eq!(
            Expect::either(Expect::Bits(1), Expect::Bits(2)),
            Expect::Either(1, 2)
        );
        assert_eq!(
            Expect::either(Expect::AnyNan, Expect::Bits(2)),
            Expect::BitsOrNan(2)
        );
        assert_eq!(
            Expect::either(Expect::Either(1, 2), Expect::Bits(3)),
            Expect::Undefined
        );
        assert!(Expect::Either(0, 0x8000_0000).accepts(f, 0x8000_0000));
        assert!(!Expect::Either(0, 0x8000_0000).accepts(f, 1));
        assert!(Expect::BitsOrNan(1).accepts(f, 0x7fff_ffff));
        assert!(!Expect::BitsOrNan(1).accepts(f, 2));
    }
}
