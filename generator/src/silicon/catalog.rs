//! The probes' float special-value catalog: one generic list of named bit patterns,
//! derived from each row of the oracle's format table, so that f16, bf16, f32 and
//! f64 get the same classes without one list per type. The recorded evidence
//! depends on its order: extend it only at the end.

pub use ptxvec_oracle::float::Format;

/// IEEE binary16.
pub const F16: Format = Format::F16;
/// bfloat16.
pub const BF16: Format = Format::BF16;
/// IEEE binary32.
pub const F32: Format = Format::F32;
/// IEEE binary64.
pub const F64: Format = Format::F64;

/// Every format, narrowest first.
pub const ALL: [Format; 4] = [F16, BF16, F32, F64];

/// The catalog of a format: both signs of zero, subnormal and normal extremes, one,
/// infinity and NaNs with payloads, then the tie and NaN specials.
pub fn specials(f: Format) -> Vec<(String, u64)> {
    let q = f.quiet_bit();
    let e = f.exp_max() << f.frac_bits;
    let one = (f.bias() as u64) << f.frac_bits;
    let mut out = crate::semvec::inputs::signed_specials(f);
    // Half an ulp of one: 1 + it is a tie that rounds to even.
    let half_ulp = ((f.bias() - f.frac_bits as i32 - 1) as u64) << f.frac_bits;
    out.push(("+half_ulp_of_one".into(), half_ulp));
    out.push(("-half_ulp_of_one".into(), half_ulp | f.sign_bit()));
    out.push(("+one_plus_ulp".into(), one | 1));
    out.push(("+one_and_half".into(), one | q));
    out.push(("+canonical_nan".into(), f.canonical_nan()));
    out.push(("+default_qnan".into(), e | q));
    out.push(("-default_qnan".into(), e | q | f.sign_bit()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_are_distinct_and_fit() {
        for f in ALL {
            let s = specials(f);
            let mut bits: Vec<u64> = s.iter().map(|(_, v)| *v).collect();
            bits.sort_unstable();
            bits.dedup();
            assert_eq!(bits.len(), s.len(), "{}: duplicate special", f.name);
            assert!(s.iter().all(|(_, v)| *v <= f.mask()), "{}", f.name);
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
            let got = specials(f)
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v);
            assert_eq!(got, Some(want), "case: ({}, {name}, {want:#x})", f.name);
        }
    }
}
