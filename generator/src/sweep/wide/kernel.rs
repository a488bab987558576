//! The fast oracle's loop: one lane's sum with sm_90's flushing and NaN bits
//! laid over the host's (`lane`), and a row's digest (`row`), generic over the
//! lane width. `fast` plans which layers a reduction takes and `simd` compiles
//! the loop per instruction-set level; both call down to it.

use std::ops::{BitAnd, BitOr};

use ptxvec_oracle::float::Format;

use super::GAMMA;
use crate::sweep::mix;

/// Which NaN a sum that is NaN carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NanRule {
    /// Always the plan's default NaN.
    Default = 0,
    /// The operand if it is NaN, else the memory if it is, as they are (a
    /// signalling NaN stays signalling); the default NaN for ∞ − ∞.
    OperandFirst = 1,
    /// The memory if it is NaN, else the operand, quieted; the default for ∞ − ∞.
    MemoryFirstQuieted = 2,
}

impl NanRule {
    /// Every rule.
    pub const ALL: &'static [NanRule] = &[
        NanRule::Default,
        NanRule::OperandFirst,
        NanRule::MemoryFirstQuieted,
    ];
}

pub const DEFAULT: u8 = NanRule::Default as u8;
pub const OPERAND_FIRST: u8 = NanRule::OperandFirst as u8;
pub const MEMORY_FIRST_QUIETED: u8 = NanRule::MemoryFirstQuieted as u8;

/// A lane of the fast oracle: the bits of one f32 (`u32`) or f64 (`u64`), with
/// the masks of its format's row.
pub trait Lane:
    Copy + Eq + Ord + Send + Sync + BitAnd<Output = Self> + BitOr<Output = Self> + 'static
{
    /// The format.
    const FORMAT: Format;
    /// 0.
    const ZERO: Self;
    /// The sign bit.
    const SIGN: Self;
    /// The exponent field.
    const EXP: Self;
    /// Everything but the sign.
    const ABS: Self;
    /// +∞.
    const INF: Self;
    /// The quiet bit.
    const QUIET: Self;
    /// The low bits of `x`.
    fn from_bits(x: u64) -> Self;
    /// Zero-extended.
    fn bits(self) -> u64;
    /// The host's addition of the two values.
    fn add(self, other: Self) -> Self;
}

impl Lane for u32 {
    const FORMAT: Format = Format::F32;
    const ZERO: u32 = 0;
    const SIGN: u32 = Format::F32.sign_bit() as u32;
    const EXP: u32 = (Format::F32.exp_max() << Format::F32.frac_bits) as u32;
    const ABS: u32 = !Self::SIGN;
    const INF: u32 = Format::F32.inf(false) as u32;
    const QUIET: u32 = Format::F32.quiet_bit() as u32;
    #[inline(always)]
    fn from_bits(x: u64) -> u32 {
        x as u32
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        u64::from(self)
    }
    #[inline(always)]
    fn add(self, other: u32) -> u32 {
        (f32::from_bits(self) + f32::from_bits(other)).to_bits()
    }
}

impl Lane for u64 {
    const FORMAT: Format = Format::F64;
    const ZERO: u64 = 0;
    const SIGN: u64 = Format::F64.sign_bit();
    const EXP: u64 = Format::F64.exp_max() << Format::F64.frac_bits;
    const ABS: u64 = !Self::SIGN;
    const INF: u64 = Format::F64.inf(false);
    const QUIET: u64 = Format::F64.quiet_bit();
    #[inline(always)]
    fn from_bits(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    fn bits(self) -> u64 {
        self
    }
    #[inline(always)]
    fn add(self, other: u64) -> u64 {
        (f64::from_bits(self) + f64::from_bits(other)).to_bits()
    }
}

#[inline(always)]
fn pick<L: Copy>(c: bool, a: L, b: L) -> L {
    if c {
        a
    } else {
        b
    }
}

/// A subnormal becomes the zero of its sign.
#[inline(always)]
fn flush<L: Lane>(x: L) -> L {
    pick(x & L::EXP == L::ZERO, x & L::SIGN, x)
}

#[inline(always)]
fn is_nan<L: Lane>(x: L) -> bool {
    x & L::ABS > L::INF
}

/// `m + o` under a plan given as constants: `FLUSH`, and the [`NanRule`] `NAN`
/// with its `default` NaN.
#[inline(always)]
pub fn lane<L: Lane, const FLUSH: bool, const NAN: u8>(m: L, o: L, default: L) -> L {
    let (m, o) = if FLUSH { (flush(m), flush(o)) } else { (m, o) };
    let s = m.add(o);
    let s = if FLUSH { flush(s) } else { s };
    let nan = match NAN {
        OPERAND_FIRST => pick(is_nan(o), o, pick(is_nan(m), m, default)),
        MEMORY_FIRST_QUIETED => pick(
            is_nan(m),
            m | L::QUIET,
            pick(is_nan(o), o | L::QUIET, default),
        ),
        _ => default,
    };
    pick(is_nan(s), nan, s)
}

/// The digest of memory `m` with each operand of `ops`, the `j`-th pair's key being
/// `key0 + j·γ` (`digest::term`: the key is the pair index times γ).
#[inline(always)]
pub fn row<L: Lane, const FLUSH: bool, const NAN: u8>(
    m: L,
    ops: &[L],
    default: L,
    key0: u64,
) -> u64 {
    let mut sum = 0u64;
    let mut key = key0;
    for &o in ops {
        let r = lane::<L, FLUSH, NAN>(m, o, default);
        sum = sum.wrapping_add(mix(key ^ r.bits()));
        key = key.wrapping_add(GAMMA);
    }
    sum
}

