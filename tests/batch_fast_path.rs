//! The batch commands' fast path (chunks answered in parallel, the judge's chain
//! readings kept in an index, lines read into borrowed structs) against the
//! straightforward path that defines each line's answer (`answer_line`: one line,
//! parsed whole, judged from scratch): equal, byte for byte, on every syntax
//! vector and every semantic vector, and on lines that take the fast path's
//! fallbacks (escapes, ids that serde_json rewrites, errors).

use std::path::PathBuf;

use ptxvec_generator::io::batch::{rendered, Answers, InputLine};
use ptxvec_generator::cmd::check_syntax::{self, Args};
use ptxvec_generator::vectors::semantic::eval;
use ptxvec_generator::syntax::index::Index;
use ptxvec_generator::syntax::judge::Order;
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::spec_root;

fn vector_files(kind: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| ptxvec_generator::io::gz::is_jsonl(p))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

/// The fast path's answers (each answer line, and whether it is an error record),
/// a chunk of `chunk` lines at a time through one index, next to the definition's
/// as the batch writes them, line for line; every difference is listed.
fn differences(
    lines: &[Vec<u8>],
    chunk: usize,
    mut fast: impl FnMut(&[InputLine<'_>]) -> Vec<(String, bool)>,
    plain: impl Fn(&InputLine<'_>) -> Result<String, String>,
) -> Vec<String> {
    let inputs: Vec<InputLine<'_>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| InputLine { no: i + 1, bytes: l })
        .collect();
    let mut wrong = Vec::new();
    for part in inputs.chunks(chunk) {
        let got = fast(part);
        assert_eq!(got.len(), part.len());
        for (line, got) in part.iter().zip(got) {
            let want = rendered(&plain(line));
            if got != want {
                wrong.push(format!(
                    "line {}: {}\n  fast: {got:?}\n  plain: {want:?}",
                    line.no,
                    String::from_utf8_lossy(line.bytes)
                ));
            }
        }
    }
    wrong
}

fn report(what: &str, wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{what}: {} line(s) differ; first ones:\n{}",
        wrong.len(),
        wrong.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Lines that leave the fast path's happy road: each is answered by the
/// definition or by a fast step that must agree with it.
const ODD_CHECK_LINES: &[&str] = &[
    "",
    "   ",
    "x",
    "{}",
    r#"{"text": 5}"#,
    r#"{"text": "activemask.b32 %r1;", "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90", "extra": 1}"#,
    r#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_999"}"#,
    r#"{"text": "activemask.b32 %r1;", "ptx": "99.9", "target": "sm_90"}"#,
    r#"{"text": "activemask.b32 %r1;", "ptx": "5.0", "target": "sm_90"}"#,
    r#"{"text": "activemask.b32 %r1;"}"#,
    r#"{"text": "activemask\u002eb32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "activemask.b32 %r1;", "ptx": "8\u002e6", "target": "sm_90"}"#,
    r#"{"id": 1.5, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": 1e3, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": -0, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": 007, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": 12345678901234567890, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": -123456789012345678, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": {"b": 1, "a": [2, 3]}, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": "a\u0041\/", "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": "plain é", "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": null, "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": true, "text": "activemask.b32 %r1", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": [1,], "text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "@%r1 activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "activemask.b32.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "red.add.u32 [%rd1], %r1; ret;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "red.global.sys.add.u32 [a], 1;", "ptx": "8.6", "target": "sm_90"}"#,
    // Not covered: statements of other instructions, with and without an id, in a
    // module the target model refuses, with a comment and with an escape.
    r#"{"id": 7, "text": "add.s32 %r1, %r2, %r3;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"id": "a\u0041", "text": "mov.u32 %r1, %tid.x;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "@%p1 bra $L1; // back", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "ld.global.u32 %r1, [%rd1];", "ptx": "5.0", "target": "sm_90"}"#,
    r#"{"text": "bar\u002esync 0;", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r2], %r3, [%r1];", "ptx": "8.6", "target": "sm_90"}"#,
    r#"{"text": "add.s32 %r1 %r2;", "ptx": "8.6", "target": "sm_90"}"#,
];

#[test]
fn check_syntax_fast_path_answers_as_the_judge() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for file in vector_files("syntax") {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = case["text"].as_str().unwrap();
            // Its own module, a recent one and an old one: legal and illegal verdicts
            // of every rule, module defects included.
            for (ptx, target) in [
                (case["ptx"].as_str().unwrap(), case["target"].as_str().unwrap()),
                ("8.8", "sm_100f"),
                ("6.0", "sm_30"),
            ] {
                let req = serde_json::json!({"id": case["id"], "text": text, "ptx": ptx, "target": target});
                lines.push(serde_json::to_vec(&req).unwrap());
            }
        }
    }
    // The explorer's texts: noncanonical orders, moved `.sync`, repeats, comments,
    // near misses of every operand, at their modules.
    let tools = ptxvec_generator::ptxas::offline_tools(&spec).unwrap();
    for (w, _, m) in ptxvec_generator::ptxas::explore::texts(&spec, &tools, (20_000, 5, None)) {
        let req = serde_json::json!({"text": w.text, "ptx": m.ptx.to_string(), "target": m.target.to_string()});
        lines.push(serde_json::to_vec(&req).unwrap());
    }
    lines.extend(ODD_CHECK_LINES.iter().map(|l| l.as_bytes().to_vec()));
    lines.push(b"{\"text\": \"a\xffb\"}".to_vec());
    for strict in [false, true] {
        let args = Args {
            text: "-".to_owned(),
            ptx: Some("7.8".to_owned()),
            target: Some("sm_90".to_owned()),
            strict,
        };
        let order = if strict { Order::Strict } else { Order::Lenient };
        let mut index = Index::new(&spec);
        let wrong = differences(
            &lines,
            4096,
            |part| {
                let mut answers = Answers::default();
                check_syntax::answer_lines(&mut index, &args, order, part, &mut answers);
                answers.lines()
            },
            |l| check_syntax::answer_line(&spec, &args, order, l.no, l.bytes),
        );
        report(&format!("check-syntax (strict: {strict})"), &wrong);
    }
}

#[test]
fn eval_fast_path_answers_as_eval_record() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for file in vector_files("semantic") {
        for line in crate::support::vector_text(&file).lines() {
            // As committed (its `expect` replaced by eval's), without `expect`, and
            // without `requires` (then judged in the lowest modules its spelling needs).
            lines.push(line.as_bytes().to_vec());
            let mut rec: serde_json::Value = serde_json::from_str(line).unwrap();
            let map = rec.as_object_mut().unwrap();
            map.remove("expect");
            lines.push(serde_json::to_vec(&rec).unwrap());
            rec.as_object_mut().unwrap().remove("requires");
            lines.push(serde_json::to_vec(&rec).unwrap());
        }
    }
    for odd in [
        "",
        "x",
        r#"{"x":1}"#,
        r#"{"text": "red.add.u32", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}}"#,
        r#"{"text": "red.add.u32 %r1, %r1;", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}}"#,
        r#"{"text": "red.add.u32 [%rd1], %r1;", "inputs": {"mem": ["0x1ffffffff"], "operand": ["0x2"]}}"#,
        r#"{"text": "red.add.u32 [%rd1], %r1;", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}, "requires": [{"ptx": "99.0"}]}"#,
        r#"{"text": "red.add.u32 [%rd1], %r1;", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}, "requires": [{"ptx": "2.0", "target": "sm_20"}, {"ptx": "2.0", "target": "sm_20"}]}"#,
        r#"{"text": "red.add.u32.u32 [%rd1], %r1;", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}}"#,
        r#"{"text": "red.add.noftz.f16 [%rd1], %h1;", "inputs": {"mem": ["0x1"], "operand": ["0x2"]}}"#,
        r#"{"text": "vote.sync.all.pred %p1, !%p2, 0xffffffff;", "inputs": {"executing": "0xffffffff", "membermask": "0xffffffff", "a": ["0x1"]}}"#,
        r#"{"text": "activemask.b32 %r1;", "inputs": {"executing": "0x1"}, "id": "x\u0041"}"#,
    ] {
        lines.push(odd.as_bytes().to_vec());
    }
    lines.push(b"\xff\xfe".to_vec());
    // A text past the bound of the kept readings (`eval::MAX_KEY_BYTES`), read for
    // each record.
    let long = format!(
        r#"{{"text": "red.add.u32 [%rd1],{}%r1;", "inputs": {{"mem": ["0x1"], "operand": ["0x2"]}}}}"#,
        " ".repeat(eval::MAX_KEY_BYTES)
    );
    lines.push(long.clone().into_bytes());
    lines.push(long.into_bytes());
    for (profiles, force) in [(Profile::ALL, false), (&[Profile::Sm90][..], true)] {
        let mut texts = eval::Texts::new(&spec);
        let wrong = differences(
            &lines,
            1000,
            |part| {
                let mut answers = Answers::default();
                eval::answer_lines(&mut texts, "<in>", part, profiles, force, &mut answers);
                answers.lines()
            },
            |l| eval::answer_line(&spec, "<in>", l.no, l.bytes, profiles, force),
        );
        report(&format!("eval (profiles {profiles:?}, force: {force})"), &wrong);
    }
}
