//! The outcomes of a test under sequential consistency: every interleaving of the
//! threads' operations, each performed at once on one memory, in program order
//! within each thread. An outcome the model allows and no interleaving produces is
//! *weak*: what a litmus test is run to look for.
//!
//! Scopes, `.sem` and fences change nothing here: under sequential consistency
//! every operation is seen by every thread in one order.

use std::collections::BTreeSet;

use super::{Litmus, Loc, Op, Outcome, Reg, Rmw, Val};

/// Every outcome some interleaving of `test` produces.
pub fn outcomes(test: &Litmus) -> BTreeSet<Outcome> {
    let mut out = BTreeSet::new();
    let mut start = Outcome::default();
    for e in test.threads.iter().flat_map(|t| &t.events) {
        if let Some(l) = e.loc() {
            start.mem.insert(l, 0);
        }
    }
    let mut next = vec![0; test.threads.len()];
    walk(test, &mut next, &mut start, &mut out);
    out
}

/// Depth first over the next operation to perform: `next[t]` is thread `t`'s.
fn walk(test: &Litmus, next: &mut Vec<usize>, state: &mut Outcome, out: &mut BTreeSet<Outcome>) {
    let mut done = true;
    for t in 0..test.threads.len() {
        let Some(e) = test.threads[t].events.get(next[t]) else { continue };
        done = false;
        let saved = state.clone();
        step(state, t, e.op);
        next[t] += 1;
        walk(test, next, state, out);
        next[t] -= 1;
        *state = saved;
    }
    if done {
        out.insert(state.clone());
    }
}

/// Performs `op` of thread `t` on `state`.
fn step(state: &mut Outcome, t: usize, op: Op) {
    let mem = |s: &Outcome, l: Loc| s.mem.get(&l).copied().unwrap_or(0);
    let reg = |s: &Outcome, r: Reg| s.regs.get(&(t, r)).copied().unwrap_or(0);
    match op {
        Op::Ld { loc, reg: r } => {
            let v = mem(state, loc);
            state.regs.insert((t, r), v);
        }
        Op::St { loc, val } => {
            let v = match val {
                Val::Const(c) => c,
                Val::Reg(r) => reg(state, r),
            };
            state.mem.insert(loc, v);
        }
        Op::Atom { loc, reg: r, rmw } => {
            let old = mem(state, loc);
            state.regs.insert((t, r), old);
            state.mem.insert(loc, Rmw::apply(rmw, old));
        }
        Op::Red { loc, rmw } => {
            let old = mem(state, loc);
            state.mem.insert(loc, Rmw::apply(rmw, old));
        }
        Op::Fence | Op::AliasFence => {}
    }
}

/// The allowed outcomes of `allowed` that no interleaving of `test` produces.
pub fn weak(test: &Litmus, allowed: &BTreeSet<Outcome>) -> BTreeSet<Outcome> {
    let sc = outcomes(test);
    allowed.iter().filter(|o| !sc.contains(o)).cloned().collect()
}
