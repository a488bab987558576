//! Which instructions are swept wide: the f32 adds the document flushes differently
//! by state space and engine, and the f64 adds whose NaN bits differ by state space.

use ptxvec_oracle::float::Format;
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};

use super::set::Set;

/// One wide sweep: an instruction and the reduction it performs, one f32 or f64
/// element per pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WideSweep {
    /// The instruction up to its operands, as the kernel spells it.
    pub name: &'static str,
    /// What it computes.
    pub reduction: Reduction,
}

const fn red(space: Space, fmt: Format) -> Reduction {
    Reduction {
        engine: Engine::Red,
        space,
        op: Op::Add,
        element: Element::Float(fmt),
        lanes: 1,
        packed: false,
        noftz: false,
    }
}

const fn bulk(fmt: Format) -> Reduction {
    Reduction {
        engine: Engine::BulkReduce,
        ..red(Space::Global, fmt)
    }
}

const fn sweep(name: &'static str, reduction: Reduction) -> WideSweep {
    WideSweep { name, reduction }
}

impl WideSweep {
    /// Every wide sweep, in the order they run and are recorded.
    #[rustfmt::skip]
    pub const ALL: &'static [WideSweep] = &[
        sweep("red.global.add.f32", red(Space::Global, Format::F32)),
        sweep("red.shared.add.f32", red(Space::SharedCta, Format::F32)),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.f32"), bulk(Format::F32)),
        sweep("red.global.add.f64", red(Space::Global, Format::F64)),
        sweep("red.shared.add.f64", red(Space::SharedCta, Format::F64)),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.f64"), bulk(Format::F64)),
    ];

    /// The sweep with this name.
    pub fn find(name: &str) -> Option<&'static WideSweep> {
        WideSweep::ALL.iter().find(|s| s.name == name)
    }

    /// The element format: f32 or f64.
    pub fn format(&self) -> Format {
        match self.reduction.element {
            Element::Float(f) => f,
            // Every wide sweep is on a float; the catalog's test holds it to that.
            Element::Int(_) => Format::F64,
        }
    }

    /// Its operand set.
    pub fn set(&self) -> &'static Set {
        if self.format() == Format::F32 {
            Set::f32()
        } else {
            Set::f64()
        }
    }

    /// Whether the bulk-copy engine performs it.
    pub fn is_bulk(&self) -> bool {
        self.reduction.engine == Engine::BulkReduce
    }

    /// Whether its memory is the CTA's shared memory.
    pub fn is_shared(&self) -> bool {
        self.reduction.space == Space::SharedCta
    }

    /// Bytes of one memory word.
    pub fn stride(&self) -> u32 {
        self.format().width() / 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wide_sweep_is_a_float_add_named_once() {
        let mut names: Vec<&str> = WideSweep::ALL.iter().map(|s| s.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), WideSweep::ALL.len());
        for s in WideSweep::ALL {
            assert_eq!(WideSweep::find(s.name), Some(s));
            assert!(
                matches!(s.reduction.element, Element::Float(f) if f == Format::F32 || f == Format::F64),
                "{}",
                s.name
            );
            assert!(s.name.ends_with(s.format().name), "{}", s.name);
            assert!(s.name.contains(".add."), "{}", s.name);
            let space = if s.is_shared() {
                "red.shared."
            } else if s.is_bulk() {
                "cp.reduce.async.bulk.global."
            } else {
                "red.global."
            };
            assert!(s.name.starts_with(space), "{}", s.name);
        }
    }
}
