//! Which instructions are swept: one row per instruction, its PTX spelling up to the
//! operands, the oracle reduction it performs, and how a pair lies in its access.
//! One row shape ([`Swept`]) for both catalogs, the 16-bit sweeps' ([`Bits16`],
//! here) and the wide sweeps' (`wide::Wide`).

use std::marker::PhantomData;

use ptxvec_oracle::float::{Format, MinMax};
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};

/// How a pair lies in the access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layout {
    /// One 16-bit element: memory `mem`, operand `operand`.
    Scalar,
    /// Two 16-bit elements: element 0 `(mem, operand)`, element 1 `(operand, mem)`;
    /// the result is element 0 in the low half.
    Swapped,
}

impl Layout {
    /// The name in the evidence file.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Scalar => "scalar",
            Layout::Swapped => "swapped",
        }
    }
}

/// One swept instruction, in either catalog: its PTX spelling up to the operands,
/// the oracle reduction it performs, and how a pair lies in its access. `C` says
/// which catalog it belongs to ([`Bits16`] or `wide::Wide`), and so which pairs it
/// sweeps and how they are digested (each catalog's own methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Swept<C> {
    /// The instruction up to its operands, as the kernel spells it (ptxas 13.5 takes it).
    pub name: &'static str,
    /// What each element computes.
    pub reduction: Reduction,
    /// How a pair lies in the access.
    pub layout: Layout,
    /// The catalog.
    pub catalog: PhantomData<C>,
}

/// A catalog of swept instructions: its rows, in the order they run and are
/// recorded.
pub trait Catalog: Sized + 'static {
    /// Every row.
    const ALL: &'static [Swept<Self>];
    /// What one of its sweeps is called in messages (`sweep`, `wide sweep`).
    const NOUN: &'static str;
}

impl<C: Catalog> Swept<C> {
    /// Every sweep of the catalog, in the order they run and are recorded.
    pub const ALL: &'static [Swept<C>] = C::ALL;

    /// The sweep with this name.
    pub fn find(name: &str) -> Option<&'static Swept<C>> {
        C::ALL.iter().find(|s| s.name == name)
    }
}

impl<C> Swept<C> {
    /// A row of a catalog.
    pub const fn new(name: &'static str, reduction: Reduction, layout: Layout) -> Swept<C> {
        Swept {
            name,
            reduction,
            layout,
            catalog: PhantomData,
        }
    }

    /// Whether the bulk-copy engine performs it (`cp.reduce.async.bulk`).
    pub fn is_bulk(&self) -> bool {
        self.reduction.engine == Engine::BULK_REDUCE
    }

    /// Whether its memory is the CTA's shared memory.
    pub fn is_shared(&self) -> bool {
        self.reduction.space == Space::SharedCta
    }

    /// Whether the instruction returns the memory it found (`atom`).
    pub fn returns(&self) -> bool {
        self.reduction.engine == Engine::ATOM
    }

    /// Whether both elements travel in one 32-bit register (the `x2` types).
    pub fn is_packed(&self) -> bool {
        self.reduction.packed
    }

    /// The element format.
    pub fn format(&self) -> Format {
        match self.reduction.element {
            Element::Float(f) => f,
            // Every row is built on a float (each catalog's test holds it to
            // that); an integer element would be a catalog error.
            Element::Int(_) => Format::F16,
        }
    }
}

/// The 16-bit sweeps' catalog: every (memory, operand) pair of 22 memory
/// reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bits16;

/// One 16-bit sweep.
pub type Sweep = Swept<Bits16>;

const fn red(op: Op, fmt: Format, lanes: u8, packed: bool) -> Reduction {
    Reduction {
        engine: Engine::RED,
        space: Space::Global,
        op,
        element: Element::Float(fmt),
        lanes,
        packed,
        noftz: true,
    }
}

/// `atom`'s add: red's element function on the same pairs (the kernel also holds
/// the value it returns to the memory it found).
const fn atom(fmt: Format, lanes: u8, packed: bool) -> Reduction {
    Reduction {
        engine: Engine::ATOM,
        ..red(Op::Add, fmt, lanes, packed)
    }
}

const fn bulk(op: Op, fmt: Format) -> Reduction {
    Reduction {
        engine: Engine::BULK_REDUCE,
        space: Space::Global,
        op,
        element: Element::Float(fmt),
        lanes: 1,
        packed: false,
        // ptxas 13.5: `.noftz` is required with f16/bf16 add and rejected with min/max.
        noftz: matches!(op, Op::Add),
    }
}

const fn sweep(name: &'static str, reduction: Reduction, layout: Layout) -> Sweep {
    Sweep::new(name, reduction, layout)
}

const MIN: Op = Op::MinMax(MinMax::Min);
const MAX: Op = Op::MinMax(MinMax::Max);
const F16: Format = Format::F16;
const BF16: Format = Format::BF16;

impl Catalog for Bits16 {
    const NOUN: &'static str = "sweep";
    #[rustfmt::skip]
    const ALL: &'static [Sweep] = &[
        sweep("red.global.add.noftz.f16", red(Op::Add, F16, 1, false), Layout::Scalar),
        sweep("red.global.add.noftz.bf16", red(Op::Add, BF16, 1, false), Layout::Scalar),
        sweep("red.global.add.noftz.f16x2", red(Op::Add, F16, 2, true), Layout::Swapped),
        sweep("red.global.add.noftz.bf16x2", red(Op::Add, BF16, 2, true), Layout::Swapped),
        sweep("red.global.v2.f16.add.noftz", red(Op::Add, F16, 2, false), Layout::Swapped),
        sweep("red.global.v2.bf16.add.noftz", red(Op::Add, BF16, 2, false), Layout::Swapped),
        sweep("red.global.v2.f16.min.noftz", red(MIN, F16, 2, false), Layout::Swapped),
        sweep("red.global.v2.f16.max.noftz", red(MAX, F16, 2, false), Layout::Swapped),
        sweep("red.global.v2.bf16.min.noftz", red(MIN, BF16, 2, false), Layout::Swapped),
        sweep("red.global.v2.bf16.max.noftz", red(MAX, BF16, 2, false), Layout::Swapped),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.noftz.f16"), bulk(Op::Add, F16), Layout::Scalar),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.noftz.bf16"), bulk(Op::Add, BF16), Layout::Scalar),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".min.f16"), bulk(MIN, F16), Layout::Scalar),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".max.f16"), bulk(MAX, F16), Layout::Scalar),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".min.bf16"), bulk(MIN, BF16), Layout::Scalar),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".max.bf16"), bulk(MAX, BF16), Layout::Scalar),
        sweep("atom.global.add.noftz.f16", atom(F16, 1, false), Layout::Scalar),
        sweep("atom.global.add.noftz.bf16", atom(BF16, 1, false), Layout::Scalar),
        sweep("atom.global.add.noftz.f16x2", atom(F16, 2, true), Layout::Swapped),
        sweep("atom.global.add.noftz.bf16x2", atom(BF16, 2, true), Layout::Swapped),
        sweep("atom.global.add.noftz.v2.f16", atom(F16, 2, false), Layout::Swapped),
        sweep("atom.global.add.noftz.v2.bf16", atom(BF16, 2, false), Layout::Swapped),
    ];
}

/// Holds a catalog to its shape: every row named once, found by its name, on a
/// float element (each catalog's test).
#[cfg(test)]
pub(crate) fn assert_rows_named_once<C: Catalog + std::fmt::Debug + PartialEq>() {
    let mut names: Vec<&str> = C::ALL.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), C::ALL.len(), "a name twice in the {} catalog", C::NOUN);
    for s in C::ALL {
        assert_eq!(Swept::<C>::find(s.name), Some(s));
        assert!(matches!(s.reduction.element, Element::Float(_)), "{}", s.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sweep_is_named_once_and_found_by_its_name() {
        assert_rows_named_once::<Bits16>();
    }

    #[test]
    fn the_layout_follows_the_lanes_and_packed_means_x2() {
        // Two lanes are swapped, one is scalar; only the `x2` spellings are packed.
        for s in Sweep::ALL {
            let want = if s.reduction.lanes == 2 {
                Layout::Swapped
            } else {
                Layout::Scalar
            };
            assert_eq!(s.layout, want, "{}", s.name);
            assert_eq!(s.is_packed(), s.name.ends_with("x2"), "{}", s.name);
        }
    }
}
