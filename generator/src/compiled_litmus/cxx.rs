//! What the source language forbids, and the published mapping from it to PTX.
//!
//! # The forbidden outcomes
//!
//! Each shape's forbidden outcome is the classic one, forbidden by the C++ memory
//! model ([intro.races], [atomics.order], [atomics.fences], C++20) at the orders
//! named below and allowed at weaker ones.
//!
//! # Threads outside the scope
//!
//! CUDA C++ scopes the model. libcu++'s "Memory model" (NVIDIA CCCL,
//! docs/libcudacxx/extended_api/memory_model.rst) relates threads by scope ("Each
//! GPU thread is related to each other GPU thread in the same CUDA thread block by
//! the block thread scope", "... in the same CUDA device and within the same memory
//! synchronization domain by the device thread scope") and, under "Data Races",
//! modifies [intro.races] p21: "The execution of a program contains a data race if
//! it contains two potentially concurrent conflicting actions, at least one of which
//! is not atomic at a scope that includes the thread that performed the other
//! operation, and neither happens before the other [...] Any such data race results
//! in undefined behavior." Its own example is a `thread_scope_block` release store
//! in block 0 read by block 1: "causing the store and the load to not be `atomic`,
//! and introducing a data-race". Every shape here has two threads access one
//! location, one of them writing, with nothing ordering them but the atomics
//! themselves; so a test whose threads are not all within its scope has undefined
//! behavior, and the source forbids nothing ([`forbidden`] is `None`).
//!
//! LLVM IR's model is C++'s for these orders (LangRef, "Memory Model for Concurrent
//! Operations": monotonic is `memory_order_relaxed`, the others by their names), with
//! syncscope for scope: an atomic marked syncscope("<target-scope>") "synchronizes
//! with and participates in the seq_cst total orderings of other operations running
//! in the same target-specific synchronization scope" (LangRef, "Atomic Memory
//! Ordering Constraints"). The NVPTX back end names its scopes after CUDA's
//! (NVPTXISelDAGToDAG.cpp, `NVPTXScopes`: "" system, "block", "cluster", "device"),
//! so an LLVM test is judged as the CUDA C++ one: outside its scope it forbids
//! nothing. syncscope("cluster") is the one CUDA C++ cannot write (the manifest's
//! `why_no_cuda`); its threads are "within" when they share a cluster (PTX ISA,
//! Memory Consistency Model, "Scope", Table 21: `.cluster` is "The set of all
//! threads executing in the same cluster as the current thread.").
//!
//! # The mapping
//!
//! NVIDIA's "PTX Writers Guide to Interoperability", "Atomics Application Binary
//! Interface" (CUDA 12.8.1): "The mapping from C++11 atomics for the CUDA
//! architecture are proven correct in A Formal Analysis of the NVIDIA PTX Memory
//! Consistency Model" (Lustig, Sahasrabuddhe, Giroux, ASPLOS 2019), "The PTX ISA
//! provides atomic memory operations and fences for acquire, release,
//! acquire-release, and relaxed C++ memory ordering semantics", and for seq_cst:
//! `atomic_thread_fence` → `fence.sc.<scope>;`, `atomic_load` → `fence.sc.<scope>;
//! ld.acquire.<scope>;`, `atomic_store` → `fence.sc.<scope>; st.release.<scope>;`,
//! `atomic_<rmw op>` → `fence.sc.<scope>; atom.acq_rel.<scope>.<rmw op>;`.
//! [`abi_litmus`] is a test so mapped: the oracle must forbid there what C++
//! forbids (the mapping is proven sound), which holds the rules below and the
//! oracle to each other.

use std::collections::BTreeMap;

use ptxvec_oracle::model::{Event, Litmus, Loc, Place, Reg, Rmw, Scope, Sem, Thread, Val};

use super::manifest::{Order, Placement, Shape, SourceOp, Test, ThreadScope};

/// Something a test's outcome can be asked about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Observable {
    /// A register a thread writes out, by its name in the manifest.
    Reg {
        /// The thread.
        thread: usize,
        /// The register's name.
        name: String,
    },
    /// A location's final value, by its name.
    Mem(String),
}

/// An outcome, or the set of outcomes that agree on these values.
pub type Cond = Vec<(Observable, u32)>;

/// An outcome the source forbids, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    /// The outcome.
    pub cond: Cond,
    /// The rule of the source's model that forbids it.
    pub rule: String,
}

/// The PTX scope a thread scope maps to (ABI page: `thread_scope_<scope>` →
/// `.<scope>`: block `.cta`, device `.gpu`, system `.sys`; syncscope("cluster") is
/// `.cluster`, as LLVM 22 emits it).
pub fn ptx_scope(s: ThreadScope) -> Scope {
    match s {
        ThreadScope::Block => Scope::Cta,
        ThreadScope::Cluster => Scope::Cluster,
        ThreadScope::Device => Scope::Gpu,
        ThreadScope::System => Scope::Sys,
    }
}

/// Where thread `t` runs.
pub fn place(test: &Test, t: usize) -> Place {
    let p = test.threads[t].place;
    Place { gpu: p.gpu, cluster: p.cluster, cta: p.cta }
}

/// Whether every thread is within every other's scope: the condition for the
/// scoped model to forbid anything.
fn within_scope(test: &Test) -> bool {
    let s = ptx_scope(test.scope);
    (0..test.threads.len()).all(|a| (0..test.threads.len()).all(|b| s.includes(place(test, a), place(test, b))))
}

/// Whether the test's placement keeps its threads within its scope (and its
/// threads' places agree): one CTA for block scope, one cluster for cluster scope,
/// one GPU for device scope, anywhere for system scope.
pub fn placement_within(test: &Test) -> bool {
    matches!(
        (test.scope, test.placement),
        (ThreadScope::Block, Placement::Cta)
            | (ThreadScope::Cluster, Placement::Cta | Placement::Cluster)
            | (ThreadScope::Device, Placement::Cta | Placement::Cluster | Placement::Gpu)
            | (ThreadScope::System, _)
    ) && within_scope(test)
}

/// Whether a release (the op's own, or a release fence before it in its thread,
/// [atomics.fences] p2) heads the write `w` of thread `t`.
fn release_at(test: &Test, t: usize, w: usize) -> bool {
    let ops = &test.threads[t].ops;
    ops[w].order().releases() || ops[..w].iter().any(|o| matches!(o, SourceOp::Fence { order } if order.releases()))
}

/// Whether an acquire (the op's own, or an acquire fence after it in its thread,
/// [atomics.fences] p4) follows the read `r` of thread `t`.
fn acquire_at(test: &Test, t: usize, r: usize) -> bool {
    let ops = &test.threads[t].ops;
    ops[r].order().acquires() || ops[r + 1..].iter().any(|o| matches!(o, SourceOp::Fence { order } if order.acquires()))
}

/// Whether the write `(tw, w)`, read by `(tr, r)`, synchronizes with it: release
/// and acquire at both ends ([atomics.order] p2, [atomics.fences] p2-p4).
fn syncs(test: &Test, (tw, w): (usize, usize), (tr, r): (usize, usize)) -> bool {
    release_at(test, tw, w) && acquire_at(test, tr, r)
}

/// Whether every access (not fence) of the test is seq_cst.
fn all_sc(test: &Test) -> bool {
    test.threads.iter().flat_map(|t| &t.ops).filter(|o| !matches!(o, SourceOp::Fence { .. })).all(|o| o.order() == Order::SeqCst)
}

/// Whether every thread has a seq_cst fence.
fn sc_fences(test: &Test) -> bool {
    test.threads.iter().all(|t| t.ops.iter().any(|o| matches!(o, SourceOp::Fence { order: Order::SeqCst })))
}

fn reg(thread: usize, name: &str, v: u32) -> (Observable, u32) {
    (Observable::Reg { thread, name: name.to_owned() }, v)
}

/// The outcome the source forbids, if any: the shape's classic outcome at orders
/// strong enough, for threads within the test's scope.
pub fn forbidden(test: &Test) -> Option<Forbidden> {
    if !within_scope(test) {
        return None;
    }
    let (ok, cond, rule): (bool, Cond, &str) = match test.shape {
        Shape::Mp | Shape::MpFences | Shape::MpRmw | Shape::MpRmws => {
            let w = test.threads[0].ops.len() - 1;
            (
                syncs(test, (0, w), (1, 0)),
                vec![reg(1, "r0", 1), reg(1, "r1", 0)],
                "the flag's release (store or fence before it) synchronizes with its acquire \
                 (load or fence after it) ([atomics.order] p2, [atomics.fences] p2-p4), so the \
                 store of data happens before the load of data, which then cannot read the \
                 initial value (write-read coherence, [intro.races] p18)",
            )
        }
        Shape::Sb | Shape::SbRmw | Shape::SbRmws => (
            all_sc(test),
            vec![reg(0, "r0", 0), reg(1, "r1", 0)],
            "all four accesses are seq_cst: one total order S of them, consistent with \
             sequenced-before, where each load reads the last write before it in S \
             ([atomics.order] p4), so one load follows the other thread's write",
        ),
        Shape::SbFences => (
            sc_fences(test),
            vec![reg(0, "r0", 0), reg(1, "r1", 0)],
            "seq_cst fences between each store and load: the fence first in S makes the \
             other thread's load, sequenced after the later fence, observe its thread's \
             store or a later one ([atomics.order] p4, fence rules)",
        ),
        Shape::Lb => (
            syncs(test, (0, 1), (1, 0)) || syncs(test, (1, 1), (0, 0)),
            vec![reg(0, "r0", 1), reg(1, "r1", 1)],
            "a release store read by an acquire load synchronizes with it \
             ([atomics.order] p2); the other load, sequenced before that store, then happens \
             before the store it would read from (read-write coherence, [intro.races] p17)",
        ),
        Shape::Iriw => (
            all_sc(test),
            vec![reg(2, "r0", 1), reg(2, "r1", 0), reg(3, "r2", 1), reg(3, "r3", 0)],
            "all accesses seq_cst: the readers cannot see the two writes in opposite orders \
             in the single total order S ([atomics.order] p4)",
        ),
        Shape::Wrc => (
            syncs(test, (0, 0), (1, 0)) && syncs(test, (1, 1), (2, 0)),
            vec![reg(1, "r0", 1), reg(2, "r1", 1), reg(2, "r2", 0)],
            "both reads-from edges synchronize ([atomics.order] p2): the store of x happens \
             before the last load of x, which then cannot read the initial value \
             (write-read coherence, [intro.races] p18)",
        ),
        Shape::CoRr => (
            true,
            vec![reg(1, "r0", 1), reg(1, "r1", 0)],
            "read-read coherence ([intro.races] p16), for every atomic order",
        ),
        Shape::TwoPlusTwoW => (
            all_sc(test),
            vec![(Observable::Mem("x".to_owned()), 1), (Observable::Mem("y".to_owned()), 1)],
            "all four stores seq_cst: S is consistent with sequenced-before and with each \
             location's modification order ([atomics.order] p4), and the outcome needs a cycle",
        ),
    };
    ok.then(|| Forbidden { cond, rule: rule.to_owned() })
}

/// The test as the published mapping compiles it (module docs): what the proof of
/// Lustig et al. speaks of, for [`forbidden`] to be checked against the oracle.
/// Observed registers are numbered per thread in load order.
pub fn abi_litmus(test: &Test) -> Litmus {
    let scope = ptx_scope(test.scope);
    let loc = |name: &str| Loc(test.locations.iter().position(|l| l == name).unwrap_or(0) as u8);
    let threads = test
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let mut events = Vec::new();
            let mut next_reg = 0u8;
            for op in &th.ops {
                let sc = op.order() == Order::SeqCst;
                if sc {
                    events.push(Event::fence(Sem::Sc, scope));
                }
                match op {
                    SourceOp::Load { loc: l, order, .. } => {
                        let sem = if order.acquires() { Sem::Acquire } else { Sem::Relaxed };
                        events.push(Event::ld(sem, scope, loc(l), Reg(next_reg)));
                        next_reg += 1;
                    }
                    SourceOp::Store { loc: l, value, order } => {
                        let sem = if order.releases() { Sem::Release } else { Sem::Relaxed };
                        events.push(Event::st(sem, scope, loc(l), Val::Const(*value)));
                    }
                    SourceOp::Exchange { loc: l, value, order } => {
                        // The old value is unused: a register no observation names.
                        events.push(Event::atom(rmw_sem(*order), scope, loc(l), Reg(100 + next_reg), Rmw::Exch(*value)));
                    }
                    SourceOp::FetchAdd { loc: l, value, order, .. } => {
                        events.push(Event::atom(rmw_sem(*order), scope, loc(l), Reg(next_reg), Rmw::Add(*value)));
                        next_reg += 1;
                    }
                    SourceOp::Fence { .. } if sc => {}
                    SourceOp::Fence { .. } => events.push(Event::fence(Sem::AcqRel, scope)),
                }
            }
            Thread { place: place(test, t), events }
        })
        .collect();
    Litmus { threads }
}

/// An rmw's `.sem`: its order's own, seq_cst as acq_rel after the `fence.sc`.
fn rmw_sem(order: Order) -> Sem {
    match order {
        Order::Relaxed => Sem::Relaxed,
        Order::Acquire => Sem::Acquire,
        Order::Release => Sem::Release,
        Order::AcqRel | Order::SeqCst => Sem::AcqRel,
    }
}

/// The registers [`abi_litmus`] gives each observed name: per thread, in order.
pub fn abi_names(test: &Test) -> BTreeMap<(usize, String), Reg> {
    let mut out = BTreeMap::new();
    for (t, th) in test.threads.iter().enumerate() {
        for (i, n) in th.observed.iter().enumerate() {
            out.insert((t, n.clone()), Reg(i as u8));
        }
    }
    out
}
