//! A candidate execution and the chapter's relations on it (PTX ISA 8.7, 8.8, 8.9):
//! morally strong, program order, observation order, Fence-SC order, the release
//! and acquire patterns and what they synchronize, base causality order, causality
//! order, coherence order and communication order.
//!
//! # How the orders that are "determined at runtime" are chosen
//!
//! Coherence order is "a partial transitive order that relates overlapping write
//! operations, determined at runtime", in which "Two overlapping write operations
//! are related in coherence order if they are morally strong or if they are related
//! in causality order" and "unrelated in coherence order if they are in a
//! data-race" (8.9.6). A candidate picks a total order of each location's writes;
//! coherence order is that order restricted to the pairs that the chapter relates,
//! closed transitively, since it is "a partial transitive order". That is the least
//! such order that agrees with the total one; a larger one would only add
//! constraints (communication order, Atomicity, Causality's second clause read
//! coherence order, and more pairs can only break them), so walking the total
//! orders walks every outcome a consistent coherence order gives. The initial value is read as a write
//! that precedes every write in coherence order and in causality order ("Start of a
//! CUDA kernel synchronizes with start of all threads in the kernel", 8.9.4), and
//! is morally strong with every operation.
//!
//! Fence-SC order "is an acyclic partial order, determined at runtime, that relates
//! every pair of morally strong `fence.sc` operations" (8.9.3): likewise a total
//! order of the `fence.sc` operations, restricted to the morally strong pairs.

use super::{Event, Loc, Op, Place, Reg, Rmw, Sem, Val};

/// One operation of the test, with its thread and its place in program order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ev {
    /// Its thread.
    pub thread: usize,
    /// Its index in that thread's program order.
    pub index: usize,
    /// Where its thread runs.
    pub place: Place,
    /// The operation.
    pub event: Event,
}

impl Ev {
    /// The register an `ld` or `atom` sets.
    pub fn event_reg(&self) -> Option<Reg> {
        match self.event.op {
            Op::Ld { reg, .. } | Op::Atom { reg, .. } => Some(reg),
            Op::St { .. } | Op::Red { .. } | Op::Fence | Op::AliasFence => None,
        }
    }
}

/// A binary relation on the events of one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rel {
    n: usize,
    bits: Vec<bool>,
}

impl Rel {
    /// The empty relation on `n` events.
    pub fn new(n: usize) -> Rel {
        Rel { n, bits: vec![false; n * n] }
    }

    /// Whether `a` precedes `b`.
    pub fn has(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.n + b]
    }

    fn set(&mut self, a: usize, b: usize) {
        self.bits[a * self.n + b] = true;
    }

    /// The relation of the pairs that satisfy `f`.
    pub fn from_fn(n: usize, f: impl Fn(usize, usize) -> bool) -> Rel {
        let mut r = Rel::new(n);
        for a in 0..n {
            for b in 0..n {
                if f(a, b) {
                    r.set(a, b);
                }
            }
        }
        r
    }

    /// The transitive closure (Warshall).
    pub fn closure(mut self) -> Rel {
        for k in 0..self.n {
            for a in 0..self.n {
                if self.has(a, k) {
                    for b in 0..self.n {
                        if self.has(k, b) {
                            self.set(a, b);
                        }
                    }
                }
            }
        }
        self
    }
}

/// Where a read takes its value from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// The initial value, 0.
    Init,
    /// The write of this event.
    Write(usize),
}

/// The runtime choices of one candidate execution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// For each event, where it reads from (`None` for one that takes no value from
    /// memory).
    pub rf: Vec<Option<Source>>,
    /// For each write, its rank in the order chosen for its location's writes.
    pub co_rank: Vec<usize>,
    /// For each `fence.sc`, its rank in the order chosen for the `fence.sc`
    /// operations.
    pub sc_rank: Vec<usize>,
}

/// Every candidate's choices for one test.
#[derive(Debug, Clone)]
pub struct Space {
    n: usize,
    /// For each read (and `red`), the sources it may take.
    reads: Vec<(usize, Vec<Source>)>,
    /// For each location, its writes.
    writes: Vec<Vec<usize>>,
    /// The `fence.sc` operations.
    sc_fences: Vec<usize>,
}

impl Space {
    /// The choices open to `events`: each read may read from the initial value or
    /// any other write to its location; any order of each location's writes; any
    /// order of the `fence.sc` operations.
    pub fn new(events: &[Ev]) -> Space {
        let mut locs: Vec<Loc> = events.iter().filter_map(|e| e.event.loc()).collect();
        locs.sort();
        locs.dedup();
        let writes: Vec<Vec<usize>> = locs
            .iter()
            .map(|l| (0..events.len()).filter(|&w| events[w].event.is_write() && events[w].event.loc() == Some(*l)).collect())
            .collect();
        let reads = (0..events.len())
            .filter(|&r| events[r].event.takes_value())
            .map(|r| {
                let mut from = vec![Source::Init];
                let same = |w: &usize| *w != r && events[*w].event.is_write() && events[*w].event.loc() == events[r].event.loc();
                from.extend((0..events.len()).filter(same).map(Source::Write));
                (r, from)
            })
            .collect();
        let sc_fences = (0..events.len()).filter(|&f| is_sc_fence(&events[f].event)).collect();
        Space { n: events.len(), reads, writes, sc_fences }
    }

    /// How many candidates there are.
    pub fn size(&self) -> u128 {
        let fact = |k: usize| (1..=k as u128).product::<u128>();
        let rf: u128 = self.reads.iter().map(|(_, s)| s.len() as u128).product();
        let co: u128 = self.writes.iter().map(|w| fact(w.len())).product();
        rf * co * fact(self.sc_fences.len())
    }

    /// Every candidate, in a fixed order.
    pub fn candidates(&self) -> Vec<Choice> {
        let rfs = product(&self.reads.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>());
        let co_orders = product(&self.writes.iter().map(|w| permutations(w)).collect::<Vec<_>>());
        let sc_orders = permutations(&self.sc_fences);
        let mut out = Vec::new();
        for rf in &rfs {
            for cos in &co_orders {
                for sc in &sc_orders {
                    let mut choice = Choice { rf: vec![None; self.n], co_rank: vec![0; self.n], sc_rank: vec![0; self.n] };
                    for ((r, _), s) in self.reads.iter().zip(rf) {
                        choice.rf[*r] = Some(*s);
                    }
                    for order in cos {
                        for (rank, w) in order.iter().enumerate() {
                            choice.co_rank[*w] = rank;
                        }
                    }
                    for (rank, f) in sc.iter().enumerate() {
                        choice.sc_rank[*f] = rank;
                    }
                    out.push(choice);
                }
            }
        }
        out
    }
}

/// Every way of taking one item from each list.
fn product<T: Clone>(lists: &[Vec<T>]) -> Vec<Vec<T>> {
    lists.iter().fold(vec![Vec::new()], |acc, list| {
        acc.iter()
            .flat_map(|prefix| {
                list.iter().map(move |x| {
                    let mut p = prefix.clone();
                    p.push(x.clone());
                    p
                })
            })
            .collect()
    })
}

/// Every order of `items`.
fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.is_empty() {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, first) in items.iter().enumerate() {
        let rest: Vec<usize> = items.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, x)| *x).collect();
        for mut tail in permutations(&rest) {
            tail.insert(0, *first);
            out.push(tail);
        }
    }
    out
}

fn is_sc_fence(e: &Event) -> bool {
    e.op == Op::Fence && e.sem == Sem::Sc
}

/// A release or acquire-release memory fence. `fence.sc` is read as one: the
/// chapter does not say so in 8.8, but `fence.sc` "can restore sequential
/// consistency" (9.7.13.4), which the acquire-release ordering is part of, and the
/// CUDA atomics ABI maps a `seq_cst` fence, itself acquire and release, to it.
fn is_release_fence(e: &Event) -> bool {
    e.op == Op::Fence && matches!(e.sem, Sem::Release | Sem::AcqRel | Sem::Sc)
}

/// An acquire or acquire-release memory fence, `fence.sc` read as one (see
/// [`is_release_fence`]).
fn is_acquire_fence(e: &Event) -> bool {
    e.op == Op::Fence && matches!(e.sem, Sem::Acquire | Sem::AcqRel | Sem::Sc)
}

/// "release operation: A memory operation with `.release` or `.acq_rel`
/// qualifier" (Table 20).
fn is_release_op(e: &Event) -> bool {
    e.loc().is_some() && matches!(e.sem, Sem::Release | Sem::AcqRel)
}

/// "acquire operation: A memory operation with `.acquire` or `.acq_rel`
/// qualifier" (Table 20).
fn is_acquire_op(e: &Event) -> bool {
    e.loc().is_some() && matches!(e.sem, Sem::Acquire | Sem::AcqRel)
}

/// A candidate execution with its relations.
#[derive(Debug, Clone)]
pub struct Execution<'a> {
    /// The events.
    pub events: &'a [Ev],
    /// The choices.
    pub choice: &'a Choice,
    /// Program order.
    pub po: Rel,
    /// Morally strong.
    pub ms: Rel,
    /// Observation order.
    pub obs: Rel,
    /// Fence-SC order.
    pub fsc: Rel,
    /// Synchronizes.
    pub sync: Rel,
    /// Base causality order.
    pub bc: Rel,
    /// Causality order.
    pub cause: Rel,
    /// Coherence order (between writes of the test; the initial value precedes
    /// them all).
    pub co: Rel,
    /// For each event, the value it reads and the value it writes, where the
    /// values are determined (see [`Execution::values`]).
    pub values: Vec<Option<(Option<u32>, Option<u32>)>>,
}

impl<'a> Execution<'a> {
    /// The relations of the candidate `choice` of `events`.
    pub fn new(events: &'a [Ev], choice: &'a Choice) -> Execution<'a> {
        let n = events.len();
        let ev = |i: usize| &events[i].event;
        // 8.9.1: "It is a transitive relation that forms a total order over the
        // operations performed by the thread, but does not relate operations from
        // different threads."
        let po = Rel::from_fn(n, |a, b| events[a].thread == events[b].thread && events[a].index < events[b].index);
        let ms = Rel::from_fn(n, |a, b| morally_strong(&events[a], &events[b]));
        let reads_from = |r: usize, w: usize| choice.rf[r] == Some(Source::Write(w));
        // 8.9.2: "R and W are morally strong and R reads the value written by W, or
        // For some atomic operation Z, W precedes Z and Z precedes R in observation
        // order." A `red` is such a Z (Table 20: "atom or red"), and W can precede
        // it only through the value it reads: its read counts here, as in
        // communication order, though it forms no acquire pattern (8.11.1).
        let mut obs = Rel::from_fn(n, |w, r| ev(r).takes_value() && reads_from(r, w) && ms.has(w, r));
        loop {
            let next = Rel::from_fn(n, |w, r| {
                obs.has(w, r) || (0..n).any(|z| ev(z).is_atomic() && obs.has(w, z) && obs.has(z, r))
            });
            if next == obs {
                break;
            }
            obs = next;
        }
        // Fence-SC order is a partial order too, yet its transitive pairs need not
        // be added: it is read only through synchronizes, which base causality
        // order closes transitively, and by the Fence-SC axiom, which asks only of
        // morally strong pairs, each related here already.
        let fsc = Rel::from_fn(n, |a, b| {
            is_sc_fence(ev(a)) && is_sc_fence(ev(b)) && a != b && ms.has(a, b) && choice.sc_rank[a] < choice.sc_rank[b]
        });
        let sync = synchronizes(events, &po, &ms, &obs, &fsc);
        // 8.9.5: X precedes Y in base causality order if X precedes Y in program
        // order, or X synchronizes with Y, or through some Z by either: the
        // transitive closure of the two.
        let bc = Rel::from_fn(n, |a, b| po.has(a, b) || sync.has(a, b)).closure();
        let cause = causality(events, &bc, &obs);
        // 8.9.6: coherence order is "a partial transitive order": the pairs the
        // chapter relates, oriented by the candidate's order, and what transitivity
        // adds to them. Two writes in a data-race ("unrelated in coherence order")
        // are still related when each is related to a third write between them: a
        // weak write W1 of one thread, its own later relaxed W2, and a relaxed W3 of
        // another thread after W2 leave W1 before W3.
        let co = Rel::from_fn(n, |a, b| {
            let (x, y) = (ev(a), ev(b));
            a != b
                && x.is_write()
                && y.is_write()
                && x.loc() == y.loc()
                && (ms.has(a, b) || cause.has(a, b) || cause.has(b, a))
                && choice.co_rank[a] < choice.co_rank[b]
        })
        .closure();
        let values = values(events, choice);
        Execution { events, choice, po, ms, obs, fsc, sync, bc, cause, co, values }
    }

    /// The number of events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The operation of event `i`.
    pub fn ev(&self, i: usize) -> &Event {
        &self.events[i].event
    }

    /// Whether read `r` takes its value from a write that precedes the write `w` in
    /// coherence order: the initial value precedes every write.
    pub fn reads_before(&self, r: usize, w: usize) -> bool {
        match self.choice.rf[r] {
            Some(Source::Init) => true,
            Some(Source::Write(v)) => self.co.has(v, w),
            None => false,
        }
    }

    /// Communication order (8.9.7) between events of the test: "A write W precedes
    /// an overlapping read R in communication order if R returns the value of any
    /// byte that was written by W"; "A write W precedes a write W' in communication
    /// order if W precedes W' in coherence order"; "A read R precedes an
    /// overlapping write W in communication order if, for any byte accessed by both
    /// R and W, R returns the value written by a write W' that precedes W in
    /// coherence order."
    pub fn com(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.ev(a), self.ev(b));
        if a == b || x.loc() != y.loc() {
            return false;
        }
        // A `red`'s read is one here: it "conceptually perform[s] a strong read" (8.8),
        // and without it a `red` could read a write after it in its own thread.
        let rf = x.is_write() && y.takes_value() && self.choice.rf[b] == Some(Source::Write(a));
        let co = self.co.has(a, b);
        let fr = x.takes_value() && y.is_write() && self.reads_before(a, b);
        rf || co || fr
    }

    /// The outcome, where every value is determined.
    pub fn outcome(&self) -> Option<super::Outcome> {
        let mut out = super::Outcome::default();
        let mut last: std::collections::BTreeMap<Loc, (usize, u32)> = Default::default();
        for (i, e) in self.events.iter().enumerate() {
            let (read, write) = self.values[i]?;
            if let (Some(reg), Some(v)) = (e.event_reg(), read) {
                out.regs.insert((e.thread, reg), v);
            }
            if let (Some(loc), Some(v)) = (e.event.loc(), write) {
                let rank = self.choice.co_rank[i];
                if last.get(&loc).is_none_or(|(r, _)| *r < rank) {
                    last.insert(loc, (rank, v));
                }
            }
            if let Some(loc) = e.event.loc() {
                out.mem.entry(loc).or_insert(0);
            }
        }
        for (loc, (_, v)) in last {
            out.mem.insert(loc, v);
        }
        Some(out)
    }
}

/// 8.7: "Two operations are said to be morally strong relative to each other if
/// they satisfy all of the following conditions: The operations are related in
/// program order (i.e, they are both executed by the same thread), or each
/// operation is strong and specifies a scope that includes the thread executing the
/// other operation. Both operations are performed via the same proxy. If both are
/// memory operations, then they overlap completely." Every modelled operation uses
/// the generic proxy, but accesses through two virtual aliases of a location count
/// as different proxies (8.6: "using distinct virtual addresses behaves as if using
/// different proxies"); two accesses overlap (completely) iff they are to one
/// location.
pub fn morally_strong(a: &Ev, b: &Ev) -> bool {
    let same_thread = a.thread == b.thread;
    let includes = |x: &Ev, y: &Ev| x.event.is_strong() && x.event.scope.is_some_and(|s| s.includes(x.place, y.place));
    let scoped = includes(a, b) && includes(b, a);
    let (overlap, same_proxy) = match (a.event.loc(), b.event.loc()) {
        (Some(l), Some(m)) => (l == m, a.event.alias == b.event.alias),
        _ => (true, true),
    };
    (same_thread || scoped) && overlap && same_proxy
}

/// 8.9.4, the synchronizing operations modelled: "A `fence.sc` operation X
/// synchronizes with a `fence.sc` operation Y if X precedes Y in the Fence-SC
/// order", and "A release pattern X synchronizes with an acquire pattern Y, if a
/// write operation in X precedes a read operation in Y in observation order, and
/// the first operation in X and the last operation in Y are morally strong". A
/// pattern's synchronization is an edge from its first operation ("only affects
/// operations occurring in program order before the first instruction in that
/// pattern", 8.8) to the acquire pattern's last ("only affects operations occurring
/// in program order after the last instruction in that pattern").
fn synchronizes(events: &[Ev], po: &Rel, ms: &Rel, obs: &Rel, fsc: &Rel) -> Rel {
    let n = events.len();
    let ev = |i: usize| &events[i].event;
    let strong_write = |w: usize| ev(w).is_write() && ev(w).is_strong();
    let strong_read = |r: usize| ev(r).is_read() && ev(r).is_strong();
    // 8.8, a release pattern on M: "A release operation on M", "Or a release or
    // acquire-release operation on M followed by a strong write on M in program
    // order", "Or a release or acquire-release memory fence followed by a strong
    // write on M in program order": as (first operation, write on M).
    let mut release = Vec::new();
    for w in (0..n).filter(|&w| ev(w).is_write()) {
        if is_release_op(ev(w)) {
            release.push((w, w));
        }
        for a in (0..n).filter(|&a| po.has(a, w) && strong_write(w)) {
            let op_on_m = is_release_op(ev(a)) && ev(a).loc() == ev(w).loc();
            if op_on_m || is_release_fence(ev(a)) {
                release.push((a, w));
            }
        }
    }
    // 8.8, an acquire pattern on M: "An acquire operation on M", "Or a strong read
    // on M followed by an acquire operation on M in program order", "Or a strong
    // read on M followed by an acquire memory fence in program order": as (read on
    // M, last operation).
    let mut acquire = Vec::new();
    for r in (0..n).filter(|&r| ev(r).is_read()) {
        if is_acquire_op(ev(r)) {
            acquire.push((r, r));
        }
        for b in (0..n).filter(|&b| po.has(r, b) && strong_read(r)) {
            let op_on_m = is_acquire_op(ev(b)) && ev(b).loc() == ev(r).loc();
            if op_on_m || is_acquire_fence(ev(b)) {
                acquire.push((r, b));
            }
        }
    }
    let mut sync = fsc.clone();
    for &(first, w) in &release {
        for &(r, last) in &acquire {
            if obs.has(w, r) && ms.has(first, last) {
                sync.set(first, last);
            }
        }
    }
    sync
}

/// 8.9.5, causality order: "X precedes Y in proxy-preserved base causality order,
/// or For some operation Z, X precedes Z in observation order, and Z precedes Y in
/// proxy-preserved base causality order." With the generic proxy only,
/// proxy-preserved base causality order relates two memory operations that base
/// causality order relates and that "are performed to the same address, using the
/// generic proxy", or that are aliases of one location with "an alias proxy fence
/// along the base causality path from X to Y" (`fence.proxy.alias`; 8.10.6, CoWR:
/// "Virtual aliases require an alias proxy fence along the synchronization path").
/// The chapter defines it only for memory operations, yet the Fence-SC axiom asks
/// for causality order between fences: between two operations of which one is a
/// fence, it is read as base causality order.
fn causality(events: &[Ev], bc: &Rel, obs: &Rel) -> Rel {
    let n = events.len();
    let ev = |i: usize| &events[i].event;
    let fenced = |a: usize, b: usize| (0..n).any(|f| ev(f).op == Op::AliasFence && bc.has(a, f) && bc.has(f, b));
    let ppbc = |a: usize, b: usize| match (ev(a).loc(), ev(b).loc()) {
        (Some(l), Some(m)) => l == m && bc.has(a, b) && (ev(a).alias == ev(b).alias || fenced(a, b)),
        _ => bc.has(a, b),
    };
    Rel::from_fn(n, |x, y| ppbc(x, y) || (0..n).any(|z| obs.has(x, z) && ppbc(z, y)))
}

/// The value each event reads and writes, computed from the reads-from choice and
/// the program's data flow (a `st` of a register writes what the last earlier `ld`
/// or `atom` of its thread put there; an `atom` writes its operation of what it
/// read). Where reads-from and data flow form a cycle, the values on it are not
/// determined by the program: they are `None` (see the No Thin Air axiom).
fn values(events: &[Ev], choice: &Choice) -> Vec<Option<(Option<u32>, Option<u32>)>> {
    let n = events.len();
    let mut out: Vec<Option<(Option<u32>, Option<u32>)>> = vec![None; n];
    loop {
        let mut progress = false;
        for i in 0..n {
            if out[i].is_some() {
                continue;
            }
            let read = match choice.rf[i] {
                None => None,
                Some(Source::Init) => Some(0),
                Some(Source::Write(w)) => match out[w] {
                    Some((_, Some(v))) => Some(v),
                    _ => continue,
                },
            };
            let write = match events[i].event.op {
                Op::St { val: Val::Const(v), .. } => Some(v),
                Op::St { val: Val::Reg(r), .. } => {
                    let setter = (0..n)
                        .filter(|&d| events[d].thread == events[i].thread && events[d].index < events[i].index)
                        .filter(|&d| events[d].event_reg() == Some(r))
                        .max_by_key(|&d| events[d].index);
                    match setter.and_then(|d| out[d]) {
                        Some((Some(v), _)) => Some(v),
                        _ => continue,
                    }
                }
                Op::Atom { rmw, .. } | Op::Red { rmw, .. } => read.map(|old| Rmw::apply(rmw, old)),
                Op::Ld { .. } | Op::Fence | Op::AliasFence => None,
            };
            out[i] = Some((read, write));
            progress = true;
        }
        if !progress {
            return out;
        }
    }
}
