//! What passes an expectation: the project's one evaluator of the accept classes
//! (docs/formats.md, "An expectation is exact bits ... or an accept class"). The
//! grader, the silicon comparison (`selfcheck::raw::judge`) and the evidence replay
//! all ask it; nothing else decides whether a result keeps an expectation.

use ptxvec_oracle::float::Format;

use crate::record::{Expectation, Out, Outputs};

/// Whether `got` keeps `expected`.
///
/// `got` is the result as an unsigned integer masked to the slot's width (an element
/// of a packed type is its half of the 32-bit word, a predicate 0 or 1), or `None`
/// where nothing was written (a lane that did not execute). `float` is the slot's
/// format where it holds a float: the NaN classes need it, and without it no value
/// is a NaN.
pub fn accepts(expected: &Expectation, got: Option<u64>, float: Option<Format>) -> bool {
    let nan = |g: u64| float.is_some_and(|f| f.is_nan(g));
    match (expected, got) {
        // `null`: the lane writes nothing, so nothing may be there.
        (Expectation::NotExecuted, got) => got.is_none(),
        // The profile promises nothing, not even that a value is written.
        (Expectation::Undefined, _) => true,
        (_, None) => false,
        (Expectation::Exact(b), Some(g)) => g == b.value,
        (Expectation::AnyNan, Some(g)) => nan(g),
        (Expectation::OneOf { bits, nan: n }, Some(g)) => {
            bits.iter().any(|b| b.value == g) || (*n && nan(g))
        }
        // One thread's value, where only one is at hand: one of those listed.
        (Expectation::Permutation(bits), Some(g)) => bits.iter().any(|b| b.value == g),
        // One lane alone: `d` a lane the mask names, `p` a predicate; whether they
        // make one election is [`joint`]'s.
        (Expectation::Leader { lanes, flag: false }, Some(g)) => g < 32 && lanes.value >> g & 1 == 1,
        (Expectation::Leader { flag: true, .. }, Some(g)) => g <= 1,
    }
}

/// Whether `e` binds its slot to others of its record ([`joint`] judges it): the
/// caller asks `joint` only of a record that holds such a slot.
pub fn binds(e: &Expectation) -> bool {
    matches!(e, Expectation::Leader { .. })
}

/// What is wrong with a record's outputs taken together, where its classes bind
/// several slots (elect.sync's `leader` and `is_leader`): of the `p` slots that
/// hold `is_leader`, exactly one holds 1, at a lane its mask names, and every `d`
/// slot that holds `leader` holds that lane's id (where `p` is not at hand, the same
/// id in every slot). `None` when nothing is wrong, or nothing binds slots;
/// `expected` and `got` list the outputs by the same keys, each value masked to its
/// slot (`None` where nothing was written).
pub fn joint(expected: &Outputs<Expectation>, got: &Outputs<Option<u64>>) -> Option<String> {
    let pairs = |o: Out| {
        let e = expected.get(o).unwrap_or_default();
        let g = got.get(o).unwrap_or_default();
        e.iter().zip(g).enumerate().map(|(k, (e, g))| (k, e, *g)).collect::<Vec<_>>()
    };
    let mut leader = None;
    let flags: Vec<_> = pairs(Out::P)
        .into_iter()
        .filter_map(|(k, e, g)| match e {
            Expectation::Leader { lanes, flag: true } => Some((k, lanes.value, g)),
            _ => None,
        })
        .collect();
    if let Some(&(_, lanes, _)) = flags.first() {
        let hot: Vec<usize> = flags.iter().filter(|f| f.2 == Some(1)).map(|f| f.0).collect();
        match hot[..] {
            [k] if lanes >> k & 1 == 1 => leader = Some(k as u64),
            [k] => return Some(format!("p: lane {k} holds the leader's flag, and the leader is one of the lanes 0x{lanes:08x}")),
            _ => return Some(format!("p: {} lanes hold the leader's flag where exactly one must", hot.len())),
        }
    }
    for (k, e, g) in pairs(Out::D) {
        if let Expectation::Leader { flag: false, .. } = e {
            match (leader, g) {
                (Some(l), Some(g)) if g != l => {
                    return Some(format!("d[{k}]: 0x{g:x}, where the leader is lane {l}"));
                }
                (None, Some(g)) => leader = Some(g),
                _ => {}
            }
        }
    }
    None
}

/// Whether the values the contending threads returned (`got`, one per thread, in
/// thread order) keep `expected`: for a `permutation`, exactly its bits in some
/// order (each listed value taken by as many threads as it is listed); for any
/// other class, every thread's value.
pub fn accepts_threads(expected: &Expectation, got: &[u64], float: Option<Format>) -> bool {
    match expected {
        Expectation::Permutation(bits) => {
            let mut want: Vec<u64> = bits.iter().map(|b| b.value).collect();
            let mut have = got.to_vec();
            want.sort_unstable();
            have.sort_unstable();
            want == have
        }
        e => got.iter().all(|&g| accepts(e, Some(g), float)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Expectation {
        serde_json::from_str(s).unwrap()
    }

    /// docs/formats.md, row by row: first the two forms a slot takes besides the
    /// classes (exact bits, `null`), then the accept-class table's four rows, each
    /// with results it passes and results it does not. Columns: the expectation as
    /// the files write it, the result, the slot's format, whether it passes.
    #[test]
    fn accept_classes_as_the_readme_defines_them() {
        let (f16, f32, f64) = (Some(Format::F16), Some(Format::F32), Some(Format::F64));
        let one_of_two = r#"{"accept":"one_of","bits":["0x00000001","0x00000002"]}"#;
        let one_or_nan = r#"{"accept":"one_of","bits":["0x00000001"],"nan":true}"#;
        // Found by threads 0 to 31: 0, 1, 2, 3, 3, ..., 3.
        let permutation = format!(
            r#"{{"accept":"permutation","bits":[{}]}}"#,
            (0..32u64).map(|t| format!("\"0x{:08x}\"", t.min(3))).collect::<Vec<_>>().join(",")
        );
        let rows: &[(&str, Option<u64>, Option<Format>, bool)] = &[
            // "exact bits (a hex string)"
            (r#""0x00000005""#, Some(5), None, true),
            (r#""0x00000005""#, Some(6), None, false),
            (r#""0x00000005""#, None, None, false),
            (r#""0x7fc00000""#, Some(0x7fc0_0001), f32, false),
            // "null: the lane does not execute the instruction and writes nothing"
            ("null", None, None, true),
            ("null", Some(0), None, false),
            // nan:any: "any NaN of the element's format (exponent all ones, fraction
            // not zero; sign and payload free)"
            (r#"{"accept":"nan:any"}"#, Some(0x7fc0_0000), f32, true),
            (r#"{"accept":"nan:any"}"#, Some(0xffc0_0001), f32, true),
            (r#"{"accept":"nan:any"}"#, Some(0x7f80_0001), f32, true),
            (r#"{"accept":"nan:any"}"#, Some(0xff80_0000), f32, false),
            (r#"{"accept":"nan:any"}"#, Some(0x7e00), f16, true),
            (r#"{"accept":"nan:any"}"#, Some(0x7c00), f16, false),
            (r#"{"accept":"nan:any"}"#, Some(0x7fc0_0000), f64, false),
            (
                r#"{"accept":"nan:any"}"#,
                Some(0xfff0_0000_0000_0001),
                f64,
                true,
            ),
            (r#"{"accept":"nan:any"}"#, None, f32, false),
            // one_of: "any of the listed bit patterns"
            (one_of_two, Some(1), f32, true),
            (one_of_two, Some(2), f32, true),
            (one_of_two, Some(3), f32, false),
            (one_of_two, Some(0x7fc0_0000), f32, false),
            (one_of_two, None, f32, false),
            // one_of with nan: "any of the listed bit patterns, or any NaN of the
            // element's format"
            (one_or_nan, Some(1), f32, true),
            (one_or_nan, Some(0x7fc0_0000), f32, true),
            (one_or_nan, Some(0xff80_0001), f32, true),
            (one_or_nan, Some(0x7f80_0000), f32, false),
            (one_or_nan, Some(2), f32, false),
            // permutation, one thread's value at hand: "one of the listed values"
            (&permutation, Some(3), None, true),
            (&permutation, Some(0), None, true),
            (&permutation, Some(4), None, false),
            (&permutation, None, None, false),
            // undefined: "anything: the profile promises nothing"
            (r#"{"accept":"undefined"}"#, Some(77), None, true),
            (r#"{"accept":"undefined"}"#, Some(0x7fc0_0000), f32, true),
            (r#"{"accept":"undefined"}"#, None, None, true),
        ];
        for &(text, got, float, want) in rows.iter() {
            let e = read(text);
            assert_eq!(
                accepts(&e, got, float),
                want,
                "case: {text} got {got:x?} in {float:?}: want {want}"
            );
            assert_eq!(
                serde_json::to_string(&e).unwrap(),
                text,
                "round trip: {text}"
            );
        }
    }

    /// docs/formats.md's `permutation` row with every thread's value at hand:
    /// "each listed value found by as many threads as it is listed".
    #[test]
    fn a_permutation_takes_the_listed_values_in_any_order() {
        let listed: Vec<u64> = (0..32u64).map(|t| t.min(3)).collect();
        let e = Expectation::Permutation(listed.iter().map(|&v| crate::record::Bits::new(v, 32)).collect());
        let mut got = listed.clone();
        assert!(accepts_threads(&e, &got, None));
        got.reverse();
        assert!(accepts_threads(&e, &got, None));
        // 3 found once more, 2 once less: the same values, not the same counts.
        let two = got.iter().position(|&v| v == 2).unwrap();
        got[two] = 3;
        assert!(!accepts_threads(&e, &got, None));
        assert!(!accepts_threads(&e, &listed[..31], None));
        // Another class holds each thread's value to itself.
        let exact = Expectation::Exact(crate::record::Bits::new(3, 32));
        assert!(accepts_threads(&exact, &[3, 3], None) && !accepts_threads(&exact, &[3, 2], None));
    }

    /// docs/formats.md's `leader` and `is_leader` rows, from PTX ISA 9.7.13.14:
    /// "`laneid` of the elected thread is returned in [...] `d`", "`p` is set to
    /// `True` for the leader thread, and `False` for all other threads". Lanes 4 to 7
    /// may be elected; lanes 0 to 3 do not execute.
    #[test]
    fn an_election_holds_its_lanes_together() {
        let lanes = crate::record::Bits::new(0xf0, 32);
        let (d, p) = (
            Expectation::Leader { lanes, flag: false },
            Expectation::Leader { lanes, flag: true },
        );
        assert!(accepts(&d, Some(6), None) && !accepts(&d, Some(3), None) && !accepts(&d, Some(40), None));
        assert!(accepts(&p, Some(1), None) && accepts(&p, Some(0), None) && !accepts(&p, Some(2), None));
        let expected = |with_d: bool| {
            let slots = |e: &Expectation| (0..8).map(|l| if l < 4 { Expectation::NotExecuted } else { e.clone() }).collect();
            Outputs { d: with_d.then(|| slots(&d)), mem: None, p: Some(slots(&p)) }
        };
        let got = |d: [u64; 4], p: [u64; 4]| Outputs {
            d: Some((0..8).map(|l| (l >= 4).then(|| d[l - 4])).collect()),
            mem: None,
            p: Some((0..8).map(|l| (l >= 4).then(|| p[l - 4])).collect()),
        };
        let sink = |o: Outputs<Option<u64>>| Outputs { d: None, ..o };
        // Lane 6 elected: every d 6, p in lane 6 alone. Lane 4 as well.
        assert_eq!(joint(&expected(true), &got([6; 4], [0, 0, 1, 0])), None);
        assert_eq!(joint(&expected(true), &got([4; 4], [1, 0, 0, 0])), None);
        assert_eq!(joint(&expected(false), &sink(got([0; 4], [0, 1, 0, 0]))), None);
        // Two leaders, none, a d that names another lane, two d values.
        for (d, p) in [([6; 4], [0, 0, 1, 1]), ([6; 4], [0; 4]), ([5; 4], [0, 0, 1, 0]), ([6, 6, 6, 7], [0, 0, 1, 0])] {
            assert!(joint(&expected(true), &got(d, p)).is_some(), "{d:?} {p:?}");
        }
        assert!(joint(&expected(false), &sink(got([0; 4], [1, 1, 0, 0]))).is_some());
        // Nothing binds exact slots together.
        let exact = Outputs { d: Some(vec![Expectation::Exact(lanes)]), mem: None, p: None };
        assert_eq!(joint(&exact, &Outputs { d: Some(vec![Some(1)]), mem: None, p: None }), None);
    }
}
