//! Which instructions are swept wide: the f32 adds the document flushes differently
//! by state space and engine, and the f64 adds whose NaN bits differ by state space.

use ptxvec_oracle::float::Format;
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};

use super::set::Set;
use crate::sweep::catalog::{Catalog, Layout, Swept};

/// The wide sweeps' catalog: one f32 or f64 element per pair (a scalar layout),
/// over the structured pair sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Wide;

/// One wide sweep.
pub type WideSweep = Swept<Wide>;

const fn red(space: Space, fmt: Format) -> Reduction {
    Reduction {
        engine: Engine::RED,
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
        engine: Engine::BULK_REDUCE,
        ..red(Space::Global, fmt)
    }
}

const fn sweep(name: &'static str, reduction: Reduction) -> WideSweep {
    WideSweep::new(name, reduction, Layout::Scalar)
}

impl Catalog for Wide {
    const NOUN: &'static str = "wide sweep";
    #[rustfmt::skip]
    const ALL: &'static [WideSweep] = &[
        sweep("red.global.add.f32", red(Space::Global, Format::F32)),
        sweep("red.shared.add.f32", red(Space::SharedCta, Format::F32)),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.f32"), bulk(Format::F32)),
        sweep("red.global.add.f64", red(Space::Global, Format::F64)),
        sweep("red.shared.add.f64", red(Space::SharedCta, Format::F64)),
        sweep(concat!("cp.reduce.async.bulk.global.shared::cta.bulk_group", ".add.f64"), bulk(Format::F64)),
    ];
}

impl WideSweep {
    /// Its operand set.
    pub fn set(&self) -> &'static Set {
        if self.format() == Format::F32 {
            Set::f32()
        } else {
            Set::f64()
        }
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
        crate::sweep::catalog::assert_rows_named_once::<Wide>();
        for s in WideSweep::ALL {
            assert!(
                matches!(s.reduction.element, Element::Float(f) if f == Format::F32 || f == Format::F64),
                "{}",
                s.name
            );
            assert_eq!(s.layout, Layout::Scalar, "{}", s.name);
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
