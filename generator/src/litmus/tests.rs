//! The generated tests: their count, their spellings held by the syntax judge, and
//! every one in the oracle's reach.

use std::collections::BTreeSet;

use ptxvec_oracle::model::{judge, Loc, Op, Reg, MAX_CANDIDATES};
use ptxvec_spec::Target;

use super::*;
use crate::syntax::judge::{judge as judge_text, Order};

#[test]
fn the_selection_rule_gives_1132_distinct_tests() {
    // 4 placements × (10 shapes × (6 scoped flavours × 4 scopes + weak) + CoWW's
    // 5 scoped flavours × 4 scopes + weak + Atomicity's 3 × 4 scopes).
    let tests = generated();
    assert_eq!(tests.len(), 4 * (10 * (6 * 4 + 1) + (5 * 4 + 1) + 3 * 4));
    assert_eq!(tests.len(), 1132);
    let ids: BTreeSet<&str> = tests.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), tests.len(), "ids are unique");
    assert!(ids.contains("MP/rel_acq/gpu/other_ctas"));
    assert!(ids.contains("2+2W/weak/same_cta"));
    assert!(ids.contains("MP/red_rel_acq/gpu/other_clusters"));
    assert!(ids.contains("MP/weak/same_warp"));
    assert!(ids.contains("Atomicity/red_rel_acq/cta/same_warp"));
    assert!(!ids.contains("CoWW/red_rel_acq/gpu/same_cta"));
    assert!(!ids.contains("Atomicity/weak/same_cta"));
    assert!(!ids.contains("Atomicity/rel_acq/gpu/same_cta"));
}

#[test]
fn every_event_has_one_opcode() {
    for t in generated() {
        assert_eq!(t.opcodes.len(), t.litmus.threads.len(), "{}", t.id);
        for (ops, th) in t.opcodes.iter().zip(&t.litmus.threads) {
            assert_eq!(ops.len(), th.events.len(), "{}", t.id);
            for (op, e) in ops.iter().zip(&th.events) {
                assert_eq!(spelling::opcode(e).as_ref(), Some(op), "{}", t.id);
            }
        }
    }
}

/// The operands a runner appends, for the judge: a destination, an address and a
/// source as the syntax lines order them.
fn with_operands(opcode: &str) -> String {
    match opcode.split('.').next() {
        Some("atom") => format!("{opcode} %r1, [%rd1], 1;"),
        Some("red") => format!("{opcode} [%rd1], 1;"),
        Some("ld") => format!("{opcode} %r1, [%rd1];"),
        Some("st") => format!("{opcode} [%rd1], %r1;"),
        _ => format!("{opcode};"),
    }
}

/// The words `ld`, `st` and `fence` may be spelled with here, by their syntax
/// lines (spelling.rs quotes them): the mnemonic, then `.sem.scope` or nothing
/// (weak), then `.global.u32` for the accesses.
fn table_legal(opcode: &str) -> bool {
    let words: Vec<&str> = opcode.split('.').collect();
    let scope = |w: &str| ["cta", "cluster", "gpu", "sys"].contains(&w);
    match words.as_slice() {
        ["ld", "global", "u32"] | ["st", "global", "u32"] => true,
        ["ld", sem, s, "global", "u32"] => ["relaxed", "acquire"].contains(sem) && scope(s),
        ["st", sem, s, "global", "u32"] => ["relaxed", "release"].contains(sem) && scope(s),
        ["fence", sem, s] => ["sc", "acq_rel", "acquire", "release"].contains(sem) && scope(s),
        _ => false,
    }
}

#[test]
fn every_spelling_is_legal_at_its_tests_version_and_target() {
    // `atom` and `red` are in the spec: the syntax judge holds them, at the
    // `.version` and `.target` the test says it needs (so that `requires` is held
    // too). `ld`, `st` and `fence` are not: their table is held to its syntax lines.
    let spec = crate::repo_spec();
    let mut judged = BTreeSet::new();
    for t in generated() {
        let target: Target = t.requires.target().parse().unwrap();
        for op in t.opcodes.iter().flatten() {
            let mnemonic = op.split('.').next().unwrap_or_default();
            if ["atom", "red"].contains(&mnemonic) {
                let text = with_operands(op);
                let j = judge_text(&spec, &text, t.requires.ptx, target, Order::Strict);
                assert!(j.legal(), "{}: {text} at {} {}: {:?}", t.id, t.requires.ptx, target, j.defect);
                judged.insert(op.clone());
            } else {
                assert!(table_legal(op), "{}: {op}", t.id);
            }
        }
    }
    // Every atom spelling of `rmw_acq_rel` (two operations × four scopes), every
    // red spelling of `red_rel_acq` (one × four), and Atomicity's relaxed add (one
    // × four; its `acq_rel` add is `rmw_acq_rel`'s read).
    assert_eq!(judged.len(), 16, "{judged:?}");
}

#[test]
fn the_judge_refuses_an_atom_below_its_version_or_with_a_bad_qualifier() {
    // So that the test above can fail: `.cluster` before PTX 7.8, `.sem` before
    // `sm_70` ("`.sem` qualifier requires `sm_70` or higher", atom's Target ISA
    // Notes), and `.exch` on `red`, which has none.
    let spec = crate::repo_spec();
    let at = |text: &str, ptx: (u8, u8), target: &str| {
        judge_text(&spec, text, ptxvec_spec::PtxVersion::new(ptx.0, ptx.1), target.parse().unwrap(), Order::Strict).legal()
    };
    assert!(at("atom.acq_rel.cluster.global.exch.b32 %r1, [%rd1], 1;", (7, 8), "sm_90"));
    assert!(!at("atom.acq_rel.cluster.global.exch.b32 %r1, [%rd1], 1;", (7, 0), "sm_90"));
    assert!(!at("atom.acq_rel.gpu.global.exch.b32 %r1, [%rd1], 1;", (6, 0), "sm_60"));
    assert!(!at("red.release.gpu.global.exch.b32 [%rd1], 1;", (6, 0), "sm_70"));
}

#[test]
fn the_table_refuses_what_the_syntax_lines_do_not_give() {
    for op in ["ld.release.gpu.global.u32", "st.acquire.gpu.global.u32", "fence.relaxed.gpu", "ld.relaxed.global.u32"] {
        assert!(!table_legal(op), "{op}");
    }
}

#[test]
fn clusters_raise_the_requirement_to_sm_90() {
    for t in generated() {
        let cluster = t.scope == Some(ptxvec_oracle::model::Scope::Cluster) || t.placement == Placement::OtherCtas;
        let want = if cluster { Requires::CLUSTER } else { Requires::BASE };
        assert_eq!(t.requires, want, "{}", t.id);
    }
}

#[test]
fn every_test_is_judged_by_the_oracle_under_its_cap() {
    for t in generated() {
        let v = judge(&t.litmus).unwrap_or_else(|e| panic!("{}: {e}", t.id));
        assert!(!v.allowed.is_empty(), "{}", t.id);
    }
    let biggest = shapes::test(Shape::Iriw, Flavour::RmwAcqRel, ptxvec_oracle::model::Scope::Gpu, Placement::SameCta).unwrap();
    let atoms = biggest.litmus.threads.iter().flat_map(|t| &t.events).filter(|e| matches!(e.op, Op::Atom { .. })).count();
    assert_eq!(atoms, 6);
    assert!(MAX_CANDIDATES > 3u128.pow(6) * 6 * 6);
}

#[test]
fn keys_name_registers_by_thread_and_locations_by_letter() {
    assert_eq!(reg_key(1, Reg(0)), "1:r0");
    assert_eq!(reg_key(3, Reg(4)), "3:r4");
    let names: Vec<String> = (0..6).map(|l| mem_key(Loc(l))).collect();
    assert_eq!(names, ["x", "y", "z", "w", "m4", "m5"]);
}

#[test]
fn every_sequentially_consistent_outcome_is_allowed() {
    // The model is weaker than sequential consistency, never stronger: an
    // interleaving is a candidate execution every axiom accepts.
    for t in generated() {
        let v = judge(&t.litmus).unwrap();
        let sc = ptxvec_oracle::model::sc::outcomes(&t.litmus);
        assert!(sc.is_subset(&v.allowed), "{}: {:?}", t.id, sc.difference(&v.allowed).collect::<Vec<_>>());
    }
}

#[test]
fn a_record_reads_back_as_written() {
    let tests = generated();
    let text = record::jsonl(&tests).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), tests.len());
    for (line, t) in lines.iter().zip(&tests) {
        let r: record::Record = serde_json::from_str(line).unwrap();
        assert_eq!(r, record::record(t).unwrap());
        assert_eq!(&serde_json::to_string(&r).unwrap(), line);
    }
}

#[test]
fn the_mp_record_of_release_acquire_is_as_worked_by_hand() {
    // MP at .gpu across two CTAs of a cluster, release/acquire throughout: the
    // chapter's causality argument (8.10.6, Message Passing) forbids flag 1 with
    // data 0; every other pair of values some interleaving gives, so no outcome is
    // weak. Cluster placement: PTX ISA 7.8, sm_90.
    let t = shapes::test(Shape::Mp, Flavour::ReleaseAcquire, ptxvec_oracle::model::Scope::Gpu, Placement::OtherCtas).unwrap();
    let r = record::record(&t).unwrap();
    assert_eq!(r.id, "MP/rel_acq/gpu/other_ctas");
    assert_eq!((r.requires.ptx.as_str(), r.requires.target.as_str()), ("7.8", "sm_90"));
    assert_eq!(r.threads[0].instructions, ["st.release.gpu.global.u32 [x], 1;", "st.release.gpu.global.u32 [y], 1;"]);
    assert_eq!(r.threads[1].instructions, ["ld.acquire.gpu.global.u32 %r0, [y];", "ld.acquire.gpu.global.u32 %r1, [x];"]);
    assert_eq!((r.threads[1].cluster, r.threads[1].cta), (0, 1));
    assert_eq!(r.observed.regs, ["1:r0", "1:r1"]);
    let pairs: Vec<(u32, u32, bool)> = r.allowed.iter().map(|a| (a.regs["1:r0"], a.regs["1:r1"], a.weak)).collect();
    assert_eq!(pairs, [(0, 0, false), (0, 1, false), (1, 1, false)]);
    let forbidden: Vec<(u32, u32, Vec<String>)> =
        r.forbidden.iter().map(|f| (f.regs["1:r0"], f.regs["1:r1"], f.axioms.clone())).collect();
    assert_eq!(forbidden, [(1, 0, vec!["8.10.6 Causality".to_owned()])]);
}

#[test]
fn red_release_is_a_release_only_within_its_scope() {
    // MP whose writes are `red.release.add`s of 1 into locations holding 0, read by
    // `ld.acquire`: a `red` with `.release` is a release operation (8.5, the
    // release patterns of 8.9.3 take any write with release semantics), so at
    // `.gpu` across CTAs the chapter's causality argument forbids flag 1 with data
    // 0, as for `st.release`. At `.cta` across CTAs the two are not morally strong
    // (8.9.2: each must be within the other's scope), nothing synchronizes, and
    // the stale read is allowed: the difference between `red.release.gpu` and
    // `red.release.cta` that one thread's semantic vectors cannot show.
    let gpu = record::record(&shapes::test(Shape::Mp, Flavour::RedReleaseAcquire, ptxvec_oracle::model::Scope::Gpu, Placement::OtherCtas).unwrap()).unwrap();
    assert_eq!(gpu.threads[0].instructions, ["red.release.gpu.global.add.u32 [x], 1;", "red.release.gpu.global.add.u32 [y], 1;"]);
    assert_eq!(gpu.threads[1].instructions, ["ld.acquire.gpu.global.u32 %r0, [y];", "ld.acquire.gpu.global.u32 %r1, [x];"]);
    let stale = |regs: &std::collections::BTreeMap<String, u32>| (regs["1:r0"], regs["1:r1"]) == (1, 0);
    assert!(gpu.forbidden.iter().any(|f| stale(&f.regs) && f.axioms == ["8.10.6 Causality"]), "{:?}", gpu.forbidden);
    assert!(!gpu.allowed.iter().any(|a| stale(&a.regs)));
    let cta = record::record(&shapes::test(Shape::Mp, Flavour::RedReleaseAcquire, ptxvec_oracle::model::Scope::Cta, Placement::OtherCtas).unwrap()).unwrap();
    assert!(cta.allowed.iter().any(|a| stale(&a.regs) && a.weak), "{:?}", cta.allowed);
}

#[test]
fn the_sb_record_of_relaxed_accesses_has_one_weak_outcome() {
    // SB relaxed at .gpu: both loads missing is allowed (8.10.6: without fence.sc
    // "an execution is possible, where both R1 and R2 return the initial value")
    // and no interleaving gives it.
    let t = shapes::test(Shape::Sb, Flavour::Relaxed, ptxvec_oracle::model::Scope::Gpu, Placement::OtherClusters).unwrap();
    let r = record::record(&t).unwrap();
    let weak: Vec<(u32, u32)> = r.allowed.iter().filter(|a| a.weak).map(|a| (a.regs["0:r0"], a.regs["1:r0"])).collect();
    assert_eq!(weak, [(0, 0)]);
    assert!(r.forbidden.is_empty());
    assert_eq!((r.requires.ptx.as_str(), r.requires.target.as_str()), ("6.0", "sm_70"));
}
