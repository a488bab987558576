//! `atom`: the memory reductions that return the value they found, and `.exch`
//! and `.cas`. A variant is the oracle's [`Atom`]. Its reductions read their
//! qualifiers as red's do ([`memory::reduction`]) and draw red's inputs; `.exch`
//! and `.cas` draw bit patterns, `.cas` once with the memory as its compare value
//! (it swaps) and once with another (it does not, unless they happen to be equal).
//! Each record holds `d`, the value returned, and `mem`, the memory after.

use ptxvec_oracle::int::IntType;
use ptxvec_oracle::memory::atom::Atom;
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{QualKind, Qualifier};

use super::{memory, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Inputs, Outputs, Shape};
use crate::syntax::spelling::Spelling;

impl Family for Atom {
    fn read(s: &Spelling<'_>) -> std::result::Result<Atom, NotComputed> {
        let q = Quals::of(s);
        let op = q.first(QualKind::Op).ok_or_else(|| q.missing("operation"))?;
        let bits = || {
            q.first(QualKind::Type)
                .and_then(Qualifier::type_bits)
                .ok_or_else(|| q.missing("type"))
        };
        match op {
            Qualifier::Exch => Ok(Atom::Exch(bits()?)),
            Qualifier::Cas => Ok(Atom::Cas(bits()?)),
            _ => memory::reduction(s, Engine::Atom).map(Atom::Reduce),
        }
    }

    fn shape(self) -> Shape {
        Shape::Memory {
            width: self.element_bits(),
            elements: self.elements(),
            float: match self {
                Atom::Reduce(Reduction {
                    element: Element::Float(f),
                    ..
                }) => Some(f),
                _ => None,
            },
            returns: true,
            swap: self.takes_c(),
        }
    }

    /// Red's classes for the reductions (each catalog crossed in full, then the
    /// rarer float classes); for `.exch` and `.cas` the integer specials crossed
    /// and seeded random pairs, `.cas` with an equal and an unequal compare value.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let accesses = match self {
            Atom::Reduce(r) => memory::memory_inputs(at, r)
                .into_iter()
                .chain(memory::more_memory_inputs(r))
                .collect(),
            Atom::Exch(_) => memory::memory_inputs(at, bit_pattern(self)),
            Atom::Cas(_) => memory::memory_inputs(at, bit_pattern(self))
                .into_iter()
                .flat_map(|(inputs, class)| compare_both_ways(self, inputs, class))
                .collect(),
        };
        accesses.into_iter().map(|(i, c)| at.draft(i, c)).collect()
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
        let Inputs::Memory { mem, operand, swap } = inputs else {
            return Err(Error::Input(
                "an atom record takes \"mem\", \"operand\" (and \"swap\" for .cas): one thread on its own memory".to_owned(),
            ));
        };
        let values = |v: &[Bits]| v.iter().map(|b| b.value).collect::<Vec<u64>>();
        let c = swap.as_deref().map(values).unwrap_or_default();
        let access = self.access(profile, &values(mem), &values(operand), &c);
        let width = self.element_bits();
        let expect = |v: Vec<_>| v.into_iter().map(|e| Expectation::of(e, width)).collect();
        Ok(Outputs {
            d: Some(expect(access.old)),
            mem: Some(expect(access.new)),
            p: None,
        })
    }

    fn execution(self, s: &Spelling<'_>) -> Execution {
        match self {
            Atom::Reduce(r) => memory::execution(s, Engine::Atom, r.element.bits(), r.lanes, r.packed, false),
            // A .b128 is two 64-bit elements in one register.
            Atom::Exch(bits) | Atom::Cas(bits) => {
                memory::execution(s, Engine::Atom, self.element_bits(), self.elements() as u8, false, bits == 128)
            }
        }
    }

    fn choices(self, s: &Spelling<'_>) -> Vec<String> {
        let mut out = memory::window_choice(s, Engine::Atom);
        if self.takes_c() {
            out.push("c: `inputs.swap`, what .cas stores where the memory equals `inputs.operand` (its `b`)".to_owned());
        }
        if self.elements() > 1 && matches!(self, Atom::Exch(128) | Atom::Cas(128)) {
            out.push("b128: each value is two 64-bit elements, low half first, moved into one .b128 register (mov.b128 {lo, hi})".to_owned());
        }
        out
    }
}

/// The reduction whose catalogs `.exch` and `.cas` draw from: unsigned integers of
/// the element width, one per element of the access.
fn bit_pattern(a: Atom) -> Reduction {
    Reduction {
        engine: Engine::Atom,
        space: Space::Generic,
        op: Op::Int(ptxvec_oracle::int::IntOp::And),
        element: Element::Int(IntType {
            bits: a.element_bits(),
            signed: false,
        }),
        lanes: a.elements() as u8,
        packed: false,
        noftz: false,
    }
}

/// A `.cas` access drawn as (memory, operand) made into two: compared with its
/// own memory (it swaps in the operand), and compared with the operand (it keeps
/// the memory unless the two are equal, and offers the operand's complement).
/// A random pair is one such access too; its class names `random` either way.
fn compare_both_ways(a: Atom, inputs: Inputs, class: Vec<String>) -> Vec<(Inputs, Vec<String>)> {
    let Inputs::Memory { mem, operand, .. } = inputs else {
        return Vec::new();
    };
    let width = a.element_bits();
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    let complement = |v: &[Bits]| v.iter().map(|b| Bits::new(!b.value & mask, width)).collect();
    let equal = Inputs::Memory {
        operand: mem.clone(),
        swap: Some(operand.clone()),
        mem: mem.clone(),
    };
    let unequal = Inputs::Memory {
        swap: Some(complement(&operand)),
        operand,
        mem,
    };
    // Still two words per element, memory then operand: `u32_seven equal/u32_one`
    // (compared with itself, swapping in a u32_one), `u32_seven u32_one/complement`
    // (compared with a u32_one, offering its complement).
    let (mut equal_class, mut unequal_class) = (Vec::new(), Vec::new());
    for c in &class {
        let (m, o) = c.split_once(' ').unwrap_or((c, c));
        equal_class.push(format!("{m} equal/{o}"));
        unequal_class.push(format!("{m} {o}/complement"));
    }
    vec![(equal, equal_class), (unequal, unequal_class)]
}
