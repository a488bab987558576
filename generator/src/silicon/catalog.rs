//! The float special-value catalog: one generic table of named bit patterns,
//! derived from each format's row (width and mantissa bits), so that f16, bf16,
//! f32 and f64 get the same classes without one list per type.

/// An IEEE-style binary format, as one table row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// The PTX type spelling without the dot: "f16".
    pub name: &'static str,
    /// Total width in bits.
    pub bits: u32,
    /// Stored mantissa (fraction) bits.
    pub mant: u32,
}

/// IEEE binary16.
pub const F16: Format = Format {
    name: "f16",
    bits: 16,
    mant: 10,
};
/// bfloat16.
pub const BF16: Format = Format {
    name: "bf16",
    bits: 16,
    mant: 7,
};
/// IEEE binary32.
pub const F32: Format = Format {
    name: "f32",
    bits: 32,
    mant: 23,
};
/// IEEE binary64.
pub const F64: Format = Format {
    name: "f64",
    bits: 64,
    mant: 52,
};

/// Every format the catalog covers.
pub const ALL: [Format; 4] = [F16, BF16, F32, F64];

impl Format {
    fn exp_bits(self) -> u32 {
        self.bits - 1 - self.mant
    }
    fn sign(self) -> u64 {
        1 << (self.bits - 1)
    }
    fn exp_mask(self) -> u64 {
        ((1u64 << self.exp_bits()) - 1) << self.mant
    }
    fn mant_mask(self) -> u64 {
        (1u64 << self.mant) - 1
    }
    fn bias(self) -> u64 {
        (1u64 << (self.exp_bits() - 1)) - 1
    }

    /// The named special values, in a fixed order. Negatives follow their positive.
    ///
    /// The canonical NaN is PTX's (all exponent and mantissa bits set, sign clear:
    /// 0x7fff, 0x7fffffff, 0x7fffffffffffffff); the "default" quiet NaN is the x86/IEEE
    /// one (only the quiet bit set), which is a different bit pattern.
    pub fn specials(self) -> Vec<(String, u64)> {
        let (m, e, q) = (self.mant_mask(), self.exp_mask(), 1u64 << (self.mant - 1));
        let one = self.bias() << self.mant;
        let signed: [(&str, u64); 9] = [
            ("zero", 0),
            ("min_subnormal", 1),
            ("max_subnormal", m),
            ("min_normal", 1 << self.mant),
            ("max_normal", (e - (1 << self.mant)) | m),
            ("one", one),
            ("inf", e),
            ("qnan_payload", e | q | 1),
            ("snan_payload", e | 1),
        ];
        let mut out = Vec::new();
        for (name, v) in signed {
            out.push((format!("+{name}"), v));
            out.push((format!("-{name}"), v | self.sign()));
        }
        // Ties: 1 + 2^-(mant+1) is half an ulp above one; (1 + ulp) + half ulp ties to even.
        let half_ulp = (self.bias() - u64::from(self.mant) - 1) << self.mant;
        out.push(("+half_ulp_of_one".into(), half_ulp));
        out.push(("-half_ulp_of_one".into(), half_ulp | self.sign()));
        out.push(("+one_plus_ulp".into(), one | 1));
        out.push(("+one_and_half".into(), one | q));
        out.push(("+canonical_nan".into(), e | m));
        out.push(("+default_qnan".into(), e | q));
        out.push(("-default_qnan".into(), e | q | self.sign()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_are_distinct_and_fit() {
        for f in ALL {
            let s = f.specials();
            let mut bits: Vec<u64> = s.iter().map(|(_, v)| *v).collect();
            bits.sort_unstable();
            bits.dedup();
            assert_eq!(bits.len(), s.len(), "{}: duplicate special", f.name);
            let limit = if f.bits == 64 {
                u64::MAX
            } else {
                (1u64 << f.bits) - 1
            };
            assert!(s.iter().all(|(_, v)| *v <= limit), "{}", f.name);
        }
    }

    #[test]
    fn known_rows() {
        let table: [(Format, &str, u64); 8] = [
            (F16, "+max_normal", 0x7bff),
            (F16, "+canonical_nan", 0x7fff),
            (BF16, "+one", 0x3f80),
            (BF16, "-inf", 0xff80),
            (F32, "+half_ulp_of_one", 0x3380_0000),
            (F32, "+default_qnan", 0x7fc0_0000),
            (F64, "+one", 0x3ff0_0000_0000_0000),
            (F64, "+snan_payload", 0x7ff0_0000_0000_0001),
        ];
        for (f, name, want) in table {
            let got = f
                .specials()
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v);
            assert_eq!(got, Some(want), "case: ({}, {name}, {want:#x})", f.name);
        }
    }
}
