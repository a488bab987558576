//! The PTX memory consistency model (PTX ISA 9.x, chapter 8, "Memory Consistency
//! Model") as an allowed-outcome oracle for small litmus tests: which final register
//! values and final memory a test may end with, and, for an outcome it may not, the
//! axioms that rule it out.
//!
//! # The method
//!
//! The chapter is axiomatic: "The memory consistency model defines contradictions
//! that are disallowed between communication order on the one hand, and causality
//! order and program order on the other" (8.9). So a test is judged by its
//! *candidate executions*: every choice of the write each read reads from (the
//! initial value or any write to its location), of an order of each location's
//! writes (from which coherence order is read, see [`relations`]), and of an order
//! of the `fence.sc` operations (from which Fence-SC order is read). A candidate
//! produces an [`Outcome`]; the [`axioms`] accept or reject it. An outcome is
//! allowed iff some candidate that satisfies every axiom produces it.
//!
//! # What is modelled
//!
//! `ld`, `st`, `atom` and `red` (add and exchange) and `fence`, each with its `.sem` (or
//! `.weak`) and `.scope`, on the generic proxy, accesses through virtual aliases of a
//! location and `fence.proxy.alias` between them (8.6, 8.9.5), every access the same
//! size, so that
//! any two accesses to one location "overlap completely" (8.7) and none overlap
//! partially: the programs have no mixed-size data-races, for which "The axioms in
//! the memory consistency model do not apply" (8.7.2). Every location starts at 0,
//! as in each of the chapter's litmus tests. Not modelled yet: barriers and the other synchronizing instructions of 8.9.4 besides `fence.sc`
//! and release/acquire patterns, proxies other than the generic one and aliases
//! (8.6: texture, surface, constant, async), `.volatile` and `.mmio`,
//! state spaces (8.3), and control dependencies (a thread's program is straight
//! line code).
//!
//! # Where the chapter leaves a choice
//!
//! Each is argued where it is made: coherence order and Fence-SC order as total
//! orders restricted to the pairs the chapter relates (coherence order then closed
//! transitively, a "partial transitive order"), and the initial value as a
//! write before all ([`relations`]); `fence.sc` as an acquire-release fence in the
//! release and acquire patterns; causality order between a fence and another
//! operation as base causality order; No Thin Air as acyclic reads-from plus data
//! dependencies ([`axioms::no_thin_air`]); Sequential Consistency Per Location
//! checked on every pairwise morally strong set; and `red`, not a read operation
//! (Table 20) and so in no acquire pattern, whose read ("atomic reductions
//! conceptually perform a strong read", 8.8) takes part in observation order,
//! communication order and Causality like a read's.
//!
//! [`sc`] gives the outcomes of sequentially consistent interleavings: an allowed
//! outcome outside them is *weak*.

pub mod axioms;
pub mod relations;
pub mod sc;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use axioms::Axiom;
use relations::Execution;

/// A scope (8.5, Table 21): "the set of threads that may interact directly with
/// that operation and establish any of the relations described in the memory
/// consistency model".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `.cta`: "The set of all threads executing in the same CTA as the current
    /// thread."
    Cta,
    /// `.cluster`: "The set of all threads executing in the same cluster as the
    /// current thread."
    Cluster,
    /// `.gpu`: "The set of all threads in the current program executing on the same
    /// compute device as the current thread."
    Gpu,
    /// `.sys`: "The set of all threads in the current program, including all kernel
    /// grids invoked by the host program on all compute devices".
    Sys,
}

impl Scope {
    /// Every scope, narrowest first.
    pub const ALL: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

    /// Whether this scope, specified by an operation of a thread at `from`,
    /// includes a thread at `to` (Table 21's sets).
    pub fn includes(self, from: Place, to: Place) -> bool {
        let same_gpu = from.gpu == to.gpu;
        let same_cluster = same_gpu && from.cluster == to.cluster;
        match self {
            Scope::Cta => same_cluster && from.cta == to.cta,
            Scope::Cluster => same_cluster,
            Scope::Gpu => same_gpu,
            Scope::Sys => true,
        }
    }
}

/// Where a thread runs: the compute device, the cluster on it and the CTA in that
/// cluster. Two threads with equal places share a CTA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    /// The compute device.
    pub gpu: u8,
    /// The cluster, on that device.
    pub cluster: u8,
    /// The CTA, in that cluster.
    pub cta: u8,
}

impl Place {
    /// The CTA `cta` of cluster `cluster` on device 0.
    pub const fn cta(cluster: u8, cta: u8) -> Place {
        Place { gpu: 0, cluster, cta }
    }
}

/// The memory-ordering qualifier of an operation (8.4, Table 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sem {
    /// `.weak` (or none, on `ld`/`st`): "weak operation: An `ld` or `st` instruction
    /// with a `.weak` qualifier."
    Weak,
    /// `.relaxed` (or none, on `atom`).
    Relaxed,
    /// `.acquire`.
    Acquire,
    /// `.release`.
    Release,
    /// `.acq_rel` (or none, on `fence`: "If the optional `.sem` qualifier is absent,
    /// `.acq_rel` is assumed by default", 9.7.13.4).
    AcqRel,
    /// `.sc`: fences only.
    Sc,
}

/// A memory location. Every location holds 0 before the test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc(pub u8);

/// A register of one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reg(pub u8);

/// The value a `st` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Val {
    /// A constant.
    Const(u32),
    /// What a register of the same thread holds: set by an earlier `ld` or `atom`
    /// of that thread (a data dependency, as in the chapter's "LB+deps").
    Reg(Reg),
}

/// The read-modify-write an `atom` performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rmw {
    /// `.add` of a constant (the chapter's `atom.inc` with no bound reached is an
    /// add of 1).
    Add(u32),
    /// `.exch` with a constant.
    Exch(u32),
}

impl Rmw {
    /// What the `atom` writes, given what it read.
    pub fn apply(self, old: u32) -> u32 {
        match self {
            Rmw::Add(k) => old.wrapping_add(k),
            Rmw::Exch(v) => v,
        }
    }
}

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// `ld`: a read of `loc` into `reg`.
    Ld {
        /// The location read.
        loc: Loc,
        /// The register that receives it.
        reg: Reg,
    },
    /// `st`: a write of `val` to `loc`.
    St {
        /// The location written.
        loc: Loc,
        /// The value written.
        val: Val,
    },
    /// `atom`: a read of `loc` into `reg` and a write of `rmw` of it, one atomic
    /// operation ("atomic operation: `atom` or `red` instruction", Table 20).
    Atom {
        /// The location.
        loc: Loc,
        /// The register that receives the old value.
        reg: Reg,
        /// The operation.
        rmw: Rmw,
    },
    /// `red`: an atomic operation that writes `rmw` of what `loc` held, and
    /// yet not a read operation ("All variants of `ld` instruction and `atom`
    /// instruction (but not `red` instruction)", Table 20).
    Red {
        /// The location.
        loc: Loc,
        /// The operation.
        rmw: Rmw,
    },
    /// `fence` (a "memory fence operation", Table 20).
    Fence,
    /// `fence.proxy.alias`: the proxy fence that orders accesses through virtual
    /// aliases of one location (8.6: "since using distinct virtual addresses
    /// behaves as if using different proxies, they require a proxy fence to
    /// establish memory ordering"). It has neither `.sem` nor `.scope`.
    AliasFence,
}

/// One operation of a thread: what it does, its qualifier and its scope (`None`
/// exactly for a weak operation: "Each strong operation must specify a scope", 8.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Event {
    /// What it does.
    pub op: Op,
    /// Its qualifier.
    pub sem: Sem,
    /// Its scope.
    pub scope: Option<Scope>,
    /// Which of its location's virtual addresses a memory operation goes through:
    /// 0 unless a test gives the location aliases ("// These addresses are
    /// aliases", 8.10.6, Litmus Test: CoWR). Every alias is the same memory.
    pub alias: u8,
}

impl Event {
    /// `ld.weak [loc]` into `reg`.
    pub fn ld_weak(loc: Loc, reg: Reg) -> Event {
        Event { op: Op::Ld { loc, reg }, sem: Sem::Weak, scope: None, alias: 0 }
    }

    /// `ld.sem.scope [loc]` into `reg`.
    pub fn ld(sem: Sem, scope: Scope, loc: Loc, reg: Reg) -> Event {
        Event { op: Op::Ld { loc, reg }, sem, scope: Some(scope), alias: 0 }
    }

    /// `st.weak [loc], val`.
    pub fn st_weak(loc: Loc, val: Val) -> Event {
        Event { op: Op::St { loc, val }, sem: Sem::Weak, scope: None, alias: 0 }
    }

    /// `st.sem.scope [loc], val`.
    pub fn st(sem: Sem, scope: Scope, loc: Loc, val: Val) -> Event {
        Event { op: Op::St { loc, val }, sem, scope: Some(scope), alias: 0 }
    }

    /// `atom.sem.scope.op reg, [loc]`.
    pub fn atom(sem: Sem, scope: Scope, loc: Loc, reg: Reg, rmw: Rmw) -> Event {
        Event { op: Op::Atom { loc, reg, rmw }, sem, scope: Some(scope), alias: 0 }
    }

    /// `red.sem.scope.op [loc]`.
    pub fn red(sem: Sem, scope: Scope, loc: Loc, rmw: Rmw) -> Event {
        Event { op: Op::Red { loc, rmw }, sem, scope: Some(scope), alias: 0 }
    }

    /// `fence.sem.scope`.
    pub fn fence(sem: Sem, scope: Scope) -> Event {
        Event { op: Op::Fence, sem, scope: Some(scope), alias: 0 }
    }

    /// `fence.proxy.alias`.
    pub fn alias_fence() -> Event {
        Event { op: Op::AliasFence, sem: Sem::Weak, scope: None, alias: 0 }
    }

    /// The same memory operation through its location's virtual address `alias`.
    pub fn via(self, alias: u8) -> Event {
        Event { alias, ..self }
    }

    /// The location a memory operation accesses; `None` for a fence.
    pub fn loc(&self) -> Option<Loc> {
        match self.op {
            Op::Ld { loc, .. } | Op::St { loc, .. } | Op::Atom { loc, .. } | Op::Red { loc, .. } => Some(loc),
            Op::Fence | Op::AliasFence => None,
        }
    }

    /// A read operation: "All variants of `ld` instruction and `atom` instruction"
    /// (Table 20).
    pub fn is_read(&self) -> bool {
        matches!(self.op, Op::Ld { .. } | Op::Atom { .. })
    }

    /// A write operation: "All variants of `st` instruction, and atomic operations
    /// if they result in a write" (Table 20; every modelled `atom` and `red`
    /// writes).
    pub fn is_write(&self) -> bool {
        matches!(self.op, Op::St { .. } | Op::Atom { .. } | Op::Red { .. })
    }

    /// An atomic operation: "`atom` or `red` instruction" (Table 20).
    pub fn is_atomic(&self) -> bool {
        matches!(self.op, Op::Atom { .. } | Op::Red { .. })
    }

    /// Whether the operation takes a value from memory: a read operation, or a
    /// `red`, not a read operation though "atomic reductions conceptually perform a
    /// strong read as part of its read-modify-write sequence" (8.8).
    pub fn takes_value(&self) -> bool {
        self.is_read() || matches!(self.op, Op::Red { .. })
    }

    /// "strong operation: A memory fence operation, or a memory operation with a
    /// `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.volatile`, or `.mmio`
    /// qualifier" (Table 20).
    pub fn is_strong(&self) -> bool {
        self.sem != Sem::Weak
    }


    /// Why this operation is not one PTX can spell, if it is not.
    fn unsupported(&self) -> Option<Unsupported> {
        let ok = match (self.op, self.sem) {
            (Op::AliasFence, s) => s == Sem::Weak,
            (_, Sem::Weak) => matches!(self.op, Op::Ld { .. } | Op::St { .. }),
            (Op::Fence, s) => s != Sem::Relaxed,
            (_, Sem::Sc) => false,
            (Op::Ld { .. }, s) => matches!(s, Sem::Relaxed | Sem::Acquire),
            (Op::St { .. } | Op::Red { .. }, s) => matches!(s, Sem::Relaxed | Sem::Release),
            (Op::Atom { .. }, _) => true,
        };
        if !ok {
            return Some(Unsupported::Qualifier(*self));
        }
        (self.is_strong() != self.scope.is_some()).then_some(Unsupported::Scope(*self))
    }
}

/// One thread: where it runs and its operations in program order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Where it runs.
    pub place: Place,
    /// Its operations, in program order.
    pub events: Vec<Event>,
}

/// A litmus test: its threads, every location 0 at the start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Litmus {
    /// The threads.
    pub threads: Vec<Thread>,
}

/// Why a test is outside the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// A qualifier the operation cannot take (`ld.release`, `fence.relaxed`,
    /// `atom.weak`, `.sc` on a memory operation...).
    Qualifier(Event),
    /// A strong operation without a scope, or a weak one with one.
    Scope(Event),
    /// A `st` of a register that no earlier `ld` or `atom` of its thread sets.
    UnsetRegister(Reg),
    /// More candidate executions than [`MAX_CANDIDATES`].
    TooLarge(u128),
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Qualifier(e) => write!(f, "{:?} cannot take the qualifier {:?}", e.op, e.sem),
            Unsupported::Scope(e) => write!(f, "{e:?}: a strong operation takes a scope, a weak one none"),
            Unsupported::UnsetRegister(r) => write!(f, "register {} is stored before it is set", r.0),
            Unsupported::TooLarge(n) => write!(f, "{n} candidate executions, above {MAX_CANDIDATES}"),
        }
    }
}

/// The most candidate executions [`judge`] walks.
pub const MAX_CANDIDATES: u128 = 1 << 22;

/// What a test ended with: each thread's registers (the last value each received)
/// and each location's final value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Outcome {
    /// `(thread, register)` to value.
    pub regs: BTreeMap<(usize, Reg), u32>,
    /// Location to final value; a location no operation writes holds 0.
    pub mem: BTreeMap<Loc, u32>,
}

impl Outcome {
    /// What `reg` of `thread` ended with, if anything set it.
    pub fn reg(&self, thread: usize, reg: Reg) -> Option<u32> {
        self.regs.get(&(thread, reg)).copied()
    }

    /// What `loc` ended with.
    pub fn mem(&self, loc: Loc) -> u32 {
        self.mem.get(&loc).copied().unwrap_or(0)
    }
}

/// The verdict on a test: the outcomes it may end with, the ones some candidate
/// produces but no consistent candidate does, each with the axioms that rejected
/// its candidates (the first failed by each, in the chapter's order), and how many
/// candidates each axiom rejected first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdict {
    /// The allowed outcomes.
    pub allowed: BTreeSet<Outcome>,
    /// The forbidden outcomes, with the axioms that forbid them.
    pub forbidden: BTreeMap<Outcome, BTreeSet<Axiom>>,
    /// Candidates rejected, by the first axiom each fails. A candidate that fails
    /// No Thin Air has no outcome (its values are not determined), so it counts here
    /// and nowhere else.
    pub rejected: BTreeMap<Axiom, usize>,
}

impl Verdict {
    /// Whether some allowed outcome satisfies `cond`.
    pub fn allows(&self, cond: impl Fn(&Outcome) -> bool) -> bool {
        self.allowed.iter().any(cond)
    }

    /// The axioms that forbid the outcomes satisfying `cond`, or `None` where an
    /// allowed outcome satisfies it or no candidate produces one.
    pub fn forbids(&self, cond: impl Fn(&Outcome) -> bool) -> Option<BTreeSet<Axiom>> {
        if self.allows(&cond) {
            return None;
        }
        let mut by: Option<BTreeSet<Axiom>> = None;
        for (_, axioms) in self.forbidden.iter().filter(|(o, _)| cond(o)) {
            by.get_or_insert_with(BTreeSet::new).extend(axioms);
        }
        by
    }
}

/// The verdict on `test`: every candidate execution judged by every axiom.
pub fn judge(test: &Litmus) -> Result<Verdict, Unsupported> {
    let events: Vec<relations::Ev> = test
        .threads
        .iter()
        .enumerate()
        .flat_map(|(t, th)| {
            th.events.iter().enumerate().map(move |(i, e)| relations::Ev { thread: t, index: i, place: th.place, event: *e })
        })
        .collect();
    for ev in &events {
        if let Some(u) = ev.event.unsupported() {
            return Err(u);
        }
        if let Op::St { val: Val::Reg(r), .. } = ev.event.op {
            let set = events.iter().any(|d| d.thread == ev.thread && d.index < ev.index && d.event_reg() == Some(r));
            if !set {
                return Err(Unsupported::UnsetRegister(r));
            }
        }
    }
    let space = relations::Space::new(&events);
    let total = space.size();
    if total > MAX_CANDIDATES {
        return Err(Unsupported::TooLarge(total));
    }
    let mut verdict = Verdict::default();
    let mut failures: BTreeMap<Outcome, BTreeSet<Axiom>> = BTreeMap::new();
    for choice in space.candidates() {
        let exec = Execution::new(&events, &choice);
        let failed = Axiom::ALL.into_iter().find(|a| !a.holds(&exec));
        if let Some(a) = failed {
            *verdict.rejected.entry(a).or_insert(0) += 1;
        }
        let Some(outcome) = exec.outcome() else { continue };
        match failed {
            None => {
                verdict.allowed.insert(outcome);
            }
            Some(a) => {
                failures.entry(outcome).or_default().insert(a);
            }
        }
    }
    verdict.forbidden = failures.into_iter().filter(|(o, _)| !verdict.allowed.contains(o)).collect();
    Ok(verdict)
}
