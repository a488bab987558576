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
    /// Every output, in the files' order.
    pub const ALL: [Out; 3] = [Out::D, Out::Mem, Out::P];

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
    /// A memory instruction (`red`, `atom`, `cp.reduce.async.bulk`): the slots
    /// its family declares.
    Memory(MemoryShape),
    /// A warp collective: `executing` and the rest per instruction.
    Warp(WarpShape),
}

/// Which way a memory record's slot goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// An input alone (red's `operand`, `.cas`'s `swap`).
    In,
    /// An output alone (atom's `d`, the value it found).
    Out,
    /// In and out: the memory, before and after.
    Both,
}

/// Whose values a memory record's slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Along {
    /// One value per element of the access, which every thread of a record
    /// shares: the memory.
    Element,
    /// One value per element for each thread: a one-thread record holds one list
    /// (`operand`), a contention record one list per thread, written under the
    /// plural key (`operands`), and an output one permutation per element.
    Thread,
}

/// What a memory record's slot is, whatever the width: a family declares one
/// `static` each, and a variant's [`Slot`]s pair them with its widths. The shared
/// record code (the codecs, `fit`, the self-checking modules, the grade pages)
/// reads a memory record through these alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotKind {
    /// The key in the vector files (a thread input of a contention record adds
    /// `s`, so a name never ends in `s`); an output's is an [`Out`]'s name.
    pub name: &'static str,
    /// Input, output or both.
    pub dir: Dir,
    /// The memory's elements, or each thread's.
    pub along: Along,
    /// The doc's names of the operand that holds it (`b` for red's operand, `c`
    /// for `.cas`'s swap), as the operand binding reads the syntax.
    pub operands: &'static [&'static str],
    /// What it holds, for one record (the self-checking modules' comments).
    pub about: &'static str,
    /// What each contending thread holds in it (the same comments).
    pub per_thread: &'static str,
}

impl SlotKind {
    /// The output it is, where it is one.
    pub fn out(&self) -> Option<Out> {
        match self.dir {
            Dir::In => None,
            Dir::Out | Dir::Both => Out::ALL.into_iter().find(|o| o.name() == self.name),
        }
    }

    /// The key a contention record writes it under: one list per thread.
    pub fn threads_key(&self) -> String {
        format!("{}s", self.name)
    }
}

/// One slot of a variant's memory records: its kind, and the widths of its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// What it is (read through `Deref`: `slot.name`).
    pub kind: &'static SlotKind,
    /// Element width in bits.
    pub width: u32,
    /// The register the instruction takes the elements in, in bits: the element
    /// width; 32 for two 16-bit elements (`.f16x2`); 128 for two 64-bit elements
    /// (`.b128`, assembled from and split into 64-bit halves).
    pub register: u32,
    /// The element's float format.
    pub float: Option<Format>,
}

impl Slot {
    /// A slot of `kind` of `width`-bit elements, each in its own register.
    pub fn of(kind: &'static SlotKind, width: u32, float: Option<Format>) -> Slot {
        Slot {
            kind,
            width,
            register: width,
            float,
        }
    }
}

impl std::ops::Deref for Slot {
    type Target = SlotKind;

    fn deref(&self) -> &SlotKind {
        self.kind
    }
}

/// The most slots a memory record has: the memory, two inputs, one output.
const MAX_SLOTS: usize = 4;

/// A memory variant's records: their elements and the slots the family declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryShape {
    /// Elements per access (vector length × 2 for packed types).
    pub elements: usize,
    /// The slots in the order the family declares them; `len` of them.
    slots: [Option<Slot>; MAX_SLOTS],
}

impl MemoryShape {
    /// `elements` per access, the slots `slots` (at most four: an error in a
    /// family's declaration, which every test of its variants meets).
    pub fn new(elements: usize, slots: &[Slot]) -> MemoryShape {
        assert!(slots.len() <= MAX_SLOTS, "a memory record has at most {MAX_SLOTS} slots");
        let mut held = [None; MAX_SLOTS];
        for (h, s) in held.iter_mut().zip(slots) {
            *h = Some(*s);
        }
        MemoryShape { elements, slots: held }
    }

    /// The slots, as declared.
    pub fn slots(&self) -> impl Iterator<Item = Slot> + '_ {
        self.slots.iter().flatten().copied()
    }

    /// The memory: the slot of both directions.
    pub fn memory(&self) -> Option<Slot> {
        self.slots().find(|s| s.dir == Dir::Both)
    }

    /// Each thread's inputs (`operand`, `swap`), as declared.
    pub fn inputs(&self) -> impl Iterator<Item = Slot> + '_ {
        self.slots().filter(|s| s.dir == Dir::In)
    }

    /// Each thread's outputs (atom's `d`), as declared.
    pub fn thread_outputs(&self) -> impl Iterator<Item = Slot> + '_ {
        self.slots().filter(|s| s.dir == Dir::Out)
    }

    /// The slot named `name`.
    pub fn slot(&self, name: &str) -> Option<Slot> {
        self.slots().find(|s| s.name == name)
    }

    /// The element width of the memory (every slot's, in the families so far).
    pub fn width(&self) -> u32 {
        self.memory().map_or(0, |s| s.width)
    }
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
    /// The input classes a record names (`class`): one per catalog its inputs are
    /// drawn from (the membermask's, the executing set's, the values' pattern...).
    pub classes: usize,
}

impl WarpShape {
    /// Every source key a warp record may hold, `a`, `b`, `c`, with the source the
    /// shape holds under it, if any.
    pub fn every_source(self) -> [(&'static str, Option<Source>); 3] {
        [("a", self.a), ("b", self.b), ("c", self.c)]
    }

    /// The sources the records hold, by key, in the order `a`, `b`, `c`.
    pub fn sources(self) -> impl Iterator<Item = (&'static str, Source)> {
        self.every_source().into_iter().filter_map(|(k, s)| Some((k, s?)))
    }

    /// One warp, no membermask, no source, `d` a 32-bit pattern per lane, one input
    /// class: what a family's shape spreads (`..WarpShape::ONE_WARP`) for the fields
    /// it does not state, so that a field added here costs no family that keeps its
    /// default.
    pub const ONE_WARP: WarpShape = WarpShape {
        warps: 1,
        membermask: false,
        a: None,
        b: None,
        c: None,
        d: Field::Bits(32),
        p: false,
        float: None,
        classes: 1,
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
            Shape::Memory(m) => {
                let mut v: Vec<OutShape> = m
                    .slots()
                    .filter_map(|s| {
                        Some(OutShape {
                            out: s.out()?,
                            slots: m.elements,
                            field: Field::Bits(s.width),
                            float: s.float,
                        })
                    })
                    .collect();
                v.sort_by_key(|o| o.out);
                v
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
