//! The integer and bit-size reduction operations shared by `red`,
//! `cp.reduce.async.bulk` and the integer forms of `redux.sync`.
//!
//! PTX ISA 9.7.13.6 (red), Semantics: `*a = operation(*a, b)` with
//! `inc(r, s) = (r >= s) ? 0 : r+1` and `dec(r, s) = (r==0 || r > s) ? s : r-1`.
//! cp.reduce.async.bulk applies the same operation element-wise, `r` being the
//! destination element and `s` the source element.

/// A reduction operation on integers or bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IntOp {
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Sum, truncated to the type's width.
    Add,
    /// `(r >= s) ? 0 : r+1`.
    Inc,
    /// `(r == 0 || r > s) ? s : r-1`.
    Dec,
    /// The smaller, by the type's ordering.
    Min,
    /// The larger, by the type's ordering.
    Max,
}

impl IntOp {
    /// Every operation.
    pub const ALL: &'static [IntOp] = &[
        IntOp::And,
        IntOp::Or,
        IntOp::Xor,
        IntOp::Add,
        IntOp::Inc,
        IntOp::Dec,
        IntOp::Min,
        IntOp::Max,
    ];
}

/// An integer or bit-size type: a width and whether values order as signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IntType {
    /// 32 or 64.
    pub bits: u32,
    /// `.sNN` orders as two's complement; `.uNN` and `.bNN` as unsigned.
    pub signed: bool,
}

impl IntType {
    /// `.u32` / `.b32`.
    pub const U32: IntType = IntType {
        bits: 32,
        signed: false,
    };
    /// `.s32`.
    pub const S32: IntType = IntType {
        bits: 32,
        signed: true,
    };
    /// `.u64` / `.b64`.
    pub const U64: IntType = IntType {
        bits: 64,
        signed: false,
    };
    /// `.s64`.
    pub const S64: IntType = IntType {
        bits: 64,
        signed: true,
    };

    fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// The value's order key: sign-extended for signed types, so that comparing
    /// keys as i128 compares the values.
    fn key(self, v: u64) -> i128 {
        let v = v & self.mask();
        if self.signed && v >> (self.bits - 1) & 1 == 1 {
            i128::from(v) - (1i128 << self.bits)
        } else {
            i128::from(v)
        }
    }
}

/// `op(r, s)` on the low `ty.bits` bits of `r` and `s`; the result has the same width.
/// Bits above the width are ignored on input and zero on output.
pub fn reduce(op: IntOp, ty: IntType, r: u64, s: u64) -> u64 {
    let m = ty.mask();
    let (r, s) = (r & m, s & m);
    let (kr, ks) = (ty.key(r), ty.key(s));
    let out = match op {
        IntOp::And => r & s,
        IntOp::Or => r | s,
        IntOp::Xor => r ^ s,
        IntOp::Add => r.wrapping_add(s),
        IntOp::Inc => {
            if kr >= ks {
                0
            } else {
                r.wrapping_add(1)
            }
        }
        IntOp::Dec => {
            if r == 0 || kr > ks {
                s
            } else {
                r.wrapping_sub(1)
            }
        }
        IntOp::Min => {
            if kr <= ks {
                r
            } else {
                s
            }
        }
        IntOp::Max => {
            if kr >= ks {
                r
            } else {
                s
            }
        }
    };
    out & m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (op, type, r, s, expected): edges of the doc's formulas, worked by hand.
    const CASES: &[(IntOp, IntType, u64, u64, u64)] = &[
        // inc(r, s) = (r >= s) ? 0 : r+1
        (IntOp::Inc, IntType::U32, 5, 5, 0), // r = s wraps to 0
        (IntOp::Inc, IntType::U32, 9, 5, 0), // r > s
        (IntOp::Inc, IntType::U32, 4, 5, 5), // r < s: r+1, reaching s
        (IntOp::Inc, IntType::U32, 0, 0, 0), // s = 0: always 0
        (
            IntOp::Inc,
            IntType::U32,
            0xffff_fffe,
            0xffff_ffff,
            0xffff_ffff,
        ),
        // dec(r, s) = (r==0 || r > s) ? s : r-1
        (IntOp::Dec, IntType::U32, 0, 7, 7), // r = 0 wraps to s
        (IntOp::Dec, IntType::U32, 9, 7, 7), // r > s
        (IntOp::Dec, IntType::U32, 7, 7, 6), // r = s: r-1
        (IntOp::Dec, IntType::U32, 1, 7, 0),
        (IntOp::Dec, IntType::U32, 0, 0, 0),
        // .add truncates to the width (redux.sync: "result is truncated to 32 bits").
        (IntOp::Add, IntType::U32, 0xffff_ffff, 1, 0),
        (IntOp::Add, IntType::S32, 0x7fff_ffff, 1, 0x8000_0000),
        (IntOp::Add, IntType::U64, u64::MAX, 2, 1),
        // min/max order by the type: -1 is the smaller .s32, the larger .u32.
        (IntOp::Min, IntType::S32, 0xffff_ffff, 1, 0xffff_ffff),
        (IntOp::Min, IntType::U32, 0xffff_ffff, 1, 1),
        (
            IntOp::Max,
            IntType::S32,
            0x8000_0000,
            0x7fff_ffff,
            0x7fff_ffff,
        ),
        (IntOp::Max, IntType::S64, 1 << 63, 0, 0),
        (IntOp::Max, IntType::U64, 1 << 63, 0, 1 << 63),
        (IntOp::And, IntType::U32, 0b1100, 0b1010, 0b1000),
        (IntOp::Or, IntType::U32, 0b1100, 0b1010, 0b1110),
        (IntOp::Xor, IntType::U32, 0b1100, 0b1010, 0b0110),
        // Bits above the width are ignored.
        (IntOp::Add, IntType::U32, 0x1_0000_0001, 1, 2),
    ];

    #[test]
    fn hand_worked_cases_from_the_doc_formulas() {
        for &(op, ty, r, s, want) in CASES {
            let got = reduce(op, ty, r, s);
            assert_eq!(
                got, want,
                "{op:?} {ty:?} r={r:#x} s={s:#x}: got {got:#x}, want {want:#x}"
            );
        }
    }

    #[test]
    fn inc_and_dec_stay_in_zero_to_s() {
        // PTX ISA 9.7.13.6: "The .inc and .dec operations return a result in the range [0..b]."
        for r in 0..64u64 {
            for s in 0..64u64 {
                for op in [IntOp::Inc, IntOp::Dec] {
                    let v = reduce(op, IntType::U32, r, s);
                    assert!(v <= s, "{op:?}({r}, {s}) = {v}");
                }
            }
        }
    }

    #[test]
    fn commutative_operations_commute_and_associate() {
        let samples = [
            0u64,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
            0x1234_5678,
            1 << 63,
            u64::MAX,
        ];
        for op in [
            IntOp::And,
            IntOp::Or,
            IntOp::Xor,
            IntOp::Add,
            IntOp::Min,
            IntOp::Max,
        ] {
            for ty in [IntType::U32, IntType::S32, IntType::U64, IntType::S64] {
                for &a in &samples {
                    for &b in &samples {
                        assert_eq!(
                            reduce(op, ty, a, b),
                            reduce(op, ty, b, a),
                            "{op:?} {ty:?} {a:#x} {b:#x}"
                        );
                        for &c in &samples {
                            let left = reduce(op, ty, reduce(op, ty, a, b), c);
                            let right = reduce(op, ty, a, reduce(op, ty, b, c));
                            assert_eq!(left, right, "{op:?} {ty:?} {a:#x} {b:#x} {c:#x}");
                        }
                    }
                }
            }
        }
        assert_eq!(IntOp::ALL.len(), 8);
    }
}
