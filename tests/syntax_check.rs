//! check-syntax on hand-written cases from each seed, the doc's wrong examples
//! included. Expected verdicts come from the seeds' words (and, for the wrong
//! examples, the ledger entry that cites ptxas), never from our own output.


use ptxvec_generator::syntax::judge::Order;
use ptxvec_generator::syntax::definition::judge;
use ptxvec_spec::Spec;

use crate::spec_root;

/// (text, ptx, target, expected rule or None for legal, why)
const CASES: &[(&str, &str, &str, Option<&str>, &str)] = &[
    // seed 000, redux.sync: 7.0 and sm_80; .f32 needs 8.6 with sm_100a or 8.8 with sm_100f.
    ("redux.sync.add.s32 dst, src, 0xff;", "7.0", "sm_80", None, "000 example"),
    ("redux.sync.add.s32 %r1, %r2, 0xff;", "6.5", "sm_75", Some("base"), "Introduced in PTX ISA version 7.0"),
    ("redux.sync.add.s32 %r1, %r2, 0xff;", "6.5", "sm_80", Some("module.target"), "sm_80 cannot be named before 7.0"),
    ("redux.sync.add.s32 %r1, %r2, 0xff;", "7.0", "sm_75", Some("base"), "Requires sm_80 or higher"),
    ("redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;", "8.6", "sm_100a", None, "000 example, sm_100a"),
    ("redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;", "8.7", "sm_100f", Some("module.target"), "sm_100f only from 8.8"),
    ("redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;", "9.0", "sm_110f", Some("abs_nan"), "outside the sm_10x family; the `.abs`/`.NaN` sentence is the narrower of the two that fail"),
    ("redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;", "8.8", "sm_103f", None, "family member, 8.8"),
    ("redux.sync.min.f32 %f1, %f2, 0xffffffff;", "9.0", "sm_100", Some("f32"), "plain sm_100 is outside"),
    ("redux.sync.add.abs.u32 %r1, %r2, 0xffffffff;", "8.6", "sm_100a", Some("qualifier.extra"), ".abs only on the .f32 line"),
    // seed 003, cp.reduce.async.bulk: `.dst.src` tell the spaces apart by order; ptxas
    // 13.5 refuses them swapped ("State space incorrect for instruction
    // 'cp.reduce.async.bulk'"), while other qualifiers may move (E004).
    ("cp.reduce.async.bulk.shared::cta.shared::cluster.mbarrier::complete_tx::bytes.and.b32 [%rd1], [%rd2], %r1, [%rd3];", "8.0", "sm_90", Some("set.dst"), "spaces swapped"),
    ("cp.reduce.async.bulk.shared::cluster.shared::cta.and.mbarrier::complete_tx::bytes.b32 [%rd1], [%rd2], %r1, [%rd3];", "8.0", "sm_90", None, "op before completion: any order"),
    // seed 001, red.
    ("red.global.add.s32  [a],1;", "6.3", "sm_75", None, "001 example"),
    ("L1: @%p1 red.global.add.s32 [%rd1], 1;", "6.3", "sm_75", None, "PTX ISA 4.3: a statement may begin with a label"),
    ("red.global.add.u32 [_], %r1;", "6.3", "sm_75", Some("syntax.parse"), "an address is a name or a literal; ptxas 13.5: Parsing error near '_'"),
    ("red.global.sys.add.u32 [a], 1;", "6.3", "sm_75", None, "E004: any order, warned"),
    ("red.global.acquire.sys.add.u32 [gbl], 1;", "6.3", "sm_75", Some("qualifier.not_allowed"), "E005: .acquire is not a .sem of red"),
    ("red.global.v2.f32.add  {%f0, %f1}, [g], {%f0, %f1};", "8.1", "sm_90", Some("operand.shape"), "E006: no destination"),
    ("red.global.v4.f16x2.max.noftz [gbl], {%h0, %h1, %h2, %h3};", "8.1", "sm_90", Some("operand.class"), "E013: f16x2 needs 32-bit registers"),
    ("red.global.v8.f32.add [gbl], {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};", "8.1", "sm_90", Some("table.vector_op_type"), "001 vector table: `.v8` row, `.f32` column reads Not Supported"),
    ("red.global.v2.f32.min [%rd1], {%f1, %f2};", "8.1", "sm_90", Some("table.vector_op_type"), "001 vector table: `.f32` takes `.add` only"),
    ("red.shared.add.L2::cache_hint.u32 [%rd1], %r1, %rd2;", "7.4", "sm_80", Some("cache_hint_not_shared"), "hint only for .global"),
    ("red.global.add.L2::cache_hint.u32 [%rd1], %r1, %rd2;", "7.3", "sm_80", Some("cache_hint"), "hint from 7.4"),
    ("red.global.add.L2::cache_hint.u32 [%rd1], %r1;", "7.4", "sm_80", Some("operand.required_by"), "E011"),
    ("red.global.add.u32 [%rd1], %r1, %rd2;", "7.4", "sm_80", Some("operand.requires"), "policy needs the hint"),
    ("red.global.add.ftz.f32 [%rd1], %f1;", "7.4", "sm_80", Some("qualifier.not_allowed"), "no .ftz"),
    ("red.global.add.rn.f32 [%rd1], %f1;", "7.4", "sm_80", Some("qualifier.not_allowed"), "no .rn"),
    ("red.global.add.f16 [%rd1], %h1;", "7.4", "sm_80", Some("qualifier.required"), ".noftz required"),
    ("red.shared.v2.f32.add [%rd1], {%f1, %f2};", "8.1", "sm_90", Some("vector_global_only"), "001: red with vector type may be used only with .global"),
    ("red.global.add.b32 [%rd1], %r1;", "7.4", "sm_80", Some("table.scalar_op_type"), "E010"),
    ("red.global.add.u32 [%rd1], %rd2;", "7.4", "sm_80", Some("operand.class"), "64-bit register for .u32"),
    // seed 002, vote.sync.
    ("vote.sync.all.pred    p,q,0xffffffff;", "6.0", "sm_70", None, "002 example"),
    ("vote.sync.ballot.b32  r1,p,0xffffffff;", "6.0", "sm_70", None, "002 example"),
    ("vote.sync.any.pred %p1, !%p2, 0xffffffff;", "6.0", "sm_70", None, "{!}a"),
    ("vote.sync.any.pred !%p1, %p2, 0xffffffff;", "6.0", "sm_70", Some("operand.shape"), "d is not negatable"),
    ("vote.sync.ballot.pred %p1, %p2, 0xffffffff;", "6.0", "sm_70", Some("set.mode"), "ballot is its own line, with .b32"),
    ("vote.sync.all.pred %p1, %p2, 0xffffffff;", "5.0", "sm_60", Some("base"), "Introduced in PTX ISA version 6.0"),
    // seed 003, cp.reduce.async.bulk.
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16 [dstMem], [srcMem], size;", "8.0", "sm_90", None, "003 example"),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.xor.s32 [dstMem], [srcMem], size, policy;", "8.0", "sm_90", Some("table.op_type"), "E009"),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f16 [%rd1], [%rd2], 32;", "8.0", "sm_90", Some("half_add_needs_noftz"), "needs .noftz"),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 24;", "8.0", "sm_90", Some("operand.multiple_of"), "size multiple of 16"),
    ("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b64 [%rd1], [%rd2], %r1, [%rd3];", "8.0", "sm_90", Some("table.op_type"), "E012"),
    // atom (PTX ISA 9.1, 9.7.13.5; ptxas 13.5 where the document is silent).
    ("atom.global.add.u32 %r1, [%rd1], %r2;", "6.3", "sm_75", None, "scalar line"),
    ("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;", "6.3", "sm_75", None, "`.op.type d, [a], b, c`"),
    ("atom.global.cas.b32 %r1, [%rd1], %r2;", "6.3", "sm_75", Some("operand.count"), "cas without its c: the line that takes .cas, not the line whose table refuses it"),
    ("atom.global.cas.b32 %r1, [%rd1], %r2, %rd3;", "6.3", "sm_75", Some("operand.class"), "c of .b32 in a 64-bit register"),
    ("atom.global.and.b32 %r1, [%rd1], %r2, %r3;", "6.3", "sm_75", Some("operand.class"), "a fourth operand of .and is the cache-policy, .b64 (E042: ptxas takes a .b32 there)"),
    ("atom.cas.b16 %h1, [%rd1], %h2, %h3;", "6.3", "sm_70", None, "cas.b16 from 6.3 with sm_70"),
    ("atom.cas.b16 %h1, [%rd1], %h2, %h3;", "6.3", "sm_62", Some("cas_b16"), "cas.b16 needs sm_70"),
    ("atom.global.cas.b128 %q1, [%rd1], %q2, %q3;", "8.3", "sm_90", None, ".b128 from 8.3 with sm_90"),
    ("atom.global.cas.b128 %q1, [%rd1], %q2, %q3;", "8.2", "sm_90", Some("b128"), ".b128 from 8.3"),
    ("atom.global.cas.b128 %q1, [%rd1], %q2, %rd3;", "8.3", "sm_90", Some("operand.class"), "c of .b128 in a 64-bit register"),
    ("atom.global.add.u32 _, [%rd1], %r2;", "6.3", "sm_75", None, "9.7.13.5 Notes: the bit bucket `_` as d"),
    ("atom.global.add.v2.f32 _, [%rd1], {%f3, %f4};", "8.1", "sm_90", None, "ptxas 13.5 takes `_` for the whole vector d"),
    ("atom.global.add.v2.f32 {_, %f2}, [%rd1], {%f3, %f4};", "8.1", "sm_90", None, "and for one element"),
    ("atom.global.add.v2.f32 {_, _}, [%rd1], {%f3, %f4};", "8.1", "sm_90", Some("operand.shape"), "ptxas 13.5: Unable to infer type of vector elements (assuming .b8)"),
    ("atom.global.add.u32 %r1|_, [%rd1], %r2;", "6.3", "sm_75", Some("operand.shape"), "no |p (E050: ptxas reads it as d)"),
    ("atom.shared.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd3;", "7.4", "sm_80", Some("cache_hint_not_shared"), "hint only for .global and generic"),
    ("atom.shared.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", "8.1", "sm_90", Some("vector_global_only"), "vectors .global or generic only"),
    ("atom.global.add.u32 %r1, [%r2], %r3;", "7.8", "sm_90", Some("operand.address_size"), "ptxas 13.5: 32-Bit ABI is not supported on sm_90"),
    ("atom.acquire.gpu.global.add.u32 %r1, [%rd1], %r2;", "6.0", "sm_70", None, ".acquire is a .sem of atom (not of red)"),
    // seed 004, shfl, match, activemask.
    ("shfl.sync.up.b32  Ry|p, Rx, 0x1, 0x0, 0xffffffff;", "6.0", "sm_70", None, "004 example"),
    ("shfl.sync.idx.b32 %r1, %r2, %r3, %r4;", "6.0", "sm_70", Some("operand.count"), "five operands"),
    ("match.all.sync.b64  d|p, a, mask;", "6.0", "sm_70", None, "004 example"),
    ("match.all.sync.b32 _|_, %r1, 0xffffffff;", "6.0", "sm_70", Some("operand.shape"), "E015"),
    ("match.any.sync.b32 %r1|%p1, %r2, 0xffffffff;", "6.0", "sm_70", Some("operand.shape"), "no p for .any"),
    ("match.any.sync.b32 %r1, %r2, 0xffffffff;", "6.0", "sm_62", Some("base"), "sm_70+"),
    ("activemask.b32  %r1;", "6.2", "sm_30", None, "004 example"),
    ("activemask.b32  %r1;", "6.1", "sm_30", Some("base"), "6.2+"),
    ("activemask.b32 5;", "6.2", "sm_30", Some("operand.register_required"), "d is a register"),
    // bar.red and barrier.red (PTX ISA 9.1, 9.7.13.1; ptxas 13.5 and 12.9 probes of
    // 2026-11-28 where the document is silent).
    ("bar.cta.red.popc.u32 r3,1,p;", "7.8", "sm_90", None, "9.7.13.1 example"),
    ("bar.red.popc.u32 %r1, 0, 64, !%p1;", "8.0", "sm_90", None, "`a{, b}, {!}c`: b written, c negated"),
    ("bar.red.or.pred %p2, %r3, %r6, !%p1;", "8.0", "sm_90", None, "a and b in registers"),
    ("bar.red.popc.u32 %r1, 0, 48, %p1;", "8.0", "sm_90", Some("operand.multiple_of"), "ptxas: Number of threads participating in barrier must be in multiple of warp size"),
    ("bar.red.popc.u32 %r1, 0, -32, %p1;", "8.0", "sm_90", None, "ptxas takes -32: a multiple of 32"),
    ("bar.red.popc.u32 %r1, 16, %p1;", "8.0", "sm_90", Some("operand.range"), "ptxas: Barrier number '16' out of range, expected to be in range [0..15]"),
    ("bar.red.popc.u32 %r1, 4294967311, %p1;", "8.0", "sm_90", None, "ptxas checks the low 32 bits: barrier 15"),
    ("bar.red.popc.u32 %r1, 4294967312, %p1;", "8.0", "sm_90", Some("operand.range"), "ptxas: Barrier number '4294967312' out of range"),
    ("bar.red.popc.u32 %r1, -1, %p1;", "8.0", "sm_90", Some("operand.range"), "ptxas: Barrier number '18446744073709551615' out of range"),
    ("bar.red.popc.u32 _, 0, %p1;", "8.0", "sm_90", Some("operand.sink"), "ptxas: Result discard mode is not allowed for instruction 'bar.red'"),
    ("bar.red.and.pred %r1, 0, %p1;", "8.0", "sm_90", Some("operand.class"), "`.and.pred` writes a predicate p; ptxas: Arguments mismatch"),
    ("bar.red.popc.s32 %r1, 0, %p1;", "8.0", "sm_90", Some("*"), "ptxas: Operation requires .u32 type"),
    ("bar.red.xor.pred %p2, 0, %p1;", "8.0", "sm_90", Some("*"), "ptxas: Illegal reduction operation for instruction 'bar.red.pred'"),
    ("bar.red.popc.aligned.u32 %r1, 0, %p1;", "8.0", "sm_90", Some("qualifier.not_allowed"), "`bar` takes no .aligned; ptxas: Illegal modifier '.aligned' for instruction 'bar.red'"),
    ("barrier.red.aligned.popc.u32 %r1, 0, %p1;", "8.0", "sm_90", None, "ptxas takes .aligned before the op (warned: not the document's order)"),
    ("bar.red.cta.popc.u32 %r1, 0, %p1;", "8.0", "sm_90", Some("qualifier.not_allowed"), "ptxas: Illegal modifier '.cta' for instruction 'bar.red'"),
    ("bar.cta.red.popc.u32 %r1, 0, %p1;", "7.7", "sm_80", Some("cta"), "`.cta` from 7.8; ptxas: Feature 'bar.cta.red' requires PTX ISA .version 7.8 or later"),
    ("barrier.red.popc.u32 %r1, 0, %p1;", "5.0", "sm_50", Some("base"), "`barrier` from 6.0; ptxas 12.9: Feature 'barrier.red' requires PTX ISA .version 6.0 or later"),
    ("bar.red.popc.u32 %r1, 0, %p1;", "2.0", "sm_20", None, "`bar.red` from 2.0 and sm_20"),
    ("bar.red.popc.u32 %r1, 0, %p1;", "2.0", "sm_13", Some("base"), "`bar{.cta}.red` requires sm_20"),
];

#[test]
fn hand_written_cases_from_each_seed() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut wrong = Vec::new();
    for (text, ptx, target, want, why) in CASES {
        let j = judge(&spec, text, ptx.parse().unwrap(), target.parse().unwrap(), Order::Lenient);
        let got = j.defect.as_ref().map(|d| d.rule.to_string());
        let ok = match want {
            Some("*") => got.is_some(),
            w => got.as_deref() == *w,
        };
        if !ok {
            wrong.push(format!("`{text}` at {ptx} {target} ({why}): want {want:?}, got {got:?} {:?}", j.defect));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn strict_mode_holds_the_document_order() {
    let spec = Spec::load(&spec_root()).unwrap();
    let text = "red.global.sys.add.u32 [a], 1;";
    let v = "6.3".parse().unwrap();
    let t = "sm_75".parse().unwrap();
    let lenient = judge(&spec, text, v, t, Order::Lenient);
    assert!(lenient.legal() && lenient.warnings.len() == 1, "{lenient:?}");
    let strict = judge(&spec, text, v, t, Order::Strict);
    assert_eq!(strict.defect.map(|d| d.rule), ptxvec_generator::syntax::rule_id::RuleId::parse("qualifier.order"));
    assert!(judge(&spec, "red.sys.global.add.u32 [a], 1;", v, t, Order::Strict).legal());
}

fn ptxvec(args: &[&str], stdin: &str) -> (i32, String, String) {
    let spec = spec_root().display().to_string();
    let all: Vec<&str> = ["--spec", spec.as_str()].into_iter().chain(args.iter().copied()).collect();
    let out = crate::support::run_with_stdin(&all, stdin.as_bytes());
    (out.status.code().unwrap_or(-1), crate::support::stdout(&out), crate::support::stderr(&out))
}

#[test]
fn exit_codes_are_0_legal_1_illegal_2_usage() {
    let legal = ptxvec(&["check-syntax", "activemask.b32 %r1;", "--ptx", "6.2", "--target", "sm_30"], "");
    assert_eq!(legal.0, 0, "{legal:?}");
    let illegal = ptxvec(&["check-syntax", "activemask.b32 %r1;", "--ptx", "6.1", "--target", "sm_30"], "");
    assert_eq!(illegal.0, 1, "{illegal:?}");
    assert!(illegal.1.contains("base"), "{illegal:?}");
    for bad in [
        vec!["check-syntax", "activemask.b32 %r1;", "--ptx", "six", "--target", "sm_30"],
        vec!["check-syntax", "activemask.b32 %r1;", "--ptx", "6.2", "--target", "sm_9x"],
        vec!["check-syntax", "activemask.b32 %r1;"],
        vec!["check-syntax", "--bogus"],
    ] {
        let r = ptxvec(&bad, "");
        assert_eq!(r.0, 2, "{bad:?}: {r:?}");
        assert!(!r.2.is_empty(), "{bad:?}: no message");
    }
}

#[test]
fn batch_mode_answers_one_line_per_input_in_order() {
    let input = concat!(
        r#"{"text": "redux.sync.min.f32 %f1, %f2, 0xffffffff;", "ptx": "8.6", "target": "sm_100a"}"#, "\n",
        r#"{"text": "redux.sync.min.f32 %f1, %f2, 0xffffffff;", "ptx": "8.6", "target": "sm_90"}"#, "\n",
        r#"{"text": "red.global.add.u32 [%rd1];", "ptx": "7.0", "target": "sm_80"}"#, "\n",
    );
    let (code, out, _) = ptxvec(&["check-syntax", "-"], input);
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["legal"], true);
    assert_eq!(lines[1]["legal"], false);
    assert_eq!(lines[1]["kind"], "invalid");
    assert_eq!(lines[1]["rule"], "f32");
    assert_eq!(lines[2]["kind"], "invalid");
    assert_eq!(lines[2]["rule"], "operand.count");
    // A corrupt line gets an error naming it, and the run exits 2.
    let (code, out, err) = ptxvec(&["check-syntax", "-"], "{\"text\": 5}\n");
    assert_eq!(code, 2);
    assert!(out.contains("<stdin>:1"), "{out}");
    assert!(!err.is_empty());
}

/// What a reader says of one text: a verdict on a covered instruction (legal, or
/// the kind and rule of its defect), "not covered" with the key lint counts it
/// under, or "no statement" (malformed, whatever its opcode).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Said {
    Legal,
    Illegal(&'static str, &'static str),
    NotCovered(&'static str),
    NoStatement,
}

/// Texts whose reading is a fact of the PTX ISA: statements of covered
/// instructions, legal and not (seed 001, red: `red{...}.op.type [a], b{,
/// cache-policy};`), statements of instructions ptxvec does not cover (PTX ISA
/// 9.7: add, mov with a special register, ld, bar; `st.async` is a store, not
/// `red.async`), and texts that are no statement (PTX ISA 4.3: operands separated
/// by commas, a statement ends with `;`).
const READINGS: &[(&str, Said)] = &[
    ("red.global.add.u32 [%rd1], %r1;", Said::Legal),
    ("red.global.add.u32 [%rd1];", Said::Illegal("invalid", "operand.count")),
    ("red.global.foo.u32 [%rd1], %r1;", Said::Illegal("malformed", "syntax.unknown_qualifier")),
    ("red.global.add.u32 [%rd1] %r1;", Said::Illegal("malformed", "syntax.parse")),
    ("add.s32 %r1, %r2, %r3;", Said::NotCovered("add")),
    ("mov.u32 %r1, %tid.x;", Said::NotCovered("mov")),
    ("ld.global.u32 %r1, [%rd1];", Said::NotCovered("ld")),
    ("bar.sync 0;", Said::NotCovered("bar")),
    ("@%p1 bra $L__BB0_2; // a comment", Said::NotCovered("bra")),
    ("st.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], %r3, [%r1];", Said::NotCovered("st")),
    ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r2], %r3, [%r1];", Said::Legal),
    ("add.s32 %r1 %r2;", Said::NoStatement),
    ("foo bar baz;", Said::NoStatement),
    ("%%% garbage;", Said::NoStatement),
];

/// check-syntax (one text, and batch) and lint read the same texts alike: lint
/// judges exactly the texts check-syntax gives a verdict on, with the same
/// verdict; it counts as not covered, under the same key, the texts check-syntax
/// answers "not covered" (exit 3, `"kind": "not_covered"`, `"legal": null`); and
/// a text that is no statement is malformed to check-syntax, and never judged by
/// lint, which judges covered instructions only.
#[test]
fn check_syntax_and_lint_agree_on_what_they_cover() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut batch = String::new();
    for (n, (text, _)) in READINGS.iter().enumerate() {
        let module = format!(
            ".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry f()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n$L__BB0_2:\n{text}\n}}\n"
        );
        let file = dir.path().join(format!("{n}.ptx"));
        std::fs::write(&file, module).unwrap();
        files.push(file.display().to_string());
        batch.push_str(&serde_json::json!({"text": text, "ptx": "8.6", "target": "sm_90"}).to_string());
        batch.push('\n');
    }
    let args: Vec<&str> = ["lint", "--json"].into_iter().chain(files.iter().map(String::as_str)).collect();
    let (_, lint, err) = ptxvec(&args, "");
    let lint: serde_json::Value = serde_json::from_str(&lint).unwrap_or_else(|e| panic!("{e}: {err}"));
    let (code, answers, err) = ptxvec(&["check-syntax", "-"], &batch);
    assert_eq!(code, 0, "{err}");
    let answers: Vec<serde_json::Value> = answers.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), READINGS.len());
    let mut wrong = Vec::new();
    for (n, (text, want)) in READINGS.iter().enumerate() {
        // check-syntax on the text alone: its exit status and line.
        let (code, line, _) = ptxvec(&["check-syntax", "--ptx", "8.6", "--target", "sm_90", text], "");
        let single = match (code, want) {
            (0, _) => Said::Legal,
            (3, Said::NotCovered(key)) if line.starts_with(&format!("not covered: `{key}` is not one of")) => want.clone(),
            (1, Said::Illegal(kind, rule)) if line.starts_with(&format!("illegal ({kind}): {rule}:")) => want.clone(),
            (1, Said::NoStatement) if line.starts_with("illegal (malformed): ") => Said::NoStatement,
            _ => Said::Illegal("?", "?"),
        };
        // check-syntax in batch.
        let a = &answers[n];
        let batch = match (a["legal"].as_bool(), a["kind"].as_str(), a["rule"].as_str(), want) {
            (Some(true), None, None, _) => Said::Legal,
            (None, Some("not_covered"), None, Said::NotCovered(key)) if a["message"].as_str().is_some_and(|m| m.starts_with(&format!("`{key}` "))) => want.clone(),
            (Some(false), Some(kind), Some(rule), Said::Illegal(k, r)) if kind == *k && rule == *r => want.clone(),
            (Some(false), Some("malformed"), Some(_), Said::NoStatement) => Said::NoStatement,
            _ => Said::Illegal("?", "?"),
        };
        // lint on a module holding the text.
        let f = &lint["files"][n];
        let diagnostics = f["diagnostics"].as_array().unwrap();
        let not_covered = f["not_covered"].as_object().unwrap();
        let covered = f["counts"]["covered"].as_u64();
        let linted = match (&diagnostics[..], want) {
            // lint lists the illegal ones.
            ([], _) if covered == Some(1) && f["counts"]["illegal"] == 0 => Said::Legal,
            ([d], Said::Illegal(k, r)) if d["kind"] == *k && d["rule"] == *r => want.clone(),
            ([], Said::NotCovered(key)) if covered == Some(0) && not_covered.len() == 1 && not_covered[*key] == 1 => want.clone(),
            // What lint does not cover it counts, and judges no further.
            ([], Said::NoStatement) if covered == Some(0) => Said::NoStatement,
            _ => Said::Illegal("?", "?"),
        };
        if [&single, &batch, &linted] != [want; 3] {
            wrong.push(format!("`{text}`: want {want:?}; check-syntax {single:?} ({line:?}), batch {batch:?} ({a}), lint {linted:?} ({f})"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The messages that list the covered instructions list every instruction of the
/// spec, each once (they are made from it): check-syntax's "not covered", and the
/// judge's `syntax.mnemonic` for a text that is no statement.
#[test]
fn messages_list_every_covered_instruction() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut want: Vec<&str> = spec.instructions.iter().map(|f| f.instruction.instruction.as_str()).collect();
    want.sort_unstable();
    assert!(want.contains(&"atom"));
    let listed = |message: &str| {
        let inner = message.split_once("covers (").and_then(|(_, r)| r.split_once(')')).map(|(l, _)| l);
        let mut names: Vec<String> = inner.unwrap_or_else(|| panic!("no list: {message}")).split(", ").map(str::to_owned).collect();
        names.sort_unstable();
        names
    };
    let (code, out, _) = ptxvec(&["check-syntax", "--ptx", "8.6", "--target", "sm_90", "add.s32 %r1, %r2, %r3;"], "");
    assert_eq!(code, 3, "{out}");
    assert_eq!(listed(&out), want);
    // `_x` is an identifier but no opcode (PTX ISA 4.4): no statement.
    let j = judge(&spec, "_x %r1;", "8.6".parse().unwrap(), "sm_90".parse().unwrap(), Order::Lenient);
    let d = j.defect.unwrap();
    assert_eq!(d.rule.to_string(), "syntax.mnemonic");
    assert_eq!(listed(&d.message), want);
}
