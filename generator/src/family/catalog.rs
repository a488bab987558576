//! Input catalogs: the value classes and lane patterns the instructions care about,
//! each value named by its class so that a test can check every class is covered.
//! Random inputs come from ChaCha8 with the seed written into every file.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use ptxvec_oracle::float::Format;
use ptxvec_oracle::int::IntType;
use ptxvec_oracle::warp::shfl::{segment_c, ShflMode};

/// A named input value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The class: `+min_subnormal`, `s32_min`, `random`.
    pub class: String,
    /// The bits.
    pub bits: u64,
}

fn named(class: impl Into<String>, bits: u64) -> Named {
    Named {
        class: class.into(),
        bits,
    }
}

/// The special values of a float format: both signs of zero, the subnormal and
/// normal extremes, one, infinity, quiet and signalling NaNs with payloads, the
/// canonical NaN, and values that straddle a rounding tie (one plus an ulp, half an
/// ulp of one) and overflow (the largest normal and half its ulp). Pairs whose sum
/// cancels exactly come from the cross product (x, -x).
pub fn float_specials(f: Format) -> Vec<Named> {
    let mut out: Vec<Named> = signed_specials(f)
        .into_iter()
        .map(|(c, b)| named(c, b))
        .collect();
    let one = (f.bias() as u64) << f.frac_bits;
    // Half an ulp of one: 1 + it is a tie that rounds to even (to 1).
    let half_ulp_of_one = ((f.bias() - f.frac_bits as i32 - 1) as u64) << f.frac_bits;
    out.push(named("+half_ulp_of_one", half_ulp_of_one));
    out.push(named("+one_plus_ulp", one | 1));
    // Half an ulp of the largest normal: max + it is the tie that overflows to inf.
    let half_ulp_of_max = (f.exp_max() - 1 - u64::from(f.frac_bits) - 1) << f.frac_bits;
    out.push(named("+half_ulp_of_max", half_ulp_of_max));
    out.push(named("+canonical_nan", f.canonical_nan()));
    out
}

/// Both signs of zero, of the subnormal and normal extremes, of one, of infinity,
/// and of a quiet and a signalling NaN with payload: the classes every float
/// catalog starts from (the silicon probes' too).
pub fn signed_specials(f: Format) -> Vec<(String, u64)> {
    let (m, q) = (f.frac_mask(), f.quiet_bit());
    let e = f.exp_max() << f.frac_bits;
    let one = (f.bias() as u64) << f.frac_bits;
    let signed: [(&str, u64); 9] = [
        ("zero", 0),
        ("min_subnormal", 1),
        ("max_subnormal", m),
        ("min_normal", 1 << f.frac_bits),
        ("max_normal", f.max_finite(false)),
        ("one", one),
        ("inf", e),
        ("qnan_payload", e | q | 1),
        ("snan_payload", e | 1),
    ];
    let mut out = Vec::new();
    for (name, v) in signed {
        out.push((format!("+{name}"), v));
        out.push((format!("-{name}"), v | f.sign_bit()));
    }
    out
}

/// Float values beyond [`float_specials`]: a negative tie (minus half an ulp of
/// one), a significand with its top bit set (one and a half), and the default
/// quiet NaN of either sign (no payload). Records pair them with every special.
pub fn more_float_specials(f: Format) -> Vec<Named> {
    let one = (f.bias() as u64) << f.frac_bits;
    let half_ulp_of_one = ((f.bias() - f.frac_bits as i32 - 1) as u64) << f.frac_bits;
    let default_qnan = (f.exp_max() << f.frac_bits) | f.quiet_bit();
    vec![
        named("-half_ulp_of_one", half_ulp_of_one | f.sign_bit()),
        named("+one_and_half", one | f.quiet_bit()),
        named("+default_qnan", default_qnan),
        named("-default_qnan", default_qnan | f.sign_bit()),
    ]
}

/// Seeded random bit patterns of a width.
pub fn random_bits(seed: u64, salt: &str, width: u32, count: usize) -> Vec<Named> {
    let mut rng = rng(seed, salt);
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    (0..count)
        .map(|_| named("random", rng.random::<u64>() & mask))
        .collect()
}

/// The integer catalog of a type: 0, 1, max, min and -1, plus the inc/dec
/// boundaries (r = s, r > s, r = 0 come from the cross product with 1 and 7).
pub fn int_specials(t: IntType) -> Vec<Named> {
    let mask = if t.bits == 64 {
        u64::MAX
    } else {
        (1u64 << t.bits) - 1
    };
    let name = |n: &str| format!("{}{}_{n}", if t.signed { "s" } else { "u" }, t.bits);
    let (max, min) = if t.signed {
        (mask >> 1, (mask >> 1) + 1)
    } else {
        (mask, 0)
    };
    let mut out = vec![
        named(name("zero"), 0),
        named(name("one"), 1),
        named(name("seven"), 7),
        named(name("max"), max),
    ];
    if t.signed {
        out.push(named(name("min"), min));
        out.push(named(name("minus_one"), mask));
    }
    out
}

/// The membermasks: full, single lanes, lowest and highest together, halves,
/// alternating, and seeded random ones.
pub fn membermasks(seed: u64) -> Vec<Named> {
    let mut out = vec![
        named("full", 0xffff_ffff),
        named("single_lowest", 0x0000_0001),
        named("single_highest", 0x8000_0000),
        named("lowest_and_highest", 0x8000_0001),
        named("low_half", 0x0000_ffff),
        named("high_half", 0xffff_0000),
        named("alternating_even", 0x5555_5555),
        named("alternating_odd", 0xaaaa_aaaa),
    ];
    let mut rng = rng(seed, "membermask");
    out.push(named("random", u64::from(rng.random::<u32>() | 1)));
    out
}

/// Membermasks beyond [`membermasks`]: a nibble pattern, an irregular one, and
/// all lanes but one at each end.
pub fn more_membermasks() -> Vec<Named> {
    vec![
        named("low_nibbles", 0x0f0f_0f0f),
        named("irregular", 0x1234_5678),
        named("all_but_lowest", 0xffff_fffe),
        named("all_but_highest", 0x7fff_ffff),
    ]
}

/// Lanes that exit before the instruction, beyond one member: every fourth member
/// (where a member is left), and lanes outside the mask (which otherwise stay
/// alive and branch around it). Each is (executing set, exited non-members).
pub fn exit_sets(membermask: u32) -> Vec<(Named, u64)> {
    let mut out = Vec::new();
    let fourth = membermask & 0x1111_1111;
    if fourth != 0 && membermask & !fourth != 0 {
        out.push((
            named(
                "every_fourth_member_exited",
                u64::from(membermask & !fourth),
            ),
            0,
        ));
    }
    let outside = !membermask & 0x00ff_00ff;
    if outside != 0 {
        out.push((
            named("nonmembers_exited", u64::from(membermask)),
            u64::from(outside),
        ));
    }
    out
}

/// Predicate patterns for vote beyond those of [`lane_values`]: all set, one lane
/// at each end, all but the lowest, and the membermask's lanes and their complement.
pub fn pred_patterns(membermask: u32) -> Vec<Named> {
    vec![
        named("all_set", 0xffff_ffff),
        named("lowest_lane_only", 1),
        named("highest_lane_only", 0x8000_0000),
        named("all_but_lowest", 0xffff_fffe),
        named("membermask_lanes", u64::from(membermask)),
        named("complement_of_membermask", u64::from(!membermask)),
    ]
}

/// Lane values for redux beyond [`lane_values`]: lane ids, the signed extremes
/// alternating, all ones (the sum wraps), and mixed magnitudes.
pub fn redux_patterns() -> Vec<(String, [u64; 32])> {
    vec![
        ("lane_ids".to_owned(), std::array::from_fn(|l| l as u64)),
        (
            "signed_extremes".to_owned(),
            std::array::from_fn(|l| if l % 2 == 0 { 0x8000_0000 } else { 0x7fff_ffff }),
        ),
        ("all_ones".to_owned(), [0xffff_ffff; 32]),
        (
            "mixed_magnitudes".to_owned(),
            std::array::from_fn(|l| {
                let l = l as u32;
                u64::from(l.wrapping_mul(0x1111_1111) ^ (l << 27))
            }),
        ),
    ]
}

/// 64-bit lane values for `match.*.b64` whose low words collide in one pattern
/// and whose high words split the classes again (lane mod 4 at bit 40): a match
/// that compares 32 bits is caught.
pub fn wide_patterns() -> Vec<(String, [u64; 32])> {
    let split = |l: usize| (l as u64 % 4) << 40;
    vec![
        (
            "low_equal_high_mod_4".to_owned(),
            std::array::from_fn(|l| 0x1234_5678_9abc_def0 ^ split(l)),
        ),
        (
            "low_mod_2_high_mod_4".to_owned(),
            std::array::from_fn(|l| (l as u64 % 2) ^ split(l)),
        ),
        (
            "low_div_8_high_mod_4".to_owned(),
            std::array::from_fn(|l| ((l as u64 / 8) << 16) ^ split(l)),
        ),
    ]
}

/// shfl `c` values whose clamp lies beyond the segment: width 4 with clamp 7, and
/// width 8 with clamp 31.
pub fn shfl_c_beyond_segment() -> Vec<Named> {
    vec![
        named("segment_width_4_clamp_7", 0x1c07),
        named("segment_width_8_clamp_31", 0x181f),
    ]
}

/// The executing-lane sets for a membermask: every member executes; one member has
/// exited; and a lane outside the mask executes too (undefined for that lane).
pub fn executing_sets(membermask: u32) -> Vec<Named> {
    let mut out = vec![named("members_execute", u64::from(membermask))];
    if membermask.count_ones() > 1 {
        let highest = 31 - membermask.leading_zeros();
        out.push(named(
            "one_member_exited",
            u64::from(membermask & !(1 << highest)),
        ));
    }
    if membermask != u32::MAX {
        let outsider = (!membermask).trailing_zeros();
        out.push(named(
            "outsider_executes",
            u64::from(membermask | 1 << outsider),
        ));
    }
    out
}

/// Per-lane 32-bit values: distinct (lane-numbered), all equal, and colliding in
/// groups (for match and vote.uni).
pub fn lane_values(seed: u64) -> Vec<(String, [u64; 32])> {
    let mut rng = rng(seed, "lanes");
    let random: [u64; 32] = std::array::from_fn(|_| u64::from(rng.random::<u32>()));
    vec![
        (
            "distinct".to_owned(),
            std::array::from_fn(|i| 0xa500_0000 | (i as u64) << 8 | i as u64),
        ),
        ("all_equal".to_owned(), [0x1234_5678; 32]),
        (
            "collisions_mod_3".to_owned(),
            std::array::from_fn(|i| 0x100 + (i as u64 % 3)),
        ),
        ("random".to_owned(), random),
    ]
}

/// The `c` operands of shfl: every segment width 1 to 32 as the mode packs it,
/// and clamp values within a full-width segment.
pub fn shfl_c(mode: ShflMode) -> Vec<Named> {
    let mut out: Vec<Named> = [1u32, 2, 4, 8, 16, 32]
        .iter()
        .filter_map(|&w| {
            segment_c(mode, w).map(|c| named(format!("segment_width_{w}"), u64::from(c)))
        })
        .collect();
    for clamp in [0u64, 7, 15] {
        // `.up` packs the whole-warp segment as c = 0, the same operand as clamp 0.
        if !out.iter().any(|n| n.bits == clamp) {
            out.push(named(format!("clamp_{clamp}"), clamp));
        }
    }
    out
}

/// shfl `b`: 0 to 33, so that the 5-bit field wraps (32, 33) and beyond.
pub fn shfl_b() -> Vec<Named> {
    (0..=33u64)
        .map(|b| named(if b < 32 { "in_range" } else { "out_of_range" }, b))
        .collect()
}

fn rng(seed: u64, salt: &str) -> ChaCha8Rng {
    // One stream per use, so adding a catalog does not shift another's values.
    let mix = salt.bytes().fold(seed, |h, b| {
        h.rotate_left(5) ^ u64::from(b).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    });
    ChaCha8Rng::seed_from_u64(mix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_specials_hit_the_ieee_layout() {
        // (format, class, bits), from the IEEE 754 layouts.
        let rows: [(Format, &str, u64); 8] = [
            (Format::F16, "+max_normal", 0x7bff),
            (Format::F16, "-min_subnormal", 0x8001),
            (Format::F16, "+half_ulp_of_max", 0x4c00),
            (Format::BF16, "+one", 0x3f80),
            (Format::F32, "+half_ulp_of_one", 0x3380_0000),
            (Format::F32, "+half_ulp_of_max", 0x7300_0000),
            (Format::F64, "+snan_payload", 0x7ff0_0000_0000_0001),
            (Format::F32, "+canonical_nan", 0x7fff_ffff),
        ];
        for (f, class, want) in rows {
            let got = float_specials(f)
                .into_iter()
                .find(|n| n.class == class)
                .map(|n| n.bits);
            assert_eq!(got, Some(want), "({}, {class}, {want:#x})", f.name);
        }
    }

    #[test]
    fn random_streams_are_fixed_by_the_seed() {
        assert_eq!(random_bits(1, "x", 32, 4), random_bits(1, "x", 32, 4));
        assert_ne!(random_bits(1, "x", 32, 4), random_bits(2, "x", 32, 4));
        assert_ne!(random_bits(1, "x", 32, 4), random_bits(1, "y", 32, 4));
    }

    #[test]
    fn executing_sets_cover_exits_and_outsiders() {
        let sets = executing_sets(0x0000_00f0);
        assert_eq!(
            sets.iter().map(|s| s.bits).collect::<Vec<_>>(),
            vec![0xf0, 0x70, 0xf1]
        );
    }
}
