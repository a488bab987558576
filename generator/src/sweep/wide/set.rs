//! The structured operand set of a wide sweep: for f32 2^18 values, for f64 2^16,
//! each a sign, one of 256 biased exponents and one of a few hundred significand
//! patterns. A pair of a sweep is any two values of its set, so every exponent pair
//! of the set meets every pair of patterns.
//!
//! Why this set. Whether `a + b` rounds, carries or cancels correctly depends on
//! the exponent difference (which bits of the smaller operand fall on the larger
//! one's guard, round and sticky positions), on the low bits of the larger
//! significand (the parity that decides a tie, the trailing ones a carry runs
//! through), on its top bits (a carry into the next binade, overflow) and on the
//! classes (zeros, subnormals, infinities, NaNs). TestFloat's level-2 cases (John
//! Hauser's TestFloat 3) are built on the same observation: exponents near the
//! boundaries and significands made of one or two runs of ones. Here:
//!
//! - exponents: f32 all 256 biased exponents, so every exponent difference and every
//!   boundary (0 for zeros and subnormals, 1 for the smallest normals, 254 for the
//!   largest, 255 for infinities and NaNs) meets every other. f64 three windows of
//!   every exponent, 64 + 128 + 64: 0–63 (zeros, subnormals and the normals above
//!   them), 959–1086 (the 128 binades around 1.0, bias 1023) and 1984–2047 (the
//!   largest normals, infinities and NaNs). Each window is wider than 55 = the
//!   precision 53 + 2, so every exponent difference up to the significand width and
//!   its guard and round bits occurs within each window, near the subnormals, in
//!   the middle and next to overflow; pairs across windows put the smaller operand
//!   entirely into the sticky bit.
//! - significand patterns ([`Recipe`]): zero; all ones; a single one at each chosen
//!   position; runs of ones from the top and from the bottom ending at each
//!   position; all ones but one position; the two alternating patterns; two single
//!   ones (f32: every pair of positions; f64: every position with the top or the
//!   bottom bit); f32 also a top run plus the lowest bit and a bottom run plus the
//!   top bit. Duplicates are dropped, first occurrence kept; ChaCha8 draws from a
//!   recorded seed fill the table to 512 (f32) or 128 (f64) patterns. f32 chooses
//!   every position of its 23; f64 20 of its 52: the low 8 (ties and sticky bits
//!   against the larger operand's last bit), 4 in the middle, the top 8 (carries
//!   into the next binade).
//!
//! Value `i` of the set: `sign = i >> (8 + P)`, `e = (i >> P) & 255`, `k = i & (2^P −
//! 1)` with `P` = 9 (f32) or 7 (f64), and the bits are
//! `sign << (width − 1) | EXPONENTS[e] << frac_bits | PATTERNS[k]`. The GPU kernel
//! computes the same from the same two tables, which its module carries as `.global`
//! arrays (`sweep::gpu::wide`); the device also writes every value once and the runner
//! compares them with [`Set::values`].

use std::sync::OnceLock;

use ptxvec_oracle::float::Format;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};

/// Biased exponents in a set.
pub const EXPONENTS: usize = 256;

/// Which pairs of single ones a recipe takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairs {
    /// Every two chosen positions.
    All,
    /// Every chosen position with the top or the bottom position.
    WithAnEnd,
}

/// How a format's significand patterns are made: one row per format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recipe {
    /// The format.
    pub format: Format,
    /// log2 of the number of patterns.
    pub pattern_bits: u32,
    /// The positions single ones, run ends and holes are put at (bit 0 is the last
    /// significand bit), ascending.
    pub positions: &'static [u32],
    /// Which pairs of single ones.
    pub pairs: Pairs,
    /// Whether a top run plus the lowest bit and a bottom run plus the top bit are
    /// added.
    pub runs_with_end: bool,
    /// The seed of the ChaCha8 draws that fill the table.
    pub seed: u64,
}

/// Every position of f32's 23 significand bits.
const F32_POSITIONS: [u32; 23] = {
    let mut p = [0u32; 23];
    let mut i = 0;
    while i < 23 {
        p[i] = i as u32;
        i += 1;
    }
    p
};

/// f64's chosen positions: the low 8, 4 in the middle, the top 8.
const F64_POSITIONS: [u32; 20] = [
    0, 1, 2, 3, 4, 5, 6, 7, 24, 25, 26, 27, 44, 45, 46, 47, 48, 49, 50, 51,
];

impl Recipe {
    /// f32: 512 patterns.
    pub const F32: Recipe = Recipe {
        format: Format::F32,
        pattern_bits: 9,
        positions: &F32_POSITIONS,
        pairs: Pairs::All,
        runs_with_end: true,
        seed: 0x5eed_f032_2026,
    };
    /// f64: 128 patterns.
    pub const F64: Recipe = Recipe {
        format: Format::F64,
        pattern_bits: 7,
        positions: &F64_POSITIONS,
        pairs: Pairs::WithAnEnd,
        runs_with_end: false,
        seed: 0x5eed_f064_2026,
    };

    /// The structured patterns, in order, duplicates dropped (before the draws).
    pub fn structured(&self) -> Vec<u64> {
        let f = self.format.frac_bits;
        let all = self.format.frac_mask();
        let top = f - 1;
        let bit = |k: u32| 1u64 << k;
        // Ones from position k up to the top, and from the bottom up to position k.
        let top_run = |k: u32| all & !(bit(k) - 1);
        let bottom_run = |k: u32| (bit(k) << 1) - 1;
        let pos = self.positions;
        let mut v = vec![0, all];
        v.extend(pos.iter().map(|&k| bit(k)));
        v.extend(pos.iter().map(|&k| top_run(k)));
        v.extend(pos.iter().map(|&k| bottom_run(k)));
        v.extend(pos.iter().map(|&k| all & !bit(k)));
        // 0b0101…, 0b1010…
        let alternating = all / 3;
        v.extend([alternating, all & !alternating]);
        for (n, &i) in pos.iter().enumerate() {
            for &j in &pos[..n] {
                let with_end = i == top || j == 0;
                if self.pairs == Pairs::All || with_end {
                    v.push(bit(i) | bit(j));
                }
            }
        }
        if self.runs_with_end {
            v.extend(pos.iter().map(|&k| top_run(k) | 1));
            v.extend(pos.iter().map(|&k| bottom_run(k) | bit(top)));
        }
        let mut seen = std::collections::BTreeSet::new();
        v.retain(|&x| seen.insert(x));
        v
    }

    /// The whole pattern table: the structured patterns, then seeded draws (new ones
    /// only) up to `2^pattern_bits`.
    pub fn patterns(&self) -> Vec<u64> {
        let n = 1usize << self.pattern_bits;
        let mut v = self.structured();
        v.truncate(n);
        let mut seen: std::collections::BTreeSet<u64> = v.iter().copied().collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        while v.len() < n {
            let x = rng.next_u64() & self.format.frac_mask();
            if seen.insert(x) {
                v.push(x);
            }
        }
        v
    }

    /// The 256 biased exponents.
    pub fn exponents(&self) -> Vec<u64> {
        if self.format.exp_bits == 8 {
            return (0..EXPONENTS as u64).collect();
        }
        // Three windows of 64, 128 and 64 exponents: the bottom, around the bias,
        // the top (module docs).
        let bias = self.format.bias() as u64;
        let max = self.format.exp_max();
        (0..64)
            .chain(bias - 64..bias + 64)
            .chain(max - 63..=max)
            .collect()
    }
}

/// A format's operand set, its tables built once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Set {
    /// How it is made.
    pub recipe: Recipe,
    /// The 256 biased exponents, by exponent index.
    pub exponents: Vec<u64>,
    /// The significand patterns, by pattern index.
    pub patterns: Vec<u64>,
}

impl Set {
    fn build(recipe: Recipe) -> Set {
        Set {
            recipe,
            exponents: recipe.exponents(),
            patterns: recipe.patterns(),
        }
    }

    /// The f32 set (2^18 values).
    pub fn f32() -> &'static Set {
        static SET: OnceLock<Set> = OnceLock::new();
        SET.get_or_init(|| Set::build(Recipe::F32))
    }

    /// The f64 set (2^16 values).
    pub fn f64() -> &'static Set {
        static SET: OnceLock<Set> = OnceLock::new();
        SET.get_or_init(|| Set::build(Recipe::F64))
    }

    /// The set of `format`, if it has one (f32, f64).
    pub fn of(format: Format) -> Option<&'static Set> {
        match format {
            Format::F32 => Some(Set::f32()),
            Format::F64 => Some(Set::f64()),
            _ => None,
        }
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.recipe.format
    }

    /// log2 of the number of values: sign, 8 exponent bits, the pattern bits.
    pub fn index_bits(&self) -> u32 {
        1 + 8 + self.recipe.pattern_bits
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        1 << self.index_bits()
    }

    /// Never: a set has 2^16 values or more.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Pairs of the sweep: every value with every value.
    pub fn pairs(&self) -> u64 {
        1u64 << (2 * self.index_bits())
    }

    /// Value `i` (its low [`Set::index_bits`] bits), as raw bits.
    pub fn value(&self, i: u64) -> u64 {
        let p = self.recipe.pattern_bits;
        let fmt = self.format();
        let sign = (i >> (8 + p)) & 1;
        let e = (i >> p) as usize & (EXPONENTS - 1);
        let k = i as usize & ((1 << p) - 1);
        sign << (fmt.width() - 1) | self.exponents[e] << fmt.frac_bits | self.patterns[k]
    }

    /// Every value, by index.
    pub fn values(&self) -> Vec<u64> {
        (0..self.len() as u64).map(|i| self.value(i)).collect()
    }

    /// SHA-256 of every value, by index, little-endian at the format's width: what
    /// the evidence names the set by.
    pub fn sha256(&self) -> String {
        let bytes = (self.format().width() / 8) as usize;
        let mut h = Sha256::new();
        for v in self.values() {
            h.update(&v.to_le_bytes()[..bytes]);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::float::Class;

    #[test]
    fn tables_have_their_sizes_and_no_duplicates() {
        for set in [Set::f32(), Set::f64()] {
            let r = set.recipe;
            let name = set.format().name;
            assert_eq!(set.exponents.len(), EXPONENTS, "{name}");
            assert_eq!(set.patterns.len(), 1 << r.pattern_bits, "{name}");
            let distinct: std::collections::BTreeSet<_> = set.patterns.iter().collect();
            assert_eq!(
                distinct.len(),
                set.patterns.len(),
                "{name}: a pattern twice"
            );
            let exps: std::collections::BTreeSet<_> = set.exponents.iter().collect();
            assert_eq!(exps.len(), EXPONENTS, "{name}: an exponent twice");
            assert!(set.patterns.iter().all(|&p| p <= set.format().frac_mask()));
            assert!(set.exponents.iter().all(|&e| e <= set.format().exp_max()));
            // The structured part fits, and leaves room for some draws.
            let s = r.structured().len();
            assert!(
                s + 8 <= set.patterns.len(),
                "{name}: {s} structured patterns"
            );
            assert_eq!(set.patterns[..s], r.structured()[..], "{name}");
            // Distinct values: the index is a bijection onto the set.
            let values: std::collections::BTreeSet<_> = set.values().into_iter().collect();
            assert_eq!(values.len(), set.len(), "{name}");
        }
        assert_eq!(Set::f32().len(), 1 << 18);
        assert_eq!(Set::f64().len(), 1 << 16);
        assert_eq!(Set::f32().pairs(), 1 << 36);
        assert_eq!(Set::f64().pairs(), 1 << 32);
    }

    #[test]
    fn the_structured_patterns_count_as_designed() {
        // f32: 0 and all ones; 23 single ones; 21 + 21 runs from the top and the
        // bottom (the longest is all ones, the shortest a single one); 21 holes (a
        // hole at either end is a run); 2 alternating; 253 − 2 pairs (bits 22 + 21
        // and 1 + 0 are runs); 19 + 19 runs with an end bit (the others are all
        // ones, a pair, or a hole at bit 1 or 21).
        assert_eq!(
            Recipe::F32.structured().len(),
            2 + 23 + 21 + 21 + 21 + 2 + 251 + 19 + 19
        );
        // f64, 20 positions: 2; 20 single ones; 18 + 18 runs; 18 holes; 2
        // alternating; pairs with the top or the bottom bit, 19 + 18 − 2 runs.
        assert_eq!(
            Recipe::F64.structured().len(),
            2 + 20 + 18 + 18 + 18 + 2 + 35
        );
    }

    #[test]
    fn patterns_hand_checked() {
        let p = &Set::f32().patterns;
        // The first ones, in recipe order: 0, all ones, single ones from bit 0.
        assert_eq!(p[..5], [0, 0x7f_ffff, 1, 2, 4]);
        for want in [
            0x40_0000u64, // top bit
            0x60_0000,    // a top run of two
            0x7f_fff0,    // a top run down to bit 4
            0x00_0fff,    // a bottom run of 12
            0x7f_fdff,    // all ones but bit 9
            0x55_5555,    // alternating
            0x2a_aaaa,
            0x40_0001, // the top and the bottom bit
            0x00_8010, // bits 15 and 4
            0x7f_f001, // a top run down to 12, and bit 0
            0x40_03ff, // a bottom run up to 9, and the top bit
        ] {
            assert!(p.contains(&want), "f32 pattern {want:#08x} missing");
        }
        let p = &Set::f64().patterns;
        for want in [
            0u64,
            0xf_ffff_ffff_ffff,
            0x8_0000_0000_0000,
            0x0_0000_0800_0000, // bit 27
            0xf_f000_0000_0000, // top run down to 44
            0x0_0000_0000_00ff, // bottom run up to 7
            0x5_5555_5555_5555,
            0x8_0000_0000_0001,
            0x8_0000_0100_0000, // top bit and bit 24
        ] {
            assert!(p.contains(&want), "f64 pattern {want:#x} missing");
        }
        // Not chosen: bit 30 alone.
        assert!(!p.contains(&(1 << 30)));
    }

    #[test]
    fn every_class_and_boundary_exponent_occurs_with_both_signs() {
        for set in [Set::f32(), Set::f64()] {
            let fmt = set.format();
            let mut seen = std::collections::BTreeSet::new();
            for v in set.values() {
                seen.insert((fmt.sign(v), fmt.classify(v)));
            }
            for &class in Class::ALL {
                for sign in [false, true] {
                    assert!(
                        seen.contains(&(sign, class)),
                        "{}: {sign} {class:?}",
                        fmt.name
                    );
                }
            }
            let e = &set.exponents;
            let (bias, max) = (fmt.bias() as u64, fmt.exp_max());
            for want in [0, 1, 2, bias - 1, bias, bias + 1, max - 2, max - 1, max] {
                assert!(e.contains(&want), "{}: exponent {want}", fmt.name);
            }
            // Every difference up to the precision + 2 occurs around 1.0, next to the
            // subnormals and next to overflow.
            let p = u64::from(fmt.frac_bits) + 1;
            for d in 0..=p + 2 {
                for base in [0, bias - 1 - d / 2, max - 1 - d] {
                    assert!(
                        e.contains(&base) && e.contains(&(base + d)),
                        "{}: difference {d} at {base}",
                        fmt.name
                    );
                }
            }
        }
    }

    #[test]
    fn value_layout() {
        let s = Set::f32();
        // Index: sign, exponent index, pattern index.
        assert_eq!(s.value(0), 0);
        assert_eq!(s.value(127 << 9), 0x3f80_0000);
        assert_eq!(s.value(1 << 17 | 127 << 9 | 1), 0xbfff_ffff);
        assert_eq!(s.value(255 << 9), 0x7f80_0000);
        let d = Set::f64();
        // Exponent index 128 is the middle window's 65th: 1023, 1.0's.
        assert_eq!(d.exponents[128], 1023);
        assert_eq!(d.value(128 << 7), 0x3ff0_0000_0000_0000);
        assert_eq!(d.value(1 << 15 | 255 << 7 | 1), 0xffff_ffff_ffff_ffff);
        assert_eq!(d.value(64 << 7), 959 << 52);
    }

    #[test]
    fn the_set_digest_moves_with_any_value() {
        // A recorded evidence file names its sets by this hash; it must see a change.
        let a = Set::f64().sha256();
        let mut other = Set::f64().clone();
        other.patterns[127] ^= 1;
        assert_ne!(a, other.sha256());
        assert_eq!(a.len(), 64);
    }
}
