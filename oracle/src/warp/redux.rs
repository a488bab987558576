//! `redux.sync`: PTX ISA 9.7.13.12, seeds 000 (full section) and 004 (condensed).
//!
//! ```text
//! redux.sync.op.type dst, src, membermask;
//! .op   = {.add, .min, .max}
//! .type = {.u32, .s32}
//!
//! redux.sync.op.b32 dst, src, membermask;
//! .op   = {.and, .or, .xor}
//!
//! redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask;
//! .op   = { .min, .max }
//! ```
//!
//! "`redux.sync` performs a reduction operation `.op` of the 32 bit source register
//! `src` across all non-exited threads in the `membermask`." (seed 000). Every
//! participant gets the same result (seed 004: "All participating threads receive
//! the same result in `dst`").

use super::{lanes_of, participants, sync_lanes, Lane, PerLane, WARP_SIZE};
pub use crate::float::MinMax;
use crate::float::{self, Format, Ftz, MinMaxMode, MinMaxNan};
use crate::int::{reduce, IntOp, IntType};

/// The integer and bitwise forms of `redux.sync`: exactly the legal `.op.type`
/// pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReduxInt {
    /// `.add.u32`.
    AddU32,
    /// `.add.s32`.
    AddS32,
    /// `.min.u32`.
    MinU32,
    /// `.min.s32`.
    MinS32,
    /// `.max.u32`.
    MaxU32,
    /// `.max.s32`.
    MaxS32,
    /// `.and.b32`.
    AndB32,
    /// `.or.b32`.
    OrB32,
    /// `.xor.b32`.
    XorB32,
}

impl ReduxInt {
    /// Every form.
    pub const ALL: &'static [ReduxInt] = &[
        ReduxInt::AddU32,
        ReduxInt::AddS32,
        ReduxInt::MinU32,
        ReduxInt::MinS32,
        ReduxInt::MaxU32,
        ReduxInt::MaxS32,
        ReduxInt::AndB32,
        ReduxInt::OrB32,
        ReduxInt::XorB32,
    ];

    /// The shared integer operation and type (`.b32` orders as unsigned, and
    /// bitwise operations do not look at the order).
    pub fn op_and_type(self) -> (IntOp, IntType) {
        match self {
            ReduxInt::AddU32 => (IntOp::Add, IntType::U32),
            ReduxInt::AddS32 => (IntOp::Add, IntType::S32),
            ReduxInt::MinU32 => (IntOp::Min, IntType::U32),
            ReduxInt::MinS32 => (IntOp::Min, IntType::S32),
            ReduxInt::MaxU32 => (IntOp::Max, IntType::U32),
            ReduxInt::MaxS32 => (IntOp::Max, IntType::S32),
            ReduxInt::AndB32 => (IntOp::And, IntType::U32),
            ReduxInt::OrB32 => (IntOp::Or, IntType::U32),
            ReduxInt::XorB32 => (IntOp::Xor, IntType::U32),
        }
    }
}

/// Folds the participants' values with `f`, in lane order; `None` when there is no
/// participant (then no lane gets a value anyway).
fn fold(who: u32, src: &[u32; WARP_SIZE], f: impl Fn(u32, u32) -> u32) -> Option<u32> {
    lanes_of(who).map(|lane| src[lane]).reduce(f)
}

/// `redux.sync.op.type dst, src, membermask` for the integer and bitwise forms.
///
/// The operation is [`crate::int::reduce`], the one `red` uses; "For the `.add`
/// operation result is truncated to 32 bits" (seed 000) is its 32-bit wrap.
pub fn redux_int(
    form: ReduxInt,
    membermask: u32,
    executing: u32,
    src: &[u32; WARP_SIZE],
) -> PerLane<u32> {
    let (op, ty) = form.op_and_type();
    let who = participants(membermask, executing);
    let result = fold(who, src, |r, s| {
        // reduce() keeps the low 32 bits for a 32-bit type, so nothing is lost.
        u32::try_from(reduce(op, ty, u64::from(r), u64::from(s))).unwrap_or(u32::MAX)
    });
    sync_lanes(membermask, executing, |_| {
        result.map_or(Lane::Undefined, Lane::Value)
    })
}

/// The qualifiers of `redux.sync.op{.abs}{.NaN}.f32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReduxF32 {
    /// `.min` or `.max`.
    pub op: MinMax,
    /// `.abs`: "the absolute value of the input is considered for the reduction
    /// operation".
    pub abs: bool,
    /// `.NaN`: "the result of the reduction operation is canonical NaN if the input
    /// to the reduction operation from any participating thread is NaN".
    pub nan: bool,
}

/// The canonical f32 NaN of PTX: [`Format::canonical_nan`] of `.f32`.
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;

fn is_nan_f32(bits: u32) -> bool {
    Format::F32.is_nan(u64::from(bits))
}

/// `redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask`, with the float module's min/max.
pub fn redux_f32(
    q: ReduxF32,
    membermask: u32,
    executing: u32,
    src: &[u32; WARP_SIZE],
) -> PerLane<u32> {
    redux_f32_with(q, membermask, executing, src, f32_min_max)
}

/// `redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask`, folding with `min_max`.
///
/// `min_max(op, nan, x, y)` is the binary f32 `min{.NaN}`/`max{.NaN}` on raw bits,
/// as PTX's `min`/`max` instructions define it: without `nan`, a NaN operand yields
/// the other one; with `nan`, any NaN operand yields NaN; `-0.0 < +0.0`. The float
/// module plugs in here. This function applies `.abs` to each input first and makes
/// every NaN result the canonical NaN, as the redux.sync text requires ("the result
/// will be canonical NaN when all inputs are NaNs"), so `min_max` may return any NaN
/// and a single participant's NaN is canonicalised too.
///
/// Seed 000 is silent on subnormals: redux.sync has no `.ftz`, so they are kept
/// (a finding; `.f32` needs sm_100a, so sm_90 cannot confirm it).
pub fn redux_f32_with(
    q: ReduxF32,
    membermask: u32,
    executing: u32,
    src: &[u32; WARP_SIZE],
    min_max: impl Fn(MinMax, bool, u32, u32) -> u32,
) -> PerLane<u32> {
    let who = participants(membermask, executing);
    let abs = if q.abs { 0x7fff_ffff } else { u32::MAX };
    let result = lanes_of(who)
        .map(|lane| src[lane] & abs)
        .reduce(|x, y| min_max(q.op, q.nan, x, y))
        .map(|r| if is_nan_f32(r) { CANONICAL_NAN_F32 } else { r });
    sync_lanes(membermask, executing, |_| {
        result.map_or(Lane::Undefined, Lane::Value)
    })
}

/// Binary f32 `min{.NaN}`/`max{.NaN}` on bits through [`float::min_max`]: `-0.0 <
/// +0.0`; without `nan` a NaN operand yields the other one, with `nan` any NaN yields
/// the canonical NaN. Subnormals are kept (no `.ftz`); `.abs` is applied by the caller.
fn f32_min_max(op: MinMax, nan: bool, x: u32, y: u32) -> u32 {
    let mode = MinMaxMode {
        ftz: Ftz::Preserve,
        nan: if nan {
            MinMaxNan::Propagate
        } else {
            MinMaxNan::Ignore
        },
        abs: false,
    };
    // Both inputs are 32-bit, so the result is one of them or the 32-bit canonical NaN.
    float::min_max(op, Format::F32, u64::from(x), u64::from(y), mode) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::bit;
    use crate::warp::testkit::{lane_kinds_hold, Rng};

    const FULL: u32 = u32::MAX;

    /// Lanes 0.. hold `values`, the rest 0.
    fn warp(values: &[u32]) -> [u32; WARP_SIZE] {
        std::array::from_fn(|i| values.get(i).copied().unwrap_or(0))
    }

    /// (why, form, membermask, executing, src prefix, result every participant gets)
    type IntCase = (&'static str, ReduxInt, u32, u32, &'static [u32], u32);

    const NEG5: u32 = -5i32 as u32;
    const NEG7: u32 = -7i32 as u32;

    const INT_CASES: &[IntCase] = &[
        // "performs a reduction operation .op of the 32 bit source register src across
        // all non-exited threads in the membermask"
        (
            "s32 min over negatives",
            ReduxInt::MinS32,
            0xf,
            FULL,
            &[NEG5, 3, NEG7, 0],
            NEG7,
        ),
        (
            "u32 min of the same bits",
            ReduxInt::MinU32,
            0xf,
            FULL,
            &[NEG5, 3, NEG7, 0],
            0,
        ),
        (
            "s32 max over negatives",
            ReduxInt::MaxS32,
            0x5,
            FULL,
            &[NEG5, 3, NEG7, 0],
            NEG5,
        ),
        (
            "u32 max of the same bits",
            ReduxInt::MaxU32,
            0xf,
            FULL,
            &[NEG5, 3, NEG7, 0],
            NEG5,
        ),
        // Lanes outside membermask do not count: lane 2's -7 is left out.
        (
            "s32 min, partial mask",
            ReduxInt::MinS32,
            0xb,
            FULL,
            &[NEG5, 3, NEG7, 0],
            NEG5,
        ),
        // An exited member does not count.
        (
            "s32 min, exited member",
            ReduxInt::MinS32,
            0xf,
            !0b100,
            &[NEG5, 3, NEG7, 0],
            NEG5,
        ),
        (
            "s32 add of negatives",
            ReduxInt::AddS32,
            0xf,
            FULL,
            &[NEG5, 3, NEG7, 0],
            -9i32 as u32,
        ),
        // "For the .add operation result is truncated to 32 bits."
        (
            "u32 add wraps",
            ReduxInt::AddU32,
            0x3,
            FULL,
            &[0xffff_ffff, 2],
            1,
        ),
        (
            "s32 add wraps",
            ReduxInt::AddS32,
            0x3,
            FULL,
            &[0x7fff_ffff, 1],
            0x8000_0000,
        ),
        (
            "and",
            ReduxInt::AndB32,
            0x7,
            FULL,
            &[0xff0f, 0x0fff, 0xf0ff],
            0x000f,
        ),
        ("or", ReduxInt::OrB32, 0x7, FULL, &[0x1, 0x20, 0x400], 0x421),
        (
            "xor",
            ReduxInt::XorB32,
            0x7,
            FULL,
            &[0b1100, 0b1010, 0b0001],
            0b0111,
        ),
        (
            "xor, partial mask",
            ReduxInt::XorB32,
            0x5,
            FULL,
            &[0b1100, 0b1010, 0b0001],
            0b1101,
        ),
        (
            "single participant",
            ReduxInt::AddU32,
            0x8000_0000,
            0x8000_0000,
            &[],
            0,
        ),
        // The example: redux.sync.add.s32 dst, src, 0xff;
        (
            "the doc's example mask 0xff",
            ReduxInt::AddS32,
            0xff,
            0xff,
            &[1, 2, 3, 4, 5, 6, 7, 8],
            36,
        ),
    ];

    #[test]
    fn hand_worked_integer_reductions() {
        for &(why, form, membermask, executing, values, want) in INT_CASES {
            let case = (why, form, membermask, executing, values, want);
            let out = redux_int(form, membermask, executing, &warp(values));
            lane_kinds_hold(membermask, executing, &out, &format!("{case:#x?}"));
            for (lane, got) in out.iter().enumerate() {
                if bit(participants(membermask, executing), lane) {
                    assert_eq!(*got, Lane::Value(want), "lane {lane}: {case:#x?}");
                }
            }
        }
    }

    #[test]
    fn a_thirty_two_lane_sum_truncates() {
        // 32 * 0x1000_0000 = 0x2_0000_0000, truncated to 32 bits: 0.
        let out = redux_int(ReduxInt::AddU32, FULL, FULL, &[0x1000_0000; WARP_SIZE]);
        assert_eq!(out, [Lane::Value(0); WARP_SIZE]);
    }

    #[test]
    fn lanes_outside_the_mask_are_undefined() {
        // "The behavior of redux.sync is undefined if the executing thread is not in
        // the membermask."
        let out = redux_int(ReduxInt::OrB32, 0x1, 0x3, &warp(&[1, 2]));
        assert_eq!(out[0], Lane::Value(1));
        assert_eq!(out[1], Lane::Undefined);
        assert_eq!(out[2], Lane::NotExecuted);
    }

    const ONE: u32 = 0x3f80_0000;
    const TWO: u32 = 0x4000_0000;
    const NEG_THREE: u32 = 0xc040_0000;
    const THREE: u32 = 0x4040_0000;
    const POS_ZERO: u32 = 0;
    const NEG_ZERO: u32 = 0x8000_0000;
    const POS_INF: u32 = 0x7f80_0000;
    const NEG_INF: u32 = 0xff80_0000;
    const QNAN: u32 = 0x7fc0_0001;
    const SNAN: u32 = 0xff80_0001;
    const SUBNORMAL: u32 = 0x0000_0001;

    /// (why, op, abs, nan, values of lanes 0.. (all participants), result)
    type FloatCase = (&'static str, MinMax, bool, bool, &'static [u32], u32);

    const FLOAT_CASES: &[FloatCase] = &[
        ("min", MinMax::Min, false, false, &[TWO, ONE, THREE], ONE),
        (
            "max",
            MinMax::Max,
            false,
            false,
            &[TWO, NEG_THREE, ONE],
            TWO,
        ),
        // "For .f32 instruction type, if the input value is 0.0 then +0.0 > -0.0."
        (
            "min of signed zeros",
            MinMax::Min,
            false,
            false,
            &[POS_ZERO, NEG_ZERO],
            NEG_ZERO,
        ),
        (
            "min of signed zeros, other order",
            MinMax::Min,
            false,
            false,
            &[NEG_ZERO, POS_ZERO],
            NEG_ZERO,
        ),
        (
            "max of signed zeros",
            MinMax::Max,
            false,
            false,
            &[NEG_ZERO, POS_ZERO],
            POS_ZERO,
        ),
        (
            "min with a one",
            MinMax::Min,
            false,
            false,
            &[ONE, NEG_ZERO, POS_ZERO],
            NEG_ZERO,
        ),
        (
            "min reaches -inf",
            MinMax::Min,
            false,
            false,
            &[NEG_INF, ONE],
            NEG_INF,
        ),
        (
            "max reaches +inf",
            MinMax::Max,
            false,
            false,
            &[ONE, POS_INF],
            POS_INF,
        ),
        (
            "subnormals are kept",
            MinMax::Min,
            false,
            false,
            &[ONE, SUBNORMAL],
            SUBNORMAL,
        ),
        // "In the absence of .NaN qualifier, only non-NaN values are considered for
        // the reduction operation and the result will be canonical NaN when all inputs
        // are NaNs."
        (
            "NaN skipped",
            MinMax::Min,
            false,
            false,
            &[QNAN, TWO, ONE],
            ONE,
        ),
        (
            "NaN skipped, max",
            MinMax::Max,
            false,
            false,
            &[TWO, SNAN, ONE],
            TWO,
        ),
        (
            "all NaN gives canonical NaN",
            MinMax::Min,
            false,
            false,
            &[QNAN, SNAN],
            CANONICAL_NAN_F32,
        ),
        (
            "one NaN participant gives canonical NaN",
            MinMax::Max,
            false,
            false,
            &[QNAN],
            CANONICAL_NAN_F32,
        ),
        // "If the .NaN qualifier is specified, then the result of the reduction
        // operation is canonical NaN if the input to the reduction operation from any
        // participating thread is NaN."
        (
            ".NaN propagates",
            MinMax::Min,
            false,
            true,
            &[ONE, QNAN, TWO],
            CANONICAL_NAN_F32,
        ),
        (
            ".NaN propagates a signalling NaN",
            MinMax::Max,
            false,
            true,
            &[SNAN, ONE],
            CANONICAL_NAN_F32,
        ),
        (
            ".NaN without NaNs",
            MinMax::Max,
            false,
            true,
            &[ONE, TWO],
            TWO,
        ),
        // "If .abs qualifier is specified, then the absolute value of the input is
        // considered for the reduction operation."
        (".abs min", MinMax::Min, true, false, &[NEG_THREE, TWO], TWO),
        (
            ".abs max",
            MinMax::Max,
            true,
            false,
            &[NEG_THREE, TWO],
            THREE,
        ),
        (
            ".abs of signed zeros",
            MinMax::Min,
            true,
            false,
            &[NEG_ZERO, NEG_ZERO],
            POS_ZERO,
        ),
        (
            ".abs of -inf",
            MinMax::Max,
            true,
            false,
            &[NEG_INF, ONE],
            POS_INF,
        ),
        (
            ".abs.NaN",
            MinMax::Min,
            true,
            true,
            &[SNAN, ONE],
            CANONICAL_NAN_F32,
        ),
        (
            ".abs NaN skipped",
            MinMax::Min,
            true,
            false,
            &[SNAN, NEG_THREE],
            THREE,
        ),
    ];

    #[test]
    fn hand_worked_float_reductions() {
        for &(why, op, abs, nan, values, want) in FLOAT_CASES {
            let case = (why, op, abs, nan, values, want);
            let membermask = (1u32 << values.len()) - 1;
            let q = ReduxF32 { op, abs, nan };
            let out = redux_f32(q, membermask, FULL, &warp(values));
            for (lane, got) in out.iter().enumerate().take(values.len()) {
                assert_eq!(*got, Lane::Value(want), "lane {lane}: {case:#x?}");
            }
        }
    }

    #[test]
    fn float_reduction_ignores_lanes_that_do_not_take_part() {
        // Lane 1 (outside the mask) holds NaN, lane 2 (exited) holds -inf.
        let src = warp(&[ONE, QNAN, NEG_INF, TWO]);
        let q = ReduxF32 {
            op: MinMax::Min,
            abs: false,
            nan: true,
        };
        let out = redux_f32(q, 0b1101, 0b1011, &src);
        assert_eq!(out[0], Lane::Value(ONE));
        assert_eq!(out[1], Lane::Undefined);
        assert_eq!(out[2], Lane::NotExecuted);
        assert_eq!(out[3], Lane::Value(ONE));
    }

    #[test]
    fn the_plug_in_is_called_and_its_nans_canonicalised() {
        // A stand-in float module that returns a non-canonical NaN for everything.
        let out = redux_f32_with(
            ReduxF32 {
                op: MinMax::Max,
                abs: false,
                nan: false,
            },
            0x3,
            FULL,
            &warp(&[ONE, TWO]),
            |_, _, _, _| 0xffc0_0000,
        );
        assert_eq!(out[0], Lane::Value(CANONICAL_NAN_F32));
    }

    /// A random permutation of the lane ids.
    fn permutation(rng: &mut Rng) -> [usize; WARP_SIZE] {
        let mut p: [usize; WARP_SIZE] = std::array::from_fn(|i| i);
        for i in (1..WARP_SIZE).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            p.swap(i, j);
        }
        p
    }

    /// Moves lane i's state to lane perm[i].
    fn permute(perm: &[usize; WARP_SIZE], mask: u32) -> u32 {
        (0..WARP_SIZE)
            .filter(|&i| bit(mask, i))
            .fold(0, |m, i| m | 1 << perm[i])
    }

    #[test]
    fn property_reductions_ignore_lane_order_and_match_a_fold() {
        let mut rng = Rng::new(0x7265_6475);
        for _ in 0..1000 {
            let (membermask, executing) = rng.masks();
            let src = rng.words();
            let perm = permutation(&mut rng);
            let mut moved = [0u32; WARP_SIZE];
            for i in 0..WARP_SIZE {
                moved[perm[i]] = src[i];
            }
            let (m2, e2) = (permute(&perm, membermask), permute(&perm, executing));
            let who = participants(membermask, executing);
            let case = format!(
                "membermask {membermask:#x} executing {executing:#x} src {src:#x?} perm {perm:?}"
            );
            for &form in ReduxInt::ALL {
                let out = redux_int(form, membermask, executing, &src);
                lane_kinds_hold(membermask, executing, &out, &case);
                let (op, ty) = form.op_and_type();
                // A plain fold in u64 through the shared operation, from the last lane
                // down: a different order from the oracle's.
                let want = lanes_of(who)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .map(|lane| u64::from(src[lane]))
                    .reduce(|r, s| reduce(op, ty, r, s));
                let out2 = redux_int(form, m2, e2, &moved);
                for lane in lanes_of(who) {
                    let want = want.map(|w| Lane::Value(w as u32));
                    assert_eq!(Some(out[lane]), want, "{form:?} lane {lane}: {case}");
                    assert_eq!(out2[perm[lane]], out[lane], "{form:?} lane {lane}: {case}");
                }
            }
            let floats: [u32; WARP_SIZE] = std::array::from_fn(|_| rng.word());
            let mut moved = [0u32; WARP_SIZE];
            for i in 0..WARP_SIZE {
                moved[perm[i]] = floats[i];
            }
            for &op in MinMax::ALL {
                for abs in [false, true] {
                    for nan in [false, true] {
                        let q = ReduxF32 { op, abs, nan };
                        let out = redux_f32(q, membermask, executing, &floats);
                        let out2 = redux_f32(q, m2, e2, &moved);
                        lane_kinds_hold(membermask, executing, &out, &case);
                        for lane in lanes_of(who) {
                            assert_eq!(out2[perm[lane]], out[lane], "{q:?} lane {lane}: {case}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_form_is_listed() {
        let ops: Vec<_> = ReduxInt::ALL.iter().map(|f| f.op_and_type()).collect();
        assert_eq!(ops.len(), 9);
        for (i, a) in ops.iter().enumerate() {
            assert!(!ops[i + 1..].contains(a), "{a:?} twice");
        }
        assert_eq!(MinMax::ALL.len(), 2);
    }
}
