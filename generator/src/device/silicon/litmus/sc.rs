//! The outcomes of a test's sequentially consistent executions: its threads'
//! operations interleaved in every order, each taking effect at once. An allowed
//! outcome outside this set is a weak one: the evidence says which weak outcomes
//! silicon showed, and whether a test showed any (issue 42: "If a test never shows
//! a weak outcome, say so rather than call it a pass").

use std::collections::{BTreeMap, BTreeSet, HashSet};

use ptxvec_oracle::model::{Litmus, Loc, Op, Outcome, Reg, Val};

/// One point of an interleaving: how far each thread has run, memory and the
/// registers.
#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pc: Vec<usize>,
    mem: BTreeMap<Loc, u32>,
    regs: BTreeMap<(usize, Reg), u32>,
}

/// Every outcome of an interleaving of `test`'s threads, in the oracle's form
/// (every accessed location in `mem`, every set register in `regs`). States met
/// twice are walked once, so the walk is bounded by the distinct states.
pub fn outcomes(test: &Litmus) -> BTreeSet<Outcome> {
    let mut locs = BTreeMap::new();
    for e in test.threads.iter().flat_map(|t| &t.events) {
        if let Some(l) = e.loc() {
            locs.insert(l, 0u32);
        }
    }
    let start = State { pc: vec![0; test.threads.len()], mem: locs, regs: BTreeMap::new() };
    let mut seen = HashSet::new();
    let mut out = BTreeSet::new();
    let mut stack = vec![start];
    while let Some(s) = stack.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut moved = false;
        for (t, th) in test.threads.iter().enumerate() {
            let Some(e) = th.events.get(s.pc[t]) else { continue };
            moved = true;
            let mut n = s.clone();
            n.pc[t] += 1;
            let get = |m: &BTreeMap<Loc, u32>, l: Loc| m.get(&l).copied().unwrap_or(0);
            match e.op {
                Op::Ld { loc, reg } => {
                    n.regs.insert((t, reg), get(&s.mem, loc));
                }
                Op::St { loc, val } => {
                    let v = match val {
                        Val::Const(c) => c,
                        Val::Reg(r) => s.regs.get(&(t, r)).copied().unwrap_or(0),
                    };
                    n.mem.insert(loc, v);
                }
                Op::Atom { loc, reg, rmw } => {
                    let old = get(&s.mem, loc);
                    n.regs.insert((t, reg), old);
                    n.mem.insert(loc, rmw.apply(old));
                }
                Op::Red { loc, rmw } => {
                    n.mem.insert(loc, rmw.apply(get(&s.mem, loc)));
                }
                Op::Fence => {}
            }
            stack.push(n);
        }
        if !moved {
            out.insert(Outcome { regs: s.regs, mem: s.mem });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::model::{Event, Place, Rmw, Scope, Sem, Thread};

    fn two(t0: Vec<Event>, t1: Vec<Event>) -> Litmus {
        let p = Place::cta(0, 0);
        Litmus { threads: vec![Thread { place: p, events: t0 }, Thread { place: p, events: t1 }] }
    }

    /// SB's interleavings give every pair of reads but both 0: some store comes
    /// first, and the other thread's read follows it (Lamport's argument).
    #[test]
    fn store_buffering_under_sc_never_misses_both() {
        let (x, y) = (Loc(0), Loc(1));
        let st = |l| Event::st(Sem::Relaxed, Scope::Gpu, l, Val::Const(1));
        let ld = |l, r| Event::ld(Sem::Relaxed, Scope::Gpu, l, Reg(r));
        let o = outcomes(&two(vec![st(x), ld(y, 0)], vec![st(y), ld(x, 1)]));
        let pairs: BTreeSet<(u32, u32)> = o.iter().map(|o| (o.reg(0, Reg(0)).unwrap(), o.reg(1, Reg(1)).unwrap())).collect();
        assert_eq!(pairs, [(0, 1), (1, 0), (1, 1)].into_iter().collect());
        assert!(o.iter().all(|o| o.mem(x) == 1 && o.mem(y) == 1));
    }

    /// Two atomic adds of 1 end at 2 in every interleaving, each reading 0 or 1.
    #[test]
    fn two_adds_end_at_two() {
        let add = |r| vec![Event::atom(Sem::Relaxed, Scope::Gpu, Loc(0), Reg(r), Rmw::Add(1))];
        let o = outcomes(&two(add(0), add(0)));
        assert_eq!(o.len(), 2);
        assert!(o.iter().all(|o| o.mem(Loc(0)) == 2));
    }
}
