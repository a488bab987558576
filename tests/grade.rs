//! `ptxvec grade` as a user runs it: bad results files, an engine that keeps every
//! expectation (built from `ptxvec eval` and `check-syntax`, values chosen here, not
//! by the grader), engines with planted errors, raw buffers, and the reports.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

use ptxvec_generator::record::{Bits, Expectation, Outputs, Record};
use ptxvec_generator::device::selfcheck::{self, raw};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::support::{repo_root, text};

fn ptxvec(args: &[&str], stdin: Option<&Path>) -> Output {
    let mut c = crate::support::ptxvec();
    c.args(args);
    if let Some(p) = stdin {
        c.stdin(std::fs::File::open(p).unwrap());
    }
    let out = c.output().expect("run ptxvec");
    if let Some(at) = args.iter().position(|a| *a == "--json") {
        keep_report(Path::new(args[at + 1]));
    }
    out
}

/// Where the JSON reports the tests write are kept, when `PTXVEC_REPORTS_DIR`
/// names a folder: CI validates each against vectors/grade-report.schema.json
/// (Python's jsonschema).
const REPORTS_DIR: &str = "PTXVEC_REPORTS_DIR";

std::thread_local! {
    /// The reports this test has kept so far: the next one's number.
    static KEPT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Copies a JSON report just written into `$PTXVEC_REPORTS_DIR`, if set, as
/// `<test>.<n>.json` (each test runs on a thread named after it). A grade that
/// stopped before writing it (bad arguments) keeps nothing.
fn keep_report(json: &Path) {
    let Some(dir) = std::env::var_os(REPORTS_DIR) else {
        return;
    };
    if !json.is_file() {
        return;
    }
    let test = std::thread::current().name().unwrap_or("test").replace("::", ".");
    let n = KEPT.with(|k| {
        let n = k.get();
        k.set(n + 1);
        n
    });
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{REPORTS_DIR} {}: {e}", dir.display()));
    let to = dir.join(format!("{test}.{n}.json"));
    std::fs::copy(json, &to).unwrap_or_else(|e| panic!("{} -> {}: {e}", json.display(), to.display()));
}

fn write(dir: &Path, name: &str, lines: &[String]) -> String {
    let path = dir.join(name);
    let mut s = lines.join("\n");
    s.push('\n');
    std::fs::write(&path, s).unwrap();
    path.display().to_string()
}

/// The failures of a `--json` report: (section, id, what), in report order.
fn failures(json: &Path) -> Vec<(String, String, String)> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let mut out = Vec::new();
    for s in doc["sections"].as_array().unwrap() {
        for f in s["failures"].as_array().unwrap() {
            for w in f["failures"].as_array().unwrap() {
                out.push((
                    s["name"].as_str().unwrap().to_owned(),
                    f["id"].as_str().unwrap().to_owned(),
                    w["what"].as_str().unwrap().to_owned(),
                ));
            }
        }
    }
    out
}

// ---------------------------------------------------------------- bad input

/// `ptxvec grade FLAGS PATH` writing all three reports into `dir` (`g.json`,
/// `g.xml`, `g.html`): its output and the reports' paths.
fn grade_with_reports(dir: &Path, flags: &[&str], path: &str) -> (Output, PathBuf, PathBuf, PathBuf) {
    let (j, x, h) = (dir.join("g.json"), dir.join("g.xml"), dir.join("g.html"));
    let mut args = vec!["grade"];
    args.extend_from_slice(flags);
    args.extend([path, "--json", j.to_str().unwrap(), "--junit", x.to_str().unwrap(), "--html", h.to_str().unwrap()]);
    (ptxvec(&args, None), j, x, h)
}

#[test]
fn every_bad_results_line_is_an_error_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let semantic = write(
        dir.path(),
        "semantic.jsonl",
        &[
            r#"{"id":"red.add.u32#0","outputs":{"mem":["0x00000001"]}}"#.to_owned(), // 1: fine
            "this is not JSON".to_owned(),                                           // 2
            r#"{"id":"red.add.u32#1","outputs":{"mem":["0x1"]},"time":3}"#.to_owned(), // 3: unknown key
            r#"{"id":"red.add.u32#2","outputs":{"mem":[1]}}"#.to_owned(), // 4: wrong type
            r#"{"id":"red.add.u32#3","outputs":{"mem":["0x+1"]}}"#.to_owned(), // 5: no bit pattern
            r#"{"id":7,"outputs":{}}"#.to_owned(),                        // 6: wrong type
            r#"{"id":"red.add.u32#4","outputs":{"q":["0x1"]}}"#.to_owned(), // 7: unknown output
            r#"{"id":"red.add.u32#5"}"#.to_owned(),                       // 8: missing key
        ],
    );
    let syntax = write(
        dir.path(),
        "syntax.jsonl",
        &[
            r#"{"id":"red/x","accepted":"yes"}"#.to_owned(), // 1: wrong type
            r#"{"id":"red/x","accepted":true,"why":"x"}"#.to_owned(), // 2: unknown key
        ],
    );
    let out = ptxvec(
        &["grade", "--semantic", &semantic, "--syntax", &syntax],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(
        summary.contains("input errors: 9 bad line(s) in the results"),
        "{summary}"
    );
    let err = text(&out.stderr);
    for (file, line, what) in [
        (&semantic, 2, "not JSON"),
        (&semantic, 3, "unknown field `time`"),
        (&semantic, 4, "invalid type: integer `1`"),
        (&semantic, 5, "`0x+1` is not a bit pattern"),
        (&semantic, 6, "invalid type: integer `7`"),
        (&semantic, 7, "unknown field `q`"),
        (
            &semantic,
            8,
            "expected \"outputs\" (what the record computes) or \"skipped\"",
        ),
        (
            &syntax,
            1,
            "invalid type: string \"yes\", expected a boolean",
        ),
        (&syntax, 2, "unknown field `why`"),
    ] {
        let line_start = format!("{file}:{line}:");
        let found = err
            .lines()
            .find(|l| l.starts_with(&line_start))
            .unwrap_or_else(|| panic!("no `{line_start}` line in:\n{err}"));
        assert!(found.contains(what), "`{found}` does not say `{what}`");
        // file:line:column: message
        let column = found[line_start.len()..].split(':').next().unwrap();
        assert!(column.parse::<usize>().is_ok(), "no column in `{found}`");
    }
    assert!(err.contains("9 bad line(s)"), "{err}");
    assert!(
        !err.contains(&format!("{semantic}:1:")),
        "line 1 is fine: {err}"
    );
    // Columns in characters from 1, at the value each message is about (counted by
    // hand in the lines above; line 2: `h`, where `t` stops being `true`).
    for at in [
        format!("{semantic}:2:2: not JSON"),
        format!("{semantic}:3:49: unknown field `time`"),
        format!("{semantic}:4:41: invalid type"),
        format!("{semantic}:5:41: `0x+1`"),
        format!("{semantic}:6:7: invalid type"),
        format!("{semantic}:7:34: unknown field `q`"),
        format!("{semantic}:8:1: expected"),
        format!("{syntax}:1:26: invalid type"),
    ] {
        assert!(err.contains(&at), "no `{at}` in:\n{err}");
    }
}

/// One bad line stops nothing else: the lines read are graded, their findings
/// reported with the bad lines, every report is written (the bad lines in it), and
/// the exit status is 2.
#[test]
fn a_bad_line_is_reported_with_every_other_finding() {
    let dir = tempfile::tempdir().unwrap();
    let ballot: Vec<_> = exact_engine(Profile::PtxIsa)
        .into_iter()
        .filter(|(id, _)| id.starts_with("vote.sync.ballot.b32#"))
        .collect();
    let mut results = lines(&ballot);
    // Line 2: not JSON (its record has no result); line 3: a slot that is no bit
    // pattern (its record's result is unreadable); line 4: a wrong value.
    results[1] = "{oops".to_owned();
    results[2] = results[2].replacen("\"0x", "\"0xZZ", 1);
    let d = ballot[3].1.d.as_ref().unwrap()[0].unwrap();
    let mut wrong = ballot[3].1.clone();
    wrong.d.as_mut().unwrap()[0] = Some(Bits::new(d.value ^ 1, d.width));
    results[3] = serde_json::json!({"id": ballot[3].0, "outputs": wrong}).to_string();
    let path = write(dir.path(), "r.jsonl", &results);
    let (out, j, x, h) = grade_with_reports(dir.path(), &["--semantic"], &path);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let (summary, err) = (text(&out.stdout), text(&out.stderr));
    assert!(err.contains(&format!("{path}:2:2: not JSON")), "{err}");
    // `{"id":"vote.sync.ballot.b32#2","outputs":{"d":[` is 47 characters.
    assert!(err.contains(&format!("{path}:3:48: `0xZZ")), "{err}");
    assert!(err.contains("2 bad line(s) in the results"), "{err}");
    for fail in [
        format!("FAIL {}: no result", ballot[1].0),
        format!(
            "FAIL {}: unreadable result (line 3, an input error)",
            ballot[2].0
        ),
        format!("FAIL {}: d[0]: value not accepted", ballot[3].0),
    ] {
        assert!(summary.contains(&fail), "no `{fail}` in:\n{summary}");
    }
    assert!(summary.contains("input errors: 2 bad line(s)"), "{summary}");
    assert!(summary.ends_with("grade: FAILED\n"), "{summary}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(doc["passed"], false);
    let errors = doc["input_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["line"], 2);
    assert_eq!(errors[0]["column"], 2);
    assert_eq!(errors[1]["line"], 3);
    assert_eq!(errors[1]["column"], 48);
    assert_eq!(errors[1]["id"], ballot[2].0.as_str());
    assert_eq!(failures(&j).len(), 3);
    let xml = std::fs::read_to_string(&x).unwrap();
    assert!(xml.contains(" errors=\"2\" "), "{}", &xml[..300]);
    assert_eq!(xml.matches("<error message=").count(), 2);
    assert!(
        xml.contains(&format!("<error message=\"{path}:3:48: ")),
        "{xml}"
    );
    let html = std::fs::read_to_string(&h).unwrap();
    assert!(html.contains("<section id=\"input-errors\">"));
    assert!(
        html.contains(&format!("<li><code>{path}:2:2: not JSON")),
        "the page's input errors"
    );
}

/// A line of a vector file that does not read is named by its column in characters:
/// serde_json finds the missing keys of `{"id":"é"}` at the `}`, its 10th character
/// and 11th byte.
#[test]
fn a_bad_vector_line_is_named_by_its_character_column() {
    let dir = tempfile::tempdir().unwrap();
    let syntax = dir.path().join("syntax");
    std::fs::create_dir_all(&syntax).unwrap();
    for e in std::fs::read_dir(repo_root().join("vectors/syntax")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, syntax.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::write(syntax.join("activemask.jsonl"), "{\"id\":\"é\"}\n").unwrap();
    let results = write(
        dir.path(),
        "s.jsonl",
        &[r#"{"id":"x","accepted":true}"#.to_owned()],
    );
    let vectors = dir.path().display().to_string();
    let out = ptxvec(
        &["grade", "--vectors", &vectors, "--syntax", &results],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("syntax/activemask.jsonl:1:10: missing field"),
        "{err}"
    );
}

#[test]
fn a_stray_raw_buffer_and_a_missing_folder_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("no-such-variant.bin"), [0u8; 4]).unwrap();
    let d = dir.path().display().to_string();
    let out = ptxvec(&["grade", "--raw", &d], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no-such-variant.bin"));
    let out = ptxvec(&["grade", "--raw", &format!("{d}/nothing-here")], None);
    assert_eq!(out.status.code(), Some(2));
    let out = ptxvec(&["grade"], None);
    assert_eq!(
        out.status.code(),
        Some(2),
        "no results given is a usage error"
    );
}

// ---------------------------------------------------------- an exact engine

/// A NaN of every format of that width, sign set and payload not the default one:
/// the exponent all ones and the fraction not zero, written here by hand (0xffff is
/// a NaN as f16 and as bf16).
fn a_nan(width: u32) -> Bits {
    match width {
        16 => Bits::new(0xffff, 16),
        32 => Bits::new(0xffc0_0123, 32),
        64 => Bits::new(0xfff0_0000_0000_0abc, 64),
        w => panic!("no float of {w} bits"),
    }
}

/// A result that keeps `e`, chosen without the grader: the bits as written; for
/// `nan:any` the NaN above; for `one_of` and `permutation` (one thread's value) the
/// `pick`-th pattern (so that every listed pattern is given somewhere); for
/// `undefined` zero; nothing where `null`; for an election (`leader`, `is_leader`)
/// the highest lane its mask names (sm_90 elects the lowest: the grader must not
/// hold a document's engine to it), in slot `k`.
fn keep(e: &Expectation, width: u32, pick: usize, k: usize) -> Option<Bits> {
    match e {
        Expectation::Exact(b) => Some(*b),
        Expectation::AnyNan => Some(a_nan(width)),
        Expectation::OneOf { bits, .. } | Expectation::Permutation(bits) => Some(bits[pick % bits.len()]),
        Expectation::Leader { lanes, flag: false } => Some(Bits::new(highest(lanes.value), 32)),
        Expectation::Leader { lanes, flag: true } => Some(Bits::new(u64::from(k as u64 == highest(lanes.value)), 4)),
        Expectation::Undefined => Some(Bits::new(0, 4)),
        Expectation::NotExecuted => None,
    }
}

/// The highest lane of a non-zero lane mask.
fn highest(mask: u64) -> u64 {
    63 - u64::from(mask.leading_zeros())
}

/// The width of a memory record's elements (accept classes other than `undefined`
/// appear only there, docs/formats.md).
fn mem_width(r: &Record) -> u32 {
    match &r.inputs {
        ptxvec_generator::record::Inputs::Memory { mem, .. }
        | ptxvec_generator::record::Inputs::Contention { mem, .. } => mem[0].width,
        ptxvec_generator::record::Inputs::Warp(_) => 32,
    }
}

/// Every committed record, as `ptxvec eval --profile all` writes it back.
fn evaluated() -> &'static Vec<Record> {
    static EVAL: OnceLock<Vec<Record>> = OnceLock::new();
    EVAL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut all = String::new();
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("vectors/semantic"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            all.push_str(&crate::support::vector_text(f));
        }
        let input = dir.path().join("all.jsonl");
        std::fs::write(&input, all).unwrap();
        let out = ptxvec(&["eval", "--profile", "all", input.to_str().unwrap()], None);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .map(|l| Record::from_line(l).unwrap())
            .collect()
    })
}

/// One results line per record: what keeps its `profile` expectations.
fn exact_engine(profile: Profile) -> Vec<(String, Outputs<Option<Bits>>)> {
    evaluated()
        .iter()
        .enumerate()
        .map(|(n, r)| {
            let e = r.expected(profile).unwrap();
            let w = mem_width(r);
            let map = |v: &Option<Vec<Expectation>>| {
                v.as_ref()
                    .map(|v| v.iter().enumerate().map(|(k, e)| keep(e, w, n, k)).collect::<Vec<_>>())
            };
            let outputs = Outputs {
                d: map(&e.d),
                mem: map(&e.mem),
                p: map(&e.p),
            };
            (r.id.clone(), outputs)
        })
        .collect()
}

fn lines(results: &[(String, Outputs<Option<Bits>>)]) -> Vec<String> {
    results
        .iter()
        .map(|(id, o)| serde_json::json!({"id": id, "outputs": o}).to_string())
        .collect()
}

#[test]
fn the_oracles_own_eval_scores_100_percent_under_both_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let n = evaluated().len();
    assert!(n > 20_000, "only {n} records");
    for (profile, name) in [(Profile::PtxIsa, "ptx-isa"), (Profile::Sm90, "sm_90")] {
        let results = write(dir.path(), "r.jsonl", &lines(&exact_engine(profile)));
        let out = ptxvec(
            &["grade", "--all", "--profile", name, "--semantic", &results],
            None,
        );
        let summary = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}:\n{summary}{}",
            text(&out.stderr)
        );
        assert!(
            summary.contains(&format!("{n} graded, {n} passed, 0 failed, 0 not graded")),
            "{summary}"
        );
    }
}

/// Changes a result so that it no longer keeps `e`: flip a bit of exact bits, zero
/// for `nan:any` (no format's NaN), for `one_of` and `permutation` a small integer
/// it does not list (no NaN either), a value where `null`; in an election (slot
/// `k`), `d` another lane of the mask than [`keep`]'s leader, `p` the flag flipped,
/// each of which passes alone and fails the lanes together. `undefined` takes
/// anything: `None`.
fn break_it(e: &Expectation, k: usize) -> Option<Option<Bits>> {
    match e {
        Expectation::Leader { lanes, flag: false } => {
            let lowest = u64::from(lanes.value.trailing_zeros());
            (lowest != highest(lanes.value)).then(|| Some(Bits::new(lowest, 32)))
        }
        Expectation::Leader { lanes, flag: true } => {
            Some(Some(Bits::new(u64::from(k as u64 != highest(lanes.value)), 4)))
        }
        Expectation::Exact(b) => Some(Some(Bits::new(b.value ^ 1, b.width))),
        Expectation::AnyNan => Some(Some(Bits::new(0, 4))),
        Expectation::OneOf { bits, .. } | Expectation::Permutation(bits) => (0..4u64)
            .find(|v| bits.iter().all(|b| b.value != *v))
            .map(|v| Some(Bits::new(v, 4))),
        Expectation::NotExecuted => Some(Some(Bits::new(0, 4))),
        Expectation::Undefined => None,
    }
}

fn class_name(e: &Expectation) -> &'static str {
    match e {
        Expectation::Exact(_) => "exact",
        Expectation::AnyNan => "nan:any",
        Expectation::OneOf { nan: false, .. } => "one_of",
        Expectation::OneOf { nan: true, .. } => "one_of+nan",
        Expectation::Permutation(_) => "permutation",
        Expectation::Leader { flag: false, .. } => "leader",
        Expectation::Leader { flag: true, .. } => "is_leader",
        Expectation::Undefined => "undefined",
        Expectation::NotExecuted => "null",
    }
}

#[test]
fn perturbing_one_slot_of_each_class_fails_exactly_those_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut results = exact_engine(Profile::PtxIsa);
    let mut planted = BTreeSet::new();
    let mut done = BTreeSet::new();
    for (i, r) in evaluated().iter().enumerate() {
        let e = r.expected(Profile::PtxIsa).unwrap();
        for (key, slots) in [("d", &e.d), ("mem", &e.mem), ("p", &e.p)] {
            for (k, slot) in slots.iter().flatten().enumerate() {
                let class = class_name(slot);
                if done.contains(class) {
                    continue;
                }
                if let Some(bad) = break_it(slot, k) {
                    let out = &mut results[i].1;
                    let v = match key {
                        "d" => out.d.as_mut(),
                        "mem" => out.mem.as_mut(),
                        _ => out.p.as_mut(),
                    };
                    v.unwrap()[k] = bad;
                    done.insert(class);
                    // An election's slot passes alone: the lanes together fail.
                    let at = match slot {
                        Expectation::Leader { .. } => "the lanes together".to_owned(),
                        _ => format!("{key}[{k}]"),
                    };
                    planted.insert((r.id.clone(), at));
                }
            }
        }
    }
    assert_eq!(
        done,
        BTreeSet::from(["exact", "nan:any", "one_of", "one_of+nan", "permutation", "leader", "is_leader", "null"]),
        "a class the vectors use was not perturbed"
    );
    let path = write(dir.path(), "r.jsonl", &lines(&results));
    let json = dir.path().join("report.json");
    let out = ptxvec(
        &[
            "grade",
            "--semantic",
            &path,
            "--json",
            json.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let got: BTreeSet<(String, String)> = failures(&json)
        .into_iter()
        .map(|(_, id, what)| (id, what.split(':').next().unwrap().to_owned()))
        .collect();
    assert_eq!(got, planted);
}

// ------------------------------------------------------- a wrong engine

/// The syntax results of an engine that judges like `ptxvec check-syntax`.
fn judged_syntax(dir: &Path) -> Vec<(String, bool, String)> {
    let spec = Spec::load(&crate::spec_root()).unwrap();
    let mut ids = Vec::new();
    let mut input = Vec::new();
    for f in &spec.instructions {
        let path = ptxvec_generator::syntax::vectors::file_for(
            &repo_root().join("vectors"),
            &f.instruction.instruction,
        );
        for l in std::fs::read_to_string(path).unwrap().lines() {
            let c: Value = serde_json::from_str(l).unwrap();
            ids.push(c["id"].as_str().unwrap().to_owned());
            input.push(
                serde_json::json!({"text": c["text"], "ptx": c["ptx"], "target": c["target"]})
                    .to_string(),
            );
        }
    }
    let stdin = write(dir, "judge.jsonl", &input);
    let out = ptxvec(&["check-syntax", "-"], Some(Path::new(&stdin)));
    assert!(
        out.status.code().is_some_and(|c| c < 2),
        "{}",
        text(&out.stderr)
    );
    let answers: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), ids.len());
    ids.into_iter()
        .zip(answers)
        .map(|(id, a)| {
            let kind = a["kind"].as_str().unwrap_or("legal").to_owned();
            (id, a["legal"].as_bool().unwrap(), kind)
        })
        .collect()
}

fn syntax_lines(results: &[(String, bool, String)]) -> Vec<String> {
    results
        .iter()
        .map(|(id, ok, _)| serde_json::json!({"id": id, "accepted": ok}).to_string())
        .collect()
}

#[test]
fn a_wrong_engine_is_caught_at_every_planted_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut syntax = judged_syntax(dir.path());
    let mut semantic = exact_engine(Profile::PtxIsa);

    // Syntax: accept one illegal case, reject one legal one.
    let illegal = syntax.iter().position(|(_, ok, _)| !ok).unwrap();
    syntax[illegal].1 = true;
    let legal = syntax.iter().position(|(_, ok, _)| *ok).unwrap();
    syntax[legal].1 = false;
    // Semantic: flip one bit of one lane, drop one record, write into a null lane.
    let flip = evaluated()
        .iter()
        .position(|r| {
            r.id.starts_with("shfl.sync")
                && r.expected(Profile::PtxIsa).unwrap().d.as_ref().unwrap()[3]
                    .exact()
                    .is_some()
        })
        .unwrap();
    let d = semantic[flip].1.d.as_mut().unwrap();
    let b = d[3].unwrap();
    d[3] = Some(Bits::new(b.value ^ 0x100, b.width));
    let null_lane = evaluated()
        .iter()
        .position(|r| {
            r.id.starts_with("vote.sync")
                && r.expected(Profile::PtxIsa).unwrap().d.as_ref().unwrap()[31]
                    == Expectation::NotExecuted
        })
        .unwrap();
    semantic[null_lane].1.d.as_mut().unwrap()[31] = Some(Bits::new(1, 4));
    let dropped = evaluated()
        .iter()
        .position(|r| r.id.starts_with("red.add.noftz.f16#") && !r.id.ends_with("#0"))
        .unwrap();
    let dropped_id = semantic.remove(dropped).0;

    let syn = write(dir.path(), "s.jsonl", &syntax_lines(&syntax));
    let sem = write(dir.path(), "r.jsonl", &lines(&semantic));
    let json = dir.path().join("report.json");
    let out = ptxvec(
        &[
            "grade",
            "--syntax",
            &syn,
            "--semantic",
            &sem,
            "--json",
            json.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let got = failures(&json);
    let want = [
        ("syntax", syntax[illegal].0.clone(), "illegal case accepted"),
        ("syntax", syntax[legal].0.clone(), "legal case rejected"),
        (
            "semantic",
            evaluated()[flip].id.clone(),
            "d[3]: value not accepted",
        ),
        (
            "semantic",
            evaluated()[null_lane].id.clone(),
            "d[31]: a value in a lane that does not execute",
        ),
        ("semantic", dropped_id, "no result"),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (section, id, what) in want {
        assert!(
            got.iter()
                .any(|(s, i, w)| s == section && *i == id && w.starts_with(what)),
            "not caught: {section} {id} {what}\n{got:#?}"
        );
    }
    // The illegal case accepted is a class of its kind and rule, explained as
    // vectors/rules.json explains the rule its vector line names.
    let id = &syntax[illegal].0;
    let instruction = id.split('/').next().unwrap();
    let case: Value = crate::support::vector_text(ptxvec_generator::syntax::vectors::file_for(
        &repo_root().join("vectors"),
        instruction,
    ))
    .lines()
    .map(|l| serde_json::from_str::<Value>(l).unwrap())
    .find(|c| c["id"] == id.as_str())
    .unwrap();
    let rule = case["rule"].as_str().unwrap();
    let rules: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join("vectors/rules.json")).unwrap()).unwrap();
    let meaning = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["instruction"].as_str().map_or_else(
                || e["rule"] == rule || (e["rule"].as_str().unwrap().ends_with('.') && rule.starts_with(e["rule"].as_str().unwrap())),
                |i| i == instruction && e["rule"] == rule,
            )
        })
        .unwrap()["meaning"]
        .as_str()
        .unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let group = doc["sections"][0]["failure_groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["examples"][0] == id.as_str())
        .unwrap();
    assert_eq!(group["group"], format!("{} case accepted ({rule})", case["kind"].as_str().unwrap()));
    assert_eq!(group["explanation"], format!("`{rule}`: {meaning}"));
    // Every failure line of the summary names its id and how to reproduce it.
    let summary = text(&out.stdout);
    assert!(
        summary.contains(&format!("FAIL {}: ", syntax[legal].0)),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("ptxvec emit-ptx '{}'", syntax[legal].0)),
        "{summary}"
    );
    // A record's command writes that record alone (`<variant>#<n>`: `--records n`).
    let (variant, n) = evaluated()[flip].id.rsplit_once('#').unwrap();
    assert!(
        summary.contains(&format!(
            "  [ptxvec emit-ptx --variant {variant} --records {n}]\n"
        )),
        "{summary}"
    );
}

/// An assembler may accept and still say something (a warning): the message is read
/// beside `"accepted": true` and shown with the answer.
#[test]
fn a_message_beside_an_acceptance_is_read_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let syntax = judged_syntax(dir.path());
    let illegal = syntax.iter().position(|(_, ok, _)| !ok).unwrap();
    let legal = syntax.iter().position(|(_, ok, _)| *ok).unwrap();
    let mut lines = syntax_lines(&syntax);
    for (i, said) in [(illegal, "warning: odd"), (legal, "warning: fine")] {
        lines[i] =
            serde_json::json!({"id": syntax[i].0, "accepted": true, "message": said}).to_string();
    }
    let path = write(dir.path(), "s.jsonl", &lines);
    let out = ptxvec(&["grade", "--syntax", &path], None);
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{summary}{}", text(&out.stderr));
    assert!(
        summary.contains(&format!("FAIL {}: ", syntax[illegal].0)),
        "{summary}"
    );
    assert!(summary.contains("got accepted: warning: odd)"), "{summary}");
    assert_eq!(summary.matches("FAIL ").count(), 1, "{summary}");
}

#[test]
fn parser_mode_grades_legal_and_malformed_cases_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut syntax = judged_syntax(dir.path());
    // A grammar-only engine: it accepts every invalid case.
    let invalid: Vec<usize> = (0..syntax.len())
        .filter(|i| syntax[*i].2 == "invalid")
        .collect();
    assert!(invalid.len() > 100);
    invalid.iter().for_each(|i| syntax[*i].1 = true);
    let path = write(dir.path(), "s.jsonl", &syntax_lines(&syntax));
    let (out, j, x, h) = grade_with_reports(dir.path(), &["--parser", "--syntax"], &path);
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    // Graded: every case but the invalid ones it accepted, which are neither passed
    // nor failed, in every report.
    let (all, not_graded) = (syntax.len(), invalid.len());
    let graded = all - not_graded;
    assert!(
        summary.contains(&format!(
            ": {graded} graded, {graded} passed, 0 failed, {not_graded} not graded"
        )),
        "{summary}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(
        doc["sections"][0]["counts"],
        serde_json::json!({"graded": graded, "passed": graded, "failed": 0, "not_graded": not_graded})
    );
    let xml = std::fs::read_to_string(&x).unwrap();
    assert!(
        xml.contains(&format!(
            "<testsuites name=\"ptxvec grade\" tests=\"{all}\" failures=\"0\" errors=\"0\" skipped=\"{not_graded}\">"
        )),
        "{}",
        &xml[..300]
    );
    let html = std::fs::read_to_string(&h).unwrap();
    assert!(
        html.contains(&format!(
            "<p>{graded} graded: {graded} passed, 0 failed, {not_graded} not graded.</p>"
        )),
        "the page's counts"
    );
    let out = ptxvec(&["grade", "--syntax", &path], None);
    assert_eq!(out.status.code(), Some(1), "without --parser they fail");
    // Accepting a malformed case fails in parser mode too.
    let malformed = syntax.iter().position(|s| s.2 == "malformed").unwrap();
    syntax[malformed].1 = true;
    let path = write(dir.path(), "s.jsonl", &syntax_lines(&syntax));
    let out = ptxvec(&["grade", "--parser", "--syntax", &path], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

#[test]
fn results_for_some_variants_grade_those_and_name_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let results: Vec<_> = exact_engine(Profile::PtxIsa)
        .into_iter()
        .filter(|(id, _)| id.starts_with("vote.sync.ballot.b32#"))
        .collect();
    let path = write(dir.path(), "r.jsonl", &lines(&results));
    let (out, j, x, h) = grade_with_reports(dir.path(), &["--semantic"], &path);
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{summary}");
    // JUnit lists every variant not graded as a skipped test: the index's variants
    // but the one named.
    let variants = selfcheck::index(&repo_root().join("vectors")).unwrap();
    let rest: Vec<&str> = variants
        .iter()
        .map(|e| e.variant.as_str())
        .filter(|v| *v != "vote.sync.ballot.b32")
        .collect();
    // Each variant no result names, with its instruction (the first part of its
    // `spec` reference in index.json) and its records, as index.json gives them.
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    let want: Vec<Value> = variants
        .iter()
        .filter(|e| e.variant != "vote.sync.ballot.b32")
        .map(|e| {
            serde_json::json!({
                "instruction": e.spec[0].split('#').next().unwrap(),
                "name": e.variant,
                "cases": e.records,
            })
        })
        .collect();
    assert_eq!(doc["sections"][0]["not_graded"], Value::Array(want));
    // The summary leads with the verdict and the counts, and says what was not
    // graded as a count per instruction, not as the list: one line per
    // instruction, its variants and records, each line short.
    assert!(summary.starts_with("grade: passed\n  semantic (profile ptx-isa): "), "{summary}");
    assert!(summary.lines().all(|l| l.len() < 400), "{summary}");
    assert!(!summary.contains("red.add.f32"), "{summary}");
    let mut per_instruction = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for e in variants.iter().filter(|e| e.variant != "vote.sync.ballot.b32") {
        let n = per_instruction.entry(e.spec[0].split('#').next().unwrap()).or_default();
        n.0 += 1;
        n.1 += e.records;
    }
    assert!(
        summary.contains(&format!("not graded, no result names them ({} variants; ", rest.len())),
        "{summary}"
    );
    for (instruction, (n, records)) in &per_instruction {
        let line = summary
            .lines()
            .find(|l| l.starts_with(&format!("    {instruction} ")) && l.contains(" variants "))
            .unwrap_or_else(|| panic!("no not-graded line for {instruction}:\n{summary}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[1..], [n.to_string().as_str(), "variants", records.to_string().as_str(), "records"], "{line}");
    }
    // The page folds the list: a count in the summary, the names inside.
    let html = std::fs::read_to_string(&h).unwrap();
    let open = format!(
        "<details class=\"unnamed\"><summary>Not graded: {} variants with no result (<code>--all</code> requires them)</summary>",
        rest.len()
    );
    let at = html.find(&open).expect("a folded list");
    let end = at + html[at..].find("</details>").unwrap();
    assert!(html[at..end].contains("red.<wbr>add.<wbr>f32,"));
    assert!(!html[end..].contains("red.<wbr>add.<wbr>f32,"));
    assert!(!html[..at].contains("red.<wbr>add.<wbr>f32,"));
    let xml = std::fs::read_to_string(&x).unwrap();
    let skip = "<skipped message=\"not graded: no result names it (--all requires every one)\"/>";
    assert_eq!(xml.matches(skip).count(), rest.len(), "{xml}");
    for v in &rest {
        let case = format!("<testcase classname=\"ptxvec.semantic\" name=\"{v}\">\n      {skip}");
        assert!(xml.contains(&case), "no skipped test {v}");
    }
    let n = results.len();
    assert!(
        xml.contains(&format!(
            " tests=\"{}\" failures=\"0\" errors=\"0\" skipped=\"{}\">",
            n + rest.len(),
            rest.len()
        )),
        "{}",
        &xml[..300]
    );
    let out = ptxvec(&["grade", "--all", "--semantic", &path], None);
    assert_eq!(out.status.code(), Some(1), "--all requires every variant");

    // Syntax results for one instruction: the others are skipped tests.
    let activemask: Vec<String> =
        std::fs::read_to_string(repo_root().join("vectors/syntax/activemask.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let c: Value = serde_json::from_str(l).unwrap();
                let legal = c["verdict"] == "legal";
                serde_json::json!({"id": c["id"], "accepted": legal}).to_string()
            })
            .collect();
    let path = write(dir.path(), "s.jsonl", &activemask);
    let out = ptxvec(
        &["grade", "--syntax", &path, "--junit", x.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let xml = std::fs::read_to_string(&x).unwrap();
    // The other instructions, each one skipped test.
    let others = crate::support::spec().instructions.len() - 1;
    assert_eq!(xml.matches(skip).count(), others, "{xml}");
    assert!(
        xml.contains(&format!(
            "<testcase classname=\"ptxvec.syntax\" name=\"red\">\n      {skip}"
        )),
        "{xml}"
    );
}

/// A consumer that cannot run a record says so per record (`"skipped"`): the record
/// is not graded, its reason is in every report, and it is no failure.
#[test]
fn a_skipped_record_is_not_graded_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let ballot: Vec<_> = exact_engine(Profile::PtxIsa)
        .into_iter()
        .filter(|(id, _)| id.starts_with("vote.sync.ballot.b32#"))
        .collect();
    let mut results = lines(&ballot);
    let skipped = ["vote.sync.ballot.b32#1", "vote.sync.ballot.b32#2"];
    for id in skipped {
        let i = ballot.iter().position(|(r, _)| r == id).unwrap();
        results[i] = serde_json::json!({"id": id, "skipped": "no ballot here"}).to_string();
    }
    let path = write(dir.path(), "r.jsonl", &results);
    let (json, junit) = (dir.path().join("g.json"), dir.path().join("g.xml"));
    let out = ptxvec(
        &[
            "grade",
            "--semantic",
            &path,
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        None,
    );
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{summary}{}", text(&out.stderr));
    assert!(summary.contains(" 0 failed, 2 not graded"), "{summary}");
    assert!(
        summary.contains(
            "     2  skipped by the consumer: no ballot here (first: vote.sync.ballot.b32#1)"
        ),
        "{summary}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let reason = "skipped by the consumer: no ballot here";
    assert_eq!(
        doc["sections"][0]["not_graded_cases"],
        serde_json::json!([
            {"instruction": "vote.sync", "id": skipped[0], "reason": reason},
            {"instruction": "vote.sync", "id": skipped[1], "reason": reason},
        ])
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(
        xml.matches(&format!("<skipped message=\"{reason}\"/>"))
            .count(),
        2,
        "{xml}"
    );

    // Outputs and a reason not to give them, in one line: bad input.
    let i = ballot.iter().position(|(r, _)| r == skipped[0]).unwrap();
    results[i] =
        serde_json::json!({"id": skipped[0], "skipped": "no", "outputs": ballot[i].1}).to_string();
    let path = write(dir.path(), "r.jsonl", &results);
    let out = ptxvec(&["grade", "--semantic", &path], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "{path}:{}:1: \"outputs\" and \"skipped\" in one line",
            i + 1
        )),
        "{err}"
    );
}

/// Results that grade nothing do not pass: an empty file, a file of skips only, a
/// folder with no raw buffer, each alone and in every report.
#[test]
fn results_that_grade_nothing_fail() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.jsonl", &[]);
    // Every case (record) of activemask, each skipped.
    let skip_all = |file: &str| -> Vec<String> {
        crate::support::vector_text(repo_root().join(file))
            .lines()
            .map(|l| {
                let id = serde_json::from_str::<Value>(l).unwrap()["id"].clone();
                serde_json::json!({"id": id, "skipped": "no activemask"}).to_string()
            })
            .collect()
    };
    let skips = write(
        dir.path(),
        "skips.jsonl",
        &skip_all("vectors/semantic/activemask.b32.jsonl.gz"),
    );
    let syntax_skips = write(
        dir.path(),
        "syntax-skips.jsonl",
        &skip_all("vectors/syntax/activemask.jsonl"),
    );
    let raw = dir.path().join("raw");
    std::fs::create_dir(&raw).unwrap();
    let raw = raw.display().to_string();
    for args in [
        &["--syntax", &empty][..],
        &["--syntax", &syntax_skips][..],
        &["--parser", "--syntax", &empty][..],
        &["--semantic", &empty][..],
        &["--semantic", &skips][..],
        &["--raw", &raw][..],
    ] {
        let mut all = vec!["grade"];
        all.extend_from_slice(args);
        let out = ptxvec(&all, None);
        let summary = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {summary}{}",
            text(&out.stderr)
        );
        assert!(
            summary.contains(": 0 graded, 0 passed, 0 failed, "),
            "{args:?}: {summary}"
        );
        assert!(
            summary.contains("  0 graded: results that grade nothing do not pass"),
            "{args:?}: {summary}"
        );
        assert!(summary.ends_with("grade: FAILED\n"), "{args:?}: {summary}");
    }
    // Each report says so: JSON does not pass, JUnit has a failing test.
    let (j, x) = (dir.path().join("g.json"), dir.path().join("g.xml"));
    let out = ptxvec(
        &[
            "grade",
            "--semantic",
            &empty,
            "--json",
            j.to_str().unwrap(),
            "--junit",
            x.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    assert_eq!(doc["passed"], false);
    let xml = std::fs::read_to_string(&x).unwrap();
    assert!(xml.contains(" tests=\"1\" failures=\"1\" "), "{xml}");
    assert!(xml.contains("<failure message=\"0 graded: "), "{xml}");
    // Next to results that grade something, one that grades nothing still fails.
    let one: Vec<_> = exact_engine(Profile::PtxIsa)
        .into_iter()
        .filter(|(id, _)| id.starts_with("vote.sync.ballot.b32#"))
        .collect();
    let good = write(dir.path(), "good.jsonl", &lines(&one));
    let out = ptxvec(&["grade", "--semantic", &good], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = ptxvec(&["grade", "--semantic", &good, "--syntax", &empty], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
}

// ------------------------------------------------------------ raw buffers

#[test]
fn raw_buffers_are_judged_with_the_same_evaluator() {
    let spec = Spec::load(&crate::spec_root()).unwrap();
    let vectors = repo_root().join("vectors");
    let dir = tempfile::tempdir().unwrap();
    let index = selfcheck::index(&vectors).unwrap();
    let mut written = 0;
    for id in ["red.add.f32", "shfl.sync.idx.b32"] {
        let entry = index.iter().find(|e| e.variant == id).unwrap();
        let stem = &ptxvec_generator::record::index::stem(&entry.variant);
        let suite = selfcheck::load(&spec, entry, &vectors).unwrap();
        let mut windows = vec![None];
        windows.extend(suite.windows().into_iter().map(Some));
        for w in windows {
            let s = suite
                .in_window(w.unwrap_or(selfcheck::Window::Global))
                .unwrap();
            // What keeps the sm_90 expectations, lanes that do not execute left 0.
            let vals: Vec<Option<raw::Values>> = s
                .records
                .iter()
                .enumerate()
                .map(|(n, r)| {
                    (!selfcheck::skipped(r)).then(|| {
                        s.outputs()
                            .iter()
                            .map(|(o, width)| {
                                s.slots(r, Profile::Sm90, *o)
                                    .iter()
                                    .enumerate()
                                    .map(|(k, e)| keep(e, *width, n, k).map_or(0, |b| b.value))
                                    .collect()
                            })
                            .collect()
                    })
                })
                .collect();
            let name = match w {
                Some(w) => format!("{stem}.{}.bin", w.name()),
                None => format!("{stem}.bin"),
            };
            std::fs::write(dir.path().join(name), raw::encode(&s, &vals)).unwrap();
            written += 1;
        }
    }
    assert_eq!(written, 1 + 4 + 1, "red.add.f32 runs in four windows");
    let d = dir.path().display().to_string();
    let out = ptxvec(&["grade", "--profile", "sm_90", "--raw", &d], None);
    let summary = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{summary}{}", text(&out.stderr));
    assert!(summary.contains(" 0 failed, "), "{summary}");

    // One flipped bit in the shared window's buffer, record 0, element 0.
    let shared = dir.path().join("red.add.f32.shared.bin");
    let mut bytes = std::fs::read(&shared).unwrap();
    bytes[0] ^= 0x40;
    std::fs::write(&shared, &bytes).unwrap();
    let json = dir.path().join("report.json");
    let out = ptxvec(
        &[
            "grade",
            "--profile",
            "sm_90",
            "--raw",
            &d,
            "--json",
            json.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert_eq!(
        failures(&json),
        [(
            "raw".to_owned(),
            "red.add.f32#0".to_owned(),
            "mem[0]: value not accepted".to_owned()
        )]
    );
    // Its command writes record 0 alone, in the window whose buffer it is.
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        doc["sections"][0]["failures"][0]["reproduce"],
        "ptxvec emit-ptx --variant red.add.f32 --records 0 --window shared"
    );
    // A buffer of the wrong size fails every record of that run.
    std::fs::write(&shared, &bytes[..bytes.len() - 1]).unwrap();
    let out = ptxvec(&["grade", "--profile", "sm_90", "--raw", &d], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("buffer of the wrong size"));
}

// ---------------------------------------------------------------- reports

/// The first vote.sync record whose lane 31 does not execute.
fn vote_lane_31_idle() -> usize {
    evaluated()
        .iter()
        .position(|r| {
            r.id.starts_with("vote.sync")
                && r.expected(Profile::PtxIsa).unwrap().d.as_ref().unwrap()[31]
                    == Expectation::NotExecuted
        })
        .unwrap()
}

/// Grades a wrong engine into every report format, in `dir`.
fn reports(dir: &Path) -> (String, String, String, String) {
    let mut semantic = exact_engine(Profile::PtxIsa);
    // A value in lane 31 of a vote.sync record where that lane does not execute.
    let vote = vote_lane_31_idle();
    semantic[vote].1.d.as_mut().unwrap()[31] = Some(Bits::new(1, 4));
    let red = semantic
        .iter()
        .position(|(id, _)| id.starts_with("red.add.u32#"))
        .unwrap();
    semantic[red].1.mem.as_mut().unwrap()[0] = Some(Bits::new(0xdead, 32));
    let sem = write(dir, "r.jsonl", &lines(&semantic));
    let syntax = judged_syntax(dir);
    let mut syntax = syntax;
    syntax[0].1 = !syntax[0].1;
    let syn = write(dir, "s.jsonl", &syntax_lines(&syntax));
    let (j, x, h) = (dir.join("g.json"), dir.join("g.xml"), dir.join("g.html"));
    let out = ptxvec(
        &[
            "grade",
            "--syntax",
            &syn,
            "--semantic",
            &sem,
            "--json",
            j.to_str().unwrap(),
            "--junit",
            x.to_str().unwrap(),
            "--html",
            h.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    (text(&out.stdout), read(&j), read(&x), read(&h))
}

#[test]
fn reports_are_deterministic_and_complete() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = reports(a.path());
    let second = reports(b.path());
    // The results files' names differ; nothing else may.
    let strip = |s: &str, d: &Path| s.replace(&d.display().to_string(), "DIR");
    assert_eq!(strip(&first.0, a.path()), strip(&second.0, b.path()));
    assert_eq!(first.1, second.1, "json");
    assert_eq!(first.2, second.2, "junit");
    assert_eq!(first.3, second.3, "html");
    let (_, json, junit, html) = first;
    let doc: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["format"], "ptxvec-grade/3");
    assert_eq!(doc["passed"], false);
    // A failure's inputs are JSON, not text: a record's as its vector file writes
    // them, a syntax case's module as the case's `ptx` and `target`.
    let index = selfcheck::index(&repo_root().join("vectors")).unwrap();
    let vector_line = |file: PathBuf, id: &str| -> Value {
        crate::support::vector_text(file)
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|v| v["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
    };
    let mut seen = 0;
    for sec in doc["sections"].as_array().unwrap() {
        for f in sec["failures"].as_array().unwrap() {
            let id = f["id"].as_str().unwrap();
            let want = if sec["name"] == "syntax" {
                let instruction = f["instruction"].as_str().unwrap();
                let file = ptxvec_generator::syntax::vectors::file_for(
                    &repo_root().join("vectors"),
                    instruction,
                );
                let case = vector_line(file, id);
                serde_json::json!({"ptx": case["ptx"], "target": case["target"]})
            } else {
                let variant = id.split('#').next().unwrap();
                let entry = index.iter().find(|e| e.variant == variant).unwrap();
                let file = repo_root().join("vectors").join(&entry.file);
                vector_line(file, id)["inputs"].clone()
            };
            assert!(want.is_object(), "{want}");
            assert_eq!(f["inputs"], want, "{id}");
            seen += 1;
        }
    }
    assert_eq!(seen, 3);
    // JUnit: the totals add up, three failures, a suite per section and instruction.
    assert!(junit.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"ptxvec grade\""
    ));
    assert!(junit.contains(" failures=\"3\" "), "{}", &junit[..300]);
    assert_eq!(junit.matches("<failure ").count(), 3);
    for name in [
        "syntax: red",
        "semantic: red",
        "semantic: vote.sync",
        "syntax: shfl.sync",
    ] {
        assert!(
            junit.contains(&format!("<testsuite name=\"{name}\"")),
            "no suite {name}"
        );
    }
    assert_eq!(
        junit.matches("<testsuite ").count(),
        junit.matches("</testsuite>").count()
    );
    // HTML: one page, nothing fetched from elsewhere.
    for outside in ["http:", "https:", "<script", "<link", "src="] {
        assert!(
            !html.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    assert_eq!(html.matches("<tr class=\"failed\">").count(), 3);
    // Every bit pattern on the page is kept whole (a span that does not wrap).
    assert!(html.contains(".v{font-family:monospace;white-space:nowrap}"));
    assert!(!html.contains("break-all"));
    assert!(html.contains("<span class=\"v\">0x0000dead</span>"));
    let bytes = html.as_bytes();
    let mut patterns = 0;
    for (i, _) in html.match_indices("0x") {
        if bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
            && !bytes[..i].last().is_some_and(u8::is_ascii_alphanumeric)
        {
            patterns += 1;
            assert!(
                html[..i].ends_with("<span class=\"v\">"),
                "a bit pattern that may break: {}",
                &html[i.saturating_sub(80)..i + 12]
            );
        }
    }
    assert!(patterns >= 5, "{patterns} patterns");
    // The vote.sync record's inputs: the lane whose output failed, lane 31, in a
    // table of its own, worked out from the record's inputs as the vector file
    // writes them (a member that does not execute has exited).
    let vote = &evaluated()[vote_lane_31_idle()];
    let file = crate::support::vector_text(repo_root().join(format!(
        "vectors/semantic/{}.jsonl.gz",
        vote.id.split('#').next().unwrap()
    )));
    let line: Value = file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == vote.id.as_str())
        .unwrap();
    let mask = |key: &str| {
        line["inputs"][key]
            .as_str()
            .map_or(0, |h| u64::from_str_radix(&h[2..], 16).unwrap())
    };
    let (member, executes) = (mask("membermask") >> 31 & 1, mask("executing") >> 31 & 1);
    let exited = (member & (executes ^ 1)) | (mask("exited") >> 31 & 1);
    let yes = |b: u64| if b == 1 { "yes" } else { "no" };
    let row = format!(
        "<tr><td>31</td><td>{}</td><td>{}</td><td>{}</td><td><span class=\"v\">{}</span></td></tr></table>",
        yes(member),
        yes(executes),
        yes(exited),
        line["inputs"]["a"][31].as_str().unwrap()
    );
    let at = html
        .find(&format!(
            "<td class=\"code id\">{}",
            vote.id.replace('.', ".<wbr>")
        ))
        .expect("the vote.sync row");
    let cell = &html[at..at + html[at..].find("</tr>\n").unwrap()];
    assert!(
        cell.contains("<table class=\"lanes\"><caption>Lanes whose output failed"),
        "{cell}"
    );
    assert!(cell.contains(&row), "no {row} in {cell}");
    assert_eq!(
        cell.matches("<tr><td>").count(),
        2,
        "one failure row, one lane: {cell}"
    );
}

#[test]
#[cfg_attr(
    not(chromium),
    ignore = "needs chromium: apt-get install -y chromium, or set PTXVEC_CHROMIUM (generator/build.rs)"
)]
fn the_html_report_opens_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, _, _) = reports(dir.path());
    let browser = std::env::var("PTXVEC_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let page = dir.path().join("g.html");
    // --no-sandbox: CI and this test run as root, where chromium refuses its sandbox.
    let out = Command::new(&browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap_or_else(|e| panic!("{browser}: {e}"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dom = text(&out.stdout);
    let spec = Spec::load(&crate::spec_root()).unwrap();
    for section in ["syntax", "semantic"] {
        for f in &spec.instructions {
            let id = ptxvec_generator::grade::html::anchor(section, &f.instruction.instruction);
            assert!(
                dom.contains(&format!("<table id=\"{id}\"")),
                "no table {id} in the DOM"
            );
        }
    }
    assert_eq!(
        dom.matches("<tr class=\"failed\">").count(),
        3,
        "failure rows in the DOM"
    );
    assert!(
        dom.contains("red.<wbr>add.<wbr>u32#"),
        "the red failure's id"
    );
    assert!(
        dom.contains("<span class=\"v\">0x0000dead</span>"),
        "the red failure's got"
    );
    assert!(
        dom.contains("<table class=\"lanes\"><caption>Lanes whose output failed"),
        "the vote.sync record's lanes"
    );
}

/// The client adapters kept under clients/ take their client from crates.io: none
/// builds fetched source (a `path` or `git` dependency), and every adapter folder
/// the docs name (`` `clients/<name>/` ``) exists.
#[test]
fn client_adapters_build_no_fetched_code() {
    let root = repo_root();
    let mut adapters = 0;
    for e in std::fs::read_dir(root.join("clients")).unwrap() {
        let manifest = e.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        adapters += 1;
        for (n, line) in text.lines().enumerate() {
            let code = line.split('#').next().unwrap();
            assert!(
                !code.contains("path =") && !code.contains("git ="),
                "{}:{}: a dependency on fetched source: {line}",
                manifest.display(),
                n + 1
            );
        }
    }
    assert!(adapters >= 1, "no adapter under clients/");
    let mut docs = vec![root.join("README.md"), root.join("vectors/README.md")];
    docs.extend(crate::readme::markdown_files(&root.join("docs")));
    for e in std::fs::read_dir(root.join("vectors/clients")).unwrap() {
        let p = e.unwrap().path();
        docs.push(if p.is_dir() { p.join("README.md") } else { p });
    }
    for doc in docs
        .iter()
        .filter(|d| d.extension().is_some_and(|x| x == "md"))
    {
        let text = std::fs::read_to_string(doc).unwrap();
        for (i, _) in text.match_indices("`clients/") {
            let name: String = text[i + 9..]
                .chars()
                .take_while(|c| *c != '/' && *c != '`')
                .collect();
            // `clients/` alone, or `clients/README.md` (a file
            // beside it), names no adapter.
            if name.is_empty() || name.contains('.') {
                continue;
            }
            assert!(
                root.join("clients").join(&name).is_dir(),
                "{} names clients/{name}/, which does not exist",
                doc.display()
            );
        }
    }
}

/// docs/conformance.md's syntax table is what grading the recorded clients
/// (vectors/clients/*/syntax.jsonl) against the current vectors gives: a change to
/// the vectors, or to a client's results, shows at once as a change of this table.
#[test]
fn the_syntax_conformance_table_is_current() {
    let root = crate::spec_root().join("..");
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let want = ptxvec_generator::grade::conformance::table(
        &spec,
        &root.join("vectors"),
        &root.join("vectors/clients"),
    )
    .unwrap();
    let readme = std::fs::read_to_string(root.join("docs/conformance.md")).unwrap();
    let (begin, end) = ("<!-- conformance -->\n", "<!-- /conformance -->");
    let start = readme.find(begin).expect("a conformance table in docs/conformance.md") + begin.len();
    let len = readme[start..].find(end).expect("its end marker");
    assert!(
        readme[start..start + len] == want,
        "docs/conformance.md's conformance table is stale; it is now:\n{want}"
    );
}

/// A contention record's `d` given as every thread's value: the listed values in
/// another order pass, one thread finding what another found fails at that slot,
/// and one thread's value alone passes where it is listed (docs/formats.md's
/// `permutation` row). An empty list is a bad line, named by its column.
#[test]
fn a_permutation_slot_takes_every_threads_value() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = "atom.add.u32#";
    let results: Vec<_> = exact_engine(Profile::PtxIsa)
        .into_iter()
        .filter(|(id, _)| id.starts_with(prefix))
        .collect();
    let contended: Vec<&Record> = evaluated()
        .iter()
        .filter(|r| r.id.starts_with(prefix) && matches!(r.inputs, ptxvec_generator::record::Inputs::Contention { .. }))
        .collect();
    assert_eq!(contended.len(), 2);
    let listed = |r: &Record| -> Vec<String> {
        match &r.expected(Profile::PtxIsa).unwrap().d.as_ref().unwrap()[0] {
            Expectation::Permutation(bits) => bits.iter().map(Bits::to_string).collect(),
            e => panic!("{}: {e:?}", r.id),
        }
    };
    let mut answers = lines(&results);
    let line_of = |id: &str| results.iter().position(|(i, _)| i == id).unwrap();
    let with_d = |r: &Record, d: serde_json::Value| {
        let mem = r.expected(Profile::PtxIsa).unwrap().mem.as_ref().unwrap()[0].clone();
        serde_json::json!({"id": r.id, "outputs": {"d": [d], "mem": [mem]}}).to_string()
    };
    // The first: the list reversed. The second: thread 31 finds thread 0's value.
    let mut reversed = listed(contended[0]);
    reversed.reverse();
    answers[line_of(&contended[0].id)] = with_d(contended[0], serde_json::json!(reversed));
    let mut doubled = listed(contended[1]);
    assert_ne!(doubled[0], doubled[31], "an add finds a new value each time");
    doubled[31] = doubled[0].clone();
    answers[line_of(&contended[1].id)] = with_d(contended[1], serde_json::json!(doubled));
    let path = write(dir.path(), "r.jsonl", &answers);
    let json = dir.path().join("report.json");
    let out = ptxvec(&["grade", "--semantic", &path, "--json", json.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let got = failures(&json);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].1, contended[1].id);
    assert!(got[0].2.starts_with("d[0]: the threads' values are not the listed ones"), "{got:?}");
    // One thread's value alone keeps the slot: exact_engine's lines, as they were.
    let path = write(dir.path(), "one.jsonl", &lines(&results));
    let out = ptxvec(&["grade", "--semantic", &path], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // An empty list: a bad line, at the list's column.
    let bad = format!(r#"{{"id":"{}","outputs":{{"d":[[]],"mem":["0x00000000"]}}}}"#, contended[1].id);
    let path = write(dir.path(), "bad.jsonl", &[bad]);
    let out = ptxvec(&["grade", "--semantic", &path], None);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let column = r#"{"id":"","outputs":{"d":["#.len() + contended[1].id.len() + 1;
    assert!(text(&out.stderr).contains(&format!("bad.jsonl:1:{column}: expected a bit pattern, or a list")), "{}", text(&out.stderr));
}

/// vectors/grade-report.schema.json is the schema of the report this build
/// writes: its `format`, and at the top and in each section exactly the keys the
/// report has, each required (the schema allows no other). CI validates every
/// report the tests keep (`PTXVEC_REPORTS_DIR`) against it in full.
#[test]
fn the_grade_report_schema_is_this_formats() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("vectors/grade-report.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["properties"]["format"]["const"], ptxvec_generator::grade::report::JSON_FORMAT);
    let dir = tempfile::tempdir().unwrap();
    let (_, json, _, _) = reports(dir.path());
    let doc: Value = serde_json::from_str(&json).unwrap();
    let keys = |v: &Value| -> BTreeSet<String> { v.as_object().unwrap().keys().cloned().collect() };
    let required = |v: &Value| -> BTreeSet<String> {
        v["required"].as_array().unwrap().iter().map(|k| k.as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(keys(&doc), required(&schema));
    assert_eq!(keys(&schema["properties"]), required(&schema));
    assert_eq!(schema["additionalProperties"], false);
    let section = &schema["$defs"]["section"];
    for s in doc["sections"].as_array().unwrap() {
        assert_eq!(keys(s), required(section));
    }
    assert_eq!(keys(&section["properties"]), required(section));
    assert_eq!(section["additionalProperties"], false);
}
