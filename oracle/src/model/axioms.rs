//! The axioms of PTX ISA 8.10, each a predicate on a candidate execution: a
//! candidate is consistent iff it satisfies them all.

use super::relations::{Execution, Source};
use super::Op;

/// An axiom of 8.10, in the chapter's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axiom {
    /// 8.10.1 Coherence.
    Coherence,
    /// 8.10.2 Fence-SC.
    FenceSc,
    /// 8.10.3 Atomicity.
    Atomicity,
    /// 8.10.4 No Thin Air.
    NoThinAir,
    /// 8.10.5 Sequential Consistency Per Location.
    ScPerLocation,
    /// 8.10.6 Causality.
    Causality,
}

impl Axiom {
    /// Every axiom, in the chapter's order: the order in which a candidate's first
    /// failure is named.
    pub const ALL: [Axiom; 6] =
        [Axiom::Coherence, Axiom::FenceSc, Axiom::Atomicity, Axiom::NoThinAir, Axiom::ScPerLocation, Axiom::Causality];

    /// Its section in PTX ISA 9.x.
    pub fn section(self) -> &'static str {
        match self {
            Axiom::Coherence => "8.10.1",
            Axiom::FenceSc => "8.10.2",
            Axiom::Atomicity => "8.10.3",
            Axiom::NoThinAir => "8.10.4",
            Axiom::ScPerLocation => "8.10.5",
            Axiom::Causality => "8.10.6",
        }
    }

    /// Its title in the chapter: `Causality`, `Sequential Consistency Per Location`.
    pub fn title(self) -> &'static str {
        match self {
            Axiom::Coherence => "Coherence",
            Axiom::FenceSc => "Fence-SC",
            Axiom::Atomicity => "Atomicity",
            Axiom::NoThinAir => "No Thin Air",
            Axiom::ScPerLocation => "Sequential Consistency Per Location",
            Axiom::Causality => "Causality",
        }
    }

    /// Whether `exec` satisfies it.
    pub fn holds(self, exec: &Execution) -> bool {
        match self {
            Axiom::Coherence => coherence(exec),
            Axiom::FenceSc => fence_sc(exec),
            Axiom::Atomicity => single_copy_atomicity(exec) && rmw_atomicity(exec),
            Axiom::NoThinAir => no_thin_air(exec),
            Axiom::ScPerLocation => sc_per_location(exec),
            Axiom::Causality => causality(exec),
        }
    }
}

/// Pairs of distinct events of `exec` to one location.
fn same_loc_pairs<'a>(exec: &'a Execution) -> impl Iterator<Item = (usize, usize)> + 'a {
    let n = exec.len();
    (0..n).flat_map(move |a| (0..n).map(move |b| (a, b))).filter(move |&(a, b)| {
        a != b && exec.ev(a).loc().is_some() && exec.ev(a).loc() == exec.ev(b).loc()
    })
}

/// 8.10.1: "If a write W precedes an overlapping write W' in causality order, then
/// W must precede W' in coherence order."
pub fn coherence(exec: &Execution) -> bool {
    same_loc_pairs(exec)
        .filter(|&(w, v)| exec.ev(w).is_write() && exec.ev(v).is_write())
        .all(|(w, v)| !exec.cause.has(w, v) || exec.co.has(w, v))
}

/// 8.10.2: "Fence-SC order cannot contradict causality order. For a pair of
/// morally strong fence.sc operations F1 and F2, if F1 precedes F2 in causality
/// order, then F1 must precede F2 in Fence-SC order."
pub fn fence_sc(exec: &Execution) -> bool {
    let n = exec.len();
    let sc = |f: usize| exec.ev(f).op == Op::Fence && exec.ev(f).sem == super::Sem::Sc;
    (0..n).filter(|&f| sc(f)).all(|f| {
        (0..n)
            .filter(|&g| g != f && sc(g) && exec.ms.has(f, g))
            .all(|g| !exec.cause.has(f, g) || exec.fsc.has(f, g))
    })
}

/// 8.10.3, single-copy atomicity: "When a read R and a write W are morally strong,
/// then the following two communications cannot both exist in the same execution,
/// for the set of bytes accessed by both R and W: R reads any byte from W. R reads
/// any byte from any write W' which precedes W in coherence order." Every access
/// here is one whole location, read from one write, so the two cannot both hold;
/// the check is kept so that the axiom stays stated when accesses get bytes.
pub fn single_copy_atomicity(exec: &Execution) -> bool {
    same_loc_pairs(exec)
        .filter(|&(r, w)| exec.ev(r).takes_value() && exec.ev(w).is_write() && exec.ms.has(r, w))
        .all(|(r, w)| !(exec.choice.rf[r] == Some(Source::Write(w)) && exec.reads_before(r, w)))
}

/// 8.10.3, atomicity of read-modify-write operations: "When an atomic operation A
/// and a write W overlap and are morally strong, then the following two
/// communications cannot both exist in the same execution, for the set of bytes
/// accessed by both A and W: A reads any byte from a write W' that precedes W in
/// coherence order. A follows W in coherence order."
pub fn rmw_atomicity(exec: &Execution) -> bool {
    same_loc_pairs(exec)
        .filter(|&(a, w)| exec.ev(a).is_atomic() && exec.ev(w).is_write() && exec.ms.has(a, w))
        .all(|(a, w)| !(exec.reads_before(a, w) && exec.co.has(w, a)))
}

/// 8.10.4: "Values may not appear "out of thin air": an execution cannot
/// speculatively produce a value in such a way that the speculation becomes
/// self-satisfying through chains of instruction dependencies and inter-thread
/// communication." Read as: the values must follow from the reads-from choice and
/// the program's data dependencies without a cycle; a candidate in which a value
/// would have to justify itself (the chapter's "LB+deps", where "A1->B1->A2->B2->A1"
/// passes values round a cycle) is rejected. Without a dependency there is no such
/// cycle: "This form of load buffering is deliberately permitted".
pub fn no_thin_air(exec: &Execution) -> bool {
    exec.values.iter().all(Option::is_some)
}

/// 8.10.5: "Within any set of overlapping memory operations that are pairwise
/// morally strong, communication order cannot contradict program order, i.e., a
/// concatenation of program order between overlapping operations and morally
/// strong relations in communication order cannot result in a cycle." Checked on
/// every set of one location's operations that are pairwise morally strong.
pub fn sc_per_location(exec: &Execution) -> bool {
    let n = exec.len();
    let mut locs: Vec<_> = (0..n).filter_map(|i| exec.ev(i).loc()).collect();
    locs.sort();
    locs.dedup();
    locs.into_iter().all(|l| {
        let ops: Vec<usize> = (0..n).filter(|&i| exec.ev(i).loc() == Some(l)).collect();
        (1u32..1 << ops.len()).all(|mask| {
            let set: Vec<usize> = ops.iter().enumerate().filter(|(k, _)| mask & (1 << k) != 0).map(|(_, i)| *i).collect();
            let clique = set.iter().all(|&a| set.iter().all(|&b| a == b || exec.ms.has(a, b)));
            !clique || acyclic(&set, |a, b| exec.po.has(a, b) || exec.com(a, b))
        })
    })
}

/// Whether `edge` restricted to `set` has no cycle.
fn acyclic(set: &[usize], edge: impl Fn(usize, usize) -> bool) -> bool {
    let k = set.len();
    let mut reach = vec![false; k * k];
    for (i, &a) in set.iter().enumerate() {
        for (j, &b) in set.iter().enumerate() {
            reach[i * k + j] = a != b && edge(a, b);
        }
    }
    for m in 0..k {
        for i in 0..k {
            if reach[i * k + m] {
                for j in 0..k {
                    if reach[m * k + j] {
                        reach[i * k + j] = true;
                    }
                }
            }
        }
    }
    (0..k).all(|i| !reach[i * k + i])
}

/// 8.10.6: "Relations in communication order cannot contradict causality order.
/// This constrains the set of candidate write operations that a read operation may
/// read from: If a read R precedes an overlapping write W in causality order, then
/// R cannot read from W. If a write W precedes an overlapping read R in causality
/// order, then for any byte accessed by both R and W, R cannot read from any write
/// W' that precedes W in coherence order."
///
/// A `red`'s read is a read R here, as in communication order (8.8: it
/// "conceptually perform[s] a strong read").
pub fn causality(exec: &Execution) -> bool {
    same_loc_pairs(exec).all(|(x, y)| {
        let (a, b) = (exec.ev(x), exec.ev(y));
        let first = !(a.takes_value() && b.is_write() && exec.cause.has(x, y) && exec.choice.rf[x] == Some(Source::Write(y)));
        let second = !(a.is_write() && b.takes_value() && exec.cause.has(x, y) && exec.reads_before(y, x));
        first && second
    })
}
