//! The fast CPU oracle of the wide sweeps: the host's own f32/f64 addition, with the
//! sm_90 profile's flushing and NaN bits laid over it on the bits. The scalar oracle
//! (`ptxvec_oracle::memory::Reduction::element`, under `Profile::Sm90`) stays the
//! definition: a [`Plan`] is found by asking it, never by restating it, and is
//! used only once it has reproduced the oracle on every pair of the boundary values
//! ([`boundary_values`]).
//!
//! Why the host's addition is the oracle's, with these layers:
//! - Rust leaves MXCSR's FTZ and DAZ off (and changes no rounding mode), so a host
//!   `+` is IEEE 754 binary32/binary64 addition in round-to-nearest-even with
//!   subnormals, and an exact zero sum is +0 except (−0) + (−0): the oracle's
//!   `float::add` with `Ftz::Preserve` (its tests compare the two on 10^7 pairs).
//! - Flushing (`Ftz::Flush`: subnormal inputs become zeros of their sign, and a
//!   subnormal result becomes a zero of its sign after rounding) is done on the
//!   bits: the inputs before the host adds, the sum after. Flushing the rounded sum
//!   is the oracle's order exactly. And it equals flushing before rounding, because
//!   a sum of two values of a binary format is a multiple of the smallest
//!   subnormal; one below the smallest normal in magnitude is therefore exactly
//!   representable and no rounding touches it, while rounding a sum at or above the
//!   smallest normal never gives a subnormal (rounding is monotonic and the
//!   smallest normal is representable).
//! - NaN: the host's sum is NaN exactly when IEEE's is (a NaN operand, or ∞ − ∞),
//!   but its bits are x86's. Where the sum is NaN, the bits are replaced by the
//!   plan's [`NanRule`]: sm_90's f32 gives the canonical NaN, its f64 an input NaN
//!   chosen by the state space, or a default NaN for ∞ − ∞.
//!
//! The loops ([`row`]) are plain Rust over slices that LLVM vectorizes: a select for
//! each layer, the digest term's 64-bit arithmetic lane by lane. `simd` compiles the
//! same loop for AVX-512 and AVX2 and picks one at run time.

use std::ops::{BitAnd, BitOr};

use ptxvec_oracle::float::{Expect, Format};
use ptxvec_oracle::memory::{Element, Reduction};
use ptxvec_oracle::profile::Profile;

use super::digest::GAMMA;
use super::simd;
use crate::sweep::level::Level;
use super::WideError;
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

const DEFAULT: u8 = NanRule::Default as u8;
const OPERAND_FIRST: u8 = NanRule::OperandFirst as u8;
const MEMORY_FIRST_QUIETED: u8 = NanRule::MemoryFirstQuieted as u8;

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

/// What the fast oracle computes for one reduction: found by asking the scalar
/// oracle ([`Plan::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// f32 or f64.
    pub format: Format,
    /// Whether inputs and results are flushed.
    pub flush: bool,
    /// Which NaN a NaN sum carries.
    pub nan: NanRule,
    /// The NaN of ∞ − ∞.
    pub default_nan: u64,
}

impl Plan {
    /// The one plan that reproduces the sm_90 oracle of `r` on every pair of
    /// [`boundary_values`]; an error where none does, or more than one (the
    /// boundary values would then fail to tell them apart).
    pub fn of(name: &str, r: &Reduction) -> Result<Plan, WideError> {
        let none = |why: String| WideError::NoPlan {
            sweep: name.to_owned(),
            why,
        };
        let format = match r.element {
            Element::Float(f) if f == Format::F32 || f == Format::F64 => f,
            e => return Err(none(format!("{e:?} is not f32 or f64"))),
        };
        let oracle = |m: u64, o: u64| match r.element(Profile::Sm90, m, o) {
            Expect::Bits(b) => Ok(b),
            expect => Err(WideError::Inexact {
                sweep: name.to_owned(),
                mem: m,
                operand: o,
                expect,
            }),
        };
        let default_nan = oracle(format.inf(false), format.inf(true))?;
        if !format.is_nan(default_nan) {
            return Err(none(format!("∞ − ∞ gives {default_nan:#x}, not a NaN")));
        }
        let values = boundary_values(format);
        let mut want = Vec::with_capacity(values.len() * values.len());
        for &m in &values {
            for &o in &values {
                want.push(oracle(m, o)?);
            }
        }
        let mut found = Vec::new();
        for flush in [false, true] {
            for &nan in NanRule::ALL {
                let plan = Plan {
                    format,
                    flush,
                    nan,
                    default_nan,
                };
                let all = values
                    .iter()
                    .flat_map(|&m| values.iter().map(move |&o| (m, o)))
                    .zip(&want)
                    .all(|((m, o), &w)| plan.result(m, o) == w);
                if all {
                    found.push(plan);
                }
            }
        }
        match found[..] {
            [plan] => Ok(plan),
            [] => Err(none(
                "no plan reproduces the oracle on the boundary values".into(),
            )),
            _ => Err(none(format!(
                "{} plans reproduce the oracle on the boundary values",
                found.len()
            ))),
        }
    }

    /// `m + o` under the plan (the same code as [`row`], one pair).
    pub fn result(&self, m: u64, o: u64) -> u64 {
        if self.format == Format::F32 {
            self.typed::<u32>(m, o)
        } else {
            self.typed::<u64>(m, o)
        }
    }

    fn typed<L: Lane>(&self, m: u64, o: u64) -> u64 {
        let (m, o, d) = (
            L::from_bits(m),
            L::from_bits(o),
            L::from_bits(self.default_nan),
        );
        let r = match (self.flush, self.nan) {
            (false, NanRule::Default) => lane::<L, false, DEFAULT>(m, o, d),
            (false, NanRule::OperandFirst) => lane::<L, false, OPERAND_FIRST>(m, o, d),
            (false, NanRule::MemoryFirstQuieted) => lane::<L, false, MEMORY_FIRST_QUIETED>(m, o, d),
            (true, NanRule::Default) => lane::<L, true, DEFAULT>(m, o, d),
            (true, NanRule::OperandFirst) => lane::<L, true, OPERAND_FIRST>(m, o, d),
            (true, NanRule::MemoryFirstQuieted) => lane::<L, true, MEMORY_FIRST_QUIETED>(m, o, d),
        };
        r.bits()
    }
}

/// A plan with its operands in the lane type, ready to digest rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rows<L> {
    plan: Plan,
    ops: Vec<L>,
}

impl<L: Lane> Rows<L> {
    /// The plan over these operand bits.
    pub fn new(plan: Plan, ops: &[u64]) -> Rows<L> {
        Rows {
            plan,
            ops: ops.iter().map(|&o| L::from_bits(o)).collect(),
        }
    }

    /// The number of operands.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The digest of memory `m` with every operand, keys from `key0`, at `level`.
    pub fn digest(&self, level: Level, m: u64, key0: u64) -> u64 {
        let (m, d, ops) = (
            L::from_bits(m),
            L::from_bits(self.plan.default_nan),
            &self.ops[..],
        );
        match (self.plan.flush, self.plan.nan) {
            (false, NanRule::Default) => simd::row::<L, false, DEFAULT>(level, m, ops, d, key0),
            (false, NanRule::OperandFirst) => {
                simd::row::<L, false, OPERAND_FIRST>(level, m, ops, d, key0)
            }
            (false, NanRule::MemoryFirstQuieted) => {
                simd::row::<L, false, MEMORY_FIRST_QUIETED>(level, m, ops, d, key0)
            }
            (true, NanRule::Default) => simd::row::<L, true, DEFAULT>(level, m, ops, d, key0),
            (true, NanRule::OperandFirst) => {
                simd::row::<L, true, OPERAND_FIRST>(level, m, ops, d, key0)
            }
            (true, NanRule::MemoryFirstQuieted) => {
                simd::row::<L, true, MEMORY_FIRST_QUIETED>(level, m, ops, d, key0)
            }
        }
    }
}

/// Values of every class at its edges, both signs: zeros; the smallest, a middle
/// and the largest subnormals; the smallest normals; 1 and its neighbours; the
/// half- and quarter-ulp of 1 and their neighbours; the largest finites; ∞;
/// signalling NaNs with the smallest and the largest payload; the quiet NaN with
/// no payload and the all-ones one.
pub fn boundary_values(fmt: Format) -> Vec<u64> {
    let f = fmt.frac_bits;
    let min_normal = 1u64 << f;
    let one = (fmt.bias() as u64) << f;
    let binade = |k: u64| k << f;
    let half_ulp = one - binade(u64::from(f) + 1);
    let quarter_ulp = one - binade(u64::from(f) + 2);
    let inf = fmt.inf(false);
    let mut v = vec![
        0,
        1,
        2,
        fmt.frac_mask() / 2,
        fmt.frac_mask() - 1,
        fmt.frac_mask(),
        min_normal,
        min_normal + 1,
        2 * min_normal - 1,
        one - 1,
        one,
        one + 1,
        one + fmt.frac_mask(),
        half_ulp - 1,
        half_ulp,
        half_ulp + 1,
        quarter_ulp,
        fmt.max_finite(false) - min_normal,
        fmt.max_finite(false) - 1,
        fmt.max_finite(false),
        inf,
        inf | 1,
        inf | (fmt.quiet_bit() - 1),
        inf | fmt.quiet_bit(),
        inf | fmt.quiet_bit() | 1,
        fmt.canonical_nan(),
    ];
    let negs: Vec<u64> = v.iter().map(|&x| fmt.neg(x)).collect();
    v.extend(negs);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::float::Class;

    #[test]
    fn boundary_values_cover_every_class_with_both_signs() {
        for fmt in [Format::F32, Format::F64] {
            let v = boundary_values(fmt);
            for &class in Class::ALL {
                for sign in [false, true] {
                    assert!(
                        v.iter()
                            .any(|&x| fmt.classify(x) == class && fmt.sign(x) == sign),
                        "{}: no {sign} {class:?}",
                        fmt.name
                    );
                }
            }
        }
    }

    /// (format, flush, rule, default NaN, memory, operand, result, why): each
    /// worked by hand from IEEE 754-2019 and the rule.
    type Case = (Format, bool, NanRule, u64, u64, u64, u64, &'static str);

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        (Format::F32, false, NanRule::Default, 0x7fff_ffff, 0x3f80_0000, 0x3f80_0000, 0x4000_0000, "1 + 1 = 2"),
        (Format::F32, false, NanRule::Default, 0x7fff_ffff, 0x0000_0001, 0x0000_0001, 0x0000_0002, "subnormals kept"),
        (Format::F32, true, NanRule::Default, 0x7fff_ffff, 0x0000_0001, 0x0000_0001, 0x0000_0000, "inputs flushed"),
        (Format::F32, true, NanRule::Default, 0x7fff_ffff, 0x8000_0001, 0x8000_0000, 0x8000_0000, "-tiny -> -0; -0 + -0 = -0"),
        (Format::F32, true, NanRule::Default, 0x7fff_ffff, 0x0080_0001, 0x8080_0000, 0x0000_0000, "a subnormal sum is flushed"),
        (Format::F32, true, NanRule::Default, 0x7fff_ffff, 0x8080_0001, 0x0080_0000, 0x8000_0000, "to the zero of its sign"),
        (Format::F32, false, NanRule::Default, 0x7fff_ffff, 0x7fc0_0001, 0x3f80_0000, 0x7fff_ffff, "a NaN operand gives the default"),
        (Format::F32, false, NanRule::Default, 0x7fff_ffff, 0x7f80_0000, 0xff80_0000, 0x7fff_ffff, "inf - inf"),
        (Format::F64, false, NanRule::OperandFirst, 0xfff8_0000_0000_0000, 0x7ff8_0000_0000_0002, 0x7ff0_0000_0000_0001, 0x7ff0_0000_0000_0001, "the operand's NaN, still signalling"),
        (Format::F64, false, NanRule::OperandFirst, 0xfff8_0000_0000_0000, 0xfff0_0000_0000_0001, 0x0, 0xfff0_0000_0000_0001, "the memory's NaN as it is"),
        (Format::F64, false, NanRule::OperandFirst, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, 0xfff8_0000_0000_0000, "inf - inf: the default"),
        (Format::F64, false, NanRule::MemoryFirstQuieted, 0xfff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0x7ff8_0000_0000_0002, 0x7ff8_0000_0000_0001, "the memory's NaN, quieted"),
        (Format::F64, false, NanRule::MemoryFirstQuieted, 0xfff8_0000_0000_0000, 0x4000_0000_0000_0000, 0xfff0_0000_0000_0003, 0xfff8_0000_0000_0003, "the operand's, quieted"),
        (Format::F64, false, NanRule::MemoryFirstQuieted, 0xfff8_0000_0000_0000, 0x3ff0_0000_0000_0000, 0x3ca0_0000_0000_0000, 0x3ff0_0000_0000_0000, "1 + 2^-53 ties to 1"),
    ];

    #[test]
    fn plan_results_hand_worked() {
        for &(format, flush, nan, default_nan, m, o, want, why) in CASES {
            let plan = Plan {
                format,
                flush,
                nan,
                default_nan,
            };
            let got = plan.result(m, o);
            assert_eq!(got, want, "{plan:?}: {m:#x} + {o:#x} = {got:#x} ({why})");
        }
    }
}
