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
use crate::record::{Bits, Inputs, LaneValue, Record, WarpInputs};
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
pub fn records(v: &Variant<'_>, seed: u64, count: usize) -> crate::error::Result<Vec<Record>> {
    use crate::error::Context;
    let plain = v.text();
    let draft = |inputs, class| Draft {
        text: plain.clone(),
        negate: false,
        inputs,
        class,
    };
    // Each catalog's classes crossed in full first, then the rarer classes (irregular
    // masks, exits, value patterns) against a few partners each: appended, so that
    // the records before them keep their ids.
    let drafts: Vec<Draft> = match v.semantics {
        Semantics::Memory(r) => memory_inputs(v, r, seed, count)
            .into_iter()
            .chain(contention_inputs(v, r, seed))
            .chain(more_memory_inputs(r))
            .map(|(i, c)| draft(i, c))
            .collect(),
        Semantics::Shfl(mode) => shfl_inputs(mode, seed)
            .into_iter()
            .chain(more_shfl_inputs(seed))
            .map(|(i, c)| draft(i, c))
            .collect(),
        Semantics::ShflActive(mode) => shfl_inputs(mode, seed)
            .into_iter()
            .filter_map(|(i, c)| Some((active_only(i)?, active_classes(c))))
            .map(|(i, c)| draft(i, c))
            .collect(),
        Semantics::VoteActive(_) | Semantics::BallotActive => collective_inputs(v, seed)
            .into_iter()
            .filter_map(|d| {
                Some(Draft {
                    inputs: active_only(d.inputs)?,
                    class: active_classes(d.class),
                    ..d
                })
            })
            .collect(),
        Semantics::Activemask => activemask_inputs(seed)
            .into_iter()
            .map(|(i, c)| draft(i, c))
            .collect(),
        _ => collective_inputs(v, seed)
            .into_iter()
            .chain(more_collective_inputs(v, seed))
            .collect(),
    };
    let drafts = if v.writes_d_alone() {
        d_only_sample(drafts)
    } else {
        drafts
    };
    drafts
        .into_iter()
        .enumerate()
        .map(|(n, d)| {
            let id = format!("{}#{n}", v.id);
            let mut expect = BTreeMap::new();
            for &p in Profile::ALL {
                let mut out = outputs(v.semantics, d.negate, &d.inputs, p).context(&id)?;
                // A text that writes `d` alone has no `p` to expect.
                if !v.pair {
                    out.p = None;
                }
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

/// Every [`D_ONLY_STRIDE`]-th record of a variant's twin that writes `d` alone,
/// and the first of each input class (the word that opens its class: `full`,
/// `single_highest`, ...): what tells a shuffle that is right from a `|p` that is
/// not, at a sixth of the size (vectors/ stays under its cap).
fn d_only_sample(drafts: Vec<Draft>) -> Vec<Draft> {
    let mut seen = std::collections::BTreeSet::new();
    drafts
        .into_iter()
        .enumerate()
        .filter(|(n, d)| {
            let first = d.class.first().and_then(|c| c.split_whitespace().next()).unwrap_or("");
            let new_class = seen.insert(first.to_owned());
            new_class || n % D_ONLY_STRIDE == 0
        })
        .map(|(_, d)| d)
        .collect()
}

/// One record in this many of the `|p` variant goes to its twin that writes `d`
/// alone (besides the first of each class).
pub const D_ONLY_STRIDE: usize = 8;

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
    accesses(r, &pairs)
}

/// Float pairs with a value of [`inputs::more_float_specials`] on either side,
/// against every special.
fn more_memory_inputs(r: Reduction) -> Vec<(Inputs, Vec<String>)> {
    let Element::Float(f) = r.element else {
        return Vec::new();
    };
    let more = inputs::more_float_specials(f);
    let all: Vec<Named> = inputs::float_specials(f)
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
                exited: None,
                a: Some(lane_bits(a, 32)),
                b: Some(LaneValue::Warp(Bits::new(b, 32))),
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

/// The inputs of a .sync form's record for the non-sync form: its executing
/// lanes alone, where they are its membermask (every member executes); `None`
/// for a record where they are not, which the non-sync form cannot state.
fn active_only(inputs: Inputs) -> Option<Inputs> {
    let Inputs::Warp(mut w) = inputs else {
        return None;
    };
    let mm = w.membermask.take()?;
    (mm.value == w.executing.value && w.exited.is_none()).then_some(Inputs::Warp(w))
}

/// A .sync record's classes as the non-sync form's: its membermask's class names
/// the active lanes, which all execute (`members_execute` becomes `active`).
fn active_classes(classes: Vec<String>) -> Vec<String> {
    classes.into_iter().map(|c| c.replace("members_execute", "active")).collect()
}

/// vote, redux and match: membermasks × executing sets × lane values (× `!` for
/// vote).
fn collective_inputs(v: &Variant<'_>, seed: u64) -> Vec<Draft> {
    let (text, negated) = (v.text(), v.negated_text());
    let mut out = Vec::new();
    for m in inputs::membermasks(seed) {
        for e in inputs::executing_sets(m.bits as u32) {
            for (vclass, a) in inputs::lane_values(seed) {
                // A reduction over equal values says little; match and vote.uni need them.
                if matches!(v.semantics, Semantics::ReduxInt(_) | Semantics::ReduxF32(_))
                    && vclass == "all_equal"
                {
                    continue;
                }
                let (a, width) = (read_lanes(v.semantics, a), lane_width(v.semantics));
                let negations: &[bool] = if is_vote(v.semantics) {
                    &[false, true]
                } else {
                    &[false]
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
                            exited: None,
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

/// A warp's inputs: membermask (none for activemask), executing lanes, exited
/// non-members (0 for none), per-lane `a` at `width` bits, shfl's `b` and `c`.
struct Warp {
    membermask: Option<u64>,
    executing: u64,
    exited: u64,
    a: Option<([u64; 32], u32)>,
    b: Option<LaneValue>,
    c: Option<u64>,
}

impl Warp {
    fn inputs(self) -> Inputs {
        Inputs::Warp(WarpInputs {
            membermask: self.membermask.map(|m| Bits::new(m, 32)),
            executing: Bits::new(self.executing, 32),
            exited: (self.exited != 0).then(|| Bits::new(self.exited, 32)),
            a: self.a.map(|(a, w)| lane_bits(&a, w)),
            b: self.b,
            c: self.c.map(|c| Bits::new(c, 32)),
        })
    }
}

/// Every membermask with the executing sets that exit lanes: one member, every
/// fourth member, non-members; then the irregular masks with every member
/// executing. Each is (mask, executing, exited non-members, classes).
fn exit_scenarios(seed: u64) -> Vec<(Named, Named, u64)> {
    let mut out = Vec::new();
    for m in inputs::membermasks(seed) {
        for (e, x) in inputs::exit_sets(m.bits as u32) {
            out.push((m.clone(), e, x));
        }
    }
    for m in inputs::more_membermasks() {
        let e = Named {
            class: "members_execute".to_owned(),
            bits: m.bits,
        };
        out.push((m.clone(), e, 0));
        for (e, x) in inputs::exit_sets(m.bits as u32) {
            out.push((m.clone(), e, x));
        }
    }
    out
}

/// activemask: the lanes that take the branch holding it, as the membermask
/// catalog gives them; then the same with lanes exited (every fourth of them, or
/// lanes outside), and the irregular masks.
fn activemask_inputs(seed: u64) -> Vec<(Inputs, Vec<String>)> {
    let warp = |executing, exited| Warp {
        membermask: None,
        executing,
        exited,
        a: None,
        b: None,
        c: None,
    };
    let mut out: Vec<(Inputs, Vec<String>)> = inputs::membermasks(seed)
        .into_iter()
        .map(|m| (warp(m.bits, 0).inputs(), vec![m.class]))
        .collect();
    for (m, e, x) in exit_scenarios(seed) {
        // No membermask: every lane that exited is listed.
        let exited = (m.bits & !e.bits) | x;
        out.push((
            warp(e.bits, exited).inputs(),
            vec![format!("{} {}", m.class, e.class)],
        ));
    }
    out
}

/// shfl beyond [`shfl_inputs`]: a per-lane `b` (lane l reads 31 - l, then a
/// uniform 1) in every exit scenario, and clamps beyond the segment in a full warp.
fn more_shfl_inputs(seed: u64) -> Vec<(Inputs, Vec<String>)> {
    let (_, a) = &inputs::lane_values(seed)[0];
    let reversal = LaneValue::PerLane((0..32).map(|l| Bits::new(31 - l, 32)).collect());
    let one = LaneValue::Warp(Bits::new(1, 32));
    let mut out = Vec::new();
    for (m, e, x) in exit_scenarios(seed) {
        for (b, bclass) in [(&reversal, "b=31-lane"), (&one, "b=1")] {
            let w = Warp {
                membermask: Some(m.bits),
                executing: e.bits,
                exited: x,
                a: Some((*a, 32)),
                b: Some(b.clone()),
                c: Some(0x1f),
            };
            out.push((
                w.inputs(),
                vec![format!("{} {} {bclass}", m.class, e.class)],
            ));
        }
    }
    for c in inputs::shfl_c_beyond_segment() {
        for b in [0u64, 1, 2, 5, 16, 31, 32, 33] {
            let w = Warp {
                membermask: Some(0xffff_ffff),
                executing: 0xffff_ffff,
                exited: 0,
                a: Some((*a, 32)),
                b: Some(LaneValue::Warp(Bits::new(b, 32))),
                c: Some(c.bits),
            };
            out.push((w.inputs(), vec![format!("full b={b} {}", c.class)]));
        }
    }
    out
}

/// vote, redux and match beyond [`collective_inputs`]: every exit scenario with
/// the first lane values; then the value patterns the full catalog lacks (vote's
/// predicate patterns, redux's extremes, match.b64's split high words) with the
/// full and the alternating mask.
fn more_collective_inputs(v: &Variant<'_>, seed: u64) -> Vec<Draft> {
    let (text, negated) = (v.text(), v.negated_text());
    let vote = is_vote(v.semantics);
    let width = lane_width(v.semantics);
    let shape = |a: [u64; 32]| read_lanes(v.semantics, a);
    let mut out = Vec::new();
    let mut push = |m: u64, e: u64, x: u64, a: [u64; 32], class: Vec<String>| {
        for negate in if vote { vec![false, true] } else { vec![false] } {
            let w = Warp {
                membermask: Some(m),
                executing: e,
                exited: x,
                a: Some((a, width)),
                b: None,
                c: None,
            };
            out.push(Draft {
                text: if negate {
                    negated.clone()
                } else {
                    text.clone()
                },
                negate,
                inputs: w.inputs(),
                class: class.clone(),
            });
        }
    };
    let (first, a) = &inputs::lane_values(seed)[0];
    for (m, e, x) in exit_scenarios(seed) {
        push(
            m.bits,
            e.bits,
            x,
            shape(*a),
            vec![m.class, e.class, first.clone()],
        );
    }
    let patterns: Vec<(String, [u64; 32])> = match v.semantics {
        Semantics::ReduxInt(_) => inputs::redux_patterns(),
        Semantics::Match { wide: true, .. } => inputs::wide_patterns(),
        // The low words alone; all equal is among the lane values already.
        Semantics::Match { wide: false, .. } => inputs::wide_patterns()
            .into_iter()
            .skip(1)
            .map(|(c, a)| (c.replace("_high_mod_4", ""), a.map(|x| x & 0xffff_ffff)))
            .collect(),
        _ => Vec::new(),
    };
    for m in [0xffff_ffffu64, 0xaaaa_aaaa] {
        let mclass = if m == 0xffff_ffff {
            "full"
        } else {
            "alternating_odd"
        };
        let all: Vec<(String, [u64; 32])> = if vote {
            inputs::pred_patterns(m as u32)
                .into_iter()
                .map(|p| (p.class, std::array::from_fn(|l| p.bits >> l & 1)))
                .collect()
        } else {
            patterns
                .iter()
                .map(|(c, a)| (c.clone(), if width == 64 { *a } else { shape(*a) }))
                .collect()
        };
        for (class, a) in all {
            push(
                m,
                m,
                0,
                a,
                vec![mclass.to_owned(), "members_execute".to_owned(), class],
            );
        }
    }
    out
}

/// vote's two variants, whose source is a predicate and may be negated.
fn is_vote(sem: Semantics) -> bool {
    matches!(sem, Semantics::Vote(_) | Semantics::Ballot | Semantics::VoteActive(_) | Semantics::BallotActive)
}

/// The width `a` is written at: a predicate's one digit, both words of
/// `match.*.b64`, else 32 bits.
fn lane_width(sem: Semantics) -> u32 {
    match sem {
        Semantics::Vote(_) | Semantics::Ballot | Semantics::VoteActive(_) | Semantics::BallotActive => 4,
        Semantics::Match { wide: true, .. } => 64,
        _ => 32,
    }
}

/// Catalog lane values as a variant reads them: vote takes bit 0; redux.sync `.f32`
/// the f32 special at `(lane + value) mod n`, so that NaNs, both zeros and
/// subnormals meet in one reduction; `match.*.b64` the value in both words.
fn read_lanes(sem: Semantics, a: [u64; 32]) -> [u64; 32] {
    match sem {
        Semantics::Vote(_) | Semantics::Ballot | Semantics::VoteActive(_) | Semantics::BallotActive => a.map(|x| x & 1),
        Semantics::ReduxF32(_) => {
            let f32s = inputs::float_specials(Format::F32);
            std::array::from_fn(|i| f32s[(i + a[i] as usize) % f32s.len()].bits)
        }
        Semantics::Match { wide: true, .. } => a.map(|x| x << 32 | x),
        _ => a,
    }
}
