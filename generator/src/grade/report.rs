//! What a grading found, in one typed model that every report is rendered from: the
//! summary on stdout, `--json`, `--junit` and `--html`. Cases keep the order of the
//! vector files (deterministic); tallies are sorted maps.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use super::failure::Failure;
use super::results::BadLine;
use crate::record::Inputs;

/// The whole grading: one section per kind of results given, and the results lines
/// that could not be read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// `syntax`, `semantic`, `raw`, in that order, those that were given.
    pub sections: Vec<Section>,
    /// Every bad line of the results files, in file and line order.
    pub input_errors: Vec<BadLine>,
}

/// The grading of one kind of results.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// `syntax`, `semantic` or `raw`.
    pub name: &'static str,
    /// How it was graded: `parser` or `full` (syntax), the profile (semantic, raw),
    /// and whether every variant or instruction was required (`--all`).
    pub mode: String,
    /// Every case or record graded, or required and missing, in vector order;
    /// unknown ids last.
    pub cases: Vec<TestCase>,
    /// Variants (semantic, raw) or instructions (syntax) of the vectors that no result
    /// names, so that none of their records was graded (empty under `--all`).
    pub not_graded: Vec<Unnamed>,
    /// What failure classes mean, by `<instruction>: <class>`, as inline markdown:
    /// for syntax the rule an illegal case accepted breaks (vectors/rules.json), for
    /// raw buffers the engine folder's `explanations.json`.
    #[serde(skip)]
    pub explained: BTreeMap<String, String>,
}

/// A variant (semantic, raw) or instruction (syntax) of the vectors that no result
/// names: none of its records or cases was graded.
#[derive(Debug, Clone, Serialize)]
pub struct Unnamed {
    /// Its instruction (for syntax, itself).
    pub instruction: String,
    /// The variant (`red.add.f32`) or the instruction.
    pub name: String,
    /// Its records (semantic, raw: each window of a generic variant would be as
    /// many again) or cases (syntax).
    pub cases: usize,
    /// Why the engine did not run it, where its `runs.json` says (raw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
}

impl Unnamed {
    /// The name, with why it was not run where that is known.
    pub fn describe(&self) -> String {
        match &self.not_run {
            Some(why) => format!("{} (not run: {why})", self.name),
            None => self.name.clone(),
        }
    }
}

/// How one case or record came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The result keeps every expectation.
    Passed,
    /// Some expectation is not kept, or the result is missing, unknown or doubled.
    Failed,
    /// Not graded: an `invalid` case a grammar-only consumer accepted (`--parser`),
    /// a case or record the consumer skipped, or a record silicon does not run.
    NotGraded,
}

/// One case of the syntax vectors or one record of the semantic vectors, graded.
#[derive(Debug, Clone, Serialize)]
pub struct TestCase {
    /// The instruction (`red`, `shfl.sync`), or `(unknown)` for an id the vectors
    /// lack.
    pub instruction: String,
    /// The case id (`red/scalar/.global.add.u32/reg`) or record id (`red.add.f32#2`),
    /// as the results name it.
    pub id: String,
    /// For raw buffers of a variant stated with generic addressing: the window
    /// (`global`, `shared`, ...) the buffer was run in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
    /// The tallies the case counts in: `kind`, `form`, `rule` (syntax), `variant`
    /// (semantic, raw).
    pub groups: BTreeMap<&'static str, String>,
    /// The outcome.
    pub status: Status,
    /// Why it is not graded, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_graded: Option<String>,
    /// What is wrong, one entry per defect; empty unless failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// The instruction text.
    pub text: String,
    /// What the case runs on: a syntax case's module, a record's inputs.
    pub inputs: CaseInputs,
    /// Where the expectation comes from: a syntax case's `source` (cite and quote),
    /// a record's semantic note (`spec`).
    pub source: String,
    /// The command that writes what reproduces it: `ptxvec emit-ptx <case id>`, or
    /// for record `<variant>#<n>` the self-checking module of that record alone
    /// (`ptxvec emit-ptx --variant <variant> --records <n>`).
    pub reproduce: String,
}

/// What a case runs on, in the reports: `--json` writes it as JSON (the record's
/// inputs as the vector files write them), the text reports as its [`Display`].
///
/// [`Display`]: fmt::Display
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CaseInputs {
    /// A syntax case's module: `{"ptx", "target"}`, as the case gives them.
    Module {
        /// The PTX ISA version (`.version`).
        ptx: String,
        /// The target (`.target`).
        target: String,
    },
    /// A record's inputs.
    Record(Inputs),
    /// Nothing (`null`): an id the vectors do not hold.
    None,
}

impl fmt::Display for CaseInputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseInputs::Module { ptx, target } => write!(f, ".version {ptx}, .target {target}"),
            // Bit patterns, lists and options: serde_json cannot fail on them.
            CaseInputs::Record(i) => f.write_str(&serde_json::to_string(i).unwrap_or_default()),
            CaseInputs::None => Ok(()),
        }
    }
}

impl TestCase {
    /// The name a report shows: the id, with the window where there is one.
    pub fn name(&self) -> String {
        match &self.window {
            Some(w) => format!("{} [window {w}]", self.id),
            None => self.id.clone(),
        }
    }

    /// The class of a failed case: its kinds of defect, sorted, each once, with the
    /// slots, line numbers and ids left out (`d: value not accepted + mem: value not
    /// accepted`), and for an illegal syntax case accepted its kind and rule
    /// (`invalid case accepted (operand.shape)`). Cases of one instruction and class
    /// fail for one reason, mostly: the reports show a few of each.
    pub fn group(&self) -> String {
        let mut kinds: Vec<String> = self
            .failures
            .iter()
            .map(|f| {
                let what = strip_slots(&f.what);
                let what = what.split(" (line ").next().unwrap_or_default();
                let what = what.split(": lines ").next().unwrap_or_default();
                match (what, self.groups.get("kind"), self.groups.get("rule")) {
                    ("illegal case accepted", Some(kind), Some(rule)) => {
                        format!("{kind} case accepted ({rule})")
                    }
                    _ => what.to_owned(),
                }
            })
            .collect();
        kinds.sort();
        kinds.dedup();
        kinds.join(" + ")
    }

    /// What distinguishes cases of one class: the variant (semantic, raw; the
    /// window left out) or form (syntax); examples are picked to differ in it.
    fn family(&self) -> Option<&str> {
        self.groups
            .get("variant")
            .or_else(|| self.groups.get("form"))
            .map(|v| v.split(" [window ").next().unwrap_or_default())
    }
}

/// `d[5]: value not accepted` → `d: value not accepted`.
pub fn strip_slots(what: &str) -> String {
    let mut out = String::with_capacity(what.len());
    let mut depth = 0;
    for c in what.chars() {
        match c {
            '[' => depth += 1,
            ']' if depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The failed cases of one instruction that fall in one class ([`TestCase::group`]).
#[derive(Debug, Clone)]
pub struct FailureGroup<'a> {
    /// The instruction.
    pub instruction: &'a str,
    /// The class.
    pub group: String,
    /// Its cases, in report order.
    pub cases: Vec<&'a TestCase>,
}

impl<'a> FailureGroup<'a> {
    /// The key explanations use: `<instruction>: <class>`.
    pub fn key(&self) -> String {
        format!("{}: {}", self.instruction, self.group)
    }

    /// Up to `n` cases to show: the first of each variant or form first, so that
    /// the same record in four windows is one example, then the next in order.
    pub fn examples(&self, n: usize) -> Vec<&'a TestCase> {
        let mut seen = BTreeSet::new();
        let mut first: Vec<&'a TestCase> = Vec::new();
        let mut rest: Vec<&'a TestCase> = Vec::new();
        for t in &self.cases {
            if seen.insert(t.family()) {
                first.push(t);
            } else {
                rest.push(t);
            }
        }
        first.into_iter().chain(rest).take(n).collect()
    }
}

/// Cases by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Not graded.
    pub not_graded: usize,
}

impl Counts {
    fn add(&mut self, s: Status) {
        match s {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::NotGraded => self.not_graded += 1,
        }
    }

    /// Every case counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.not_graded
    }

    /// The cases graded: passed or failed (what was not graded is neither).
    pub fn graded(&self) -> usize {
        self.passed + self.failed
    }
}

/// `{"graded", "passed", "failed", "not_graded"}`.
impl Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Counts", 4)?;
        m.serialize_field("graded", &self.graded())?;
        m.serialize_field("passed", &self.passed)?;
        m.serialize_field("failed", &self.failed)?;
        m.serialize_field("not_graded", &self.not_graded)?;
        m.end()
    }
}

impl Section {
    /// The section's cases by outcome.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        self.cases.iter().for_each(|t| c.add(t.status));
        c
    }

    /// Per instruction, the cases by outcome.
    pub fn by_instruction(&self) -> BTreeMap<String, Counts> {
        let mut m = BTreeMap::<String, Counts>::new();
        for t in &self.cases {
            m.entry(t.instruction.clone()).or_default().add(t.status);
        }
        m
    }

    /// Per group (`kind`, `form`, `rule`, `variant`) and value, the cases by outcome.
    pub fn tallies(&self) -> BTreeMap<&'static str, BTreeMap<String, Counts>> {
        let mut m = BTreeMap::<&'static str, BTreeMap<String, Counts>>::new();
        m.insert("instruction", self.by_instruction());
        for t in &self.cases {
            for (g, v) in &t.groups {
                m.entry(*g)
                    .or_default()
                    .entry(v.clone())
                    .or_default()
                    .add(t.status);
            }
        }
        m
    }

    /// The failed cases by instruction and class, the largest class first (ties in
    /// instruction and class order).
    pub fn failure_groups(&self) -> Vec<FailureGroup<'_>> {
        let mut by = BTreeMap::<(&str, String), Vec<&TestCase>>::new();
        for t in self.failed() {
            by.entry((t.instruction.as_str(), t.group())).or_default().push(t);
        }
        let mut v: Vec<FailureGroup<'_>> = by
            .into_iter()
            .map(|((instruction, group), cases)| FailureGroup {
                instruction,
                group,
                cases,
            })
            .collect();
        v.sort_by(|a, b| {
            b.cases
                .len()
                .cmp(&a.cases.len())
                .then_with(|| a.instruction.cmp(b.instruction))
                .then_with(|| a.group.cmp(&b.group))
        });
        v
    }

    /// Per instruction, the variants or instructions no result names, and their
    /// records or cases.
    pub fn not_graded_by_instruction(&self) -> BTreeMap<&str, (usize, usize)> {
        let mut m = BTreeMap::<&str, (usize, usize)>::new();
        for u in &self.not_graded {
            let e = m.entry(u.instruction.as_str()).or_default();
            e.0 += 1;
            e.1 += u.cases;
        }
        m
    }

    /// What a section's unnamed entries are: variants, or instructions (syntax).
    pub fn unit(&self) -> &'static str {
        if self.name == "syntax" {
            "instructions"
        } else {
            "variants"
        }
    }

    /// The failed cases, in order.
    pub fn failed(&self) -> impl Iterator<Item = &TestCase> {
        self.cases.iter().filter(|t| t.status == Status::Failed)
    }

    /// Whether no case was graded: results that name nothing the vectors hold, or
    /// that skip all they name, pass no test.
    pub fn graded_nothing(&self) -> bool {
        self.counts().graded() == 0
    }

    /// The cases not graded, in order.
    pub fn not_graded_cases(&self) -> impl Iterator<Item = &TestCase> {
        self.cases.iter().filter(|t| t.status == Status::NotGraded)
    }

    /// Why cases were not graded: each reason, how many cases it holds back and the
    /// first of them; the most frequent first, ties in the reasons' order.
    pub fn not_graded_reasons(&self) -> Vec<(&str, usize, &TestCase)> {
        let mut by = BTreeMap::<&str, (usize, &TestCase)>::new();
        for t in self.not_graded_cases() {
            let reason = t.not_graded.as_deref().unwrap_or_default();
            by.entry(reason).or_insert((0, t)).0 += 1;
        }
        let mut v: Vec<(&str, usize, &TestCase)> =
            by.into_iter().map(|(r, (n, t))| (r, n, t)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }
}

/// What the reports say of a section that graded nothing.
pub const NOTHING_GRADED: &str = "0 graded: results that grade nothing do not pass (no result names a case or record of the vectors, or each one it names is not graded)";

impl Report {
    /// Whether the grade fails: some case failed, some results graded nothing, or
    /// some results line could not be read.
    pub fn failed(&self) -> bool {
        !self.input_errors.is_empty()
            || self
                .sections
                .iter()
                .any(|s| s.graded_nothing() || s.failed().next().is_some())
    }
}

/// `--json`'s document: counts, tallies, the failure classes, every case not
/// graded and every failure, one object. vectors/grade-report.schema.json is its
/// schema.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    format: &'static str,
    passed: bool,
    input_errors: &'a [BadLine],
    sections: Vec<JsonSection<'a>>,
}

#[derive(Debug, Serialize)]
struct JsonSection<'a> {
    name: &'static str,
    mode: &'a str,
    counts: Counts,
    tallies: BTreeMap<&'static str, BTreeMap<String, Counts>>,
    not_graded: &'a [Unnamed],
    not_graded_cases: Vec<JsonNotGraded<'a>>,
    failure_groups: Vec<JsonGroup<'a>>,
    failures: Vec<&'a TestCase>,
}

/// A case not graded, and why.
#[derive(Debug, Serialize)]
struct JsonNotGraded<'a> {
    instruction: &'a str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    window: Option<&'a str>,
    reason: &'a str,
}

/// A class of failures: how many, the names of a few, and what it means where that
/// is known.
#[derive(Debug, Serialize)]
struct JsonGroup<'a> {
    instruction: &'a str,
    group: String,
    cases: usize,
    examples: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explanation: Option<&'a str>,
}

/// The `--json` report's format name.
pub const JSON_FORMAT: &str = "ptxvec-grade/3";

/// Examples each report shows of a failure class.
pub const EXAMPLES: usize = 3;

/// The `--json` document, pretty-printed, with a final newline.
pub fn json(r: &Report) -> String {
    let doc = JsonReport {
        format: JSON_FORMAT,
        passed: !r.failed(),
        input_errors: &r.input_errors,
        sections: r
            .sections
            .iter()
            .map(|s| JsonSection {
                name: s.name,
                mode: &s.mode,
                counts: s.counts(),
                tallies: s.tallies(),
                not_graded: &s.not_graded,
                not_graded_cases: s
                    .not_graded_cases()
                    .map(|t| JsonNotGraded {
                        instruction: &t.instruction,
                        id: &t.id,
                        window: t.window.as_deref(),
                        reason: t.not_graded.as_deref().unwrap_or_default(),
                    })
                    .collect(),
                failure_groups: s
                    .failure_groups()
                    .into_iter()
                    .map(|g| JsonGroup {
                        instruction: g.instruction,
                        cases: g.cases.len(),
                        examples: g.examples(EXAMPLES).iter().map(|t| t.name()).collect(),
                        explanation: s.explained.get(&g.key()).map(String::as_str),
                        group: g.group,
                    })
                    .collect(),
                failures: s.failed().collect(),
            })
            .collect(),
    };
    // Strings, numbers and maps with string keys: serde_json cannot fail on it.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_leave_the_group() {
        assert_eq!(strip_slots("d[5]: value not accepted"), "d: value not accepted");
        assert_eq!(strip_slots("mem[0]: not written (poison [x])"), "mem: not written (poison )");
        assert_eq!(strip_slots("no result"), "no result");
    }
}
