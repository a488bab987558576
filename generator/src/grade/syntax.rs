//! Grading syntax results against vectors/syntax: a legal case must be accepted, an
//! illegal one rejected. In parser mode (a grammar-only consumer) an `invalid` case
//! it accepts is not graded: telling it apart takes the tables and rules, not the
//! grammar.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ptxvec_spec::Spec;

use super::failure::Failure;
use super::report::{CaseInputs, Section, Status, TestCase, Unnamed};
use super::results::{Answer, BadLine, ById, Line, SyntaxResult};
use crate::error::{Error, Result};
use crate::record::position::char_column;
use crate::syntax::case::{Case, Verdict};
use crate::syntax::defect::Kind;

/// The instruction name reports use for ids the vectors do not hold.
pub const UNKNOWN: &str = "(unknown)";

/// Every case of vectors/syntax, per instruction in spec order, as the files hold them.
pub fn load(spec: &Spec, vectors: &Path) -> Result<Vec<(String, Vec<Case>)>> {
    let mut out = Vec::new();
    for f in &spec.instructions {
        let name = &f.instruction.instruction;
        let path = crate::syntax::vectors::file_for(vectors, name);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let mut cases = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let case: Case = serde_json::from_str(line).map_err(|e| {
                Error::Input(format!(
                    "{}:{}:{}: {}",
                    path.display(),
                    i + 1,
                    // serde_json counts bytes; the project's columns count characters.
                    char_column(line, e.column().saturating_sub(1)),
                    crate::record::strip_position(&e)
                ))
            })?;
            cases.push(case);
        }
        out.push((name.clone(), cases));
    }
    Ok(out)
}

/// How a syntax consumer is graded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// Grammar only: accepting an `invalid` case is not graded.
    pub parser: bool,
    /// Every instruction is required, not only those the results name.
    pub all: bool,
}

fn kind_name(c: &Case) -> &'static str {
    match (c.verdict, c.kind) {
        (Verdict::Legal, _) => "legal",
        (Verdict::Illegal, Some(Kind::Malformed)) => "malformed",
        (Verdict::Illegal, _) => "invalid",
    }
}

/// Grades `results` (and `bad`, the lines of the same file that could not be read)
/// against the cases: one test case per case of every graded instruction, then one
/// per unknown id.
pub fn grade(
    vectors: &[(String, Vec<Case>)],
    results: &[Line<SyntaxResult>],
    bad: &[BadLine],
    mode: Mode,
) -> Section {
    let by_id = ById::new(results, bad);
    let mut known = BTreeSet::new();
    let mut cases = Vec::new();
    let mut not_graded = Vec::new();
    for (instruction, list) in vectors {
        list.iter().for_each(|c| {
            known.insert(c.id.as_str());
        });
        let named = list.iter().any(|c| by_id.names(&c.id));
        if !named && !mode.all {
            not_graded.push(Unnamed {
                instruction: instruction.clone(),
                name: instruction.clone(),
                cases: list.len(),
                not_run: None,
            });
            continue;
        }
        for c in list {
            cases.push(grade_case(instruction, c, &by_id, mode));
        }
    }
    for (id, at) in by_id.unknown(&known) {
        cases.push(unknown(id, &at));
    }
    Section {
        name: "syntax",
        mode: format!(
            "{}{}",
            if mode.parser {
                "parser: legal and malformed cases"
            } else {
                "full"
            },
            if mode.all { ", every instruction" } else { "" }
        ),
        cases,
        not_graded,
        explained: BTreeMap::new(),
    }
}

fn grade_case(instruction: &str, c: &Case, by_id: &ById<'_, SyntaxResult>, mode: Mode) -> TestCase {
    let kind = kind_name(c);
    let mut groups = BTreeMap::new();
    groups.insert("kind", kind.to_owned());
    groups.insert("form", format!("{instruction}/{}", c.form));
    if let Some(rule) = &c.rule {
        groups.insert("rule", rule.to_string());
    }
    let expected = match kind {
        "legal" => "accepted (legal)".to_owned(),
        k => format!("rejected ({k}: {})", c.rule.as_ref().map(ToString::to_string).unwrap_or_default()),
    };
    let mut failures = Vec::new();
    let mut not_graded = None;
    if !by_id.names(&c.id) {
        failures.push(Failure {
            what: "no result".to_owned(),
            expected: expected.clone(),
            got: "nothing".to_owned(),
            slot: None,
        });
    }
    if let Some(first) = by_id.answer(&c.id, &mut failures) {
        let (accepted, got) = match &first.value.answer {
            Answer::Accepted(m) => (true, said("accepted", m)),
            Answer::Rejected(m) => (false, said("rejected", m)),
            Answer::Skipped(why) => {
                not_graded = Some(format!("skipped by the consumer: {why}"));
                (c.verdict == Verdict::Legal, String::new())
            }
        };
        let wanted = c.verdict == Verdict::Legal;
        if accepted != wanted {
            if mode.parser && kind == "invalid" {
                not_graded = Some("invalid, accepted: a grammar-only consumer is not asked to reject it (--parser)".to_owned());
            } else {
                let what = if wanted {
                    "legal case rejected"
                } else {
                    "illegal case accepted"
                };
                failures.push(Failure {
                    what: format!("{what} (line {})", first.line),
                    expected,
                    got,
                    slot: None,
                });
            }
        }
    }
    let status = match (&failures[..], &not_graded) {
        ([], None) => Status::Passed,
        ([], Some(_)) => Status::NotGraded,
        _ => Status::Failed,
    };
    TestCase {
        instruction: instruction.to_owned(),
        id: c.id.clone(),
        window: None,
        groups,
        status,
        not_graded,
        failures,
        text: c.text.clone(),
        inputs: CaseInputs::Module {
            ptx: c.ptx.to_string(),
            target: c.target.to_string(),
        },
        source: match &c.source.quote {
            Some(q) => format!("{}: \"{q}\"", c.source.cite),
            None => c.source.cite.clone(),
        },
        reproduce: format!("ptxvec emit-ptx '{}'", c.id),
    }
}

/// An answer as the reports show it: `accepted` or `rejected`, and what the
/// consumer said with it.
fn said(answer: &str, message: &Option<String>) -> String {
    match message {
        Some(m) => format!("{answer}: {m}"),
        None => answer.to_owned(),
    }
}

/// A test case for an id the vectors do not hold, given on `lines`.
pub fn unknown(id: &str, lines: &[String]) -> TestCase {
    TestCase {
        instruction: UNKNOWN.to_owned(),
        id: id.to_owned(),
        window: None,
        groups: BTreeMap::new(),
        status: Status::Failed,
        not_graded: None,
        failures: vec![Failure {
            what: format!("unknown id (line {})", lines.join(", ")),
            expected: "an id of the vectors".to_owned(),
            got: id.to_owned(),
            slot: None,
        }],
        text: String::new(),
        inputs: CaseInputs::None,
        source: String::new(),
        reproduce: "ptxvec grade --vectors DIR: is DIR the vectors the results answer?".to_owned(),
    }
}
