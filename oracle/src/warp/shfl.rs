//! `shfl.sync`: PTX ISA 9.7.9.6, seed 004 (condensed, PTX ISA 9.1). Where the seed is
//! silent we use the full section: its pseudo-code (the same as the deprecated
//! non-sync `shfl`'s, which we checked against a copy of the PTX ISA 9.0 text) and
//! one sentence quoted from memory and marked so, to be checked against the doc.
//!
//! ```text
//! shfl.sync.mode.b32  d[|p], a, b, c, membermask;
//!
//! .mode = { .up, .down, .bfly, .idx };
//! ```

use super::{bit, participants, status, DestPred, Lane, Status, WARP_SIZE};
use crate::profile::Profile;

/// The modes of `shfl.sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShflMode {
    /// `.up`: from `lane - b`.
    Up,
    /// `.down`: from `lane + b`.
    Down,
    /// `.bfly`: from `lane ^ b`.
    Bfly,
    /// `.idx`: from lane `b` of this lane's segment.
    Idx,
}

impl ShflMode {
    /// Every mode.
    pub const ALL: &'static [ShflMode] =
        &[ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
}

/// The lane a `shfl.sync` lane reads, and whether it was in range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShflSource {
    /// The lane `d` is copied from: the computed `j` when in range, else the lane
    /// itself.
    pub lane: u32,
    /// The pseudo-code's `pval`, which is also what `p` receives.
    pub in_range: bool,
}

/// The source lane that lane `lane` computes from its `b` and `c`, following the
/// doc's pseudo-code line by line:
///
/// ```text
/// lane[4:0]  = [Thread].laneid;
/// bval[4:0] = b[4:0];
/// cval[4:0] = c[4:0];
/// segmask[4:0] = c[12:8];
/// maxLane = (lane & segmask) | (cval & ~segmask);
/// minLane = (lane & segmask);
/// switch (.mode) {
///     case .up:    j = lane - bval; pval = (j >= maxLane); break;
///     case .down:  j = lane + bval; pval = (j <= maxLane); break;
///     case .bfly:  j = lane ^ bval; pval = (j <= maxLane); break;
///     case .idx:   j = minLane  | (bval[4:0] & ~segmask); pval = (j <= maxLane); break;
/// }
/// if (!pval) j = lane;  // copy from own lane
/// ```
///
/// Seed 004 gives the same formulas as a table plus the `maxLane`/`minLane` lines,
/// but its table writes `lane - b`, `lane + b` and `lane ^ b` with the whole `b`
/// (only `.idx` has `b[4:0]`); the `bval = b[4:0]` masking for every mode is the full
/// section's (a finding: read literally, the seed puts `.down` by 33 always out of
/// range, where the full section makes it `.down` by 1). Bits of `b` above 4 and of `c`
/// outside `[4:0]` and `[12:8]` are ignored, and `lane` is taken modulo 32.
pub fn source_lane(mode: ShflMode, lane: u32, b: u32, c: u32) -> ShflSource {
    const FIVE: u32 = 0x1f;
    let lane = lane & FIVE;
    let bval = b & FIVE;
    let cval = c & FIVE;
    let segmask = c >> 8 & FIVE;
    // `~segmask` within the 5-bit field: cval and bval are 5 bits, so the bits
    // above never matter, but keeping them clear keeps maxLane <= 31.
    let outside = !segmask & FIVE;
    let max_lane = (lane & segmask) | (cval & outside);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        // The pseudo-code gives `j` no width. Read as a 5-bit value, `lane - bval`
        // would wrap (lane 0 up by 1 -> 31) and pass `j >= maxLane`; we read `j` as
        // an unbounded integer, so a negative `j` is below every maxLane (>= 0) and
        // out of range. CUDA's __shfl_up_sync agrees ("lanes with ID less than
        // delta are unchanged"). A finding: the doc should say so.
        ShflMode::Up => match lane.checked_sub(bval) {
            Some(j) => (j, j >= max_lane),
            None => (lane, false),
        },
        // lane + bval <= 62: no wrap; anything above maxLane (<= 31) is out of range.
        ShflMode::Down => {
            let j = lane + bval;
            (j, j <= max_lane)
        }
        ShflMode::Bfly => {
            let j = lane ^ bval;
            (j, j <= max_lane)
        }
        ShflMode::Idx => {
            let j = min_lane | (bval & outside);
            (j, j <= max_lane)
        }
    };
    // "if (!pval) j = lane;  // copy from own lane". In range, j <= 31: for .up,
    // maxLane <= j <= lane; for the others, j <= maxLane <= 31.
    ShflSource {
        lane: if pval { j } else { lane },
        in_range: pval,
    }
}

/// The `c` operand that makes sub-warp segments of `width` lanes: seed 004, "Sub-warp
/// width W (power of 2): set `segmask = ~(W-1) & 0x1f`, `cval = W-1` for
/// down/bfly/idx, `cval = 0` for up." `None` unless `width` is a power of two from 1
/// to 32. (CUDA packs the same mask as `(32 - W) << 8`.)
pub fn segment_c(mode: ShflMode, width: u32) -> Option<u32> {
    if !width.is_power_of_two() || width > 32 {
        return None;
    }
    let segmask = !(width - 1) & 0x1f;
    let cval = match mode {
        ShflMode::Up => 0,
        ShflMode::Down | ShflMode::Bfly | ShflMode::Idx => width - 1,
    };
    Some(segmask << 8 | cval)
}

/// `shfl.sync.mode.b32 d|p, a, b, c, membermask` with per-lane `b` and `c` (both may
/// be registers).
///
/// A participant whose source lane (after clamping) is a participant gets
/// `d = a[j]` and `p = pval`. Any other participant gets [`Lane::Undefined`] in both:
/// seed 004, "Sourcing from an inactive thread or one not in `membermask` is
/// undefined", and the full section (quoted from memory, unchecked): "results are
/// undefined if a thread sources a register from an inactive thread or a thread that
/// is not in `membermask`". Neither says which destination; "results" is plural and
/// `p` is a result, so `p` is undefined too, although the pseudo-code computes `pval`
/// from lane numbers alone (a finding; sm_90 likely gives `pval`).
/// A lane that sources itself (out of range, or `j == lane`) is always defined.
pub fn shfl(
    mode: ShflMode,
    membermask: u32,
    executing: u32,
    a: &[u32; WARP_SIZE],
    b: &[u32; WARP_SIZE],
    c: &[u32; WARP_SIZE],
) -> [DestPred<u32>; WARP_SIZE] {
    shfl_under(Profile::PtxIsa, mode, membermask, executing, a, b, c)
}

/// [`shfl`] under a profile. sm_90 defines what the document leaves undefined for a
/// participant whose source lane has exited or is outside membermask: `d` is 0 and
/// `p` is `pval` (measured: errata E024, vectors/silicon/sm_90/vectors.json). A lane executing
/// outside membermask stays undefined in both profiles: it is not measured.
pub fn shfl_under(
    profile: Profile,
    mode: ShflMode,
    membermask: u32,
    executing: u32,
    a: &[u32; WARP_SIZE],
    b: &[u32; WARP_SIZE],
    c: &[u32; WARP_SIZE],
) -> [DestPred<u32>; WARP_SIZE] {
    let who = participants(membermask, executing);
    std::array::from_fn(|lane| match status(membermask, executing, lane) {
        Status::NotExecuted => DestPred::not_executed(),
        // "The behavior of shfl.sync is undefined if the executing thread is not in
        // the membermask."
        Status::OutsideMask => DestPred::undefined(),
        Status::Participant => {
            // lane < 32 always fits; u32::MAX never occurs.
            let id = u32::try_from(lane).unwrap_or(u32::MAX);
            let src = source_lane(mode, id, b[lane], c[lane]);
            let j = src.lane as usize;
            if bit(who, j) {
                DestPred {
                    d: Lane::Value(a[j]),
                    p: Lane::Value(src.in_range),
                }
            } else {
                match profile {
                    Profile::PtxIsa => DestPred::undefined(),
                    Profile::Sm90 => DestPred {
                        d: Lane::Value(0),
                        p: Lane::Value(src.in_range),
                    },
                }
            }
        }
    })
}

/// [`shfl`] with the same `b` and `c` in every lane (immediates, or uniform
/// registers).
pub fn shfl_uniform(
    mode: ShflMode,
    membermask: u32,
    executing: u32,
    a: &[u32; WARP_SIZE],
    b: u32,
    c: u32,
) -> [DestPred<u32>; WARP_SIZE] {
    shfl(
        mode,
        membermask,
        executing,
        a,
        &[b; WARP_SIZE],
        &[c; WARP_SIZE],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::testkit::{lane_kinds_hold, Rng};

    const FULL: u32 = u32::MAX;

    /// Lane i holds 0x100 + i, so `d` names the lane it came from.
    fn ids() -> [u32; WARP_SIZE] {
        std::array::from_fn(|i| 0x100 + i as u32)
    }

    /// A full-warp, hand-worked case: lane `lane` with operands `b`, `c` reads lane
    /// `from` and sets `p`.
    #[derive(Debug)]
    struct Case {
        why: &'static str,
        mode: ShflMode,
        b: u32,
        c: u32,
        lane: u32,
        from: u32,
        p: bool,
    }

    const fn case(
        why: &'static str,
        mode: ShflMode,
        b: u32,
        c: u32,
        lane: u32,
        from: u32,
        p: bool,
    ) -> Case {
        Case {
            why,
            mode,
            b,
            c,
            lane,
            from,
            p,
        }
    }

    use ShflMode::{Bfly, Down, Idx, Up};

    /// Width-8 segments (seed 004: segmask = ~(8-1) & 0x1f = 0x18): c = 0x1807 for
    /// down/bfly/idx, 0x1800 for up.
    const CASES: &[Case] = &[
        // "When p is false (out of range), the thread copies its own a."
        case(
            "up 1 at segment start 8 keeps its own value",
            Up,
            1,
            0x1800,
            8,
            8,
            false,
        ),
        case(
            "up 1 at segment start 0: j = -1 is out of range",
            Up,
            1,
            0x1800,
            0,
            0,
            false,
        ),
        case("up 1 at segment start 24", Up, 1, 0x1800, 24, 24, false),
        case("up 1 inside a segment", Up, 1, 0x1800, 9, 8, true),
        case(
            "up 3 crossing the segment start",
            Up,
            3,
            0x1800,
            10,
            10,
            false,
        ),
        case("up 0 reads itself, in range", Up, 0, 0x1800, 13, 13, true),
        case(
            "up 1, full warp (c = 0): lane 0 is out of range",
            Up,
            1,
            0,
            0,
            0,
            false,
        ),
        case(
            "up 31, full warp: only lane 31 reaches lane 0",
            Up,
            31,
            0,
            31,
            0,
            true,
        ),
        // bval = b[4:0]: up by 33 is up by 1.
        case("up 33 is up 1", Up, 33, 0, 5, 4, true),
        // maxLane = (lane & segmask) | (cval & ~segmask) = 31 for c = 0x1f: with .up
        // only j >= 31 passes, so the down/idx clamp misused for .up shuts it off.
        case(
            "up with c = 0x1f: j = 4 < maxLane 31",
            Up,
            1,
            0x1f,
            5,
            5,
            false,
        ),
        case("up 0 with c = 0x1f at lane 31", Up, 0, 0x1f, 31, 31, true),
        case("down 1 at segment end 7", Down, 1, 0x1807, 7, 7, false),
        case("down 1 inside a segment", Down, 1, 0x1807, 6, 7, true),
        case(
            "down 1, full warp, lane 31 is out of range",
            Down,
            1,
            0x1f,
            31,
            31,
            false,
        ),
        // bval = b[4:0]: down by 33 is down by 1.
        case("down 33 is down 1", Down, 33, 0x1f, 0, 1, true),
        case(
            "down 33 is down 1, lane 31 out of range",
            Down,
            33,
            0x1f,
            31,
            31,
            false,
        ),
        case("down 32 is down 0", Down, 32, 0x1f, 12, 12, true),
        // The clamp, not the segment, bounds .down: cval 3 in width-8 segments.
        case("down with clamp 3 in width 8", Down, 2, 0x1803, 2, 2, false),
        case(
            "down with clamp 3 in width 8, in range",
            Down,
            1,
            0x1803,
            2,
            3,
            true,
        ),
        case("bfly 16, full warp", Bfly, 16, 0x1f, 3, 19, true),
        case(
            "bfly 16, full warp, upper half",
            Bfly,
            16,
            0x1f,
            20,
            4,
            true,
        ),
        case("bfly 1 in width 8", Bfly, 1, 0x1807, 13, 12, true),
        // j = lane ^ bval may leave the segment: upward it fails j <= maxLane ...
        case(
            "bfly 16 in width 8 from a lower segment",
            Bfly,
            16,
            0x1807,
            3,
            3,
            false,
        ),
        // ... downward it passes: "Note that an out of range value of b may still
        // result in a valid computed source lane index j. In this case, a data
        // transfer occurs and the destination predicate p is True." (CUDA: groups
        // "are able to access elements from earlier groups".)
        case(
            "bfly 16 in width 8 from an upper segment",
            Bfly,
            16,
            0x1807,
            19,
            3,
            true,
        ),
        case("idx 5, full warp", Idx, 5, 0x1f, 20, 5, true),
        case("idx 40 is idx 8 (b[4:0])", Idx, 40, 0x1f, 2, 8, true),
        case(
            "idx 3 in width 8 is lane 3 of the own segment",
            Idx,
            3,
            0x1807,
            21,
            19,
            true,
        ),
        // j = minLane | (bval[4:0] & ~segmask): b = 13 beyond the segment wraps
        // into it (13 & 7 = 5), and p is true.
        case(
            "idx 13 in width 8 wraps into the segment",
            Idx,
            13,
            0x1807,
            2,
            5,
            true,
        ),
        case(
            "idx 13 in width 8 from segment 16",
            Idx,
            13,
            0x1807,
            17,
            21,
            true,
        ),
        // CUDA's packing ((32 - 8) << 8 | 0x1f) gives the same maxLane.
        case(
            "idx 13 with CUDA's c = 0x181f",
            Idx,
            13,
            0x181f,
            17,
            21,
            true,
        ),
        // A clamp below the segment end makes .idx out of range.
        case("idx 5 with clamp 3 in width 8", Idx, 5, 0x1803, 2, 2, false),
        case(
            "idx 3 with clamp 3 in width 8",
            Idx,
            3,
            0x1803,
            10,
            11,
            true,
        ),
        // c = 0: maxLane = 0, only lane 0 is in range for .idx.
        case("idx 4 with c = 0", Idx, 4, 0, 9, 9, false),
        case("idx 0 with c = 0", Idx, 0, 0, 9, 0, true),
        // A segment mask that is not a high-bit run (segmask 0x01, cval 0x1e): the
        // pseudo-code then splits the warp into even and odd lanes. Literal reading;
        // neither seed nor CUDA uses such a c (silicon to confirm).
        case(
            "segmask 0x01: odd lane 5 reads odd lane 5",
            Idx,
            4,
            0x011e,
            5,
            5,
            true,
        ),
        case(
            "segmask 0x01: even lane 4 reads even lane 6",
            Idx,
            7,
            0x011e,
            4,
            6,
            true,
        ),
        case(
            "segmask 0x01: odd lane 3 reads odd lane 7",
            Idx,
            7,
            0x011e,
            3,
            7,
            true,
        ),
        // Bits of c outside [4:0] and [12:8] are ignored.
        case(
            "stray c bits ignored",
            Idx,
            13,
            0xffff_e0e7 | 0x1807,
            17,
            21,
            true,
        ),
    ];

    #[test]
    fn hand_worked_source_lanes() {
        let a = ids();
        for case in CASES {
            let src = source_lane(case.mode, case.lane, case.b, case.c);
            let want = ShflSource {
                lane: case.from,
                in_range: case.p,
            };
            assert_eq!(src, want, "{}: {case:#x?}", case.why);
            let out = shfl_uniform(case.mode, FULL, FULL, &a, case.b, case.c);
            let got = out[case.lane as usize];
            let want = DestPred {
                d: Lane::Value(0x100 + case.from),
                p: Lane::Value(case.p),
            };
            assert_eq!(got, want, "{case:#x?}");
        }
    }

    /// A partial-warp case: which lanes are undefined, and why.
    #[derive(Debug)]
    struct Partial {
        why: &'static str,
        mode: ShflMode,
        b: u32,
        c: u32,
        membermask: u32,
        executing: u32,
        lane: usize,
        want: DestPred<u32>,
    }

    const UNDEF: DestPred<u32> = DestPred {
        d: Lane::Undefined,
        p: Lane::Undefined,
    };
    const IDLE: DestPred<u32> = DestPred {
        d: Lane::NotExecuted,
        p: Lane::NotExecuted,
    };
    const fn from(lane: u32, p: bool) -> DestPred<u32> {
        DestPred {
            d: Lane::Value(0x100 + lane),
            p: Lane::Value(p),
        }
    }

    const PARTIAL: &[Partial] = &[
        // "results are undefined if a thread sources a register from ... a thread
        // that is not in membermask."
        Partial {
            why: "down 1 reads lane 16, outside the mask",
            mode: Down,
            b: 1,
            c: 0x1f,
            membermask: 0xffff,
            executing: FULL,
            lane: 15,
            want: UNDEF,
        },
        Partial {
            why: "down 1 reads lane 15, inside the mask",
            mode: Down,
            b: 1,
            c: 0x1f,
            membermask: 0xffff,
            executing: FULL,
            lane: 14,
            want: from(15, true),
        },
        // "The behavior of shfl.sync is undefined if the executing thread is not in
        // the membermask."
        Partial {
            why: "an executing lane outside the mask",
            mode: Down,
            b: 1,
            c: 0x1f,
            membermask: 0xffff,
            executing: FULL,
            lane: 16,
            want: UNDEF,
        },
        // "... from an inactive thread": lane 0 has exited.
        Partial {
            why: "up 1 reads exited lane 0",
            mode: Up,
            b: 1,
            c: 0,
            membermask: FULL,
            executing: !1,
            lane: 1,
            want: UNDEF,
        },
        Partial {
            why: "the exited lane itself",
            mode: Up,
            b: 1,
            c: 0,
            membermask: FULL,
            executing: !1,
            lane: 0,
            want: IDLE,
        },
        // Out of range (j = 32 > maxLane 31), the lane copies its own a: defined
        // although it is the only participant.
        Partial {
            why: "out of range copies its own value even next to exited lanes",
            mode: Down,
            b: 1,
            c: 0x1f,
            membermask: 0x8000_0000,
            executing: 0x8000_0000,
            lane: 31,
            want: from(31, false),
        },
        Partial {
            why: "idx reads a lane that is executing but outside the mask",
            mode: Idx,
            b: 4,
            c: 0x1f,
            membermask: 0x0f,
            executing: 0xff,
            lane: 0,
            want: UNDEF,
        },
        Partial {
            why: "idx 4 reads a member lane",
            mode: Idx,
            b: 4,
            c: 0x1f,
            membermask: 0xf0,
            executing: 0xff,
            lane: 5,
            want: from(4, true),
        },
        Partial {
            why: "bfly 0 reads itself, always defined",
            mode: Bfly,
            b: 0,
            c: 0x1f,
            membermask: 0x1,
            executing: 0x1,
            lane: 0,
            want: from(0, true),
        },
    ];

    #[test]
    fn hand_worked_partial_warps() {
        let a = ids();
        for case in PARTIAL {
            let out = shfl_uniform(
                case.mode,
                case.membermask,
                case.executing,
                &a,
                case.b,
                case.c,
            );
            assert_eq!(out[case.lane], case.want, "{}: {case:#x?}", case.why);
        }
    }

    #[test]
    fn segment_c_follows_the_seed_and_cuda() {
        assert_eq!(segment_c(Down, 8), Some(0x1807));
        assert_eq!(segment_c(Up, 8), Some(0x1800));
        assert_eq!(segment_c(Idx, 32), Some(0x001f));
        assert_eq!(segment_c(Up, 32), Some(0));
        assert_eq!(segment_c(Bfly, 1), Some(0x1f00));
        assert_eq!(segment_c(Idx, 6), None);
        assert_eq!(segment_c(Idx, 64), None);
        assert_eq!(segment_c(Idx, 0), None);
        for w in [1u32, 2, 4, 8, 16, 32] {
            // CUDA: c = ((32 - width) << 8) | clamp.
            let cuda = (32 - w) << 8;
            assert_eq!(segment_c(Up, w), Some(cuda), "width {w}");
            assert_eq!(
                segment_c(Down, w).map(|c| c & !0x1f),
                Some(cuda),
                "width {w}"
            );
        }
    }

    /// CUDA's description of the width-`w` shuffles (Programming Guide, Warp Shuffle
    /// Functions), written independently of the pseudo-code: (source lane, in range).
    fn cuda(mode: ShflMode, lane: u32, b: u32, w: u32) -> (u32, bool) {
        let delta = b & 0x1f;
        let base = lane / w * w;
        match mode {
            Up if lane % w >= delta => (lane - delta, true),
            Down if lane % w + delta < w => (lane + delta, true),
            // "able to access elements from earlier groups of threads, however if
            // they attempt to access elements from later groups of threads their own
            // value of var will be returned".
            Bfly if (lane ^ delta) < base + w => (lane ^ delta, true),
            // "If srcLane is outside the range [0:width-1], the value returned
            // corresponds to the value of var held by the srcLane modulo width".
            Idx => (base + delta % w, true),
            Up | Down | Bfly => (lane, false),
        }
    }

    #[test]
    fn property_segments_agree_with_cuda() {
        let mut rng = Rng::new(0x7368_666c);
        for &mode in ShflMode::ALL {
            for w in [1u32, 2, 4, 8, 16, 32] {
                let Some(c) = segment_c(mode, w) else {
                    panic!("width {w}")
                };
                for lane in 0..32 {
                    for b in (0..40).chain((0..8).map(|_| rng.word())) {
                        let src = source_lane(mode, lane, b, c);
                        let (j, p) = cuda(mode, lane, b, w);
                        let want = ShflSource {
                            lane: j,
                            in_range: p,
                        };
                        assert_eq!(
                            src, want,
                            "{mode:?} width {w} lane {lane} b {b:#x} c {c:#x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn property_results_follow_the_source_lane() {
        let mut rng = Rng::new(0x7368_666d);
        for _ in 0..3000 {
            let (membermask, executing) = rng.masks();
            let mode = ShflMode::ALL[rng.below(4) as usize];
            let a = rng.words();
            let b: [u32; WARP_SIZE] = std::array::from_fn(|_| rng.below(64));
            let c: [u32; WARP_SIZE] = if rng.word() & 1 == 1 {
                [rng.word() & 0x1f1f; WARP_SIZE]
            } else {
                std::array::from_fn(|_| rng.word())
            };
            let out = shfl(mode, membermask, executing, &a, &b, &c);
            let case = format!(
                "{mode:?} membermask {membermask:#x} executing {executing:#x} b {b:?} c {c:#x?}"
            );
            lane_kinds_hold(membermask, executing, &out.map(|o| o.d), &case);
            lane_kinds_hold(membermask, executing, &out.map(|o| o.p), &case);
            let who = participants(membermask, executing);
            // Inputs of lanes that do not take part never reach a defined result.
            let mut a2 = a;
            for (lane, v) in a2.iter_mut().enumerate() {
                if !bit(who, lane) {
                    *v = !*v;
                }
            }
            let out2 = shfl(mode, membermask, executing, &a2, &b, &c);
            for lane in 0..WARP_SIZE {
                if !bit(who, lane) {
                    continue;
                }
                let src = source_lane(mode, lane as u32, b[lane], c[lane]);
                let j = src.lane as usize;
                let want = if bit(who, j) {
                    Lane::Value(a[j])
                } else {
                    Lane::Undefined
                };
                assert_eq!(out[lane].d, want, "lane {lane}: {case}");
                // d and p are defined together; out of range means own value.
                assert_eq!(
                    out[lane].p.value().is_some(),
                    want.value().is_some(),
                    "lane {lane}: {case}"
                );
                if out[lane].p == Lane::Value(false) {
                    assert_eq!(out[lane].d, Lane::Value(a[lane]), "lane {lane}: {case}");
                }
                if out[lane].d.value().is_some() {
                    assert_eq!(out[lane], out2[lane], "lane {lane}: {case}");
                }
            }
        }
    }

    #[test]
    fn every_mode_is_listed() {
        for &mode in ShflMode::ALL {
            // b = 0 reads the own lane in every mode with a full-warp c.
            let c = segment_c(mode, 32).unwrap();
            assert_eq!(
                source_lane(mode, 7, 0, c).lane,
                if mode == Idx { 0 } else { 7 },
                "{mode:?}"
            );
        }
        assert_eq!(ShflMode::ALL.len(), 4);
    }
}
