//! A litmus test as `silicon-litmus` runs it: an id, the oracle's test, and the PTX
//! opcode of every event. The opcodes come with the test because the syntax tables
//! decide how an operation is spelled; [`fallback_opcodes`] spells the oracle's
//! events one fixed way until the generated tests bring their own spellings.

use ptxvec_oracle::model::{Event, Litmus, Op, Rmw, Scope, Sem};

/// One test to run: `opcodes[t][e]` is the PTX opcode, with its qualifiers, of
/// event `e` of thread `t` (`ld.relaxed.gpu.global.u32`, `fence.sc.gpu`); the
/// emitter appends the operands ([`super::emit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The test's id in the evidence (`MP+rel.acq.gpu@cluster`).
    pub id: String,
    /// The test.
    pub test: Litmus,
    /// Each event's opcode, by thread then event.
    pub opcodes: Vec<Vec<String>>,
}

impl Case {
    /// The case `id` of `test`, its events spelled by [`fallback_opcodes`].
    pub fn spelled(id: impl Into<String>, test: Litmus) -> Result<Case, String> {
        let id = id.into();
        let opcodes = fallback_opcodes(&test).map_err(|e| format!("{id}: {e}"))?;
        Ok(Case { id, test, opcodes })
    }
}

/// The scope qualifier as PTX spells it (PTX ISA 8.5, Table 21).
pub fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

/// The `.sem` qualifier as PTX spells it.
fn sem_name(s: Sem) -> &'static str {
    match s {
        Sem::Weak => "weak",
        Sem::Relaxed => "relaxed",
        Sem::Acquire => "acquire",
        Sem::Release => "release",
        Sem::AcqRel => "acq_rel",
        Sem::Sc => "sc",
    }
}

/// The fallback spelling of one event: every access a 32-bit one to `.global`
/// memory, `.sem` then `.scope` then the state space, as the syntax lines of
/// `ld`, `st`, `atom` and `red` order them (`ld{.weak}{.ss}...`,
/// `ld.sem.scope{.ss}...`, `atom{.sem}{.scope}{.space}.op.type`,
/// `red{.sem}{.scope}{.space}.op.type`, `fence{.sem}.scope`). A weak access says
/// `.weak` outright. What PTX cannot spell is an error: `red` has no `.exch`, and
/// `fence` takes `.acquire`/`.release` only with `.sync_restrict` (PTX ISA 8.6),
/// which the oracle does not model.
pub fn fallback_opcode(e: &Event) -> Result<String, String> {
    let qual = match (e.sem, e.scope) {
        (Sem::Weak, None) => "weak".to_owned(),
        (s, Some(scope)) => format!("{}.{}", sem_name(s), scope_name(scope)),
        (s, None) => return Err(format!("{e:?}: a {} operation needs a scope", sem_name(s))),
    };
    Ok(match e.op {
        Op::Ld { .. } => format!("ld.{qual}.global.u32"),
        Op::St { .. } => format!("st.{qual}.global.u32"),
        Op::Atom { rmw: Rmw::Add(_), .. } => format!("atom.{qual}.global.add.u32"),
        Op::Atom { rmw: Rmw::Exch(_), .. } => format!("atom.{qual}.global.exch.b32"),
        Op::Red { rmw: Rmw::Add(_), .. } => format!("red.{qual}.global.add.u32"),
        Op::Red { rmw: Rmw::Exch(_), .. } => return Err(format!("{e:?}: red has no .exch")),
        Op::Fence if matches!(e.sem, Sem::Sc | Sem::AcqRel) => format!("fence.{qual}"),
        Op::Fence => return Err(format!("{e:?}: fence takes .sc or .acq_rel here")),
    })
}

/// [`fallback_opcode`] of every event of `test`, by thread then event.
pub fn fallback_opcodes(test: &Litmus) -> Result<Vec<Vec<String>>, String> {
    test.threads.iter().map(|t| t.events.iter().map(fallback_opcode).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::model::{Loc, Reg, Val};

    /// Each spelling, as the syntax lines quoted above order the qualifiers.
    #[test]
    fn fallback_spellings() {
        let (x, r) = (Loc(0), Reg(0));
        let table = [
            (Event::ld_weak(x, r), Ok("ld.weak.global.u32")),
            (Event::ld(Sem::Acquire, Scope::Gpu, x, r), Ok("ld.acquire.gpu.global.u32")),
            (Event::st(Sem::Release, Scope::Cta, x, Val::Const(1)), Ok("st.release.cta.global.u32")),
            (Event::st_weak(x, Val::Const(1)), Ok("st.weak.global.u32")),
            (Event::atom(Sem::AcqRel, Scope::Cluster, x, r, Rmw::Add(1)), Ok("atom.acq_rel.cluster.global.add.u32")),
            (Event::atom(Sem::Relaxed, Scope::Sys, x, r, Rmw::Exch(2)), Ok("atom.relaxed.sys.global.exch.b32")),
            (Event::red(Sem::Relaxed, Scope::Gpu, x, Rmw::Add(1)), Ok("red.relaxed.gpu.global.add.u32")),
            (Event::fence(Sem::Sc, Scope::Gpu), Ok("fence.sc.gpu")),
            (Event::fence(Sem::AcqRel, Scope::Cta), Ok("fence.acq_rel.cta")),
            (Event::red(Sem::Relaxed, Scope::Gpu, x, Rmw::Exch(1)), Err("red has no .exch")),
            (Event::fence(Sem::Acquire, Scope::Gpu), Err("fence takes")),
        ];
        for (e, want) in table {
            match (fallback_opcode(&e), want) {
                (Ok(got), Ok(w)) => assert_eq!(got, w, "case: {e:?}"),
                (Err(got), Err(w)) => assert!(got.contains(w), "case: {e:?}: {got}"),
                (got, w) => panic!("case: {e:?}: got {got:?}, want {w:?}"),
            }
        }
    }
}
