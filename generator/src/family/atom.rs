//! `atom`: the memory reductions that return the value they found, and `.exch`
//! and `.cas`. A variant is the oracle's [`Atom`]. Its reductions read their
//! qualifiers as red's do ([`memory::reduction`]) and draw red's inputs; `.exch`
//! and `.cas` draw bit patterns, `.cas` once with the memory as its compare value
//! (it swaps) and once with another (it does not, unless they happen to be equal).
//! Each record holds `d`, the value returned, and `mem`, the memory after.
//! Contention records put 32 threads holding the same operands on one address:
//! each finds what the one before it left, so the values they return are the
//! access applied again and again, in an order no one promises (a `permutation`).

use ptxvec_oracle::int::IntType;
use ptxvec_oracle::memory::atom::{contention as atom_contention, Atom};
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{QualKind, Qualifier};

use super::memory::OPERAND;
use super::{catalog, memory, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::{Error, Result};
use crate::record::expectation::CONTENDERS;
use crate::record::{Along, Bits, Dir, Expectation, Inputs, MemoryShape, Outputs, Shape, Slot, SlotKind};
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
            _ => memory::reduction(s, Engine::ATOM).map(Atom::Reduce),
        }
    }

    fn shape(self) -> Shape {
        let (mem, operand) = memory::slots(match self {
            Atom::Reduce(r) => r,
            Atom::Exch(_) | Atom::Cas(_) => bit_pattern(self),
        });
        // A .b128 is two 64-bit elements in one register.
        let operand = Slot {
            register: if b128(self) { 128 } else { operand.register },
            ..operand
        };
        let d = Slot { kind: &D, ..operand };
        let swap = Slot { kind: &SWAP_SLOT, ..operand };
        // `swap` only where the instruction takes a `c`.
        let slots = [mem, operand, d, swap];
        let declared = if self.takes_c() { 4 } else { 3 };
        Shape::Memory(MemoryShape::new(self.elements(), &slots[..declared]))
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
        // Appended, so that the records before them keep their ids.
        accesses
            .into_iter()
            .chain(contention_inputs(self, at))
            .map(|(i, c)| at.draft(i, c))
            .collect()
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
        let values = |v: &[Bits]| v.iter().map(|b| b.value).collect::<Vec<u64>>();
        let (mem, operand, swap) = match inputs {
            Inputs::Memory { mem, slots } => (mem, slots.get(OPERAND), slots.get(SWAP)),
            Inputs::Contention { mem, slots } => {
                let operands = slots.get(OPERAND).map(Vec::as_slice).unwrap_or_default();
                return contended(self, profile, &values(mem), operands, slots.get(SWAP).map(Vec::as_slice));
            }
            Inputs::Warp(_) => {
                return Err(Error::Input(
                    "an atom record takes \"mem\", \"operand\" (and \"swap\" for .cas): one thread on its own memory; or \"mem\", \"operands\" (and \"swaps\"): 32 threads on one address".to_owned(),
                ))
            }
        };
        let c = swap.map(|v| values(v)).unwrap_or_default();
        let operand = operand.map(|v| values(v)).unwrap_or_default();
        let access = self.access(profile, &values(mem), &operand, &c);
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
            Atom::Reduce(r) => memory::execution(s, Engine::ATOM, r.element.bits(), r.lanes),
            Atom::Exch(_) | Atom::Cas(_) => {
                memory::execution(s, Engine::ATOM, self.element_bits(), self.elements() as u8)
            }
        }
    }

    fn choices(self, s: &Spelling<'_>) -> Vec<String> {
        let mut out = memory::window_choice(s, Engine::ATOM);
        if self.takes_c() {
            out.push("c: `inputs.swap`, what .cas stores where the memory equals `inputs.operand` (its `b`)".to_owned());
        }
        if b128(self) {
            out.push("b128: each value is two 64-bit elements, low half first, moved into one .b128 register (mov.b128 {lo, hi})".to_owned());
        }
        out
    }
}

/// The name of `.cas`'s second input, what it stores where the memory equals
/// the operand (the doc's `c`).
const SWAP: &str = "swap";

/// The value the access found, each thread's (a contention record's: the
/// permutation of what the threads found).
static D: SlotKind = SlotKind {
    name: "d",
    dir: Dir::Out,
    along: Along::Thread,
    operands: &["d"],
    about: "the value found",
    per_thread: "the value it found",
};

/// `.cas`'s `c`, each thread's.
static SWAP_SLOT: SlotKind = SlotKind {
    name: SWAP,
    dir: Dir::In,
    along: Along::Thread,
    operands: &["c"],
    about: "what .cas stores where the memory equals the operand (its `c`)",
    per_thread: "what .cas stores (its `c`)",
};

/// Whether `a` takes its two 64-bit elements in one `.b128` register.
fn b128(a: Atom) -> bool {
    matches!(a, Atom::Exch(128) | Atom::Cas(128))
}

/// The outputs of a contention record: `mem` the access applied once per thread,
/// `d` per element the permutation of what the threads found. Every thread must
/// hold the same operands (otherwise what each finds depends on the order), 32 of
/// them, and every access must leave the memory known.
fn contended(a: Atom, profile: Profile, mem: &[u64], operands: &[Vec<Bits>], swaps: Option<&[Vec<Bits>]>) -> Result<Outputs<Expectation>> {
    let values = |v: &[Bits]| v.iter().map(|b| b.value).collect::<Vec<u64>>();
    let same = |lists: &[Vec<Bits>]| lists.windows(2).all(|w| w[0] == w[1]);
    if operands.len() != CONTENDERS || !same(operands) || !swaps.is_none_or(same) {
        return Err(Error::Input(format!(
            "an atom contention record gives all {CONTENDERS} threads the same \"operands\" (and \"swaps\"): with different ones, what each thread finds depends on the order they land in"
        )));
    }
    let b = values(&operands[0]);
    let c = swaps.and_then(|s| s.first()).map(|s| values(s)).unwrap_or_default();
    let Some((found, after)) = atom_contention(a, profile, mem, &b, &c, CONTENDERS) else {
        return Err(Error::Input(
            "an atom contention record whose accesses leave the memory open (a NaN's bits, a choice): no permutation to list".to_owned(),
        ));
    };
    let width = a.element_bits();
    let bits = |v: Vec<u64>| v.into_iter().map(|x| Bits::new(x, width)).collect::<Vec<Bits>>();
    Ok(Outputs {
        d: Some(found.into_iter().map(|f| Expectation::Permutation(bits(f))).collect()),
        mem: Some(bits(after).into_iter().map(Expectation::Exact).collect()),
        p: None,
    })
}

/// Contention records: 32 threads with the same drawn operands on one address,
/// twice, each draw made again until every access under every profile leaves the
/// memory known (a float NaN's bits are a choice); `.cas` once with the memory as
/// its compare value (the first thread swaps) and once with another.
fn contention_inputs(a: Atom, at: &Sampling<'_>) -> Vec<(Inputs, Vec<String>)> {
    let (width, elems) = (a.element_bits(), a.elements());
    let mut draws = catalog::random_bits(at.seed, &format!("{}:contention", at.id), width, 3 * elems * 64)
        .into_iter()
        .map(|n| n.bits);
    let mut out = Vec::new();
    let kinds: &[&str] = if a.takes_c() { &["equal", "unequal"] } else { &["same", "same"] };
    for kind in kinds {
        for _ in 0..64 {
            let mut draw = || (0..elems).map(|_| draws.next().unwrap_or(1)).collect::<Vec<u64>>();
            let mem = draw();
            let (b, c) = match *kind {
                "equal" => (mem.clone(), draw()),
                _ => (draw(), if a.takes_c() { draw() } else { Vec::new() }),
            };
            let known = Profile::ALL
                .iter()
                .all(|&p| atom_contention(a, p, &mem, &b, &c, CONTENDERS).is_some());
            if !known {
                continue;
            }
            let bits = |v: &[u64]| v.iter().map(|&x| Bits::new(x, width)).collect::<Vec<Bits>>();
            let swaps = a.takes_c().then(|| (SWAP, vec![bits(&c); CONTENDERS]));
            let inputs = Inputs::threads(bits(&mem), [(OPERAND, vec![bits(&b); CONTENDERS])].into_iter().chain(swaps));
            out.push((inputs, vec![format!("contention_{CONTENDERS} {kind}"); elems]));
            break;
        }
    }
    out
}

/// The reduction whose catalogs `.exch` and `.cas` draw from: unsigned integers of
/// the element width, one per element of the access.
fn bit_pattern(a: Atom) -> Reduction {
    Reduction {
        engine: Engine::ATOM,
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
    let Inputs::Memory { mem, slots } = inputs else {
        return Vec::new();
    };
    let Some(operand) = slots.get(OPERAND).cloned() else {
        return Vec::new();
    };
    let width = a.element_bits();
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    let complement = |v: &[Bits]| v.iter().map(|b| Bits::new(!b.value & mask, width)).collect();
    let equal = Inputs::one_thread(mem.clone(), [(OPERAND, mem.clone()), (SWAP, operand.clone())]);
    let unequal = Inputs::one_thread(mem, [(SWAP, complement(&operand)), (OPERAND, operand)]);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A contention record whose threads hold different operands has no
    /// permutation to list (what each finds depends on the order): an input
    /// error, not a verdict; with the same operands, `exch` leaves every thread
    /// after the first the operand (the document's `exch(r, s) = s`).
    #[test]
    fn contention_needs_the_same_operands_in_every_thread() {
        let b = |v| Bits::new(v, 32);
        let inputs = |second: u64| {
            Inputs::threads(
                vec![b(5)],
                [(OPERAND, (0..CONTENDERS as u64).map(|t| vec![b(if t == 1 { second } else { 9 })]).collect())],
            )
        };
        let e = Atom::Exch(32).outputs(false, &inputs(8), Profile::PtxIsa).unwrap_err();
        assert!(e.to_string().contains("the same \"operands\""), "{e}");
        let o = Atom::Exch(32).outputs(false, &inputs(9), Profile::PtxIsa).unwrap();
        let mut found = vec![b(9); CONTENDERS];
        found[0] = b(5);
        assert_eq!(o.d, Some(vec![Expectation::Permutation(found)]));
        assert_eq!(o.mem, Some(vec![Expectation::Exact(b(9))]));
    }
}
