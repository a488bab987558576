//! The generated tests: their count, their spellings held by the syntax judge, and
//! every one in the oracle's reach.

use std::collections::BTreeSet;

use ptxvec_oracle::model::{judge, Loc, Op, Reg, MAX_CANDIDATES};
use ptxvec_spec::Target;

use super::*;
use crate::syntax::judge::Order;
use crate::syntax::definition::judge as judge_text;

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

/// A record's outcomes as `(registers named by keys, x, weak)` and `(registers,
/// x, axioms)`, in the record's order.
type Seen = Vec<(Vec<u32>, u32, bool)>;
type Barred = Vec<(Vec<u32>, u32, Vec<String>)>;

fn by_x(r: &record::Record, regs: &[&str]) -> (Seen, Barred) {
    let values = |m: &std::collections::BTreeMap<String, u32>| regs.iter().map(|k| m[*k]).collect::<Vec<u32>>();
    let allowed = r.allowed.iter().map(|a| (values(&a.regs), a.mem["x"], a.weak)).collect();
    let forbidden = r.forbidden.iter().map(|f| (values(&f.regs), f.mem["x"], f.axioms.clone())).collect();
    (allowed, forbidden)
}

fn record_of(shape: Shape, flavour: Flavour, scope: ptxvec_oracle::model::Scope, placement: Placement) -> record::Record {
    record::record(&shapes::test(shape, flavour, scope, placement).unwrap()).unwrap()
}

const SCPL: &str = "8.10.5 Sequential Consistency Per Location";
const COHERENCE: &str = "8.10.1 Coherence";
const ATOMICITY: &str = "8.10.3 Atomicity";

#[test]
fn cowr_is_as_worked_by_hand() {
    use ptxvec_oracle::model::Scope;
    // `W x=1; R x || W x=2`, relaxed at .gpu across CTAs: every pair is morally
    // strong (8.7: "each operation is strong and specifies a scope that includes
    // the thread executing the other operation"), and a record names the first
    // axiom (in the chapter's order) each candidate fails.
    // - r0 = 0: the read returns the initial value, which precedes W x=1 in
    //   coherence order, so R precedes W x=1 in communication order (8.9.7: "R
    //   returns the value written by a write W' that precedes W in coherence
    //   order"), while W x=1 precedes R in program order: a cycle 8.10.5 forbids
    //   ("communication order cannot contradict program order"), whatever x ends at.
    // - r0 = 2 with x = 1: W x=2 precedes W x=1 in coherence order, so R, reading
    //   2, precedes W x=1 in communication order: the same cycle.
    // - r0 = 1 with x 1 or 2, r0 = 2 with x = 2: interleavings give them.
    let r = record_of(Shape::CoWR, Flavour::Relaxed, Scope::Gpu, Placement::OtherCtas);
    assert_eq!(r.threads[0].instructions, ["st.relaxed.gpu.global.u32 [x], 1;", "ld.relaxed.gpu.global.u32 %r0, [x];"]);
    assert_eq!(r.threads[1].instructions, ["st.relaxed.gpu.global.u32 [x], 2;"]);
    let (allowed, forbidden) = by_x(&r, &["0:r0"]);
    assert_eq!(allowed, [(vec![1], 1, false), (vec![1], 2, false), (vec![2], 2, false)]);
    let s = vec![SCPL.to_owned()];
    assert_eq!(forbidden, [(vec![0], 1, s.clone()), (vec![0], 2, s.clone()), (vec![2], 1, s.clone())]);
    // Weak, in one CTA: W x=2 is weak, so morally strong with neither access of
    // thread 0 (8.7), and unrelated to W x=1 in coherence order ("data-race",
    // 8.9.6): reading 2 and ending at 1 is no longer a cycle, and no interleaving
    // gives it. Thread 0's own accesses are still morally strong ("related in
    // program order"), so the stale read of 0 stays forbidden by 8.10.5.
    let w = record_of(Shape::CoWR, Flavour::Weak, Scope::Gpu, Placement::SameCta);
    let (allowed, forbidden) = by_x(&w, &["0:r0"]);
    assert!(allowed.contains(&(vec![2], 1, true)), "{allowed:?}");
    assert_eq!(forbidden, [(vec![0], 1, s.clone()), (vec![0], 2, s)]);
}

#[test]
fn coww_is_as_worked_by_hand() {
    use ptxvec_oracle::model::Scope;
    // `W x=1; W x=2 || W x=3`: W x=1 precedes W x=2 in program order, hence in
    // base causality order (8.9.5) and causality order; 8.10.1: "If a write W
    // precedes an overlapping write W' in causality order, then W must precede W'
    // in coherence order". So x never ends at 1, even with weak writes (program
    // order needs no `.sem`); it ends at 2 (W x=3 first) or 3 (W x=3 last).
    for (flavour, placement) in [(Flavour::Relaxed, Placement::OtherCtas), (Flavour::Weak, Placement::SameCta)] {
        let r = record_of(Shape::CoWW, flavour, Scope::Gpu, placement);
        assert_eq!(r.observed.regs, Vec::<String>::new());
        let (allowed, forbidden) = by_x(&r, &[]);
        assert_eq!(allowed, [(vec![], 2, false), (vec![], 3, false)], "{}", r.id);
        assert_eq!(forbidden, [(vec![], 1, vec![COHERENCE.to_owned()])], "{}", r.id);
    }
}

#[test]
fn corw_is_as_worked_by_hand() {
    use ptxvec_oracle::model::Scope;
    // `R x; W x=1 || W x=2`, relaxed at .gpu across CTAs (all morally strong):
    // - r0 = 1: R reads from W x=1, which it precedes in program order: W x=1
    //   precedes R in communication order ("R returns the value of any byte that
    //   was written by W", 8.9.7), a cycle with program order that 8.10.5 forbids.
    // - r0 = 2 with x = 2: W x=2 precedes R in observation order (8.9.2: "R and W
    //   are morally strong and R reads the value written by W"), R precedes W x=1
    //   in program order, so W x=2 precedes W x=1 in causality order (8.9.5: "X
    //   precedes Z in observation order, and Z precedes Y in ... base causality
    //   order"), and 8.10.1 puts W x=2 first in coherence order: x ends at 1, not 2.
    // - (0, 1), (0, 2), (2, 1): interleavings give them.
    let r = record_of(Shape::CoRW, Flavour::Relaxed, Scope::Gpu, Placement::OtherCtas);
    assert_eq!(r.threads[0].instructions, ["ld.relaxed.gpu.global.u32 %r0, [x];", "st.relaxed.gpu.global.u32 [x], 1;"]);
    let (allowed, forbidden) = by_x(&r, &["0:r0"]);
    assert_eq!(allowed, [(vec![0], 1, false), (vec![0], 2, false), (vec![2], 1, false)]);
    let s = vec![SCPL.to_owned()];
    assert_eq!(forbidden, [(vec![1], 1, s.clone()), (vec![1], 2, s.clone()), (vec![2], 2, vec![COHERENCE.to_owned()])]);
    // At .cta across CTAs W x=2 is morally strong with neither access of thread 0
    // (its scope does not include the other CTA), so neither observation order
    // nor coherence order relates it to them: (2, 2) is allowed, and weak. The
    // read of its own thread's later write stays forbidden.
    let c = record_of(Shape::CoRW, Flavour::Relaxed, Scope::Cta, Placement::OtherCtas);
    let (allowed, forbidden) = by_x(&c, &["0:r0"]);
    assert_eq!(allowed, [(vec![0], 1, false), (vec![0], 2, false), (vec![2], 1, false), (vec![2], 2, true)]);
    assert_eq!(forbidden, [(vec![1], 1, s.clone()), (vec![1], 2, s)]);
}

#[test]
fn atomicity_is_as_worked_by_hand() {
    use ptxvec_oracle::model::Scope;
    // Two `atom.acq_rel.gpu.add` of 1 across CTAs, each keeping the old value.
    // 8.10.3: "When an atomic operation A and a write W overlap and are morally
    // strong, then the following two communications cannot both exist in the same
    // execution ...: A reads any byte from a write W' that precedes W in coherence
    // order. A follows W in coherence order."
    // - (0, 0), x = 1: both read the initial value, which precedes the other add
    //   in coherence order, and one of them follows the other: 8.10.3.
    // - (0, 1) and (1, 0) with x = 1: the add that read 1 read the other's release
    //   with its acquire, so the two synchronize (8.9.4's release and acquire
    //   patterns) and the first precedes the second in causality order; x = 1 has
    //   the first last in coherence order, which 8.10.1, before 8.10.3 in the
    //   chapter's order, forbids.
    // - (0, 1) and (1, 0) with x = 2: the interleavings.
    let r = record_of(Shape::Atomicity, Flavour::RmwAcqRel, Scope::Gpu, Placement::OtherCtas);
    assert_eq!(r.threads[0].instructions, ["atom.acq_rel.gpu.global.add.u32 %r0, [x], 1;"]);
    let regs = ["0:r0", "1:r0"];
    let (allowed, forbidden) = by_x(&r, &regs);
    assert_eq!(allowed, [(vec![0, 1], 2, false), (vec![1, 0], 2, false)]);
    let (a, c) = (vec![ATOMICITY.to_owned()], vec![COHERENCE.to_owned()]);
    assert_eq!(forbidden, [(vec![0, 0], 1, a.clone()), (vec![0, 1], 1, c.clone()), (vec![1, 0], 1, c)]);
    // `red.release.gpu.add`: no register; x ends at 2, and 1 is 8.10.3's.
    let red = record_of(Shape::Atomicity, Flavour::RedReleaseAcquire, Scope::Gpu, Placement::OtherCtas);
    assert_eq!(red.threads[1].instructions, ["red.release.gpu.global.add.u32 [x], 1;"]);
    let (allowed, forbidden) = by_x(&red, &[]);
    assert_eq!(allowed, [(vec![], 2, false)]);
    assert_eq!(forbidden, [(vec![], 1, a.clone())]);
    // `atom.relaxed.cta` across CTAs: not morally strong, so 8.10.3 does not
    // apply and both adds may read 0 (weak: no interleaving does). In one warp the
    // threads share a CTA, which `.cta` holds whole: forbidden again.
    let apart = record_of(Shape::Atomicity, Flavour::Relaxed, Scope::Cta, Placement::OtherCtas);
    assert_eq!(apart.threads[0].instructions, ["atom.relaxed.cta.global.add.u32 %r0, [x], 1;"]);
    let (allowed, _) = by_x(&apart, &regs);
    assert!(allowed.contains(&(vec![0, 0], 1, true)), "{allowed:?}");
    let warp = record_of(Shape::Atomicity, Flavour::Relaxed, Scope::Cta, Placement::SameWarp);
    let (allowed, forbidden) = by_x(&warp, &regs);
    assert_eq!(allowed, [(vec![0, 1], 2, false), (vec![1, 0], 2, false)]);
    assert!(forbidden.contains(&(vec![0, 0], 1, a)), "{forbidden:?}");
}

#[test]
fn same_warp_tests_are_their_same_cta_tests_with_lanes() {
    // The model has no warp: a same_warp test is its same_cta test (threads, events,
    // spellings, requirement) with the record saying warp 0 and a lane each.
    let tests = generated();
    let by_id: std::collections::BTreeMap<&str, &Generated> = tests.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut warps = 0;
    for t in tests.iter().filter(|t| t.placement == Placement::SameWarp) {
        let cta = by_id[t.id.replace("/same_warp", "/same_cta").as_str()];
        assert_eq!((&t.litmus, &t.opcodes, t.requires), (&cta.litmus, &cta.opcodes, cta.requires), "{}", t.id);
        warps += 1;
    }
    assert_eq!(warps * 4, tests.len());
    let r = record_of(Shape::Mp, Flavour::Weak, ptxvec_oracle::model::Scope::Gpu, Placement::SameWarp);
    let places: Vec<(u8, u8, u8, Option<u8>)> = r.threads.iter().map(|t| (t.cluster, t.cta, t.warp, t.lane)).collect();
    assert_eq!(places, [(0, 0, 0, Some(0)), (0, 0, 0, Some(1))]);
    let line = serde_json::to_string(&r).unwrap();
    assert!(line.contains(r#""warp":0,"lane":1,"instructions""#), "{line}");
    // Elsewhere no lane is written: those records read as before the placement.
    let c = serde_json::to_string(&record_of(Shape::Mp, Flavour::Weak, ptxvec_oracle::model::Scope::Gpu, Placement::SameCta)).unwrap();
    assert!(!c.contains("lane") && c.contains(r#""warp":1,"instructions""#), "{c}");
}
