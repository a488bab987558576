//! How each modelled operation is spelled in PTX: the opcode with its qualifiers,
//! without operands (the emitter appends those), and the `.version` and `.target`
//! the spelling needs.
//!
//! `atom` and `red` are in the spec (spec/instructions/), and the syntax judge holds
//! every spelling made here to it. `ld`, `st` and `fence` are not, and adding them
//! would add their syntax and semantic vectors too, which is a task of its own; so
//! they are spelled by the small table below, each row from the PTX ISA 9.1 syntax
//! line it instantiates, every access to `.global` memory and 32 bits wide:
//!
//! - `ld{.weak}{.ss}...type d, [a]` and `ld.relaxed.scope{.ss}...type`,
//!   `ld.acquire.scope{.ss}...type` (9.7.9.8 ld, Syntax): a weak load is spelled
//!   bare, `ld.global.u32`, the first line with its optional `{.weak}` left out, as
//!   the chapter's own litmus tests write their weak accesses (`ld [data]`, 8.10.6);
//! - `st{.weak}{.ss}...type [a], b` and `st.relaxed.scope{.ss}...type`,
//!   `st.release.scope{.ss}...type` (9.7.9.10 st, Syntax);
//! - `fence{.sem}.scope` with `.sem = { .sc, .acq_rel, .acquire, .release }`
//!   (9.7.13.4 membar/fence, Syntax).
//!
//! The versions and targets (each instruction's PTX ISA Notes and Target ISA
//! Notes): `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc` and the scopes
//! `.cta`, `.gpu`, `.sys` on `ld`, `st`, `fence`, `atom`, `red` need PTX ISA 6.0 and
//! `sm_70`; the `.cluster` scope needs PTX ISA 7.8 and `sm_90`; `fence.acquire` and
//! `fence.release` need PTX ISA 8.6 and `sm_90`.

use ptxvec_oracle::model::{Event, Op, Rmw, Scope, Sem};
use ptxvec_spec::PtxVersion;

/// The `.version` and `.target` a spelling (or a whole test) needs: the least of
/// each, as the PTX ISA Notes and Target ISA Notes give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Requires {
    /// The PTX ISA version.
    pub ptx: PtxVersion,
    /// The `sm_` number: 70 for `sm_70`.
    pub sm: u16,
}

impl Requires {
    /// What every memory-model test needs: `.sem` and `.scope`, PTX ISA 6.0 and
    /// `sm_70`, the first version and target of the chapter's model (a weak-only
    /// test needs less to be spelled, and is held to the same module so that every
    /// test runs in one).
    pub const BASE: Requires = Requires { ptx: PtxVersion::new(6, 0), sm: 70 };

    /// What clusters need: the `.cluster` scope, and a launch with CTAs grouped in
    /// clusters ("Thread Block Clusters": PTX ISA 7.8, `sm_90`).
    pub const CLUSTER: Requires = Requires { ptx: PtxVersion::new(7, 8), sm: 90 };

    /// What `fence.acquire` and `fence.release` need: PTX ISA 8.6, `sm_90`.
    pub const SPLIT_FENCE: Requires = Requires { ptx: PtxVersion::new(8, 6), sm: 90 };

    /// The least module that meets both.
    pub fn max(self, other: Requires) -> Requires {
        Requires { ptx: self.ptx.max(other.ptx), sm: self.sm.max(other.sm) }
    }

    /// The target as `.target` spells it: `sm_70`.
    pub fn target(&self) -> String {
        format!("sm_{}", self.sm)
    }
}

/// The qualifier word of a `.sem`.
pub fn sem_word(sem: Sem) -> &'static str {
    match sem {
        Sem::Weak => ".weak",
        Sem::Relaxed => ".relaxed",
        Sem::Acquire => ".acquire",
        Sem::Release => ".release",
        Sem::AcqRel => ".acq_rel",
        Sem::Sc => ".sc",
    }
}

/// The qualifier word of a `.scope`.
pub fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::Cta => ".cta",
        Scope::Cluster => ".cluster",
        Scope::Gpu => ".gpu",
        Scope::Sys => ".sys",
    }
}

/// The `.op.type` of an `atom` or `red`: `.add.u32` or `.exch.b32` (the types the
/// syntax lines give each operation; `red` has no `.exch`, which [`opcode`] refuses).
fn rmw_words(rmw: Rmw) -> &'static str {
    match rmw {
        Rmw::Add(_) => ".add.u32",
        Rmw::Exch(_) => ".exch.b32",
    }
}

/// The opcode of `event` with its qualifiers, operands left out:
/// `ld.acquire.gpu.global.u32`, `st.global.u32`, `atom.acq_rel.sys.global.exch.b32`,
/// `red.release.cta.global.add.u32`, `fence.sc.cluster`. `None` for what PTX cannot
/// spell (a `red.exch`, a weak fence, a `.sc` memory operation: the model refuses
/// the last two as well), and for what the runners cannot place: an access through
/// a virtual alias, or `fence.proxy.alias` (every location has one address there).
pub fn opcode(event: &Event) -> Option<String> {
    if event.alias != 0 || event.op == Op::AliasFence {
        return None;
    }
    let sem_scope = match (event.sem, event.scope) {
        (Sem::Weak, None) => String::new(),
        (Sem::Weak, Some(_)) | (_, None) => return None,
        (sem, Some(scope)) => format!("{}{}", sem_word(sem), scope_word(scope)),
    };
    let strong = !sem_scope.is_empty();
    let text = match event.op {
        Op::Ld { .. } if !strong || matches!(event.sem, Sem::Relaxed | Sem::Acquire) => format!("ld{sem_scope}.global.u32"),
        Op::St { .. } if !strong || matches!(event.sem, Sem::Relaxed | Sem::Release) => format!("st{sem_scope}.global.u32"),
        Op::Atom { rmw, .. } if strong && event.sem != Sem::Sc => format!("atom{sem_scope}.global{}", rmw_words(rmw)),
        Op::Red { rmw: rmw @ Rmw::Add(_), .. } if matches!(event.sem, Sem::Relaxed | Sem::Release) => {
            format!("red{sem_scope}.global{}", rmw_words(rmw))
        }
        Op::Fence if strong && event.sem != Sem::Relaxed => format!("fence{sem_scope}"),
        _ => return None,
    };
    Some(text)
}

/// What the spelling of `event` needs (see the module's table).
pub fn requires(event: &Event) -> Requires {
    let mut need = Requires::BASE;
    if event.scope == Some(Scope::Cluster) {
        need = need.max(Requires::CLUSTER);
    }
    if event.op == Op::Fence && matches!(event.sem, Sem::Acquire | Sem::Release) {
        need = need.max(Requires::SPLIT_FENCE);
    }
    need
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxvec_oracle::model::{Loc, Reg, Val};

    const X: Loc = Loc(0);
    const R: Reg = Reg(0);

    /// The spellings of the syntax lines quoted in the module's doc, written out by
    /// hand.
    #[test]
    fn each_operation_is_spelled_as_its_syntax_line_reads() {
        let cases = [
            (Event::ld_weak(X, R), "ld.global.u32"),
            (Event::ld(Sem::Acquire, Scope::Gpu, X, R), "ld.acquire.gpu.global.u32"),
            (Event::ld(Sem::Relaxed, Scope::Cluster, X, R), "ld.relaxed.cluster.global.u32"),
            (Event::st_weak(X, Val::Const(1)), "st.global.u32"),
            (Event::st(Sem::Release, Scope::Sys, X, Val::Const(1)), "st.release.sys.global.u32"),
            (Event::atom(Sem::AcqRel, Scope::Cta, X, R, Rmw::Exch(1)), "atom.acq_rel.cta.global.exch.b32"),
            (Event::atom(Sem::Acquire, Scope::Gpu, X, R, Rmw::Add(0)), "atom.acquire.gpu.global.add.u32"),
            (Event::red(Sem::Release, Scope::Gpu, X, Rmw::Add(1)), "red.release.gpu.global.add.u32"),
            (Event::fence(Sem::Sc, Scope::Cta), "fence.sc.cta"),
            (Event::fence(Sem::AcqRel, Scope::Sys), "fence.acq_rel.sys"),
        ];
        for (event, want) in cases {
            assert_eq!(opcode(&event).as_deref(), Some(want), "{event:?}");
        }
    }

    #[test]
    fn what_ptx_cannot_spell_has_no_opcode() {
        for event in [
            Event::ld(Sem::Release, Scope::Gpu, X, R),
            Event::st(Sem::Acquire, Scope::Gpu, X, Val::Const(1)),
            Event::red(Sem::Relaxed, Scope::Gpu, X, Rmw::Exch(1)),
            Event::red(Sem::Acquire, Scope::Gpu, X, Rmw::Add(1)),
            Event::fence(Sem::Relaxed, Scope::Gpu),
            Event::atom(Sem::Sc, Scope::Gpu, X, R, Rmw::Add(1)),
        ] {
            assert_eq!(opcode(&event), None, "{event:?}");
        }
    }

    /// The runners give a location one address, so an access through an alias and
    /// the fence between aliases are not generated.
    #[test]
    fn aliases_have_no_opcode() {
        assert_eq!(opcode(&Event::ld_weak(X, R).via(1)), None);
        assert_eq!(opcode(&Event::alias_fence()), None);
        assert_eq!(opcode(&Event::ld_weak(X, R)).as_deref(), Some("ld.global.u32"));
    }

    #[test]
    fn cluster_scope_and_split_fences_need_sm_90() {
        assert_eq!(requires(&Event::ld(Sem::Acquire, Scope::Gpu, X, R)), Requires::BASE);
        assert_eq!(requires(&Event::fence(Sem::Sc, Scope::Cluster)), Requires::CLUSTER);
        assert_eq!(requires(&Event::fence(Sem::Acquire, Scope::Gpu)), Requires::SPLIT_FENCE);
        assert_eq!(Requires::CLUSTER.target(), "sm_90");
    }
}
