//! One variant's records: inputs from the catalogs, and the expected outputs under
//! each profile (computed by [`super::expect`] from the record's own inputs).

use std::collections::BTreeMap;

use ptxvec_oracle::float::Format;
use ptxvec_oracle::memory::{Element, Reduction};
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::shfl::{segment_c, ShflMode};

use super::expect::outputs;
use super::inputs::{self, Named};
use super::Variant;
use crate::record::{Bits, Inputs, Record, WarpInputs};
use crate::semantics::Semantics;

/// A record before its expectations: text, inputs, and the class of each slot.
struct Draft {
    text: String,
    /// vote's `!` on the predicate source, as `text` writes it.
    negate: bool,
    inputs: Inputs,
    class: Vec<String>,
}

/// Every record of a variant, in a fixed order. An error names a record the oracle
/// cannot compute: generate fails rather than export it.
pub fn records(v: &Variant<'_>, seed: u64, count: usize) -> Result<Vec<Record>, String> {
    let plain = v.text();
    let draft = |inputs, class| Draft {
        text: plain.clone(),
        negate: false,
        inputs,
        class,
    };
    let drafts: Vec<Draft> = match v.semantics {
        Semantics::Memory(r) => memory_inputs(v, r, seed, count)
            .into_iter()
            .chain(contention_inputs(v, r, seed))
            .map(|(i, c)| draft(i, c))
            .collect(),
        Semantics::Shfl(mode) => shfl_inputs(mode, seed)
            .into_iter()
            .map(|(i, c)| draft(i, c))
            .collect(),
        Semantics::Activemask => inputs::membermasks(seed)
            .into_iter()
            .map(|m| {
                draft(
                    Inputs::Warp(WarpInputs {
                        membermask: None,
                        executing: Bits::new(m.bits, 32),
                        a: None,
                        b: None,
                        c: None,
                    }),
                    vec![m.class],
                )
            })
            .collect(),
        _ => collective_inputs(v, seed),
    };
    drafts
        .into_iter()
        .enumerate()
        .map(|(n, d)| {
            let id = format!("{}#{n}", v.id);
            let mut expect = BTreeMap::new();
            for &p in Profile::ALL {
                let out = outputs(v.semantics, d.negate, &d.inputs, p)
                    .map_err(|e| format!("{id}: {e}"))?;
                // `ptx-isa` always; another profile only where it expects otherwise.
                if p == Profile::PtxIsa || expect.get(&Profile::PtxIsa) != Some(&out) {
                    expect.insert(p, out);
                }
            }
            let random = d.class.iter().any(|c| c.contains("random"));
            Ok(Record {
                id,
                // The note that defines what the record computes; index.json lists
                // every note of the variant.
                spec: v.notes.first().cloned().unwrap_or_default(),
                requires: v.requires.clone(),
                seed: random.then_some(seed),
                class: d.class,
                inputs: d.inputs,
                expect,
                text: d.text,
            })
        })
        .collect()
}

fn bits_of(width: u32) -> impl Fn(u64) -> Bits {
    move |x| Bits::new(x, width)
}

/// The catalog's full cross product (memory, operand), then seeded random pairs; a
/// vector or packed access carries `lanes` pairs at once, the last padded with the
/// first pairs again.
fn memory_inputs(
    v: &Variant<'_>,
    r: Reduction,
    seed: u64,
    count: usize,
) -> Vec<(Inputs, Vec<String>)> {
    let width = r.element.bits();
    let catalog: Vec<Named> = match r.element {
        Element::Float(f) => inputs::float_specials(f),
        Element::Int(t) => inputs::int_specials(t),
    };
    let mut pairs: Vec<(Named, Named)> = Vec::new();
    for m in &catalog {
        for o in &catalog {
            pairs.push((m.clone(), o.clone()));
        }
    }
    let rm = inputs::random_bits(seed, &format!("{}:mem", v.id), width, count);
    let ro = inputs::random_bits(seed, &format!("{}:operand", v.id), width, count);
    pairs.extend(rm.into_iter().zip(ro));
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
            (Inputs::Memory { mem, operand }, class)
        })
        .collect()
}

/// Threads of a contention vector: all hitting one address.
const CONTENDERS: usize = 32;

/// Contention vectors for `red`: 32 threads reduce into one address, each with its
/// own operand (and once all with the same one). Only where the result cannot
/// depend on the order the threads land in: the bitwise ops, integer add, min and
/// max, float min and max of non-NaN non-zero values, and float adds of small
/// integers, whose every partial sum is exact in any order. Each candidate is
/// folded in three orders under both profiles, and kept only if all agree.
fn contention_inputs(v: &Variant<'_>, r: Reduction, seed: u64) -> Vec<(Inputs, Vec<String>)> {
    use ptxvec_oracle::int::IntOp;
    use ptxvec_oracle::memory::{Engine, Op};
    let order_free = match r.op {
        Op::Int(op) => matches!(
            op,
            IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Add | IntOp::Min | IntOp::Max
        ),
        Op::Add | Op::MinMax(_) => true,
    };
    if r.engine != Engine::Red || !order_free {
        return Vec::new();
    }
    let width = r.element.bits();
    let elems = usize::from(r.lanes.max(1));
    let mut rng = inputs::random_bits(
        seed,
        &format!("{}:contention", v.id),
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
        let bits = bits_of(width);
        let ins = Inputs::Contention {
            mem: mem.iter().map(|m| bits(*m)).collect(),
            operands: threads
                .iter()
                .map(|t| t.iter().map(|o| bits(*o)).collect())
                .collect(),
        };
        out.push((ins, vec![format!("contention_{CONTENDERS} {kind}"); elems]));
    }
    out
}

/// Whether folding the threads forward, backward and rotated gives the same exact
/// bits under every profile.
fn order_free_here(r: Reduction, mem: &[u64], threads: &[Vec<u64>]) -> bool {
    use ptxvec_oracle::float::Expect;
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

fn lane_bits(a: &[u64; 32], width: u32) -> Vec<Bits> {
    a.iter().map(|x| Bits::new(*x, width)).collect()
}

/// shfl: in a full warp, every b from 0 to 33 with the whole-warp segment and with
/// a clamp, and every segment width and clamp with the b at its edges; then partial
/// masks and absent lanes.
fn shfl_inputs(mode: ShflMode, seed: u64) -> Vec<(Inputs, Vec<String>)> {
    let (_, a) = &inputs::lane_values(seed)[0];
    let mut out = Vec::new();
    let mut push = |mm: u64, ex: u64, b: u64, c: u64, class: String| {
        out.push((
            Inputs::Warp(WarpInputs {
                membermask: Some(Bits::new(mm, 32)),
                executing: Bits::new(ex, 32),
                a: Some(lane_bits(a, 32)),
                b: Some(Bits::new(b, 32)),
                c: Some(Bits::new(c, 32)),
            }),
            vec![class],
        ));
    };
    for c in inputs::shfl_c(mode) {
        let sweep = c.class == "segment_width_32" || c.class == "clamp_7";
        for b in inputs::shfl_b()
            .into_iter()
            .filter(|b| sweep || [0, 1, 3, 7, 8, 15, 16, 31, 32, 33].contains(&b.bits))
        {
            push(
                0xffff_ffff,
                0xffff_ffff,
                b.bits,
                c.bits,
                format!("full {} b={} {}", b.class, b.bits, c.class),
            );
        }
    }
    let whole = u64::from(segment_c(mode, 32).unwrap_or(0x1f));
    for m in inputs::membermasks(seed) {
        for e in inputs::executing_sets(m.bits as u32) {
            for b in [1u64, 5] {
                push(
                    m.bits,
                    e.bits,
                    b,
                    whole,
                    format!("{} {} b={b}", m.class, e.class),
                );
            }
        }
    }
    out
}

/// vote, redux and match: membermasks × executing sets × lane values (× `!` for
/// vote).
fn collective_inputs(v: &Variant<'_>, seed: u64) -> Vec<Draft> {
    let text = v.text();
    // vote's predicate source written `!%p`, as the syntax vectors write it.
    let negated = crate::syntax::legal::compose(
        &v.id,
        &crate::syntax::operands::render(&v.spelling, crate::syntax::operands::Style::Negated),
    );
    let mut out = Vec::new();
    let f32s = inputs::float_specials(Format::F32);
    for m in inputs::membermasks(seed) {
        for e in inputs::executing_sets(m.bits as u32) {
            for (vclass, a) in inputs::lane_values(seed) {
                let (a, width, negations): ([u64; 32], u32, &[bool]) = match v.semantics {
                    Semantics::Vote(_) | Semantics::Ballot => (a.map(|x| x & 1), 4, &[false, true]),
                    // A reduction over equal values says little; match and vote.uni need them.
                    Semantics::ReduxInt(_) if vclass == "all_equal" => continue,
                    Semantics::ReduxInt(_) => (a, 32, &[false]),
                    // f32 lanes drawn from the specials, so NaNs, both zeros and
                    // subnormals meet in one reduction.
                    Semantics::ReduxF32(_) if vclass == "all_equal" => continue,
                    Semantics::ReduxF32(_) => (
                        std::array::from_fn(|i| f32s[(i + a[i] as usize) % f32s.len()].bits),
                        32,
                        &[false],
                    ),
                    Semantics::Match { wide: true, .. } => (a.map(|x| x << 32 | x), 64, &[false]),
                    _ => (a, 32, &[false]),
                };
                for &negate in negations {
                    out.push(Draft {
                        text: if negate {
                            negated.clone()
                        } else {
                            text.clone()
                        },
                        negate,
                        inputs: Inputs::Warp(WarpInputs {
                            membermask: Some(Bits::new(m.bits, 32)),
                            executing: Bits::new(e.bits, 32),
                            a: Some(lane_bits(&a, width)),
                            b: None,
                            c: None,
                        }),
                        class: vec![m.class.clone(), e.class.clone(), vclass.clone()],
                    });
                }
            }
        }
    }
    out
}
