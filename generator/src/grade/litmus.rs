//! `ptxvec grade --litmus`: grades the outcome histograms an engine reports for the
//! litmus tests against their records (vectors/litmus.jsonl.gz).
//!
//! A results line is `{"id": <test id>, "outcomes": [{"regs": {"1:r0": 1, ...},
//! "mem": {"x": 1, ...}, "count": N}, ...]}`: the outcomes seen, keyed as the
//! record's `observed` lists them (`crate::litmus`'s key format), each
//! with how many runs ended in it. Lines of one id add up.
//!
//! Per test: *fail* when an outcome seen is not allowed, naming the axioms that
//! forbid it (or saying that no candidate execution gives it at all: a value no
//! write wrote); else *pass*, and then which weak outcomes (allowed, yet given by
//! no sequentially consistent interleaving) were seen. A test that allows weak
//! outcomes and showed none is reported so: it passed without showing that the
//! engine is weak, which says nothing of the weak case.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::litmus::record::Record;

use super::results::{refuse_list, BadLine, Line, LineError, ResultLine};

/// One outcome an engine saw.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seen {
    /// Register key to value.
    pub regs: BTreeMap<String, u32>,
    /// Location key to final value.
    pub mem: BTreeMap<String, u32>,
    /// How many runs ended so.
    pub count: u64,
}

/// One line of litmus results.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LitmusResult {
    /// The test id.
    pub id: String,
    /// The outcomes seen.
    pub outcomes: Vec<Seen>,
}

impl ResultLine for LitmusResult {
    fn read(line: &str) -> std::result::Result<Self, LineError> {
        refuse_list(line)?;
        serde_json::from_str(line).map_err(|e| LineError::json(line, &e))
    }

    fn id(&self) -> &str {
        &self.id
    }
}

/// The records of `vectors/litmus.jsonl.gz` in `dir`, by id.
pub fn load(dir: &Path) -> Result<BTreeMap<String, Record>> {
    let path = dir.join(crate::vectors::generate::LITMUS_FILE);
    let text = crate::io::gz::read_text(&path, 1 << 30)?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let r: Record = serde_json::from_str(line).map_err(|e| {
            let at = LineError::json(line, &e);
            Error::Input(format!("{}:{}:{}: {}", path.display(), i + 1, at.column, at.message))
        })?;
        out.insert(r.id.clone(), r);
    }
    Ok(out)
}

/// How one observed outcome stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Allowed and given by some interleaving.
    Sc,
    /// Allowed, and no interleaving gives it.
    Weak,
    /// Forbidden, by these axioms.
    Forbidden(Vec<String>),
    /// No candidate execution gives it.
    Impossible,
}

/// One test's grade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestGrade {
    /// The test id.
    pub id: String,
    /// Runs reported.
    pub runs: u64,
    /// Each outcome seen (count > 0), its key text, count and standing.
    pub seen: Vec<(String, u64, Standing)>,
    /// How many weak outcomes the test allows.
    pub weak_allowed: usize,
}

impl TestGrade {
    /// Whether every outcome seen is allowed.
    pub fn passed(&self) -> bool {
        self.seen.iter().all(|(_, _, s)| matches!(s, Standing::Sc | Standing::Weak))
    }

    /// The weak outcomes seen.
    pub fn weak_seen(&self) -> Vec<&str> {
        self.seen.iter().filter(|(_, _, s)| *s == Standing::Weak).map(|(k, _, _)| k.as_str()).collect()
    }
}

/// An outcome by its keys: registers, then memory.
type OutcomeKey = (BTreeMap<String, u32>, BTreeMap<String, u32>);

/// `regs` and `mem` as one line: `1:r0=1 1:r1=0 | x=1 y=1`.
fn key_text(regs: &BTreeMap<String, u32>, mem: &BTreeMap<String, u32>) -> String {
    let r: Vec<String> = regs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let m: Vec<String> = mem.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} | {}", r.join(" "), m.join(" "))
}

/// Grades `lines` (read from the file `name`) against `records`. A line naming no
/// test, or an outcome whose keys are not the test's, is a bad line, pushed onto
/// `bad`; the other lines are graded.
pub fn grade(records: &BTreeMap<String, Record>, name: &str, lines: &[Line<LitmusResult>], bad: &mut Vec<BadLine>) -> Vec<TestGrade> {
    let mut counts: BTreeMap<&str, BTreeMap<OutcomeKey, u64>> = BTreeMap::new();
    for l in lines {
        let r = &l.value;
        let Some(rec) = records.get(&r.id) else {
            bad.push(BadLine {
                file: name.to_owned(),
                line: l.line,
                column: 1,
                message: format!("no litmus test has the id {:?} (the ids of vectors/litmus.jsonl.gz)", r.id),
                id: Some(r.id.clone()),
            });
            continue;
        };
        let regs: BTreeSet<&String> = rec.observed.regs.iter().collect();
        let mem: BTreeSet<&String> = rec.observed.mem.iter().collect();
        let wrong = r.outcomes.iter().position(|o| o.regs.keys().collect::<BTreeSet<_>>() != regs || o.mem.keys().collect::<BTreeSet<_>>() != mem);
        if let Some(k) = wrong {
            bad.push(BadLine {
                file: name.to_owned(),
                line: l.line,
                column: 1,
                message: format!(
                    "outcome {} of {}: expected the registers {:?} and the locations {:?}, as the record's `observed` lists them",
                    k + 1,
                    r.id,
                    rec.observed.regs,
                    rec.observed.mem
                ),
                id: Some(r.id.clone()),
            });
            continue;
        }
        let entry = counts.entry(rec.id.as_str()).or_default();
        for o in &r.outcomes {
            *entry.entry((o.regs.clone(), o.mem.clone())).or_insert(0) += o.count;
        }
    }
    counts
        .into_iter()
        .filter_map(|(id, seen)| {
            let rec = records.get(id)?;
            let standing = |regs: &BTreeMap<String, u32>, mem: &BTreeMap<String, u32>| {
                if let Some(a) = rec.allowed.iter().find(|a| a.regs == *regs && a.mem == *mem) {
                    return if a.weak { Standing::Weak } else { Standing::Sc };
                }
                match rec.forbidden.iter().find(|f| f.regs == *regs && f.mem == *mem) {
                    Some(f) => Standing::Forbidden(f.axioms.clone()),
                    None => Standing::Impossible,
                }
            };
            Some(TestGrade {
                id: id.to_owned(),
                runs: seen.values().sum(),
                seen: seen
                    .iter()
                    .filter(|(_, n)| **n > 0)
                    .map(|((regs, mem), n)| (key_text(regs, mem), *n, standing(regs, mem)))
                    .collect(),
                weak_allowed: rec.allowed.iter().filter(|a| a.weak).count(),
            })
        })
        .collect()
}

/// The report: a line per test, then the totals.
pub fn render(grades: &[TestGrade], tests: usize) -> String {
    let mut out = String::new();
    for g in grades {
        let verdict = if g.passed() { "pass" } else { "FAIL" };
        let weak = g.weak_seen();
        let note = if !g.passed() {
            String::new()
        } else if g.weak_allowed == 0 {
            "; no weak outcome allowed".to_owned()
        } else if weak.is_empty() {
            format!("; no weak outcome seen ({} allowed): the weak case is untested", g.weak_allowed)
        } else {
            format!("; weak seen: {}", weak.join(", "))
        };
        let _ = writeln!(out, "{verdict} {} ({} runs){note}", g.id, g.runs);
        for (key, n, s) in &g.seen {
            match s {
                Standing::Forbidden(axioms) => {
                    let _ = writeln!(out, "  forbidden {key} seen {n} times: {}", axioms.join(", "));
                }
                Standing::Impossible => {
                    let _ = writeln!(out, "  impossible {key} seen {n} times: no candidate execution gives it");
                }
                Standing::Sc | Standing::Weak => {}
            }
        }
    }
    let failed = grades.iter().filter(|g| !g.passed()).count();
    let can_be_weak: Vec<&TestGrade> = grades.iter().filter(|g| g.passed() && g.weak_allowed > 0).collect();
    let showed = can_be_weak.iter().filter(|g| !g.weak_seen().is_empty()).count();
    let _ = writeln!(
        out,
        "litmus: {} of {tests} tests graded, {} pass, {failed} fail; weak outcomes seen in {showed} of the {} passing tests that allow one",
        grades.len(),
        grades.len() - failed,
        can_be_weak.len()
    );
    out
}
