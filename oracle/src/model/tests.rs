//! Litmus tests worked by hand from PTX ISA 9.x chapter 8: each expected verdict is
//! the chapter's own (its litmus tests of 8.10 quote their results) or follows from
//! the sections named beside it, never from this code's output.

use std::collections::BTreeSet;

use super::axioms::Axiom;
use super::{judge, Event, Litmus, Loc, Outcome, Place, Reg, Rmw, Scope, Sem, Thread, Unsupported, Val, Verdict};

const X: Loc = Loc(0);
const Y: Loc = Loc(1);
const DATA: Loc = Loc(2);
const FLAG: Loc = Loc(3);
const R0: Reg = Reg(0);
const R1: Reg = Reg(1);

/// Two threads in one CTA.
const SAME_CTA: [Place; 2] = [Place::cta(0, 0), Place::cta(0, 0)];
/// Two threads in different CTAs of one cluster.
const OTHER_CTA: [Place; 2] = [Place::cta(0, 0), Place::cta(0, 1)];
/// Two threads in different clusters of one GPU.
const OTHER_CLUSTER: [Place; 2] = [Place::cta(0, 0), Place::cta(1, 0)];

fn one(v: u32) -> Val {
    Val::Const(v)
}

fn run(places: [Place; 2], t0: Vec<Event>, t1: Vec<Event>) -> Verdict {
    let threads = vec![Thread { place: places[0], events: t0 }, Thread { place: places[1], events: t1 }];
    judge(&Litmus { threads }).unwrap()
}

fn axioms(a: &[Axiom]) -> Option<BTreeSet<Axiom>> {
    Some(a.iter().copied().collect())
}

/// Thread 0's `r0` and thread 1's `r1`, the registers of every two-thread test here.
fn regs(o: &Outcome) -> (Option<u32>, Option<u32>) {
    (o.reg(0, R0), o.reg(1, R1))
}

/// MP: thread 0 writes data then flag, thread 1 reads flag into r0 then data into
/// r1. The weak outcome is the flag seen and the data stale.
fn mp(places: [Place; 2], flag_st: Event, flag_ld: Event) -> Verdict {
    run(places, vec![Event::st_weak(DATA, one(1)), flag_st], vec![flag_ld, Event::ld_weak(DATA, R1)])
}

/// MP's flag is read into thread 1's r0 and data into its r1.
fn mp_regs(o: &Outcome) -> (Option<u32>, Option<u32>) {
    (o.reg(1, R0), o.reg(1, R1))
}

fn stale(o: &Outcome) -> bool {
    mp_regs(o) == (Some(1), Some(0))
}

#[test]
fn mp_release_acquire_at_a_common_scope_forbids_stale_data() {
    // 8.8: `st.release.gpu [flag]` is a release pattern and `ld.acquire.gpu [flag]`
    // an acquire pattern; they are morally strong (8.7: strong, and .gpu includes
    // a thread of another CTA on the same device, Table 21). When the load reads
    // the store, the store precedes it in observation order (8.9.2), so the
    // patterns synchronize (8.9.4) and the data store precedes the data load in
    // base causality order (8.9.5). Causality (8.10.6, second clause): the load
    // "cannot read from any write W' that precedes W in coherence order", here the
    // initial value.
    for places in [SAME_CTA, OTHER_CTA, OTHER_CLUSTER] {
        let v = mp(places, Event::st(Sem::Release, Scope::Gpu, FLAG, one(1)), Event::ld(Sem::Acquire, Scope::Gpu, FLAG, R0));
        assert_eq!(v.forbids(stale), axioms(&[Axiom::Causality]), "{places:?}");
        for (f, d) in [(0, 0), (0, 1), (1, 1)] {
            assert!(v.allows(|o| mp_regs(o) == (Some(f), Some(d))), "{places:?} flag {f} data {d}");
        }
    }
}

#[test]
fn mp_of_the_chapter_with_fences_forbids_stale_data() {
    // 8.10.6, Litmus Test: Message Passing: `st [data]; fence.sys; st.relaxed.sys
    // [flag]` against `ld.relaxed.sys [flag]; fence.sys; ld [data]`, "IF %r0 == 1
    // THEN %r1 == 1": "the release pattern "F1; W2" synchronizes with the acquire
    // pattern "R1; F2"". A `fence` without `.sem` is `.acq_rel` (9.7.13.4).
    let t0 = vec![
        Event::st_weak(DATA, one(1)),
        Event::fence(Sem::AcqRel, Scope::Sys),
        Event::st(Sem::Relaxed, Scope::Sys, FLAG, one(1)),
    ];
    let t1 = vec![
        Event::ld(Sem::Relaxed, Scope::Sys, FLAG, R0),
        Event::fence(Sem::AcqRel, Scope::Sys),
        Event::ld_weak(DATA, R1),
    ];
    let v = run(OTHER_CLUSTER, t0, t1);
    assert_eq!(v.forbids(stale), axioms(&[Axiom::Causality]));
    assert!(v.allows(|o| mp_regs(o) == (Some(1), Some(1))));
}

#[test]
fn mp_with_weak_accesses_allows_stale_data() {
    // 8.9.4: only synchronizing operations synchronize, and a weak `st`/`ld` is none
    // (Table 20), so nothing orders the data store before the data load across the
    // threads; and weak operations of two threads are not morally strong (8.7), so
    // Sequential Consistency Per Location does not relate them.
    let v = mp(SAME_CTA, Event::st_weak(FLAG, one(1)), Event::ld_weak(FLAG, R0));
    assert!(v.allows(stale));
    assert_eq!(v.forbids(stale), None);
}

#[test]
fn mp_at_cta_scope_across_ctas_allows_stale_data() {
    // 8.7: morally strong needs each operation's scope to include the other's
    // thread; `.cta` is "The set of all threads executing in the same CTA as the
    // current thread" (Table 21). Across CTAs the release and acquire are not
    // morally strong, the load does not observe the store in observation order
    // (8.9.2), the patterns do not synchronize (8.9.4): stale data is allowed.
    // Within one CTA the same test forbids it, as at `.gpu`.
    let (st, ld) = (Event::st(Sem::Release, Scope::Cta, FLAG, one(1)), Event::ld(Sem::Acquire, Scope::Cta, FLAG, R0));
    assert!(mp(OTHER_CTA, st, ld).allows(stale));
    assert!(mp(OTHER_CLUSTER, st, ld).allows(stale));
    assert_eq!(mp(SAME_CTA, st, ld).forbids(stale), axioms(&[Axiom::Causality]));
}

#[test]
fn mp_at_cluster_scope_synchronizes_within_the_cluster_only() {
    // Table 21: `.cluster` is "The set of all threads executing in the same cluster
    // as the current thread"; the argument of the `.gpu` test holds for two CTAs of
    // one cluster and fails across clusters.
    let (st, ld) =
        (Event::st(Sem::Release, Scope::Cluster, FLAG, one(1)), Event::ld(Sem::Acquire, Scope::Cluster, FLAG, R0));
    assert_eq!(mp(OTHER_CTA, st, ld).forbids(stale), axioms(&[Axiom::Causality]));
    assert!(mp(OTHER_CLUSTER, st, ld).allows(stale));
}

/// SB: each thread writes its own location then reads the other's; `between` goes
/// between the two in each thread.
fn sb(places: [Place; 2], sem: Sem, between: Option<Event>) -> Verdict {
    let st = |l: Loc| if sem == Sem::Weak { Event::st_weak(l, one(1)) } else { Event::st(sem, Scope::Gpu, l, one(1)) };
    let ld = |l: Loc, r: Reg| if sem == Sem::Weak { Event::ld_weak(l, r) } else { Event::ld(sem, Scope::Gpu, l, r) };
    let thread = |w: Loc, r: Loc, reg: Reg| [Some(st(w)), between, Some(ld(r, reg))].into_iter().flatten().collect();
    run(places, thread(X, Y, R0), thread(Y, X, R1))
}

fn both_zero(o: &Outcome) -> bool {
    regs(o) == (Some(0), Some(0))
}

#[test]
fn sb_relaxed_allows_both_reads_to_miss() {
    // Nothing in 8.9.4 makes a relaxed store synchronize with a relaxed load, so no
    // causality order runs from a thread's store to the other's load; per location
    // each location has one write and one read in different threads, and the read
    // of the initial value precedes the write in communication order (8.9.7) with no
    // program order to contradict (8.10.5).
    assert!(sb(OTHER_CTA, Sem::Relaxed, None).allows(both_zero));
}

#[test]
fn sb_of_the_chapter_with_fence_sc_forbids_both_reads_to_miss() {
    // 8.10.6, Litmus Test: Store Buffering, with `fence.sc.sys` between weak
    // accesses: "%r0 == 1 OR %r1 == 1". "In any execution, either F1 precedes F2 in
    // Fence-SC order, or vice versa. If F1 precedes F2 in Fence-SC order, then F1
    // synchronizes with F2. [...] Axiom causality ensures that R2 cannot read from
    // any write that precedes W1 in coherence order."
    let v = sb(OTHER_CLUSTER, Sem::Weak, Some(Event::fence(Sem::Sc, Scope::Sys)));
    assert_eq!(v.forbids(both_zero), axioms(&[Axiom::Causality]));
    for (a, b) in [(0, 1), (1, 0), (1, 1)] {
        assert!(v.allows(|o| regs(o) == (Some(a), Some(b))), "r0 {a} r1 {b}");
    }
}

#[test]
fn sb_with_fence_acq_rel_allows_both_reads_to_miss() {
    // 8.10.6, after the SB test: "If each fence.sc in this example were replaced by
    // a fence.acq_rel instruction, then this outcome is not guaranteed. [...] an
    // execution is possible, where both R1 and R2 return the initial value".
    assert!(sb(OTHER_CLUSTER, Sem::Weak, Some(Event::fence(Sem::AcqRel, Scope::Sys))).allows(both_zero));
}

#[test]
fn sb_with_fence_sc_cta_across_ctas_allows_both_reads_to_miss() {
    // 8.9.3: Fence-SC order relates "every pair of morally strong fence.sc
    // operations"; two `fence.sc.cta` of different CTAs are not morally strong (8.7,
    // Table 21), so they are not ordered and do not synchronize (8.9.4).
    assert!(sb(OTHER_CTA, Sem::Weak, Some(Event::fence(Sem::Sc, Scope::Cta))).allows(both_zero));
    assert_eq!(sb(SAME_CTA, Sem::Weak, Some(Event::fence(Sem::Sc, Scope::Cta))).forbids(both_zero), axioms(&[Axiom::Causality]));
}

#[test]
fn corr_of_the_chapter_is_forbidden_by_sc_per_location() {
    // 8.10.5, Litmus Test: CoRR: `st.relaxed.sys [x], 1` against two
    // `ld.relaxed.sys [x]`, "IF %r0 == 1 THEN %r1 == 1": "If R2 observed the initial
    // value of x instead, then this would form a sequence of morally-strong
    // relations R2->W1->R1 in communication order that contradicts the program
    // order R1->R2 in thread T2." (Causality's second clause would also reject it;
    // the axioms are named in the chapter's order and this one comes first.)
    let v = run(
        OTHER_CLUSTER,
        vec![Event::st(Sem::Relaxed, Scope::Sys, X, one(1))],
        vec![Event::ld(Sem::Relaxed, Scope::Sys, X, R0), Event::ld(Sem::Relaxed, Scope::Sys, X, R1)],
    );
    let seen = |o: &Outcome| (o.reg(1, R0), o.reg(1, R1));
    assert_eq!(v.forbids(|o| seen(o) == (Some(1), Some(0))), axioms(&[Axiom::ScPerLocation]));
    for (a, b) in [(0, 0), (0, 1), (1, 1)] {
        assert!(v.allows(|o| seen(o) == (Some(a), Some(b))), "r0 {a} r1 {b}");
    }
}

/// LB: each thread reads one location then writes the other.
fn lb(ld: impl Fn(Loc, Reg) -> Event, st: impl Fn(Loc, Val) -> Event, deps: bool) -> Verdict {
    let val = |r: Reg| if deps { Val::Reg(r) } else { one(1) };
    run(OTHER_CTA, vec![ld(X, R0), st(Y, val(R0))], vec![ld(Y, R1), st(X, val(R1))])
}

fn both_one(o: &Outcome) -> bool {
    regs(o) == (Some(1), Some(1))
}

#[test]
fn lb_without_dependencies_allows_both_reads_to_see_the_other_write() {
    // 8.10.4, Litmus Test: Load Buffering without dependencies (weak accesses):
    // "In this litmus test a final state of x == 1 and y == 1 is permitted", "This
    // form of load buffering is deliberately permitted". With relaxed accesses the
    // same holds: no synchronizes relation (8.9.4), so no causality order from a
    // read to the write it reads (8.10.6, first clause).
    let weak = lb(Event::ld_weak, Event::st_weak, false);
    assert!(weak.allows(|o| both_one(o) && o.mem(X) == 1 && o.mem(Y) == 1));
    let relaxed = lb(|l, r| Event::ld(Sem::Relaxed, Scope::Gpu, l, r), |l, v| Event::st(Sem::Relaxed, Scope::Gpu, l, v), false);
    assert!(relaxed.allows(both_one));
}

#[test]
fn lb_with_dependencies_of_the_chapter_allows_only_zeros() {
    // 8.10.4, Litmus Test: Load Buffering with true dependencies: "FINAL STATE: x
    // == 0 AND y == 0"; "If A1 reads from B2 and A2 reads from B1, then values
    // passing through the memory operations in this example form a cycle [...]
    // Only the values x == 0 and y == 0 are allowed to satisfy this cycle." The one
    // candidate with that cycle has no values of its own: No Thin Air rejects it.
    let v = lb(Event::ld_weak, Event::st_weak, true);
    let zeros = Outcome {
        regs: [((0, R0), 0), ((1, R1), 0)].into_iter().collect(),
        mem: [(X, 0), (Y, 0)].into_iter().collect(),
    };
    assert_eq!(v.allowed, [zeros].into_iter().collect());
    assert_eq!(v.rejected.get(&Axiom::NoThinAir), Some(&1));
}

#[test]
fn lb_release_acquire_is_forbidden_by_causality() {
    // 8.8, 8.9.4: `ld.acquire` reading `st.release` of the other thread
    // synchronizes; with both reads seeing the other thread's write, A1 precedes B1
    // in program order, B1 synchronizes with A2, A2 precedes B2 in program order:
    // A1 precedes B2 in base causality order (8.9.5), both to x. 8.10.6, first
    // clause: "If a read R precedes an overlapping write W in causality order, then
    // R cannot read from W."
    let v = lb(|l, r| Event::ld(Sem::Acquire, Scope::Gpu, l, r), |l, v| Event::st(Sem::Release, Scope::Gpu, l, v), false);
    assert_eq!(v.forbids(both_one), axioms(&[Axiom::Causality]));
}

fn inc(scope: Scope) -> Event {
    Event::atom(Sem::Relaxed, scope, X, R0, Rmw::Add(1))
}

#[test]
fn atomicity_litmus_test_1_of_the_chapter() {
    // 8.10.3, Litmus Test 1: two `atom.sys.inc.u32` of x, "FINAL STATE: x == 2",
    // "Atomicity is guaranteed when the operations are morally strong".
    let v = run(OTHER_CTA, vec![inc(Scope::Sys)], vec![inc(Scope::Sys)]);
    assert!(v.allowed.iter().all(|o| o.mem(X) == 2), "{:?}", v.allowed);
    assert_eq!(v.forbids(|o| o.mem(X) == 1), axioms(&[Axiom::Atomicity]));
}

#[test]
fn atomicity_litmus_test_2_of_the_chapter() {
    // 8.10.3, Litmus Test 2: `atom.cta.inc` against `atom.gpu.inc` in a different
    // CTA, "FINAL STATE: x == 1 OR x == 2", "Atomicity is not guaranteed if the
    // operations are not morally strong".
    let v = run(OTHER_CTA, vec![inc(Scope::Cta)], vec![inc(Scope::Gpu)]);
    assert!(v.allows(|o| o.mem(X) == 1));
    assert!(v.allows(|o| o.mem(X) == 2));
}

#[test]
fn scopes_include_the_threads_of_table_21() {
    // Table 21, for a thread in CTA 0 of cluster 0 on GPU 0 and four others.
    let me = Place::cta(0, 0);
    let others = [me, Place::cta(0, 1), Place::cta(1, 0), Place { gpu: 1, cluster: 0, cta: 0 }];
    let table = [
        (Scope::Cta, [true, false, false, false]),
        (Scope::Cluster, [true, true, false, false]),
        (Scope::Gpu, [true, true, true, false]),
        (Scope::Sys, [true, true, true, true]),
    ];
    assert_eq!(table.map(|(s, _)| s), Scope::ALL);
    for (scope, row) in table {
        for (to, want) in others.iter().zip(row) {
            assert_eq!(scope.includes(me, *to), want, "{scope:?} from {me:?} to {to:?}");
        }
    }
}

#[test]
fn axioms_are_listed_in_the_chapter_order() {
    let sections: Vec<&str> = Axiom::ALL.iter().map(|a| a.section()).collect();
    assert_eq!(sections, ["8.10.1", "8.10.2", "8.10.3", "8.10.4", "8.10.5", "8.10.6"]);
}

#[test]
fn operations_ptx_cannot_spell_are_refused() {
    let refused = |e: Event| judge(&Litmus { threads: vec![Thread { place: SAME_CTA[0], events: vec![e] }] });
    let ld_release = Event::ld(Sem::Release, Scope::Gpu, X, R0);
    assert_eq!(refused(ld_release), Err(Unsupported::Qualifier(ld_release)));
    let st_sc = Event::st(Sem::Sc, Scope::Gpu, X, one(1));
    assert_eq!(refused(st_sc), Err(Unsupported::Qualifier(st_sc)));
    // 8.5: "Each strong operation must specify a scope".
    let unscoped = Event { scope: None, ..Event::ld(Sem::Relaxed, Scope::Gpu, X, R0) };
    assert_eq!(refused(unscoped), Err(Unsupported::Scope(unscoped)));
    assert_eq!(refused(Event::st_weak(X, Val::Reg(R1))), Err(Unsupported::UnsetRegister(R1)));
}

#[test]
fn s_orders_writes_of_two_threads_by_coherence() {
    // The "S" shape: thread 0 writes x = 2 then `st.release.gpu [y], 1`; thread 1
    // reads y with `ld.acquire.gpu` then writes x = 1, both x writes weak. When the
    // acquire reads the release they synchronize (8.8, 8.9.4) and the first x write
    // precedes the second in causality order (8.9.5); 8.10.1: "If a write W precedes
    // an overlapping write W' in causality order, then W must precede W' in
    // coherence order", so x ends 1. The weak writes of two threads are not morally
    // strong (8.7): no other axiom speaks of them.
    let v = run(
        OTHER_CLUSTER,
        vec![Event::st_weak(X, one(2)), Event::st(Sem::Release, Scope::Gpu, Y, one(1))],
        vec![Event::ld(Sem::Acquire, Scope::Gpu, Y, R1), Event::st_weak(X, one(1))],
    );
    assert_eq!(v.forbids(|o| regs(o).1 == Some(1) && o.mem(X) == 2), axioms(&[Axiom::Coherence]));
    assert!(v.allows(|o| regs(o).1 == Some(1) && o.mem(X) == 1));
    assert!(v.allows(|o| regs(o).1 == Some(0) && o.mem(X) == 2));
}

#[test]
fn lb_with_fence_sc_needs_fence_sc_order_to_follow_causality() {
    // LB with `fence.sc.gpu` between each thread's read and write: thread 0 reads x
    // (weak) then writes y (relaxed), thread 1 reads y (relaxed) then writes x
    // (weak). When thread 1 reads thread 0's y, "F1; st.relaxed [y]" is a release
    // pattern and "ld.relaxed [y]; F2" an acquire pattern (8.8, `fence.sc` read as
    // an acquire-release fence): F1 synchronizes with F2 (8.9.4). A candidate that
    // puts F2 before F1 in Fence-SC order contradicts that causality order (8.10.2);
    // one that puts F1 first makes thread 0's read of x precede thread 1's write of
    // x in causality order, which it then "cannot read from" (8.10.6). So both reads
    // seeing the other's write is forbidden, each candidate by one of the two.
    let sc = Event::fence(Sem::Sc, Scope::Gpu);
    let v = run(
        OTHER_CTA,
        vec![Event::ld_weak(X, R0), sc, Event::st(Sem::Relaxed, Scope::Gpu, Y, one(1))],
        vec![Event::ld(Sem::Relaxed, Scope::Gpu, Y, R1), sc, Event::st_weak(X, one(1))],
    );
    assert_eq!(v.forbids(both_one), axioms(&[Axiom::FenceSc, Axiom::Causality]));
    assert!(v.allows(|o| regs(o) == (Some(0), Some(1))));
    assert!(v.allows(|o| regs(o) == (Some(1), Some(0))));
}

#[test]
fn mp_with_red_of_the_chapter_does_not_synchronize() {
    // 8.11.1, Litmus Test: Message Passing with a Red Instruction: `st [x], 42;
    // st.release.gpu [flag], 1` against `red.sys.global.add.u32 [flag], 1;
    // fence.acquire.gpu; ld.weak [x]`, "%r1 == 0 AND flag == 2": "It is possible to
    // observe the outcome where R2 reads the value 0 from x and flag has the final
    // value of 2. [...] Using the atom instruction instead of red forbids this
    // outcome." With `atom`, the acquire pattern "atom.relaxed [M]; fence.acquire"
    // (8.8) synchronizes with the release, and Causality (8.10.6) keeps the load
    // from the initial x.
    let t0 = vec![Event::st_weak(X, one(42)), Event::st(Sem::Release, Scope::Gpu, FLAG, one(1))];
    let t1 = |rmw: Event| vec![rmw, Event::fence(Sem::Acquire, Scope::Gpu), Event::ld_weak(X, R1)];
    let outcome = |o: &Outcome| regs(o).1 == Some(0) && o.mem(FLAG) == 2;
    let red = run(OTHER_CTA, t0.clone(), t1(Event::red(Sem::Relaxed, Scope::Sys, FLAG, Rmw::Add(1))));
    assert!(red.allows(outcome));
    assert!(red.allows(|o| regs(o).1 == Some(42) && o.mem(FLAG) == 2));
    let atom = run(OTHER_CTA, t0, t1(Event::atom(Sem::Relaxed, Scope::Sys, FLAG, R0, Rmw::Add(1))));
    assert_eq!(atom.forbids(outcome), axioms(&[Axiom::Causality]));
    assert!(atom.allows(|o| regs(o).1 == Some(42) && o.mem(FLAG) == 2));
}

/// WRC: thread 0 writes x; thread 1 reads x (acquire) into r0 and writes y
/// (release); thread 2 reads y (acquire) into r0 then x into r1, each thread in
/// its own CTA.
fn wrc(first: Event) -> Verdict {
    let place = |cta| Place::cta(0, cta);
    let threads = vec![
        Thread { place: place(0), events: vec![first] },
        Thread {
            place: place(1),
            events: vec![Event::ld(Sem::Acquire, Scope::Gpu, X, R0), Event::st(Sem::Release, Scope::Gpu, Y, one(1))],
        },
        Thread { place: place(2), events: vec![Event::ld(Sem::Acquire, Scope::Gpu, Y, R0), Event::ld_weak(X, R1)] },
    ];
    judge(&Litmus { threads }).unwrap()
}

fn wrc_stale(o: &Outcome) -> bool {
    (o.reg(1, R0), o.reg(2, R0), o.reg(2, R1)) == (Some(1), Some(1), Some(0))
}

#[test]
fn wrc_is_cumulative_through_observation_order() {
    // 8.9.5: "X precedes Z in observation order, and Z precedes Y in
    // proxy-preserved base causality order" puts thread 0's relaxed write of x
    // before thread 2's read of x in causality order: thread 1's acquire observes it
    // (8.9.2, morally strong at .gpu) and precedes, in program order, its release,
    // which synchronizes with thread 2's acquire (8.9.4), which precedes the read
    // of x ("The transitivity of base causality order accounts for the
    // "cumulativity" of synchronizing operations"). Causality (8.10.6) then keeps
    // that read from the initial x.
    let v = wrc(Event::st(Sem::Relaxed, Scope::Gpu, X, one(1)));
    assert_eq!(v.forbids(wrc_stale), axioms(&[Axiom::Causality]));
}

#[test]
fn wrc_from_a_weak_write_allows_stale_data() {
    // The same with thread 0's write weak: it and thread 1's read are not morally
    // strong (8.7), so the read does not observe it in observation order (8.9.2)
    // and nothing puts the write before thread 2's read in causality order: the two
    // are in a data-race (8.7.1), and the stale read is allowed.
    assert!(wrc(Event::st_weak(X, one(1))).allows(wrc_stale));
}

/// IRIW: threads 0 and 1 write x and y; thread 2 reads x then y, thread 3 y then
/// x, each thread in its own CTA of one cluster; `between` goes between the two
/// reads of threads 2 and 3.
fn iriw(st: impl Fn(Loc) -> Event, ld: impl Fn(Loc, Reg) -> Event, between: Option<Event>) -> Verdict {
    let reader = |a: Loc, b: Loc| [Some(ld(a, R0)), between, Some(ld(b, R1))].into_iter().flatten().collect();
    let threads = vec![
        Thread { place: Place::cta(0, 0), events: vec![st(X)] },
        Thread { place: Place::cta(0, 1), events: vec![st(Y)] },
        Thread { place: Place::cta(0, 2), events: reader(X, Y) },
        Thread { place: Place::cta(0, 3), events: reader(Y, X) },
    ];
    judge(&Litmus { threads }).unwrap()
}

/// The readers disagree on the order of the two writes: thread 2 sees x and not
/// y, thread 3 y and not x.
fn iriw_disagree(o: &Outcome) -> bool {
    (o.reg(2, R0), o.reg(2, R1), o.reg(3, R0), o.reg(3, R1)) == (Some(1), Some(0), Some(1), Some(0))
}

fn relaxed_st(l: Loc) -> Event {
    Event::st(Sem::Relaxed, Scope::Gpu, l, one(1))
}

fn relaxed_ld(l: Loc, r: Reg) -> Event {
    Event::ld(Sem::Relaxed, Scope::Gpu, l, r)
}

#[test]
fn iriw_relaxed_and_with_fence_acq_rel_allows_the_readers_to_disagree() {
    // No synchronizing operation relates the threads (8.9.4: no release pattern,
    // the writers have no fence and no release operation), so causality order is
    // program order, and each reader's two reads are to different locations: no
    // axiom relates a read of one thread to the write it misses.
    assert!(iriw(relaxed_st, relaxed_ld, None).allows(iriw_disagree));
    assert!(iriw(relaxed_st, relaxed_ld, Some(Event::fence(Sem::AcqRel, Scope::Gpu))).allows(iriw_disagree));
}

#[test]
fn iriw_release_acquire_allows_the_readers_to_disagree() {
    // `st.release` read by `ld.acquire` synchronizes (8.8, 8.9.4): thread 0's write
    // precedes thread 2's reads in base causality order, thread 1's write thread
    // 3's. Nothing runs from thread 1 to thread 2 or from thread 0 to thread 3, so
    // the reads of the initial value break no axiom: release and acquire are not
    // enough for the readers to agree.
    let v = iriw(|l| Event::st(Sem::Release, Scope::Gpu, l, one(1)), |l, r| Event::ld(Sem::Acquire, Scope::Gpu, l, r), None);
    assert!(v.allows(iriw_disagree));
}

#[test]
fn iriw_with_fence_sc_forbids_the_readers_to_disagree() {
    // The readers' fences F2, F3 are morally strong (.gpu, one device): Fence-SC
    // order puts one first (8.9.3), say F2, which then synchronizes with F3 (8.9.4).
    // Thread 2's read of x observes thread 0's write (8.9.2, relaxed .gpu) and
    // precedes, through F2 and F3, thread 3's read of x in base causality order,
    // both to x: thread 0's write precedes that read in causality order (8.9.5,
    // second clause), which "cannot read from any write W' that precedes W in
    // coherence order" (8.10.6), the initial value. F3 first: the same for y.
    let v = iriw(relaxed_st, relaxed_ld, Some(Event::fence(Sem::Sc, Scope::Gpu)));
    assert_eq!(v.forbids(iriw_disagree), axioms(&[Axiom::Causality]));
    assert!(v.allows(|o| (o.reg(2, R0), o.reg(2, R1), o.reg(3, R0), o.reg(3, R1)) == (Some(1), Some(1), Some(1), Some(0))));
}

/// 2+2W: thread 0 writes x = 1 then y = 2, thread 1 y = 1 then x = 2, in different
/// CTAs of one cluster; `between` goes between each thread's writes.
fn two_plus_two_w(between: Option<Event>) -> Verdict {
    let st = |l: Loc, v: u32| Event::st(Sem::Relaxed, Scope::Gpu, l, one(v));
    let thread = |a: Loc, b: Loc| [Some(st(a, 1)), between, Some(st(b, 2))].into_iter().flatten().collect();
    run(OTHER_CTA, thread(X, Y), thread(Y, X))
}

/// Each location ends with the first write of its thread: each thread's second
/// write is before the other thread's first in coherence order.
fn both_first(o: &Outcome) -> bool {
    o.mem(X) == 1 && o.mem(Y) == 1
}

#[test]
fn two_plus_two_w_relaxed_and_with_fence_acq_rel_allows_both_first_writes_last() {
    // Program order orders writes to different locations, which base causality
    // order carries to no write of the same location (proxy-preserved base
    // causality order relates operations to one address, 8.9.5): Coherence (8.10.1)
    // leaves each location's two morally strong writes in either order. A
    // `fence.acq_rel` forms release patterns with the second writes (8.8), but no
    // read observes them: nothing synchronizes (8.9.4).
    assert!(two_plus_two_w(None).allows(both_first));
    assert!(two_plus_two_w(Some(Event::fence(Sem::AcqRel, Scope::Gpu))).allows(both_first));
    assert!(two_plus_two_w(None).allows(|o| o.mem(X) == 2 && o.mem(Y) == 2));
}

#[test]
fn two_plus_two_w_with_fence_sc_forbids_both_first_writes_last() {
    // Fence-SC order puts thread 0's fence first, say (8.9.3): it synchronizes with
    // thread 1's (8.9.4), so thread 0's x = 1 precedes thread 1's x = 2 in base
    // causality order, both to x (8.9.5), and Coherence (8.10.1) puts x = 1 first:
    // x ends 2. Thread 1's fence first: y ends 2. Never both 1.
    let v = two_plus_two_w(Some(Event::fence(Sem::Sc, Scope::Gpu)));
    assert_eq!(v.forbids(both_first), axioms(&[Axiom::Coherence]));
    assert!(v.allows(|o| o.mem(X) == 2 && o.mem(Y) == 1));
    assert!(v.allows(|o| o.mem(X) == 1 && o.mem(Y) == 2));
}

#[test]
fn coherence_order_is_transitive_through_a_morally_strong_write() {
    // Thread 0: `st [x], 1` (weak) then `st.relaxed.gpu [x], 2`; thread 1, another
    // CTA: `st.relaxed.gpu [x], 3` then `ld [x]` (weak), reading 1 with x ending 3.
    // The candidates with 3 last: 2, 1, 3 puts 2 before 1, which program order (so
    // causality order) puts after it: Coherence (8.10.1). 1, 2, 3: 2 is before 3
    // (morally strong, 8.9.6) and 1 before 2; "a partial transitive order" puts 1
    // before 3, though the two are in a data-race. The load returns 1, which
    // precedes 3 in coherence order: the load precedes 3 in communication order
    // (8.9.7), and 3 precedes the load in program order; the two are of one thread,
    // so morally strong (8.7): Sequential Consistency Per Location (8.10.5). (Without
    // transitivity 1 and 3 were unrelated and the outcome allowed.) With x ending 2
    // (3 before 2) nothing relates 1 and 3, and the load may read 1.
    let v = run(
        OTHER_CTA,
        vec![Event::st_weak(X, one(1)), Event::st(Sem::Relaxed, Scope::Gpu, X, one(2))],
        vec![Event::st(Sem::Relaxed, Scope::Gpu, X, one(3)), Event::ld_weak(X, R1)],
    );
    assert_eq!(v.forbids(|o| regs(o).1 == Some(1) && o.mem(X) == 3), axioms(&[Axiom::Coherence, Axiom::ScPerLocation]));
    assert!(v.allows(|o| regs(o).1 == Some(1) && o.mem(X) == 2));
    assert!(v.allows(|o| regs(o).1 == Some(3) && o.mem(X) == 3));
}

#[test]
fn sequentially_consistent_outcomes_are_the_interleavings() {
    // SB: some interleaving performs a store first, so the other thread's load sees
    // it: (0, 0) is the one outcome of the four no interleaving gives.
    let test = Litmus {
        threads: vec![
            Thread { place: OTHER_CTA[0], events: vec![relaxed_st(X), relaxed_ld(Y, R0)] },
            Thread { place: OTHER_CTA[1], events: vec![relaxed_st(Y), relaxed_ld(X, R1)] },
        ],
    };
    let sc = super::sc::outcomes(&test);
    let got: BTreeSet<(Option<u32>, Option<u32>)> = sc.iter().map(regs).collect();
    assert_eq!(got, [(Some(0), Some(1)), (Some(1), Some(0)), (Some(1), Some(1))].into_iter().collect());
    assert!(sc.iter().all(|o| o.mem(X) == 1 && o.mem(Y) == 1));
    let v = judge(&test).unwrap();
    let weak = super::sc::weak(&test, &v.allowed);
    assert_eq!(weak.iter().map(regs).collect::<Vec<_>>(), [(Some(0), Some(0))]);
}

#[test]
fn two_atomic_increments_end_at_two_in_every_interleaving() {
    // An `atom` reads and writes in one step: 0 then 1, or the other way round.
    let test = Litmus {
        threads: vec![
            Thread { place: OTHER_CTA[0], events: vec![inc(Scope::Sys)] },
            Thread { place: OTHER_CTA[1], events: vec![inc(Scope::Sys)] },
        ],
    };
    let sc = super::sc::outcomes(&test);
    let got: BTreeSet<(u32, u32, u32)> =
        sc.iter().map(|o| (o.reg(0, R0).unwrap_or(9), o.reg(1, R0).unwrap_or(9), o.mem(X))).collect();
    assert_eq!(got, [(0, 1, 2), (1, 0, 2)].into_iter().collect());
}

#[test]
fn a_red_cannot_read_a_write_after_it_in_its_own_thread() {
    // Thread 0: `red.relaxed.gpu.add [x], 1; st.relaxed.gpu [x], 5`; thread 1 reads
    // x. A `red` "conceptually perform[s] a strong read as part of its
    // read-modify-write sequence" (8.8), so its read takes part in communication
    // order (8.9.7). Were it to read the 5 of the `st` after it, communication order
    // (st to red) would contradict program order (red to st) between morally strong
    // operations of one location (8.10.5), and the red would read from a write it
    // precedes in causality order (8.10.6, first clause): thread 1 never sees 6.
    let v = run(
        OTHER_CTA,
        vec![Event::red(Sem::Relaxed, Scope::Gpu, X, Rmw::Add(1)), Event::st(Sem::Relaxed, Scope::Gpu, X, one(5))],
        vec![Event::ld(Sem::Relaxed, Scope::Gpu, X, R1)],
    );
    let six = |o: &Outcome| o.reg(1, R1) == Some(6);
    assert!(v.forbids(six).is_some_and(|a| a.contains(&Axiom::ScPerLocation)), "{:?}", v.allowed);
    for seen in [0, 1, 5] {
        assert!(v.allows(|o| o.reg(1, R1) == Some(seen) && o.mem(X) == 5), "{seen}");
    }
}

#[test]
fn a_red_between_a_release_and_an_acquire_carries_the_synchronization() {
    // 8.9.2: "A write W precedes a read R in observation order if [...] For some
    // atomic operation Z, W precedes Z and Z precedes R in observation order", and
    // a `red` is an atomic operation (Table 20). Thread 0 writes data, then
    // `st.release.gpu [flag], 1`; thread 1 runs `red.relaxed.gpu.add [flag], 1`;
    // thread 2 runs `ld.acquire.gpu [flag]` into r0, then reads data into r1, each
    // in its own CTA. r0 == 2 means the red read the release's 1 and the acquire read
    // the red's 2: the release precedes the acquire in observation order, so the
    // release pattern synchronizes with the acquire pattern (8.9.4), the data write
    // precedes the data read in causality order (8.9.5), and the read cannot return
    // the initial 0 (8.10.6, second clause). The candidates that order the red
    // before the release in coherence order while it reads the release's 1 fail
    // first on 8.10.5 (communication order's rf and co form a cycle).
    let place = |cta| Place::cta(0, cta);
    let threads = vec![
        Thread { place: place(0), events: vec![Event::st_weak(DATA, one(1)), Event::st(Sem::Release, Scope::Gpu, FLAG, one(1))] },
        Thread { place: place(1), events: vec![Event::red(Sem::Relaxed, Scope::Gpu, FLAG, Rmw::Add(1))] },
        Thread { place: place(2), events: vec![Event::ld(Sem::Acquire, Scope::Gpu, FLAG, R0), Event::ld_weak(DATA, R1)] },
    ];
    let v = judge(&Litmus { threads }).unwrap();
    let read = |o: &Outcome| (o.reg(2, R0), o.reg(2, R1));
    assert_eq!(v.forbids(|o| read(o) == (Some(2), Some(0))), axioms(&[Axiom::ScPerLocation, Axiom::Causality]));
    assert!(v.allows(|o| read(o) == (Some(2), Some(1))));
    // r0 == 1 need not be the release's 1: the red may read the initial 0 and write
    // 1, and an acquire that reads it synchronizes with no release.
    assert!(v.allows(|o| read(o) == (Some(1), Some(0))));
    assert!(v.allows(|o| read(o) == (Some(1), Some(1))));
}

/// One thread of the chapter's CoWR: `st.global.u32 [data_alias_1], 1`, then
/// `between`, then `ld.global.u32 %r1, [data_alias_2]`, both addresses aliases of
/// one location.
fn cowr_through_aliases(between: Option<Event>) -> Verdict {
    let mut events = vec![Event::st_weak(DATA, one(1)).via(1)];
    events.extend(between);
    events.push(Event::ld_weak(DATA, R1).via(2));
    judge(&Litmus { threads: vec![Thread { place: Place::cta(0, 0), events }] }).unwrap()
}

#[test]
fn cowr_of_the_chapter_needs_the_alias_proxy_fence() {
    // 8.10.6, Litmus Test: CoWR: "// These addresses are aliases", `W1: st.global.u32
    // [data_alias_1], 1; F1: fence.proxy.alias; R1: ld.global.u32 %r1,
    // [data_alias_2];`, "%r1 == 1": "Virtual aliases require an alias proxy fence
    // along the synchronization path." W1 precedes F1 and F1 precedes R1 in program
    // order, so W1 precedes R1 in proxy-preserved base causality order (8.9.5: aliases
    // "and there is an alias proxy fence along the base causality path"), and
    // Causality (second clause) keeps R1 from the initial value, which precedes W1 in
    // coherence order.
    let r1 = |o: &Outcome| o.reg(0, R1);
    let fenced = cowr_through_aliases(Some(Event::alias_fence()));
    assert_eq!(fenced.forbids(|o| r1(o) == Some(0)), axioms(&[Axiom::Causality]));
    assert!(fenced.allowed.iter().all(|o| r1(o) == Some(1)), "{:?}", fenced.allowed);
    // Without the fence the two accesses are as through different proxies (8.6):
    // not morally strong, so 8.10.5 does not hold them, and no proxy-preserved order
    // joins them: the read may miss the write.
    let bare = cowr_through_aliases(None);
    assert!(bare.allows(|o| r1(o) == Some(0)));
    assert!(bare.allows(|o| r1(o) == Some(1)));
    // Through one address, program order alone keeps it (8.10.5).
    let plain = judge(&Litmus {
        threads: vec![Thread { place: Place::cta(0, 0), events: vec![Event::st_weak(DATA, one(1)), Event::ld_weak(DATA, R1)] }],
    })
    .unwrap();
    assert!(plain.forbids(|o| r1(o) == Some(0)).is_some());
}

#[test]
fn message_passing_through_aliases_needs_the_fence_on_the_synchronization_path() {
    // MP with release/acquire at `.gpu` across CTAs, the data written through one
    // alias and read through another. The release pattern synchronizes with the
    // acquire pattern (8.9.4), so the data write precedes the data read in base
    // causality order; that order is proxy-preserved only with an alias proxy fence
    // on its path (8.9.5), here after the acquire.
    let run_mp = |fence: bool| {
        let mut reader = vec![Event::ld(Sem::Acquire, Scope::Gpu, FLAG, R0)];
        if fence {
            reader.push(Event::alias_fence());
        }
        reader.push(Event::ld_weak(DATA, R1).via(2));
        run(OTHER_CTA, vec![Event::st_weak(DATA, one(1)).via(1), Event::st(Sem::Release, Scope::Gpu, FLAG, one(1))], reader)
    };
    assert_eq!(run_mp(true).forbids(stale), axioms(&[Axiom::Causality]));
    assert!(run_mp(false).allows(stale));
}
