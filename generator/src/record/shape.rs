//! What a variant's records hold: which inputs and outputs, how many slots and how
//! wide, and which hold floats. Derived from the [`Semantics`], never written.

use ptxvec_oracle::float::Format;
use ptxvec_oracle::memory::Element;
use ptxvec_oracle::warp::WARP_SIZE;

use crate::semantics::Semantics;

/// A field's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Bit patterns of this width.
    Bits(u32),
    /// Predicates, `0x0` or `0x1`.
    Pred,
}

impl Field {
    /// The width the field is written at.
    pub fn width(self) -> u32 {
        match self {
            Field::Bits(w) => w,
            Field::Pred => 4,
        }
    }
}

/// An output of a record: `mem`, `d` or `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Out {
    /// The destination, per lane.
    D,
    /// Memory elements after the reduction.
    Mem,
    /// The predicate destination, per lane.
    P,
}

impl Out {
    /// The key in the vector files.
    pub fn name(self) -> &'static str {
        match self {
            Out::Mem => "mem",
            Out::D => "d",
            Out::P => "p",
        }
    }
}

/// One output: its slots, their field and, where they hold floats, the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutShape {
    /// Which output.
    pub out: Out,
    /// Slots: elements of the access, or lanes of the warp.
    pub slots: usize,
    /// The slots' values.
    pub field: Field,
    /// The float format of the values, for the NaN classes.
    pub float: Option<Format>,
}

/// The shape of a variant's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `red` and `cp.reduce.async.bulk`: `mem` and `operand`(s) in, `mem` out.
    Memory {
        /// Element width in bits.
        width: u32,
        /// Elements per access (vector length × 2 for packed types).
        elements: usize,
        /// The element's float format.
        float: Option<Format>,
    },
    /// A warp collective: `executing` and the rest per instruction.
    Warp(WarpShape),
}

/// The inputs and outputs of a warp collective's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpShape {
    /// A `membermask` operand (all but `activemask`).
    pub membermask: bool,
    /// Per-lane `a`, where the instruction has a source.
    pub a: Option<Field>,
    /// shfl's `b` and `c`.
    pub shfl: bool,
    /// `d` per lane.
    pub d: Field,
    /// `p` per lane (`shfl`, `match.all`).
    pub p: bool,
    /// The float format of `d` (`redux.sync` `.f32`).
    pub float: Option<Format>,
}

impl Shape {
    /// The shape of what `sem` computes as a text writes it: without `p` where the
    /// destination is written alone (`pair` false).
    pub fn written(sem: Semantics, pair: bool) -> Shape {
        match Shape::of(sem) {
            Shape::Warp(w) => Shape::Warp(WarpShape { p: w.p && pair, ..w }),
            s => s,
        }
    }

    /// The shape of what `sem` computes.
    pub fn of(sem: Semantics) -> Shape {
        let warp = |a: Option<Field>, d: Field, p: bool| WarpShape {
            membermask: true,
            a,
            shfl: false,
            d,
            p,
            float: None,
        };
        let b32 = Field::Bits(32);
        match sem {
            Semantics::Memory(r) => Shape::Memory {
                width: r.element.bits(),
                elements: usize::from(r.lanes.max(1)),
                float: match r.element {
                    Element::Float(f) => Some(f),
                    Element::Int(_) => None,
                },
            },
            Semantics::Vote(_) => Shape::Warp(warp(Some(Field::Pred), Field::Pred, false)),
            Semantics::Ballot => Shape::Warp(warp(Some(Field::Pred), b32, false)),
            Semantics::ReduxInt(_) => Shape::Warp(warp(Some(b32), b32, false)),
            Semantics::ReduxF32(_) => Shape::Warp(WarpShape {
                float: Some(Format::F32),
                ..warp(Some(b32), b32, false)
            }),
            Semantics::Match { all, wide } => Shape::Warp(warp(
                Some(Field::Bits(if wide { 64 } else { 32 })),
                b32,
                all,
            )),
            Semantics::Shfl(_) => Shape::Warp(WarpShape {
                shfl: true,
                ..warp(Some(b32), b32, true)
            }),
            Semantics::Activemask => Shape::Warp(WarpShape {
                membermask: false,
                ..warp(None, b32, false)
            }),
            Semantics::VoteActive(_) => Shape::Warp(WarpShape {
                membermask: false,
                ..warp(Some(Field::Pred), Field::Pred, false)
            }),
            Semantics::BallotActive => Shape::Warp(WarpShape {
                membermask: false,
                ..warp(Some(Field::Pred), b32, false)
            }),
            Semantics::ShflActive(_) => Shape::Warp(WarpShape {
                membermask: false,
                shfl: true,
                ..warp(Some(b32), b32, true)
            }),
        }
    }

    /// The outputs, in the order the files and the device buffers list them.
    pub fn outputs(self) -> Vec<OutShape> {
        match self {
            Shape::Memory {
                width,
                elements,
                float,
            } => vec![OutShape {
                out: Out::Mem,
                slots: elements,
                field: Field::Bits(width),
                float,
            }],
            Shape::Warp(WarpShape { d, p, float, .. }) => {
                let mut v = vec![OutShape {
                    out: Out::D,
                    slots: WARP_SIZE,
                    field: d,
                    float,
                }];
                if p {
                    v.push(OutShape {
                        out: Out::P,
                        slots: WARP_SIZE,
                        field: Field::Pred,
                        float: None,
                    });
                }
                v
            }
        }
    }
}
