//! Which instructions are swept: one row per instruction, its PTX spelling up to the
//! operands, the oracle reduction it performs, and how a pair lies in its access.

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

/// One exhaustive sweep: an instruction, the reduction it performs, and the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sweep {
    /// The instruction up to its operands, as the kernel spells it (ptxas 13.5 takes it).
    pub name: &'static str,
    /// What each element computes.
    pub reduction: Reduction,
    /// How a pair lies in the access.
    pub layout: Layout,
}

const fn red(op: Op, fmt: Format, lanes: u8, packed: bool) -> Reduction {
    Reduction {
        engine: Engine::Red,
        space: Space::Global,
        op,
        element: Element::Float(fmt),
        lanes,
        packed,
        noftz: true,
    }
}

const fn bulk(op: Op, fmt: Format) -> Reduction {
    Reduction {
        engine: Engine::BulkReduce,
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
    Sweep {
        name,
        reduction,
        layout,
    }
}

const MIN: Op = Op::MinMax(MinMax::Min);
const MAX: Op = Op::MinMax(MinMax::Max);
const F16: Format = Format::F16;
const BF16: Format = Format::BF16;

impl Sweep {
    /// Every sweep, in the order they run and are recorded.
    #[rustfmt::skip]
    pub const ALL: &'static [Sweep] = &[
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
    ];

    /// The sweep with this name.
    pub fn find(name: &str) -> Option<&'static Sweep> {
        Sweep::ALL.iter().find(|s| s.name == name)
    }

    /// Whether the bulk-copy engine performs it (`cp.reduce.async.bulk`).
    pub fn is_bulk(&self) -> bool {
        self.reduction.engine == Engine::BulkReduce
    }

    /// Whether both elements travel in one 32-bit register (the `x2` types).
    pub fn is_packed(&self) -> bool {
        self.reduction.packed
    }

    /// The element format.
    pub fn format(&self) -> Format {
        match self.reduction.element {
            Element::Float(f) => f,
            // Every sweep is on a 16-bit float; an integer element would be a
            // catalog error, and its width is what the digest needs.
            Element::Int(_) => Format::F16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sweep_is_named_once_and_found_by_its_name() {
        let mut names: Vec<&str> = Sweep::ALL.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Sweep::ALL.len());
        for s in Sweep::ALL {
            assert_eq!(Sweep::find(s.name), Some(s));
        }
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
