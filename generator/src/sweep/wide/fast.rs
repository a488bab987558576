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
//! The loops (`kernel::row`) are plain Rust over slices that LLVM vectorizes: a
//! select for each layer, the digest term's 64-bit arithmetic lane by lane. `simd`
//! compiles the same loop for AVX-512 and AVX2 and picks one at run time.

use ptxvec_oracle::float::{Expect, Format};
use ptxvec_oracle::memory::{Element, Reduction};
use ptxvec_oracle::profile::Profile;

use super::kernel::{lane, Lane, NanRule, DEFAULT, MEMORY_FIRST_QUIETED, OPERAND_FIRST};
use super::simd;
use super::WideError;
use crate::sweep::level::Level;

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
