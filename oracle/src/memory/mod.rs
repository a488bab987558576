//! The memory reductions, `red`, `atom` and `cp.reduce.async.bulk`, one element at a time:
//! `*a = op(*a, b)` for red, `dstMem[i] = op(dstMem[i], srcMem[i])` for the bulk
//! reduce. A vector or packed access is its elements side by side; the document
//! makes each element its own atomic operation (PTX ISA 9.7.13.6: "the atomicity is
//! guaranteed separately for each of the individual scalar elements"), so each is
//! computed alone.
//!
//! What the result may be depends on the [`Profile`]: the document's words, or what
//! sm_90 silicon was measured to do.

use crate::float::{self, Expect, Format, Ftz, MinMax, MinMaxMode, MinMaxNan, NanOut};
use crate::int::{self, IntOp, IntType};
use crate::profile::Profile;

pub mod atom;
pub mod sm90;

/// The instruction that performs the reduction, by the facts the shared rules
/// (the document's flushing, sm_90's flushing and NaN bits, where a generic
/// address points) ask of it: values, each with its witness, rather than arms in
/// those rules, so that a new instruction states its facts in its own module and
/// touches no rule. `red`'s, the bulk reduce's and `red.async`'s are here,
/// `atom`'s in [`atom`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Engine {
    /// The instruction.
    pub name: &'static str,
    /// Where the document says an `.f32` add flushes subnormal inputs and results.
    pub doc_f32_flush: Flush,
    /// Where sm_90 does (measured; `sm90::flushes`).
    pub sm90_f32_flush: Flush,
    /// Whose NaN an `.f64` add into shared memory keeps on sm_90 (measured;
    /// `sm90::add`).
    pub sm90_f64_shared_nan: KeptNan,
    /// Where a generic address may point.
    pub generic: Generic,
}

/// Where an instruction's `.f32` add flushes subnormals to sign-preserving zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Flush {
    /// Nowhere.
    Never,
    /// In every state space.
    Always,
    /// In global memory and not in shared memory; a generic address flushes as the
    /// memory it points into.
    InGlobal,
}

/// Whose NaN an `.f64` add keeps when one of its inputs is NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeptNan {
    /// The memory's, quieted.
    Memory,
    /// The operand's, as it is (signalling stays signalling).
    Operand,
}

/// Where an instruction's generic address points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Generic {
    /// The instruction names its state spaces and has no generic address: a
    /// variant stated as generic is one whose values no space changes.
    Never,
    /// Into global memory or the CTA's shared memory, decided at run time; a
    /// vector access's into global memory alone.
    Window,
    /// Into global memory alone.
    Global,
}

impl Engine {
    /// `red`.
    pub const RED: Engine = Engine {
        name: "red",
        // PTX ISA 9.7.13.6: "red.add.f32 on global memory flushes subnormal inputs
        // and results to sign-preserving zero; whereas red.add.f32 on shared
        // memory supports subnormal inputs and results".
        doc_f32_flush: Flush::InGlobal,
        // Measured: red.global.add.f32 and red.global.v2.f32.add flush inputs and
        // results, red.shared.add.f32 keeps them (vectors/silicon/sm_90/).
        sm90_f32_flush: Flush::InGlobal,
        // Measured: red.shared.add.f64 of two NaNs keeps the memory's, quieted.
        sm90_f64_shared_nan: KeptNan::Memory,
        // 9.7.13.6: "red with vector type may be used only with .global space and
        // with generic addressing where the address points to .global space"; a
        // scalar's generic address may point into either.
        generic: Generic::Window,
    };

    /// `cp.reduce.async.bulk`.
    pub const BULK_REDUCE: Engine = Engine {
        name: "cp.reduce.async.bulk",
        // 9.7.9.25.4.2: "cp.reduce.async.bulk.add.f32 flushes subnormal inputs and
        // results to sign-preserving zero".
        doc_f32_flush: Flush::Always,
        // Measured: it keeps them (0 + min subnormal = min subnormal), against the
        // document (errata E021).
        sm90_f32_flush: Flush::Never,
        // Measured: into shared memory of the cluster too, the operand's NaN wins.
        sm90_f64_shared_nan: KeptNan::Operand,
        // Its syntax names `.dst` and `.src` spaces.
        generic: Generic::Never,
    };

    /// `red.async`.
    pub const ASYNC_REDUCE: Engine = Engine {
        name: "red.async",
        // 9.7.13.7: no float type; an `.f32` add never arises.
        doc_f32_flush: Flush::Never,
        sm90_f32_flush: Flush::Never,
        sm90_f64_shared_nan: KeptNan::Memory,
        // 9.7.13.7: "If the generic address specified does not fall within the
        // address window of .global state space, the behavior is undefined."
        generic: Generic::Global,
    };

    /// Where a generic address of an access of `vector` form points: `Some(true)`
    /// into global memory, `None` into either window, decided at run time.
    pub fn generic_points_global(self, vector: bool) -> Option<bool> {
        match self.generic {
            Generic::Global => Some(true),
            Generic::Window if vector => Some(true),
            Generic::Window | Generic::Never => None,
        }
    }
}

impl Flush {
    /// Whether an `.f32` add into `space` flushes: `None` where a generic address
    /// may point into either window, which the instruction decides at run time.
    pub fn at(self, space: Space, generic_points_global: Option<bool>) -> Option<bool> {
        match (self, space) {
            (Flush::Never, _) => Some(false),
            (Flush::Always, _) => Some(true),
            (Flush::InGlobal, Space::Global) => Some(true),
            (Flush::InGlobal, Space::SharedCta | Space::SharedCluster) => Some(false),
            (Flush::InGlobal, Space::Generic) => generic_points_global,
        }
    }
}

/// Where the destination lies, as the instruction names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    /// No state space: generic addressing.
    Generic,
    /// `.global`.
    Global,
    /// `.shared` / `.shared::cta`.
    SharedCta,
    /// `.shared::cluster`.
    SharedCluster,
}

/// The type of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Element {
    /// `.b32`, `.u32`, `.s32`, `.b64`, `.u64`, `.s64`.
    Int(IntType),
    /// `.f16`, `.bf16`, `.f32`, `.f64`; a packed `.f16x2` is two `.f16` elements.
    Float(Format),
}

impl Element {
    /// The element's width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Element::Int(t) => t.bits,
            Element::Float(f) => f.width(),
        }
    }
}

/// The operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// `.and` … `.max` on integers and bits.
    Int(IntOp),
    /// Floating-point `.add`.
    Add,
    /// Floating-point `.min` / `.max`.
    MinMax(MinMax),
}

/// One executable memory-reduction variant: everything that decides its values.
/// Memory order, scope and cache hints change no value and are not here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reduction {
    /// The instruction that performs it.
    pub engine: Engine,
    /// The destination's state space.
    pub space: Space,
    /// The operation.
    pub op: Op,
    /// The element type.
    pub element: Element,
    /// Elements per access: the vector width times two for a packed type; 1 for a
    /// scalar. The bulk reduce counts one.
    pub lanes: u8,
    /// A packed type (`.f16x2`): two elements to a 32-bit register. It changes no
    /// value, but `.v2.f16` and `.f16x2` are different instructions to run.
    pub packed: bool,
    /// `.noftz` is written.
    pub noftz: bool,
}

impl Reduction {
    /// The expected value of one destination element after the reduction, from its
    /// old value `r` and the operand element `s` (raw bits, low bits used).
    pub fn element(&self, profile: Profile, r: u64, s: u64) -> Expect {
        match (self.op, self.element) {
            (Op::Int(op), Element::Int(ty)) => Expect::Bits(int::reduce(op, ty, r, s)),
            (Op::Add, Element::Float(fmt)) => self.add(profile, fmt, r, s),
            (Op::MinMax(op), Element::Float(fmt)) => self.min_max(profile, op, fmt, r, s),
            // The spec's tables never pair these; a value is still owed, so the
            // honest answer is that nothing is promised.
            (Op::Int(_), Element::Float(_)) | (Op::Add | Op::MinMax(_), Element::Int(_)) => {
                Expect::Undefined
            }
        }
    }

    /// A `.vN` form (more elements than a packed register holds).
    pub fn vector(&self) -> bool {
        self.lanes > if self.packed { 2 } else { 1 }
    }

    /// Whether subnormals are flushed, as the document states it: `Some(true)` or
    /// `Some(false)` where it says, `None` where it leaves it open.
    pub fn doc_flushes(&self) -> Option<bool> {
        let Element::Float(fmt) = self.element else {
            return Some(false);
        };
        if self.noftz || fmt != Format::F32 || self.op != Op::Add {
            // PTX ISA 9.7.13.6: `.noftz` "preserves subnormal inputs and results";
            // f64 add and 16-bit min/max are not said to flush.
            return Some(false);
        }
        self.engine
            .doc_f32_flush
            .at(self.space, self.engine.generic_points_global(self.vector()))
    }

    /// A scalar generic address that resolves at run time into either window:
    /// the values are those of the window it points into, which a record does not
    /// say.
    pub fn generic_by_window(&self) -> bool {
        self.space == Space::Generic && self.engine.generic == Generic::Window && !self.vector()
    }

    fn add(&self, profile: Profile, fmt: Format, r: u64, s: u64) -> Expect {
        match profile {
            Profile::PtxIsa => {
                // The document says "rounds to nearest even" and nothing about NaN
                // bits: a NaN result is any NaN.
                let under = |ftz| {
                    Expect::nan_unspecified(fmt, float::add(fmt, r, s, ftz, NanOut::Canonical))
                };
                match self.doc_flushes() {
                    Some(true) => under(Ftz::Flush),
                    Some(false) => under(Ftz::Preserve),
                    None => Expect::either(under(Ftz::Flush), under(Ftz::Preserve)),
                }
            }
            Profile::Sm90 if self.generic_by_window() => {
                // A scalar generic address resolves at run time, and sm_90 then adds
                // as the window's state space does (measured: vectors.json, the
                // `window` entries of red.add.f32 and red.add.f64). A record does
                // not say which window, so either result is sm_90's.
                let at = |space| Expect::Bits(sm90::add(&Reduction { space, ..*self }, fmt, r, s));
                Expect::either(at(Space::Global), at(Space::SharedCta))
            }
            Profile::Sm90 => Expect::Bits(sm90::add(self, fmt, r, s)),
        }
    }

    fn min_max(&self, profile: Profile, op: MinMax, fmt: Format, r: u64, s: u64) -> Expect {
        let mode = MinMaxMode {
            ftz: Ftz::Preserve,
            nan: MinMaxNan::Ignore,
            abs: false,
        };
        match profile {
            Profile::PtxIsa => {
                // red's and cp.reduce's texts define neither the order of ±0 nor
                // what a NaN operand does for their 16-bit min/max. What they do
                // say: the result is one of the operands when neither is NaN.
                let (nr, ns) = (fmt.is_nan(r), fmt.is_nan(s));
                match (nr, ns) {
                    (false, false) => {
                        let zeros =
                            fmt.abs(r) == 0 && fmt.abs(s) == 0 && r & fmt.mask() != s & fmt.mask();
                        if zeros {
                            Expect::Either(r & fmt.mask(), s & fmt.mask())
                        } else {
                            Expect::Bits(float::min_max(op, fmt, r, s, mode))
                        }
                    }
                    (true, true) => Expect::AnyNan,
                    (true, false) => Expect::BitsOrNan(s & fmt.mask()),
                    (false, true) => Expect::BitsOrNan(r & fmt.mask()),
                }
            }
            Profile::Sm90 => Expect::Bits(float::min_max(op, fmt, r, s, sm90::min_max_mode(self))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn red(space: Space, op: Op, element: Element, noftz: bool) -> Reduction {
        Reduction {
            engine: Engine::RED,
            space,
            op,
            element,
            lanes: 1,
            packed: false,
            noftz,
        }
    }
    const F32: Element = Element::Float(Format::F32);
    const F16: Element = Element::Float(Format::F16);
    const F64: Element = Element::Float(Format::F64);
    const GLOBAL_ADD_F32: Reduction = red(Space::Global, Op::Add, F32, false);
    const SHARED_ADD_F32: Reduction = red(Space::SharedCta, Op::Add, F32, false);
    const GENERIC_ADD_F32: Reduction = red(Space::Generic, Op::Add, F32, false);
    const GENERIC_ADD_V2_F32: Reduction = Reduction {
        lanes: 2,
        ..GENERIC_ADD_F32
    };
    const BULK_ADD_F32: Reduction = Reduction {
        engine: Engine::BULK_REDUCE,
        ..GLOBAL_ADD_F32
    };
    const GLOBAL_ADD_F64: Reduction = red(Space::Global, Op::Add, F64, false);
    const SHARED_ADD_F64: Reduction = red(Space::SharedCta, Op::Add, F64, false);
    const MIN_F16: Reduction = Reduction {
        lanes: 2,
        ..red(Space::Global, Op::MinMax(MinMax::Min), F16, true)
    };
    const INC_U32: Reduction = red(
        Space::Global,
        Op::Int(IntOp::Inc),
        Element::Int(IntType::U32),
        false,
    );

    /// (variant, profile, memory, operand, expected, where the expectation comes from)
    #[rustfmt::skip]
    const CASES: &[(Reduction, Profile, u64, u64, Expect, &str)] = &[
        // PTX ISA 9.7.13.6: "red.add.f32 on global memory flushes subnormal inputs
        // and results to sign-preserving zero": -min subnormal becomes -0, and
        // -0 + +0 = +0.
        (GLOBAL_ADD_F32, Profile::PtxIsa, 0x8000_0001, 0x0000_0000, Expect::Bits(0x0000_0000), "doc: global flushes the input"),
        (GLOBAL_ADD_F32, Profile::PtxIsa, 0x8000_0001, 0x8000_0000, Expect::Bits(0x8000_0000), "doc: flushed to -0, sign kept"),
        // "...whereas red.add.f32 on shared memory supports subnormal inputs and results".
        (SHARED_ADD_F32, Profile::PtxIsa, 0x8000_0001, 0x0000_0000, Expect::Bits(0x8000_0001), "doc: shared keeps subnormals"),
        // Generic addressing: the text names no rule, so both readings are accepted.
        (GENERIC_ADD_F32, Profile::PtxIsa, 0x0000_0001, 0x0000_0000, Expect::Either(0x0000_0000, 0x0000_0001), "doc: silent on generic"),
        // "red with vector type may be used only ... with generic addressing where
        // the address points to .global space": a generic vector f32 add flushes.
        (GENERIC_ADD_V2_F32, Profile::PtxIsa, 0x0000_0001, 0x0000_0000, Expect::Bits(0x0000_0000), "doc: a vector's generic address is global"),
        // sm_90 measured every window (vectors.json, red.add.f32 global/shared):
        // flushed as .global, kept as .shared.
        (GENERIC_ADD_F32, Profile::Sm90, 0x0000_0001, 0x0000_0000, Expect::Either(0x0000_0000, 0x0000_0001), "vectors.json: red.add.f32#44 gave 0x0 (global), 0x1 (shared)"),
        // cp.reduce.async.bulk: "flushes subnormal inputs and results".
        (BULK_ADD_F32, Profile::PtxIsa, 0x0000_0000, 0x0000_0001, Expect::Bits(0x0000_0000), "doc: the bulk reduce flushes"),
        // The document gives no NaN bits for add: any NaN.
        (GLOBAL_ADD_F32, Profile::PtxIsa, 0x7f80_0000, 0xff80_0000, Expect::AnyNan, "doc: inf - inf is some NaN"),
        // 16-bit min/max: the red text orders neither zeros nor NaNs.
        (MIN_F16, Profile::PtxIsa, 0x0000, 0x8000, Expect::Either(0x0000, 0x8000), "doc: zeros unordered"),
        (MIN_F16, Profile::PtxIsa, 0x7e00, 0x3c00, Expect::BitsOrNan(0x3c00), "doc: NaN treatment unstated"),
        (MIN_F16, Profile::PtxIsa, 0x3c00, 0x4000, Expect::Bits(0x3c00), "min(1, 2) = 1"),
        // inc(r, s) = (r >= s) ? 0 : r+1.
        (INC_U32, Profile::PtxIsa, 7, 7, Expect::Bits(0), "doc formula: r = s wraps"),
        (INC_U32, Profile::Sm90, 6, 7, Expect::Bits(7), "doc formula: r < s counts"),
        // sm_90, measured (vectors/silicon/sm_90/):
        (GLOBAL_ADD_F32, Profile::Sm90, 0x0000_0000, 0x0000_0001, Expect::Bits(0x0000_0000), "red.jsonl:4"),
        (BULK_ADD_F32, Profile::Sm90, 0x0000_0000, 0x0000_0001, Expect::Bits(0x0000_0001), "cp.reduce.async.bulk.jsonl:3754 (E021)"),
        (BULK_ADD_F32, Profile::Sm90, 0x007f_ffff, 0x0000_0001, Expect::Bits(0x0080_0000), "cp.reduce.async.bulk.jsonl:3854 (E021)"),
        (GLOBAL_ADD_F64, Profile::Sm90, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000, Expect::Bits(0xfff8_0000_0000_0000), "red.jsonl:1565"),
        (MIN_F16, Profile::Sm90, 0x0000, 0x8000, Expect::Bits(0x8000), "red.vector: -0 < +0"),
        (MIN_F16, Profile::Sm90, 0x7c01, 0x3c00, Expect::Bits(0x3c00), "red.vector: a signalling NaN is ignored"),
    ];

    #[test]
    fn hand_worked_cases_from_the_doc_and_from_silicon() {
        for &(r, p, m, o, want, why) in CASES {
            let got = r.element(p, m, o);
            assert_eq!(
                got, want,
                "{r:?} {p:?} mem {m:#x} operand {o:#x} ({why}): got {got:#x?}, want {want:#x?}"
            );
        }
    }

    #[test]
    fn f64_nan_payloads_follow_the_destination_memory_on_sm_90() {
        let snan = 0x7ff0_0000_0000_0001;
        let qnan = 0x7ff8_0000_0000_0002;
        // Global: the operand's NaN wins and a signalling NaN stays signalling.
        assert_eq!(
            GLOBAL_ADD_F64.element(Profile::Sm90, qnan, snan),
            Expect::Bits(snan)
        );
        assert_eq!(
            GLOBAL_ADD_F64.element(Profile::Sm90, snan, 0),
            Expect::Bits(snan)
        );
        // Shared: the memory's NaN wins, quieted.
        assert_eq!(
            SHARED_ADD_F64.element(Profile::Sm90, snan, qnan),
            Expect::Bits(0x7ff8_0000_0000_0001)
        );
        // The document promises only "a NaN".
        assert_eq!(
            SHARED_ADD_F64.element(Profile::PtxIsa, snan, qnan),
            Expect::AnyNan
        );
    }

    #[test]
    fn the_sm_90_profile_is_exact_per_space_and_inside_the_document() {
        // sm_90 is one GPU's bits; the document's profile must accept them wherever
        // the ledger records no difference (E021 is the bulk f32 add). A scalar
        // generic address may point into either window, each exact.
        let samples = [
            0u64,
            1,
            0x8000_0001,
            0x3c00,
            0x7e00,
            0x7c01,
            0x8000,
            0x7f80_0000,
            0xff80_0000,
            0x4000_0000,
            0x7ff0_0000_0000_0001,
        ];
        for r in [
            GLOBAL_ADD_F32,
            SHARED_ADD_F32,
            GENERIC_ADD_F32,
            GLOBAL_ADD_F64,
            SHARED_ADD_F64,
            MIN_F16,
            INC_U32,
        ] {
            let fmt = match r.element {
                Element::Float(f) => f,
                Element::Int(_) => Format::F64,
            };
            for &m in &samples {
                for &o in &samples {
                    let windows = match r.element(Profile::Sm90, m, o) {
                        Expect::Bits(x) => vec![x],
                        Expect::Either(x, y) if r.space == Space::Generic => {
                            let at = |space| Reduction { space, ..r }.element(Profile::Sm90, m, o);
                            assert_eq!(
                                (Expect::Bits(x), Expect::Bits(y)),
                                (at(Space::Global), at(Space::SharedCta)),
                                "{r:?} {m:#x} {o:#x}: the generic windows are the named spaces"
                            );
                            vec![x, y]
                        }
                        other => panic!("{r:?} sm_90 {m:#x} {o:#x} is not exact: {other:?}"),
                    };
                    let doc = r.element(Profile::PtxIsa, m, o);
                    for bits in windows {
                        assert!(
                            doc.accepts(fmt, bits),
                            "{r:?} {m:#x} {o:#x}: sm_90 {bits:#x} outside the doc's {doc:#x?}"
                        );
                    }
                }
            }
        }
    }
}
