//! Memory reductions: `red` (scalar and vector) and `cp.reduce.async.bulk`. A
//! variant is the oracle's [`Reduction`]: one thread per record applies its
//! operand(s) to its own memory; contention records put 32 threads on one address.

use ptxvec_oracle::float::{Expect, Format, MinMax};
use ptxvec_oracle::int::IntType;
use ptxvec_oracle::memory::{Element, Engine, Generic, Op, Reduction, Space};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{QualKind, Qualifier};

use super::catalog::{self, Named};
use super::{int_op, Draft, Execution, Family, MemSpace, NotComputed, Quals, Sampling};
use crate::error::{Error, Result};
use crate::record::expectation::CONTENDERS;
use crate::record::{Along, Bits, Dir, Expectation, Inputs, MemoryShape, Out, Outputs, Shape, Slot, SlotKind};
use crate::syntax::spelling::Spelling;

impl Family for Reduction {
    fn read(s: &Spelling<'_>) -> std::result::Result<Reduction, NotComputed> {
        let engine = match s.form.syntax.mnemonic.spelling() {
            "red" => Engine::RED,
            "red.async" => Engine::ASYNC_REDUCE,
            _ => Engine::BULK_REDUCE,
        };
        reduction(s, engine)
    }

    fn shape(self) -> Shape {
        let (mem, operand) = slots(self);
        Shape::Memory(MemoryShape::new(usize::from(self.lanes.max(1)), &[mem, operand]))
    }

    /// Each catalog's classes crossed in full first, then contention, then the
    /// rarer float classes: appended, so that the records before them keep their
    /// ids.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        memory_inputs(at, self)
            .into_iter()
            .chain(contention_inputs(at, self))
            .chain(more_memory_inputs(self))
            .map(|(i, c)| at.draft(i, c))
            .collect()
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
        match inputs {
            Inputs::Memory { mem, slots } => match slots.get(OPERAND) {
                Some(operand) => Ok(apply(self, mem, std::slice::from_ref(operand), profile)),
                None => Err(Error::Input(format!("a memory reduction takes \"{OPERAND}\""))),
            },
            Inputs::Contention { mem, slots } => match slots.get(OPERAND) {
                Some(operands) => Ok(apply(self, mem, operands, profile)),
                None => Err(Error::Input(format!("a contention record takes \"{OPERAND}s\""))),
            },
            Inputs::Warp(_) => Err(Error::Input(
                "a memory reduction takes \"mem\" and \"operand\", not warp inputs".to_owned(),
            )),
        }
    }

    fn execution(self, s: &Spelling<'_>) -> Execution {
        execution(s, self.engine, self.element.bits(), self.lanes)
    }

    fn choices(self, s: &Spelling<'_>) -> Vec<String> {
        let mut out = window_choice(s, self.engine);
        let q = Quals::of(s);
        if self.engine == Engine::ASYNC_REDUCE {
            out.push("a: the record's element in the shared memory of another CTA of the cluster than the executing thread's (the document leaves any other undefined), through mapa; generic where the text names no state space".to_owned());
            out.push("mbar: an mbarrier in that CTA's shared memory, initialized and armed with `expect_tx` for the bytes every reduction into it stores (the element's width each); it completes on it".to_owned());
        }
        if self.engine == Engine::BULK_REDUCE {
            out.push("size: the bytes of `mem` (elements × element width / 8), which the document requires to be a multiple of 16, with both addresses 16-byte aligned".to_owned());
            out.push("&operand: a buffer in the CTA's shared memory holding `inputs.operand`, written by generic stores and made visible with fence.proxy.async before the instruction".to_owned());
            if q.has(Qualifier::MbarrierCompleteTxBytes) {
                out.push("mbar: an mbarrier in the destination CTA's shared memory, initialized and armed with `expect_tx` for `size` bytes; the reduction completes on it".to_owned());
            } else {
                out.push(
                    "completion: cp.async.bulk.commit_group, then cp.async.bulk.wait_group 0"
                        .to_owned(),
                );
            }
        }
        out
    }
}

/// The name of the slot each thread reduces with (the doc's `b`; the bulk form's
/// source buffer).
pub(super) const OPERAND: &str = "operand";

/// The memory of a memory record, before and after, at the doc's address
/// operand (`[a]`, the bulk form's `[dstMem]`).
pub(super) static MEM: SlotKind = SlotKind {
    name: "mem",
    dir: Dir::Both,
    along: Along::Element,
    operands: &["a", "dstMem"],
    about: "memory before",
    per_thread: "the memory",
};

/// What each thread reduces with: the doc's `b`, the bulk form's `[srcMem]`.
pub(super) static OPERAND_SLOT: SlotKind = SlotKind {
    name: OPERAND,
    dir: Dir::In,
    along: Along::Thread,
    operands: &["b", "srcMem"],
    about: "operand",
    per_thread: "its operand",
};

/// The slots of a reduction's records: the memory and each thread's operand, of
/// the reduction's element, two to a 32-bit register where packed (`.f16x2`).
pub(super) fn slots(r: Reduction) -> (Slot, Slot) {
    let float = match r.element {
        Element::Float(f) => Some(f),
        Element::Int(_) => None,
    };
    let width = r.element.bits();
    let operand = Slot {
        register: if r.packed { 32 } else { width },
        ..Slot::of(&OPERAND_SLOT, width, float)
    };
    (Slot::of(&MEM, width, float), operand)
}

/// What a reduction spelling of `engine` computes (red's, atom's and
/// cp.reduce.async.bulk's qualifiers read alike).
pub(super) fn reduction(s: &Spelling<'_>, engine: Engine) -> std::result::Result<Reduction, NotComputed> {
    let q = Quals::of(s);
    // cp.reduce.async.bulk writes `.dst` before `.src`: the first space is
    // the destination.
    let space = match q.first(QualKind::Space) {
        None => Space::Generic,
        Some(Qualifier::Global) => Space::Global,
        Some(Qualifier::Shared | Qualifier::SharedCta) => Space::SharedCta,
        // Shared memory of a CTA of the cluster: the document's "shared
        // memory" rules hold for it, and the oracle computes it as .shared.
        Some(Qualifier::SharedCluster) => Space::SharedCta,
        Some(_) => return Err(q.missing("state space")),
    };
    let ty = q.first(QualKind::Type).ok_or_else(|| q.missing("type"))?;
    let (element, packed) = element(ty).ok_or_else(|| q.missing("element type"))?;
    let op_q = q.first(QualKind::Op).ok_or_else(|| q.missing("operation"))?;
    let op = match (op_q, element) {
        (Qualifier::Add, Element::Float(_)) => Op::Add,
        (Qualifier::Min, Element::Float(_)) => Op::MinMax(MinMax::Min),
        (Qualifier::Max, Element::Float(_)) => Op::MinMax(MinMax::Max),
        (_, Element::Int(_)) => {
            Op::Int(int_op(op_q).ok_or_else(|| q.missing("integer operation"))?)
        }
        _ => return Err(q.missing("float operation")),
    };
    let vector = q
        .first(QualKind::Vector)
        .and_then(Qualifier::vector_len)
        .unwrap_or(1);
    let lanes = u8::try_from(vector * if packed { 2 } else { 1 })
        .map_err(|_| q.missing("vector width"))?;
    let mut r = Reduction {
        engine,
        space,
        op,
        element,
        lanes,
        packed,
        noftz: q.has(Qualifier::Noftz),
    };
    // The destination's space changes values only for the 32- and 64-bit
    // float add (flushing, and sm_90's NaN payloads); elsewhere every space is
    // one variant, stated with generic addressing.
    if !(op == Op::Add && matches!(element, Element::Float(f) if f.width() >= 32)) {
        r.space = Space::Generic;
    }
    Ok(r)
}

/// How a device runs a memory variant of `engine`: `width`-bit elements, `lanes`
/// of them (the registers that hold them are the slots').
pub(super) fn execution(s: &Spelling<'_>, engine: Engine, width: u32, lanes: u8) -> Execution {
    let q = Quals::of(s);
    let space = q.first(QualKind::Space);
    Execution::Memory {
        // cp.reduce.async.bulk writes `.dst` before `.src`: the first space is
        // where it reduces.
        space: if engine.generic == Generic::Never {
            // The bulk reduce: into global memory, or the shared memory of a CTA
            // of the cluster.
            match space {
                Some(Qualifier::Global) => MemSpace::BulkGlobal,
                _ => MemSpace::BulkCluster,
            }
        } else if q.has(Qualifier::MbarrierCompleteTxBytes) {
            // red.async's relaxed form: into a peer CTA's shared memory.
            MemSpace::AsyncCluster
        } else {
            // One thread, one address (red.async's release form as red).
            match space {
                None => MemSpace::Generic,
                Some(Qualifier::Global) => MemSpace::Global,
                Some(Qualifier::SharedCluster) => MemSpace::SharedCluster,
                Some(_) => MemSpace::SharedCta,
            }
        },
        width,
        lanes: u32::from(lanes.max(1)),
        // A vector's generic address, and red.async's, point into global memory
        // alone (`Engine::generic`).
        global_only: engine.generic_points_global(q.first(QualKind::Vector).is_some()) == Some(true),
    }
}

/// The window a generic red or atom runs in, which a record leaves open.
pub(super) fn window_choice(s: &Spelling<'_>, engine: Engine) -> Vec<String> {
    let q = Quals::of(s);
    if engine.generic != Generic::Window || q.first(QualKind::Space).is_some() {
        return Vec::new();
    }
    let (name, section) = if engine == Engine::ATOM { ("atom", "9.7.13.5") } else { ("red", "9.7.13.6") };
    vec![if q.first(QualKind::Vector).is_some() {
        format!("window: the generic address points into global memory (PTX ISA {section}: a vector {name} \"may be used only with .global space and with generic addressing where the address points to .global space\")")
    } else {
        "window: the generic address points into global or into the CTA's shared memory; a record holds in either (ptxvec emit-ptx --window global|shared)".to_owned()
    }]
}

/// The element a type qualifier names, and whether it is packed (two per 32 bits).
fn element(ty: Qualifier) -> Option<(Element, bool)> {
    let int = |bits, signed| Some((Element::Int(IntType { bits, signed }), false));
    match ty {
        Qualifier::B32 | Qualifier::U32 => int(32, false),
        Qualifier::S32 => int(32, true),
        Qualifier::B64 | Qualifier::U64 => int(64, false),
        Qualifier::S64 => int(64, true),
        Qualifier::F16 => Some((Element::Float(Format::F16), false)),
        Qualifier::Bf16 => Some((Element::Float(Format::BF16), false)),
        Qualifier::F16x2 => Some((Element::Float(Format::F16), true)),
        Qualifier::Bf16x2 => Some((Element::Float(Format::BF16), true)),
        Qualifier::F32 => Some((Element::Float(Format::F32), false)),
        Qualifier::F64 => Some((Element::Float(Format::F64), false)),
        _ => None,
    }
}

/// Each thread's operand applied in the listed order to the same address.
fn apply(r: Reduction, mem: &[Bits], threads: &[Vec<Bits>], profile: Profile) -> Outputs<Expectation> {
    let width = r.element.bits();
    let e = mem
        .iter()
        .enumerate()
        .map(|(k, m)| {
            // A later thread applies to the bits an earlier one left; where those
            // are not pinned down, neither is anything after.
            let mut acc = Expect::Bits(m.value);
            for t in threads {
                acc = match acc {
                    Expect::Bits(m) => r.element(profile, m, t[k].value),
                    _ => Expect::Undefined,
                };
            }
            Expectation::of(acc, width)
        })
        .collect();
    Outputs::one(Out::Mem, e)
}

/// The catalog's full cross product (memory, operand), then seeded random pairs; a
/// vector or packed access carries `lanes` pairs at once, the last padded with the
/// first pairs again.
pub(super) fn memory_inputs(at: &Sampling<'_>, r: Reduction) -> Vec<(Inputs, Vec<String>)> {
    let width = r.element.bits();
    let values: Vec<Named> = match r.element {
        Element::Float(f) => catalog::float_specials(f),
        Element::Int(t) => catalog::int_specials(t),
    };
    let mut pairs: Vec<(Named, Named)> = Vec::new();
    for m in &values {
        for o in &values {
            pairs.push((m.clone(), o.clone()));
        }
    }
    let rm = catalog::random_bits(at.seed, &format!("{}:mem", at.id), width, at.count);
    let ro = catalog::random_bits(at.seed, &format!("{}:operand", at.id), width, at.count);
    pairs.extend(rm.into_iter().zip(ro));
    accesses(r, &pairs)
}

/// Float pairs with a value of [`catalog::more_float_specials`] on either side,
/// against every special.
pub(super) fn more_memory_inputs(r: Reduction) -> Vec<(Inputs, Vec<String>)> {
    let Element::Float(f) = r.element else {
        return Vec::new();
    };
    let more = catalog::more_float_specials(f);
    let all: Vec<Named> = catalog::float_specials(f)
        .into_iter()
        .chain(more.clone())
        .collect();
    let mut pairs = Vec::new();
    for m in &all {
        for o in &all {
            if more.contains(m) || more.contains(o) {
                pairs.push((m.clone(), o.clone()));
            }
        }
    }
    accesses(r, &pairs)
}

/// Pairs as accesses: a vector or packed access carries `lanes` pairs at once, the
/// last padded with the first pairs again.
fn accesses(r: Reduction, pairs: &[(Named, Named)]) -> Vec<(Inputs, Vec<String>)> {
    let width = r.element.bits();
    let lanes = usize::from(r.lanes.max(1));
    (0..pairs.len().div_ceil(lanes))
        .map(|c| {
            let elems: Vec<&(Named, Named)> = (0..lanes)
                .map(|k| &pairs[(c * lanes + k) % pairs.len()])
                .collect();
            let mem = elems
                .iter()
                .map(|(m, _)| Bits::new(m.bits, width))
                .collect();
            let operand = elems
                .iter()
                .map(|(_, o)| Bits::new(o.bits, width))
                .collect();
            let class = elems
                .iter()
                .map(|(m, o)| format!("{} {}", m.class, o.class))
                .collect();
            (Inputs::one_thread(mem, [(OPERAND, operand)]), class)
        })
        .collect()
}

/// Contention vectors for `red`: 32 threads reduce into one address, each with its
/// own operand (and once all with the same one). Only where the result cannot
/// depend on the order the threads land in: the bitwise ops, integer add, min and
/// max, float min and max of non-NaN non-zero values, and float adds of small
/// integers, whose every partial sum is exact in any order. Each candidate is
/// folded in three orders under both profiles, and kept only if all agree.
fn contention_inputs(at: &Sampling<'_>, r: Reduction) -> Vec<(Inputs, Vec<String>)> {
    use ptxvec_oracle::int::IntOp;
    let order_free = match r.op {
        Op::Int(op) => matches!(
            op,
            IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Add | IntOp::Min | IntOp::Max
        ),
        Op::Add | Op::MinMax(_) => true,
    };
    if r.engine != Engine::RED || !order_free {
        return Vec::new();
    }
    let width = r.element.bits();
    let elems = usize::from(r.lanes.max(1));
    let mut rng = catalog::random_bits(
        at.seed,
        &format!("{}:contention", at.id),
        64,
        (CONTENDERS + 1) * elems * 2,
    )
    .into_iter()
    .map(|n| n.bits);
    let value = |rng: &mut dyn Iterator<Item = u64>| -> u64 {
        let x = rng.next().unwrap_or(1);
        match (r.op, r.element) {
            (Op::Add, Element::Float(f)) => {
                // Integers in [-4, 4]: 33 of them sum to at most 132 in magnitude,
                // exact even in bf16's 8-bit significand.
                let k = (x % 9) as i64 - 4;
                ptxvec_oracle::float::convert(
                    Format::F64,
                    f,
                    (k as f64).to_bits(),
                    ptxvec_oracle::float::NanOut::Canonical,
                )
            }
            (Op::MinMax(_), Element::Float(f)) => {
                // Finite and non-zero (an all-ones exponent loses its top bit, a
                // zero gains one): ordered the same whichever way they are compared.
                let mut b = x & f.mask();
                if (b >> f.frac_bits) & f.exp_max() == f.exp_max() {
                    b &= !(1u64 << (f.width() - 2));
                }
                if b & !f.sign_bit() == 0 {
                    b |= 1u64 << f.frac_bits;
                }
                b
            }
            _ => {
                x & if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                }
            }
        }
    };
    let mut out = Vec::new();
    for kind in ["distinct", "same"] {
        let mem: Vec<u64> = (0..elems).map(|_| value(&mut rng)).collect();
        let first: Vec<u64> = (0..elems).map(|_| value(&mut rng)).collect();
        let threads: Vec<Vec<u64>> = (0..CONTENDERS)
            .map(|_| {
                if kind == "same" {
                    first.clone()
                } else {
                    (0..elems).map(|_| value(&mut rng)).collect()
                }
            })
            .collect();
        if !order_free_here(r, &mem, &threads) {
            continue;
        }
        let bits = |x: &u64| Bits::new(*x, width);
        let ins = Inputs::threads(
            mem.iter().map(bits).collect(),
            [(OPERAND, threads.iter().map(|t| t.iter().map(bits).collect()).collect())],
        );
        out.push((ins, vec![format!("contention_{CONTENDERS} {kind}"); elems]));
    }
    out
}

/// Whether folding the threads forward, backward and rotated gives the same exact
/// bits under every profile.
fn order_free_here(r: Reduction, mem: &[u64], threads: &[Vec<u64>]) -> bool {
    let fold = |order: &[usize], p: Profile, k: usize| {
        order
            .iter()
            .try_fold(mem[k], |acc, &t| match r.element(p, acc, threads[t][k]) {
                Expect::Bits(b) => Some(b),
                _ => None,
            })
    };
    let n = threads.len();
    let forward: Vec<usize> = (0..n).collect();
    let backward: Vec<usize> = (0..n).rev().collect();
    let rotated: Vec<usize> = (0..n).map(|i| (i + n / 2) % n).collect();
    Profile::ALL.iter().all(|&p| {
        (0..mem.len()).all(|k| {
            let f = fold(&forward, p, k);
            f.is_some() && f == fold(&backward, p, k) && f == fold(&rotated, p, k)
        })
    })
}

#[cfg(test)]
mod tests {
    use crate::record::{Along, Dir, Shape};
    use crate::vectors::semantic::variants;

    /// What the shared code assumes of a memory variant's slots: one memory, of
    /// both directions, shared by the threads and named `mem`; outputs that are
    /// outputs of the files; names that no contention key (`operands`) or warp
    /// key can be taken for; every slot of the access's width.
    #[test]
    fn every_memory_variant_declares_slots_the_shared_code_reads() {
        let spec = ptxvec_spec::Spec::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec"))).unwrap();
        let mut seen = 0;
        for v in variants(&spec) {
            let Shape::Memory(m) = v.semantics.shape() else {
                continue;
            };
            seen += 1;
            let memory: Vec<_> = m.slots().filter(|s| s.dir == Dir::Both).collect();
            assert_eq!(memory.len(), 1, "{}", v.id);
            assert_eq!((memory[0].name, memory[0].along), ("mem", Along::Element), "{}", v.id);
            for s in m.slots() {
                assert!(!s.name.ends_with('s'), "{}: `{}` reads as a contention key", v.id, s.name);
                assert!(!["a", "b", "c", "executing", "exited", "membermask"].contains(&s.name), "{}: `{}`", v.id, s.name);
                assert_eq!(s.dir == Dir::In, s.out().is_none(), "{}: `{}` is no output of the files", v.id, s.name);
                assert_eq!(s.width, m.width(), "{}: `{}`", v.id, s.name);
                assert!(s.register >= s.width && s.register % s.width == 0, "{}: `{}`", v.id, s.name);
                if s.dir != Dir::Both {
                    assert_eq!(s.along, Along::Thread, "{}: `{}`", v.id, s.name);
                }
            }
            assert!(m.thread_outputs().count() <= 1, "{}: the output buffer holds one thread output", v.id);
        }
        assert!(seen > 50, "{seen} memory variants");
    }
}
