//! Hostile input (issue 15): no panic, no hang, no lost or foreign file. Each case
//! states its input, the exit code and the message; the messages are insta
//! snapshots named after the case, with temporary paths shown as `<tmp>`.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::spec_root;
use crate::support::{assert_exit, ptxvec, repo_root, stderr, stdout};

/// Runs ptxvec with `args`, stdin from `input`, stdout and stderr captured.
fn run(args: &[&str], input: &[u8]) -> Output {
    crate::support::run_with_stdin(args, input)
}

/// Runs ptxvec with stdout on /dev/full: every write fails with ENOSPC.
fn to_dev_full(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    ptxvec()
        .args(args)
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

// ---- Output rule: a write error is exit 2 with a message, never a panic (101).

const DEV_FULL: &str = "error: stdout: No space left on device (os error 28)\n";

#[test]
fn stdout_full_spec() {
    // `ptxvec spec >/dev/full` → 2, "error: stdout: No space left on device".
    let o = to_dev_full(&["spec"]);
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), DEV_FULL);
    insta::assert_snapshot!("stdout_full_spec", stderr(&o));
}

#[test]
fn stdout_full_check_syntax() {
    // `check-syntax 'activemask.b32 %r1;' --ptx 8.6 --target sm_90 >/dev/full` → 2.
    let o = to_dev_full(&[
        "check-syntax",
        "activemask.b32 %r1;",
        "--ptx",
        "8.6",
        "--target",
        "sm_90",
    ]);
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), DEV_FULL);
    insta::assert_snapshot!("stdout_full_check_syntax", stderr(&o));
}

#[test]
fn stdout_full_emit_ptx() {
    // `emit-ptx 'activemask.b32 %r1;' --ptx 8.6 --target sm_90 >/dev/full` → 2.
    let o = to_dev_full(&[
        "emit-ptx",
        "activemask.b32 %r1;",
        "--ptx",
        "8.6",
        "--target",
        "sm_90",
    ]);
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), DEV_FULL);
    insta::assert_snapshot!("stdout_full_emit_ptx", stderr(&o));
}

#[test]
fn stdout_full_generate() {
    // `generate --out <tmp> >/dev/full` → 2: its summary cannot be printed.
    let dir = tempfile::tempdir().unwrap();
    let o = to_dev_full(&[
        "generate",
        "--instruction",
        "activemask",
        "--variant",
        "activemask",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), DEV_FULL);
    insta::assert_snapshot!("stdout_full_generate", stderr(&o));
}

#[test]
fn stdout_closed_batch() {
    // `check-syntax - <in >&-` → 2 and a message on stderr: the answers would be lost.
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" check-syntax - >&-")
        .arg(env!("CARGO_BIN_EXE_ptxvec"))
        .current_dir(repo_root())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_exit(&o, 2);
    insta::assert_snapshot!("stdout_closed_batch", stderr(&o));
    // The same with stdout on /dev/null is fine: there the loss is asked for.
    let o = ptxvec()
        .args([
            "check-syntax",
            "activemask.b32 %r1;",
            "--ptx",
            "8.6",
            "--target",
            "sm_90",
        ])
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    // And with /dev/null opened read-write, as Python's `subprocess.DEVNULL` opens
    // it (which is also how Rust's runtime fills a closed fd 1): a harness that
    // discards the output must work, `spec` and the batch alike.
    for args in [&["spec"][..], &["check-syntax", "-", "--ptx", "8.6", "--target", "sm_90"][..]] {
        let devnull = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .unwrap();
        let o = ptxvec()
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(devnull))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
}

// A reader that closes the pipe early: tests/cli.rs, a_closed_stdout_ends_quietly
// (a pipe closed before the child starts, so that no write can beat it).

// ---- Judging rule: a version or target the model does not know is a usage error.

fn check(text: &str, ptx: &str, target: &str) -> Output {
    run(
        &["check-syntax", text, "--ptx", ptx, "--target", target],
        b"",
    )
}

#[test]
fn judge_unknown_version() {
    // --ptx 99.9 → 2, "unknown PTX ISA version 99.9".
    let o = check("activemask.b32 %r1;", "99.9", "sm_90");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("unknown PTX ISA version 99.9"));
    insta::assert_snapshot!("judge_unknown_version", stderr(&o));
}

#[test]
fn judge_future_version() {
    // --ptx 10.0: well formed, but no PTX ISA the model knows → 2.
    let o = check("activemask.b32 %r1;", "10.0", "sm_90");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    insta::assert_snapshot!("judge_future_version", stderr(&o));
}

#[test]
fn judge_unknown_target() {
    // --target sm_999 → 2, "unknown target sm_999", not an illegal verdict (1).
    let o = check("activemask.b32 %r1;", "8.6", "sm_999");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("unknown target sm_999"));
    insta::assert_snapshot!("judge_unknown_target", stderr(&o));
}

#[test]
fn judge_unknown_target_batch() {
    // In batch mode the line's answer is an error record, and the exit code is 2.
    let input = concat!(
        r#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_999"}"#,
        "\n",
        r#"{"text": "activemask.b32 %r1;", "ptx": "99.9", "target": "sm_90"}"#,
        "\n",
        r#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#,
        "\n",
    );
    let o = run(&["check-syntax", "-"], input.as_bytes());
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 3, "{out}");
    insta::assert_snapshot!("judge_unknown_target_batch", out);
}

#[test]
fn judge_missing_semicolon() {
    // `activemask.b32 %r1` → 1, malformed, syntax.semicolon. PTX ISA 4.3: statements
    // "end with a semicolon"; ptxas 13.5: "Parsing error near 'ret': syntax error".
    let o = check("activemask.b32 %r1", "8.6", "sm_90");
    assert_exit(&o, 1);
    assert!(stdout(&o).starts_with("illegal (malformed): syntax.semicolon"));
    insta::assert_snapshot!("judge_missing_semicolon", stdout(&o));
}

#[test]
fn judge_wide_immediate_follows_ptxas() {
    // A 96-bit literal for the .b32 membermask, and a 33-bit one: ptxas 13.5 and
    // 12.9 assemble both without a word (exit 0, no message), e.g.
    // `redux.sync.add.u32 %r1, %r2, 0x1000000000000000000000000;` at .version 8.6,
    // .target sm_90. The judge follows ptxas: legal (0).
    for text in [
        "redux.sync.add.u32 %r1, %r2, 0x1000000000000000000000000;",
        "vote.sync.ballot.b32 %r1, %p1, 0x1ffffffff;",
    ] {
        let o = check(text, "8.6", "sm_90");
        assert_eq!(o.status.code(), Some(0), "{text}: {}", stdout(&o));
        assert_eq!(stdout(&o), "legal\n");
    }
}

// ---- Batch-mode rule: every input line gets exactly one answer line.

#[test]
fn batch_invalid_utf8() {
    // A line with byte 0xff between two good lines → three answers, the middle one
    // `{"error": "<stdin>:2:12: not UTF-8 (byte 0xff)"}`, exit 2.
    let good = br#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#;
    let mut input = good.to_vec();
    input.extend_from_slice(b"\n{\"text\": \"a\xffb\"}\n");
    input.extend_from_slice(good);
    input.push(b'\n');
    let o = run(&["check-syntax", "-"], &input);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 3, "{out}");
    insta::assert_snapshot!("batch_invalid_utf8", out);
}

#[test]
fn batch_error_has_one_position() {
    // `x` on line 1 → `<stdin>:1:1: expected value (...)`, not "... at line 1 column 1".
    let o = run(&["check-syntax", "-"], b"x\n");
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(!out.contains(" at line "), "{out}");
    insta::assert_snapshot!("batch_error_has_one_position", out);
}

#[test]
fn batch_blank_line_answered_blank() {
    // A blank line is answered by a blank line: answers stay aligned with inputs.
    let good = r#"{"text": "activemask.b32 %r1;", "ptx": "8.6", "target": "sm_90"}"#;
    let o = run(
        &["check-syntax", "-"],
        format!("{good}\n\n{good}\n").as_bytes(),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o).split('\n').count(), 4, "{}", stdout(&o));
}

#[test]
fn batch_long_line() {
    // A line of MAX_LINE_BYTES + 1 bytes, then a good line → two answers, exit 2.
    let max = ptxvec_generator::cmd::check_syntax::MAX_LINE_BYTES;
    let mut input = vec![b' '; max + 1];
    input.extend_from_slice(
        b"\n{\"text\": \"activemask.b32 %r1;\", \"ptx\": \"8.6\", \"target\": \"sm_90\"}\n",
    );
    let o = run(&["check-syntax", "-"], &input);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    insta::assert_snapshot!("batch_long_line", out);
}

#[test]
fn batch_dev_zero_bounded_memory() {
    // stdin = /dev/zero, one endless line: the answer comes at once, and memory stays
    // flat while the rest is skipped.
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let mut child = ptxvec()
        .args(["check-syntax", "-"])
        .stdin(zero)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = Vec::new();
    let mut out = child.stdout.take().unwrap();
    let mut byte = [0u8];
    while out.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        first.push(byte[0]);
    }
    std::thread::sleep(Duration::from_secs(2));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    assert!(rss_kb < 64 * 1024, "VmRSS {rss_kb} kB");
    insta::assert_snapshot!(
        "batch_dev_zero_bounded_memory",
        String::from_utf8_lossy(&first)
    );
}

// ---- The spec loader: every error, at file:line:column; exit 2.

/// A copy of spec/ in a temporary folder.
fn spec_copy() -> tempfile::TempDir {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let p = e.unwrap().path();
            let dest = to.join(p.file_name().unwrap());
            if p.is_dir() {
                copy_dir(&p, &dest);
            } else {
                std::fs::copy(&p, &dest).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&spec_root(), &dir.path().join("spec"));
    dir
}

/// Edits one file of the copy: replaces the first `from` with `to`.
fn edit(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join("spec").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} lacks {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// `ptxvec --spec <copy> spec` → exit 2; returns stderr with the folder as `<tmp>`,
/// after checking that the load took less than `secs`.
fn load_fails(dir: &Path, secs: u64) -> String {
    let t = Instant::now();
    let o = ptxvec()
        .arg("--spec")
        .arg(dir.join("spec"))
        .arg("spec")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(secs),
        "took {:?}",
        t.elapsed()
    );
    assert_exit(&o, 2);
    assert!(o.stdout.is_empty());
    stderr(&o).replace(&dir.display().to_string(), "<tmp>")
}

#[test]
fn spec_duplicate_key() {
    // A second `a:` in match.sync's operands → the second key's line and column.
    let d = spec_copy();
    edit(
        d.path(),
        "instructions/match.sync.yaml",
        "          a: &a {",
        "          a: {class: type}\n          a: &a {",
    );
    let err = load_fails(d.path(), 10);
    assert!(
        err.contains("match.sync.yaml:19:11: duplicate key `a`"),
        "{err}"
    );
    insta::assert_snapshot!("spec_duplicate_key", err);
}

#[test]
fn spec_instruction_name_escapes() {
    // `instruction: ../../escaped` would make generate write outside --out.
    let d = spec_copy();
    edit(
        d.path(),
        "instructions/activemask.yaml",
        "instruction: activemask",
        "instruction: ../../escaped",
    );
    let err = load_fails(d.path(), 10);
    assert!(err.contains("is not an instruction name"), "{err}");
    insta::assert_snapshot!("spec_instruction_name_escapes", err);
}

/// A departure's step that changes nothing, or reads an operand it does not name,
/// is refused where the entry's `departure` is written.
#[test]
fn spec_departure_step_that_reads_nothing() {
    let d = spec_copy();
    edit(d.path(), "errata.yaml", "departure: !reads [{drop: [.pred]}]", "departure: !reads [{with: [[.pred]]}]");
    let err = load_fails(d.path(), 10);
    assert!(err.contains("step 0: a step changes nothing"), "{err}");
    assert!(err.contains("spec/errata.yaml:"), "{err}");
    let d = spec_copy();
    edit(d.path(), "errata.yaml", "departure: !reads [{drop: [.pred]}]", "departure: !reads [{drop: [.pred], read_operand: address}]");
    let err = load_fails(d.path(), 10);
    assert!(err.contains("step 0: `read_operand` needs `operand`"), "{err}");
}

/// The step of E052's departure, as spec/errata.yaml writes it.
const VECTOR_STEP: &str = "- {vectors: destinations, apart: [!register .pred, !register .f32], read_elements: {which: [!register .pred], as: !first_of [!register .b32]}}";

/// `errata.yaml` of a spec copy with E052's step written `to`: the load's error,
/// and the `file:line:` where the step stands (a column follows).
fn vector_step_fails(to: &str) -> (String, String) {
    let d = spec_copy();
    edit(d.path(), "errata.yaml", VECTOR_STEP, to);
    let text = std::fs::read_to_string(d.path().join("spec/errata.yaml")).unwrap();
    let n = text.lines().position(|l| l.contains(to)).unwrap();
    (load_fails(d.path(), 10), format!("spec/errata.yaml:{}:", n + 1))
}

/// Steps that ask of vectors, read their elements or read a whole text in ways
/// that mean nothing are refused at the step's line and column, saying what was
/// expected.
#[test]
fn spec_departure_steps_that_read_vectors_or_texts_wrongly() {
    let cases = [
        // Elements read, but of which vectors?
        (
            "- {apart: [!register .pred, !register .f32], read_elements: {which: [!register .pred], as: !first_of [!register .b32]}}",
            "step 0: `read_elements` and `vectors` go together",
        ),
        // Vectors chosen, but nothing read of them.
        ("- {vectors: destinations, drop: [.pred]}", "step 0: `read_elements` and `vectors` go together"),
        // A condition on vector elements in a step that reads no vector.
        ("- {first: [int], drop: [.pred]}", "step 0: `first`, `rest`, `registers` and `apart` ask of the vectors a step reads"),
        // `apart` of one form is never broken.
        (
            "- {vectors: destinations, apart: [int], read_elements: {which: [!register .pred], as: !first_of [!register .b32]}}",
            "step 0: `apart` names at least two forms",
        ),
        // Elements read as an element of no form.
        (
            "- {vectors: destinations, read_elements: {which: [!register .pred], as: !first_of []}}",
            "step 0: `read_elements` reads no element",
        ),
        // A whole text read as another, and a qualifier dropped from it too.
        (
            "- {drop: [.pred], read_as: {text: \"atom.global.add.u32 %r1, [%rd1], %r2;\", ptx: \"7.8\", target: sm_90}}",
            "step 0: `read_as` reads the whole text as another: no other change goes with it",
        ),
        // A set that can never be written once.
        ("- {once: [[]], drop: [.pred]}", "step 0: an empty set of qualifiers in `with` or `once` is never met"),
        // An operand condition with no form.
        (
            "- {written: [{at: 0, is: [!vector_from []]}], drop: [.pred]}",
            "step 0: an operand condition with no form is never met",
        ),
    ];
    for (to, why) in cases {
        let (err, at) = vector_step_fails(to);
        assert!(err.contains(why), "{to}: {err}");
        let column = err.split(&at).nth(1).and_then(|rest| rest.split(':').next());
        assert!(column.is_some_and(|c| c.parse::<usize>().is_ok()), "{to}: expected {at}COLUMN: {err}");
    }
}

/// A step's forms and modules are typed: an element form, a target or a place
/// the vocabulary does not have is refused where it is written.
#[test]
fn spec_departure_step_forms_outside_the_vocabulary() {
    let cases = [
        (
            "- {vectors: destinations, read_elements: {which: [!register .pred], as: !first_of [!register .b32]}, first: [!bits .b32]}",
            "unknown variant `bits`",
        ),
        (
            "- {vectors: sideways, read_elements: {which: [!register .pred], as: !first_of [!register .b32]}}",
            "unknown variant `sideways`",
        ),
        (
            "- {read_as: {text: \"atom.global.add.u32 %r1, [%rd1], %r2;\", ptx: \"7.8\", target: sm_9x}}",
            "`sm_9x` is not a target",
        ),
        (
            "- {vectors: destinations, read_elements: {which: [!register .pred], at: middle, as: !register .b32}}",
            "unknown variant `middle`",
        ),
    ];
    for (to, why) in cases {
        let (err, _) = vector_step_fails(to);
        assert!(err.contains(why), "{to}: {err}");
        assert!(err.contains("spec/errata.yaml:"), "{to}: {err}");
    }
}

#[test]
fn spec_invalid_utf8() {
    // Byte 0xff in line 2 (`ins\xfftruction`) → the line and column of that byte.
    let d = spec_copy();
    let path = d.path().join("spec/instructions/activemask.yaml");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.insert(at + 3, 0xff);
    std::fs::write(&path, bytes).unwrap();
    let err = load_fails(d.path(), 10);
    assert!(
        err.contains("activemask.yaml:2:4: byte 0xff is not UTF-8"),
        "{err}"
    );
    insta::assert_snapshot!("spec_invalid_utf8", err);
}

#[test]
fn spec_lone_carriage_return() {
    // serde_yaml's parser and yaml-rust2 break a line at a lone CR, positions here
    // at LF only: found by the spec_loader fuzzer (an error placed past the last
    // line panicked the error collector). Refused at its place, before any parser.
    let d = spec_copy();
    let path = d.path().join("spec/instructions/activemask.yaml");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    bytes.insert(at + 3, b'\r');
    std::fs::write(&path, bytes).unwrap();
    let err = load_fails(d.path(), 10);
    assert!(
        err.contains("activemask.yaml:2:4: a carriage return without a line feed breaks the line"),
        "{err}"
    );
    insta::assert_snapshot!("spec_lone_carriage_return", err);
    for (what, ch) in [("NEXT LINE", '\u{85}'), ("LINE SEPARATOR", '\u{2028}')] {
        let d = spec_copy();
        edit(d.path(), "targets.yaml", "  - name: sm_10\n", &format!("  - name: sm_10{ch}\n"));
        let err = load_fails(d.path(), 10);
        assert!(err.contains(what), "{err}");
    }
    // CR LF is a line break to every parser: a file saved with CR LF still loads.
    let d = spec_copy();
    let path = d.path().join("spec/instructions/activemask.yaml");
    let text = std::fs::read_to_string(&path).unwrap().replace('\n', "\r\n");
    std::fs::write(&path, text).unwrap();
    ptxvec_spec::Spec::load(&d.path().join("spec")).unwrap();
}

#[test]
fn spec_caret_after_multibyte() {
    // `é — é` before a bad target on the same line: column 48 counts characters, and
    // the caret stands under the `s` of `sm_1x`.
    let d = spec_copy();
    edit(
        d.path(),
        "targets.yaml",
        "  - name: sm_10\n",
        "  - {source: {doc: \"é — é\", section: x}, name: sm_1x, ptx: \"1.0\"}\n  - name: sm_10\n",
    );
    let err = load_fails(d.path(), 10);
    let caret = err.lines().nth(2).unwrap();
    let line = err.lines().nth(1).unwrap();
    assert_eq!(
        line.chars().nth(caret.chars().count() - 1),
        Some('s'),
        "{err}"
    );
    insta::assert_snapshot!("spec_caret_after_multibyte", err);
}

#[test]
fn spec_yml_refused() {
    // instructions/x.yml → refused by name, not skipped.
    let d = spec_copy();
    std::fs::write(d.path().join("spec/instructions/x.yml"), "instruction: x\n").unwrap();
    let err = load_fails(d.path(), 10);
    insta::assert_snapshot!("spec_yml_refused", err);
}

#[test]
fn spec_two_typos() {
    // Two unknown qualifiers in two places of redux.sync.yaml → two errors.
    let d = spec_copy();
    edit(
        d.path(),
        "instructions/redux.sync.yaml",
        ".add, .min, .max]",
        ".add, .minn, .max]",
    );
    edit(
        d.path(),
        "instructions/redux.sync.yaml",
        ".and, .or, .xor]",
        ".and, .or, .xorr]",
    );
    let err = load_fails(d.path(), 10);
    assert!(err.ends_with("2 errors in the spec\n"), "{err}");
    insta::assert_snapshot!("spec_two_typos", err);
}

#[test]
fn spec_broken_file_no_errata_cascade() {
    // red.yaml broken → its own error only, no `unknown instruction red` from errata.
    let d = spec_copy();
    edit(
        d.path(),
        "instructions/red.yaml",
        "mnemonic: red\n",
        "mnemonic: redd\n",
    );
    let err = load_fails(d.path(), 10);
    assert!(!err.contains("unknown instruction"), "{err}");
    insta::assert_snapshot!("spec_broken_file_no_errata_cascade", err);
}

#[test]
fn spec_deep_nesting() {
    // 100,000 nested flow sequences, one per line (62 s before) → refused at once.
    let d = spec_copy();
    let text = format!(
        "instruction: x\nmnemonic: red\nsummary:\n{}{}",
        "  [\n".repeat(100_000),
        "  ]\n".repeat(100_000)
    );
    std::fs::write(d.path().join("spec/instructions/deep.yaml"), text).unwrap();
    let err = load_fails(d.path(), 5);
    insta::assert_snapshot!("spec_deep_nesting", err);
}

#[test]
fn spec_alias_bomb() {
    // Ten levels of ten aliases each (10^10 nodes expanded) → refused at the cap.
    let d = spec_copy();
    let mut text =
        String::from("instruction: x\nmnemonic: red\na0: &a0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n");
    for i in 1..10 {
        let items = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
    }
    std::fs::write(d.path().join("spec/instructions/bomb.yaml"), text).unwrap();
    let err = load_fails(d.path(), 5);
    insta::assert_snapshot!("spec_alias_bomb", err);
}

#[test]
fn spec_fifo() {
    // A FIFO named x.yaml → refused without being opened (opening would block).
    let d = spec_copy();
    let fifo = d.path().join("spec/instructions/x.yaml");
    let ok = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(ok.success());
    let err = load_fails(d.path(), 5);
    insta::assert_snapshot!("spec_fifo", err);
}

#[test]
fn spec_too_large() {
    // A file over MAX_FILE_BYTES → refused before it is read.
    let d = spec_copy();
    let big = "#".repeat(ptxvec_spec::limits::MAX_FILE_BYTES as usize + 1);
    std::fs::write(d.path().join("spec/instructions/big.yaml"), big).unwrap();
    let err = load_fails(d.path(), 5);
    insta::assert_snapshot!("spec_too_large", err);
}

#[test]
fn spec_long_line() {
    // A line over MAX_LINE_BYTES → its line, and the cap.
    let d = spec_copy();
    let text = format!(
        "instruction: x\nsummary: {}\n",
        "a".repeat(ptxvec_spec::limits::MAX_LINE_BYTES)
    );
    std::fs::write(d.path().join("spec/instructions/long.yaml"), text).unwrap();
    let err = load_fails(d.path(), 5);
    insta::assert_snapshot!("spec_long_line", err);
}

// ---- generate: one transaction. A reader sees the old set or the new one; a
// second run is refused by the lock; a file ptxvec did not write survives.

/// Every file under `dir` (relative path → bytes), the lock file left out.
fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, rel: &str, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(root.join(rel)) else {
            return;
        };
        for e in rd {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if e.file_type().unwrap().is_dir() {
                walk(root, &r, out);
            } else if r != ".ptxvec.lock" {
                out.insert(r, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

/// The files `index.json` lists whose SHA-256 is not the one it gives.
fn index_mismatches(dir: &Path) -> Vec<String> {
    use sha2::Digest;
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    index["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|row| {
            let file = row["file"].as_str().unwrap();
            let bytes = std::fs::read(dir.join(file)).unwrap_or_default();
            let sha = format!("{:x}", sha2::Sha256::digest(&bytes));
            (sha != row["sha256"].as_str().unwrap()).then(|| file.to_owned())
        })
        .collect()
}

fn generate(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["generate", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args, b"")
}

/// The staging folders beside `dir`.
fn stagings(dir: &Path) -> Vec<String> {
    let prefix = format!(
        ".{}.ptxvec-staging-",
        dir.file_name().unwrap().to_string_lossy()
    );
    std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

fn inodes(dir: &Path) -> std::collections::BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    tree(dir)
        .into_keys()
        .map(|k| {
            let ino = std::fs::metadata(dir.join(&k)).unwrap().ino();
            (k, ino)
        })
        .collect()
}

#[test]
fn generate_killed_at_random_moments_leaves_the_old_set_or_the_new() {
    // Runs killed (SIGKILL) after delays spread over a run's duration, alternating
    // between two sets that differ (--seed): after each, the folder is wholly one of
    // them, and index.json's SHA-256 match its files. Kill i falls in the i-th of
    // equal slices of 1.5 runs' time, at a point inside it drawn from a stream that
    // the shard seeds: 50 kills unset (`.ci/run --full`), 12 under PTXVEC_SHARD
    // (.ci/run's daily share), each day at other moments.
    let shard = crate::support::shard(1 << 20);
    let kills: u32 = if shard.n == 1 { 50 } else { 12 };
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, dir) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("v"),
    );
    let started = Instant::now();
    assert_eq!(generate(&a, &[]).status.code(), Some(0));
    let took = started.elapsed();
    assert_eq!(generate(&b, &["--seed", "1"]).status.code(), Some(0));
    assert_eq!(generate(&dir, &[]).status.code(), Some(0));
    let (ta, tb) = (tree(&a), tree(&b));
    assert_ne!(ta, tb);
    let mut now_a = true;
    let (mut old, mut new) = (0, 0);
    let mut state: u64 = (0x2545_f491_4f6c_dd1d ^ shard.k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1;
    // A load that grows after `took` was measured (a build beside the tests) slows
    // the killed runs, and every kill may land before the swap: then another pass,
    // over twice the span, up to three.
    for span in [1.5, 3.0, 6.0] {
        for i in 0..kills {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let within = (state % 1000) as f64 / 1000.0;
            let delay = took.mul_f64((f64::from(i) + within) / f64::from(kills) * span);
            let seed = if now_a { "1" } else { "88323189523779" };
            let mut child = ptxvec()
                .args(["generate", "--out", dir.to_str().unwrap(), "--seed", seed])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(delay);
            child.kill().unwrap();
            child.wait().unwrap();
            let t = tree(&dir);
            let was_a = now_a;
            now_a = if t == ta {
                true
            } else if t == tb {
                false
            } else {
                let (mix_a, mix_b): (Vec<_>, Vec<_>) = t.keys().partition(|k| ta.get(*k) == t.get(*k));
                panic!("kill {i} after {delay:?}: a mix: {} files of the old set {mix_a:?}, others {mix_b:?}", mix_a.len());
            };
            if now_a == was_a {
                old += 1;
            } else {
                new += 1;
            }
            assert_eq!(index_mismatches(&dir), Vec::<String>::new(), "kill {i}");
            assert!(stagings(&dir).len() <= 1, "kill {i}: {:?}", stagings(&dir));
        }
        if old > 0 && new > 0 {
            break;
        }
    }
    eprintln!("{} kills: {old} left the old set, {new} the new one", old + new);
    assert!(
        old > 0 && new > 0,
        "{old} old, {new} new: the kills missed the swap's two sides"
    );
    // A run to its end removes what the killed ones left.
    assert_eq!(generate(&dir, &[]).status.code(), Some(0));
    assert_eq!(tree(&dir), ta);
    assert_eq!(stagings(&dir), Vec::<String>::new());
    assert!(!dir.join(".ptxvec.lock").exists());
}

#[test]
fn generate_two_runs_at_once() {
    // Two runs into one folder at once: each one ends the folder's set whole or is
    // refused by the lock (exit 2, naming it); the folder ends consistent. The second
    // starts 0 to 400 ms after the first: every offset unset, under PTXVEC_SHARD
    // (.ci/run's daily share) every other one, the even or the odd as K is.
    let shard = crate::support::shard(1 << 20);
    let offsets: Vec<u64> = [0u64, 100, 200, 300, 400]
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shard.n == 1 || *i as u64 % 2 == shard.k % 2)
        .map(|(_, o)| o)
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    assert_eq!(generate(&dir, &[]).status.code(), Some(0));
    let mut refused = 0;
    for &offset_ms in &offsets {
        let spawn = |seed: &str| {
            ptxvec()
                .args(["generate", "--out", dir.to_str().unwrap(), "--seed", seed])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let first = spawn("1");
        std::thread::sleep(Duration::from_millis(offset_ms));
        let second = spawn("2");
        for o in [
            first.wait_with_output().unwrap(),
            second.wait_with_output().unwrap(),
        ] {
            match o.status.code() {
                Some(0) => {}
                Some(2) => {
                    assert!(
                        stderr(&o).contains(".ptxvec.lock: locked by another `ptxvec generate`"),
                        "{}",
                        stderr(&o)
                    );
                    refused += 1;
                }
                other => panic!("{other:?}: {}", stderr(&o)),
            }
        }
        assert_eq!(index_mismatches(&dir), Vec::<String>::new());
        assert_eq!(stagings(&dir), Vec::<String>::new());
        assert!(!dir.join(".ptxvec.lock").exists());
    }
    eprintln!("{} pairs: {refused} runs refused by the lock", offsets.len());
}

#[test]
fn generate_refused_while_locked() {
    // A live holder of DIR/.ptxvec.lock → 2, naming the lock and its pid; nothing
    // is written. A lock file whose process is gone is taken over.
    use std::os::fd::AsRawFd;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    std::fs::create_dir(&dir).unwrap();
    let lock = std::fs::File::create(dir.join(".ptxvec.lock")).unwrap();
    std::fs::write(dir.join(".ptxvec.lock"), "4242\n").unwrap();
    // SAFETY: the descriptor is open while `lock` lives.
    #[allow(unsafe_code)]
    let r = unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(r, 0);
    let o = generate(&dir, &["--variant", "activemask.b32"]);
    assert_exit(&o, 2);
    let msg = stderr(&o).replace(&tmp.path().display().to_string(), "<tmp>");
    assert!(
        msg.contains("<tmp>/v/.ptxvec.lock: locked by another `ptxvec generate` (pid 4242)"),
        "{msg}"
    );
    insta::assert_snapshot!("generate_refused_while_locked", msg);
    assert_eq!(tree(&dir).len(), 0);
    drop(lock);
    // The file is left, as by a killed run: its pid is dead, and it holds no lock.
    let o = generate(&dir, &["--variant", "activemask.b32"]);
    assert_exit(&o, 0);
    assert!(!dir.join(".ptxvec.lock").exists());
    assert_eq!(index_mismatches(&dir), Vec::<String>::new());
}

#[test]
fn generate_unknown_names_write_nothing() {
    // `--variant nosuch`, `--instruction nosuch` → 2 before any file is written
    // (the folder is not even created).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    for (flag, snap) in [
        ("--variant", "generate_unknown_variant"),
        ("--instruction", "generate_unknown_instruction"),
    ] {
        let o = generate(&dir, &["--instruction", "vote.sync", flag, "nosuch"]);
        assert_exit(&o, 2);
        assert!(
            stderr(&o).contains(&format!("{flag} nosuch: no such")),
            "{}",
            stderr(&o)
        );
        insta::assert_snapshot!(snap, stderr(&o));
        assert!(!dir.exists(), "{flag} nosuch wrote {:?}", tree(&dir).keys());
    }
}

#[test]
fn generate_partial_runs_write_only_what_they_name() {
    // `--instruction vote.sync` rewrites vote.sync's syntax and semantic files and
    // index.json; `--variant red.add.u32` that variant's file and index.json. Every
    // other file keeps its inode.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    assert_eq!(generate(&dir, &[]).status.code(), Some(0));
    let changed = |args: &[&str]| -> Vec<String> {
        let before = inodes(&dir);
        let o = generate(&dir, args);
        assert_exit(&o, 0);
        assert_eq!(index_mismatches(&dir), Vec::<String>::new());
        let after = inodes(&dir);
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>()
        );
        after
            .into_iter()
            .filter(|(k, i)| before[k] != *i)
            .map(|(k, _)| k)
            .collect()
    };
    let vote = changed(&["--instruction", "vote.sync"]);
    assert!(
        vote.contains(&"syntax/vote.sync.jsonl".to_owned()),
        "{vote:?}"
    );
    assert!(vote.contains(&"index.json".to_owned()), "{vote:?}");
    assert!(
        vote.iter().all(|f| f == "index.json"
            || f == "syntax/vote.sync.jsonl"
            || f.starts_with("semantic/vote.sync.")),
        "{vote:?}"
    );
    assert_eq!(
        vote.iter().filter(|f| f.starts_with("semantic/")).count(),
        4,
        "{vote:?}"
    );
    assert_eq!(
        changed(&["--variant", "red.add.u32"]),
        ["index.json", "semantic/red.add.u32.jsonl.gz"]
    );
    // The committed set's bytes, still.
    let whole = tree(&dir);
    assert_eq!(
        whole["index.json"],
        std::fs::read(repo_root().join("vectors/index.json")).unwrap()
    );
}

#[test]
fn generate_keeps_files_it_did_not_write() {
    // A user's semantic/mine.jsonl and README survive a full run; temporary files
    // and staging folders of killed runs go, a file a killed run held back comes
    // back.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("v");
    assert_eq!(generate(&dir, &[]).status.code(), Some(0));
    std::fs::write(dir.join("semantic/mine.jsonl"), "mine\n").unwrap();
    std::fs::write(dir.join("README.md"), "readme\n").unwrap();
    std::fs::write(dir.join("syntax/.red.jsonl.tmp123"), "half").unwrap();
    let stale = tmp.path().join(".v.ptxvec-staging-999999");
    std::fs::create_dir_all(stale.join("semantic")).unwrap();
    std::fs::write(stale.join("index.json"), "half").unwrap();
    std::fs::write(stale.join("semantic/red.add.u32.jsonl"), "half").unwrap();
    std::fs::write(stale.join("semantic/theirs.jsonl"), "theirs\n").unwrap();
    let o = generate(&dir, &["--seed", "1"]);
    assert_exit(&o, 0);
    let t = tree(&dir);
    assert_eq!(t["semantic/mine.jsonl"], b"mine\n");
    assert_eq!(t["semantic/theirs.jsonl"], b"theirs\n");
    assert_eq!(t["README.md"], b"readme\n");
    assert!(!t.contains_key("syntax/.red.jsonl.tmp123"));
    assert_eq!(stagings(&dir), Vec::<String>::new());
    assert_eq!(index_mismatches(&dir), Vec::<String>::new());
}

#[test]
fn generate_pipe_closed_leaves_the_whole_set() {
    // `generate | true`: the summary is printed after the set is in place, so the
    // SIGPIPE it dies of leaves every file written.
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let (a, dir) = (tmp.path().join("a"), tmp.path().join("v"));
    assert_eq!(generate(&a, &[]).status.code(), Some(0));
    // A pipe whose reader is gone before the child starts: no write can beat it.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = ptxvec()
        .args(["generate", "--out", dir.to_str().unwrap()])
        .stdout(writer)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}");
    assert!(tree(&dir) == tree(&a), "the set is not whole");
}

// ---- eval and emit-ptx refuse what check-syntax refuses, with its rule.

#[test]
fn eval_refuses_what_check_syntax_refuses() {
    // No operands, or a register where an address goes → 2, the rule named;
    // --force evaluates them anyway (exit 0).
    let input = b"{\"text\": \"red.add.u32\", \"inputs\": {\"mem\": [\"0x1\"], \"operand\": [\"0x2\"]}}\n\
                  {\"text\": \"red.add.u32 %r1, %r1;\", \"inputs\": {\"mem\": [\"0x1\"], \"operand\": [\"0x2\"]}}\n";
    let o = run(&["eval"], input);
    assert_exit(&o, 2);
    let out = stdout(&o);
    assert!(
        out.contains("syntax.semicolon") && out.contains("operand.shape"),
        "{out}"
    );
    insta::assert_snapshot!(
        "eval_refuses_what_check_syntax_refuses",
        format!("{out}{}", stderr(&o))
    );
    let o = run(&["eval", "--force"], input);
    assert_exit(&o, 0);
}

fn emit(text: &str, extra: &[&str]) -> Output {
    let mut args = vec!["emit-ptx", text, "--ptx", "8.6", "--target", "sm_90"];
    args.extend_from_slice(extra);
    run(&args, b"")
}

#[test]
fn emit_ptx_refuses_a_text_that_breaks_out() {
    // `} .entry evil() {` → 2, with or without --force.
    for force in [&[][..], &["--force"][..]] {
        let o = emit("} .entry evil() {", force);
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(o.stdout.is_empty());
        insta::assert_snapshot!("emit_ptx_refuses_a_text_that_breaks_out", stderr(&o));
    }
    let o = emit("red.add.u32 [%rd1], %r1; ret;", &["--force"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    insta::assert_snapshot!("emit_ptx_refuses_two_statements", stderr(&o));
}

#[test]
fn emit_ptx_refuses_a_malformed_text_unless_forced() {
    // No `;` → 2, `syntax.semicolon`; --force emits it.
    let o = emit("red.add.u32 [%rd1], %r1", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("syntax.semicolon"));
    insta::assert_snapshot!("emit_ptx_refuses_a_malformed_text", stderr(&o));
    let o = emit("red.add.u32 [%rd1], %r1", &["--force"]);
    assert_exit(&o, 0);
    assert!(stdout(&o).contains("    red.add.u32 [%rd1], %r1\n"));
}

#[test]
fn emit_ptx_register_numbers() {
    // `%rd4294967296` → 2 (above 65535); `%rd65535` declares `%rd<65536>`.
    let o = emit("red.add.u32 [%rd4294967296], %r1;", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    insta::assert_snapshot!("emit_ptx_register_above_cap", stderr(&o));
    let o = emit("red.add.u32 [%rd65535], %r1;", &[]);
    assert_exit(&o, 0);
    assert!(
        stdout(&o).contains(".reg .b64 %rd<65536>;"),
        "{}",
        stdout(&o)
    );
}

/// eval is a batch command too: every input line gets exactly one answer line, in
/// order, an invalid UTF-8 line and one over the line cap included (that one's rest
/// skipped without being kept), and the run ends with exit 2.
#[test]
fn eval_answers_every_line() {
    let mut input = b"{\"text\": \"red.add.u32 [%rd1], %r1;\", \"inputs\": {\"mem\": [\"0x1\"], \"operand\": [\"0x2\"]}}\n\n\xff\xfe\n".to_vec();
    input.extend(std::iter::repeat_n(
        b'x',
        ptxvec_generator::io::lines::MAX_LINE_BYTES + 10,
    ));
    input.extend(b"\n{\"x\":1}\n");
    let o = run(&["eval"], &input);
    assert_exit(&o, 2);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[0].starts_with("{\"expect\""), "{}", lines[0]);
    assert_eq!(lines[1], "");
    assert_eq!(lines[2], "{\"error\":\"<stdin>:3:1: not UTF-8\"}");
    assert_eq!(
        lines[3],
        format!(
            "{{\"error\":\"<stdin>:4: line longer than {} bytes\"}}",
            ptxvec_generator::io::lines::MAX_LINE_BYTES
        )
    );
    assert!(
        lines[4].starts_with("{\"error\":\"<stdin>:5:"),
        "{}",
        lines[4]
    );
    assert!(
        stderr(&o).contains("3 line(s) could not be evaluated: [3, 4, 5]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn spec_one_error_many_elements() {
    // targets.yaml without its `families:` line, so that the family items are
    // cuda_releases items with an unknown field, and the cuda_releases items
    // repeated 64 times (440 KB). Each blanked element gave the same error again,
    // uncounted, one parse of the file per element: quadratic, 1.6 s for 126 KB
    // (found by fuzz/ spec_loader) → the parses are capped as the errors are.
    let d = spec_copy();
    let path = d.path().join("spec/targets.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let a = text.find("cuda_releases:\n").unwrap() + "cuda_releases:\n".len();
    let b = text.find("families:\n").unwrap();
    let edited = format!(
        "{}{}{}",
        &text[..a],
        text[a..b].repeat(64),
        &text[b + "families:\n".len()..]
    );
    std::fs::write(&path, edited).unwrap();
    let err = load_fails(d.path(), 5);
    assert!(err.contains("unknown field `family`"), "{err}");
    insta::assert_snapshot!("spec_one_error_many_elements", err);
}

// ---- lint holds a statement, not the module: memory stays bounded however large
// the module, and a gzip bomb is refused at its first error or at the cap.

/// The address space `lint` runs in below: a tenth of what holding the modules
/// below would take, and well above what the binary needs (about 60 MiB of address
/// space, 15 MB resident, with two worker threads).
const LINT_ADDRESS_SPACE_KB: usize = 128 * 1024;

/// `ptxvec lint ARGS` in an address space of [`LINT_ADDRESS_SPACE_KB`] (`ulimit -v`),
/// with two worker threads, `input` streamed to its stdin from a thread.
fn lint_bounded(args: &[&str], input: impl FnOnce(&mut dyn std::io::Write) + Send + 'static) -> Output {
    crate::support::output_with_input(
        Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v {LINT_ADDRESS_SPACE_KB} && exec \"$0\" lint \"$@\""))
            .arg(env!("CARGO_BIN_EXE_ptxvec"))
            .args(args)
            .current_dir(repo_root())
            .env("RAYON_NUM_THREADS", "2"),
        input,
    )
}

#[test]
fn lint_a_module_larger_than_its_memory() {
    // 200 MB of module on stdin, in 128 MiB of address space: 8,400 runs of 999
    // `add.s32` (not covered) and one `activemask.b32` (covered, legal), then one
    // illegal `redux.sync.min.b32` (`.b32` is no `.type` of redux.sync's min,
    // PTX ISA 9.7.13.10) → exit 1, its one line, and the counts.
    const RUNS: usize = 8_400;
    let head = ".version 8.6\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<9>;\n";
    let o = lint_bounded(&["-"], move |w| {
        let run = format!("{}\tactivemask.b32 %r1;\n", "\tadd.s32 %r1, %r2, %r3;\n".repeat(999));
        let _ = w.write_all(head.as_bytes());
        for _ in 0..RUNS {
            if w.write_all(run.as_bytes()).is_err() {
                return;
            }
        }
        let _ = w.write_all(b"\tredux.sync.min.b32 %r1, %r2, 0xffffffff;\n\tret;\n}\n");
    });
    assert_exit(&o, 1);
    // The redux line: after the head's 6 lines and the runs' 1,000 each.
    let line = 6 + RUNS * 1000 + 1;
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with(&format!("<stdin>:{line}:2: illegal: set.type: `.b32`")), "{out}");
    let summary = format!("<stdin>: {} instructions, {} covered judged, 1 illegal (.version 8.6, .target sm_90)\n", RUNS * 1000 + 2, RUNS + 1);
    assert_eq!(stderr(&o), summary);
}

/// A gzip stream of `head`, then `mib` MiB of `byte`, made cheaply: one MiB
/// compressed after a full flush (which makes it stand alone) and repeated. It has
/// no end (no final block, no checksum): lint must refuse it before reading that
/// far.
fn gzip_bomb(head: &[u8], byte: u8, mib: usize) -> Vec<u8> {
    let mut z = flate2::Compress::new(flate2::Compression::best(), false);
    let mut deflate = |input: &[u8]| {
        let mut out = Vec::with_capacity(input.len() + 1024);
        let status = z.compress_vec(input, &mut out, flate2::FlushCompress::Full).unwrap();
        assert_eq!(status, flate2::Status::Ok);
        out
    };
    let head = deflate(head);
    let chunk = deflate(&vec![byte; 1 << 20]);
    // RFC 1952: magic, deflate, no flags, no time, no extra flags, unknown OS.
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend_from_slice(&head);
    for _ in 0..mib {
        out.extend_from_slice(&chunk);
    }
    out
}

#[test]
fn lint_gzip_bomb_refused_at_its_first_error() {
    // 2 GiB of zero bytes gzipped (about 2 MB) → line 1 is no `.version`: exit 2,
    // in 128 MiB of address space.
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("zeros.ptx.gz");
    std::fs::write(&bomb, gzip_bomb(b"", 0, 2048)).unwrap();
    let o = lint_bounded(&[bomb.to_str().unwrap()], |_| {});
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        format!("error: {}:1:1: expected `.version` at the start of the module, found `{}`\n", bomb.display(), "\\0".repeat(24))
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn lint_gzip_bomb_of_whitespace_refused_at_the_cap() {
    // A module whose text after its header is 1 GiB and 1 MiB of spaces: no error
    // to stop at, so the cap on decompressed text (1 GiB) stops it → exit 2.
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("spaces.ptx.gz");
    let mib = (ptxvec_generator::lint::GZIP_CAP.bytes >> 20) as usize + 1;
    std::fs::write(&bomb, gzip_bomb(b".version 8.6\n.target sm_90\n", b' ', mib)).unwrap();
    let o = lint_bounded(&[bomb.to_str().unwrap()], |_| {});
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        format!(
            "error: {}: more than 1 GiB of text once decompressed, the most lint reads from a gzipped file\n",
            bomb.display()
        )
    );
}

#[test]
fn lint_statement_over_its_cap_is_an_error_at_its_start() {
    // An instruction of 8 MiB and one byte (a long immediate) → exit 2 at its line
    // and column, in 128 MiB of address space.
    let max = ptxvec_generator::lint::read::MAX_STATEMENT_BYTES;
    let o = lint_bounded(&["-"], move |w| {
        let _ = w.write_all(b".version 8.6\n.target sm_90\n.visible .entry k()\n{\n  mov.u32 %r1, ");
        let _ = w.write_all(&vec![b'1'; max]);
        let _ = w.write_all(b";\n}\n");
    });
    assert_exit(&o, 2);
    assert_eq!(
        stderr(&o),
        "error: <stdin>:5:3: expected this statement to end within 8 MiB (lint holds one statement at a time, and no longer one)\n"
    );
}

#[test]
fn stdout_full_lint() {
    // A module with a warning, `lint >/dev/full` → 2, "error: stdout: No space left
    // on device".
    let o = to_dev_full(&["lint", "tests/fixtures/lint/legal/order_warning.ptx"]);
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), DEV_FULL);
}

#[test]
fn lint_plain_file_over_the_cap_refused_unread() {
    // A (sparse) file of 4 GiB and one byte → exit 2 before a byte is read; were it
    // read, its first byte would be the error (a NUL at 1:1).
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.ptx");
    std::fs::File::create(&huge).unwrap().set_len(ptxvec_generator::lint::PLAIN_CAP.bytes + 1).unwrap();
    let o = lint_bounded(&[huge.to_str().unwrap()], |_| {});
    assert_exit(&o, 2);
    assert_eq!(stderr(&o), format!("error: {}: more than 4 GiB of text in the file, the most lint reads\n", huge.display()));
}
