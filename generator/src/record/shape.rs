//! What a variant's records hold: which inputs and outputs, how many slots and how
//! wide, and which hold floats. Each family states its own (`crate::family`).

use ptxvec_oracle::float::Format;
use ptxvec_oracle::warp::WARP_SIZE;

/// A field's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Bit patterns of this width.
    Bits(u32),
    /// Predicates, `0x0` or `0x1`.
    Pred,
}

impl Field {
    /// `b` as a value of this field: a pattern of its width, or a predicate's 0 or 1.
    pub fn fit(self, b: super::Bits) -> Result<super::Bits, super::bits::BitsError> {
        match self {
            Field::Bits(w) => b.fit(w),
            Field::Pred => b.fit_pred(),
        }
    }

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
    /// `red`, `atom` and `cp.reduce.async.bulk`: `mem` and `operand`(s) in, `mem`
    /// out, and for `atom` the value found, `d`.
    Memory {
        /// Element width in bits.
        width: u32,
        /// Elements per access (vector length × 2 for packed types).
        elements: usize,
        /// The element's float format.
        float: Option<Format>,
        /// The old value is returned in `d` (`atom`).
        returns: bool,
        /// A second operand, `swap` (`atom.cas`'s `c`).
        swap: bool,
    },
    /// A warp collective: `executing` and the rest per instruction.
    Warp(WarpShape),
}

/// Whether a warp record holds a source once per lane or once for the warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// A list of one value per lane.
    Lane,
    /// One value for the whole warp (a text's immediate, or a uniform register).
    Warp,
    /// Either, record by record (shfl's `b`).
    Either,
}

/// A source operand of a warp record: what each value is, and how many there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// The values.
    pub field: Field,
    /// One per lane, or one for the warp.
    pub per: Per,
    /// The syntax braces the operand (`bar.red`'s `a{, b}, {!}c`): a record may
    /// leave it out, and its text then does too.
    pub optional: bool,
}

impl Source {
    /// One value per lane.
    pub const fn lane(field: Field) -> Source {
        Source { field, per: Per::Lane, optional: false }
    }

    /// One value for the warp.
    pub const fn warp(field: Field) -> Source {
        Source { field, per: Per::Warp, optional: false }
    }

    /// The same source, which a record may leave out.
    pub const fn optional(self) -> Source {
        Source { optional: true, ..self }
    }
}

/// The inputs and outputs of a warp collective's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpShape {
    /// The warps of the CTA a record runs: 1 for a warp collective, more for an
    /// instruction over the CTA (`bar.red`). Lanes and masks then span the CTA's
    /// threads, warp after warp, up to the largest CTA's 1024 ([`super::LaneMask`]).
    pub warps: usize,
    /// A `membermask` operand (all but `activemask`).
    pub membermask: bool,
    /// The sources the records hold under the doc's operand names: `a` (the
    /// collectives' value per lane; `bar.red`'s barrier number), `b` (shfl's lane
    /// or offset), `c` (shfl's clamp and segment mask; `bar.red`'s predicate per
    /// lane).
    pub a: Option<Source>,
    /// See `a`.
    pub b: Option<Source>,
    /// See `a`.
    pub c: Option<Source>,
    /// `d` per lane.
    pub d: Field,
    /// `p` per lane (`shfl`, `match.all`).
    pub p: bool,
    /// The float format of `d` (`redux.sync` `.f32`).
    pub float: Option<Format>,
}

impl WarpShape {
    /// The sources the records hold, by key, in the order `a`, `b`, `c`.
    pub fn sources(self) -> impl Iterator<Item = (&'static str, Source)> {
        [("a", self.a), ("b", self.b), ("c", self.c)]
            .into_iter()
            .filter_map(|(k, s)| Some((k, s?)))
    }

    /// One warp, no membermask, no source, `d` a 32-bit pattern per lane: what a
    /// family's shape spreads (`..WarpShape::ONE_WARP`) for the fields it does not
    /// state, so that a field added here costs no family that keeps its default.
    pub const ONE_WARP: WarpShape = WarpShape {
        warps: 1,
        membermask: false,
        a: None,
        b: None,
        c: None,
        d: Field::Bits(32),
        p: false,
        float: None,
    };

    /// The threads of a record: lanes of its warps, warp after warp.
    pub fn threads(self) -> usize {
        WARP_SIZE * self.warps
    }

    /// A collective with a membermask, source `a` and destination `d` alone.
    pub fn collective(a: Option<Field>, d: Field) -> WarpShape {
        WarpShape {
            membermask: true,
            a: a.map(Source::lane),
            d,
            ..WarpShape::ONE_WARP
        }
    }
}

impl Shape {
    /// The shape as a text writes it: without `p` where the destination is
    /// written alone (`pair` false).
    pub fn written(self, pair: bool) -> Shape {
        match self {
            Shape::Warp(w) => Shape::Warp(WarpShape { p: w.p && pair, ..w }),
            s => s,
        }
    }

    /// The outputs, in the order the files and the device buffers list them.
    pub fn outputs(self) -> Vec<OutShape> {
        match self {
            Shape::Memory {
                width,
                elements,
                float,
                returns,
                ..
            } => {
                let slots = |out| OutShape {
                    out,
                    slots: elements,
                    field: Field::Bits(width),
                    float,
                };
                let d = returns.then(|| slots(Out::D));
                d.into_iter().chain([slots(Out::Mem)]).collect()
            }
            Shape::Warp(w @ WarpShape { d, p, float, .. }) => {
                let mut v = vec![OutShape {
                    out: Out::D,
                    slots: w.threads(),
                    field: d,
                    float,
                }];
                if p {
                    v.push(OutShape {
                        out: Out::P,
                        slots: w.threads(),
                        field: Field::Pred,
                        float: None,
                    });
                }
                v
            }
        }
    }
}
