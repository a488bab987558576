//! The dashboard's litmus section (`grade --clients DIR --html FILE`): what the
//! litmus tests showed on silicon (vectors/silicon/sm_90/litmus.json, and each
//! configuration of vectors/silicon/sm_90/litmus-stress/), on every engine folder
//! with a `litmus-results.jsonl` (and its `litmus-runs.json`: what did not run and
//! why), and in every compiler folder's `litmus.json` (`ptxvec litmus-compiled`).
//!
//! Silicon's and the engines' outcomes are graded by `grade --litmus`'s own code
//! ([`super::litmus::grade`]): silicon's histograms are read as results lines. A
//! compiler's report is shown as `litmus-compiled` judged it, each finding with the
//! errata ledger's entries that list it. Everything is read in a fixed order (names
//! sorted, tests by id, reasons as the files list them), so the same files give the
//! same bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::html::{anchor, markdown};
use super::junit::escape;
use super::litmus::{LitmusResult, Seen, Standing, TestGrade};
use super::results::{parse, read_input, Line};
use crate::device::silicon::litmus::evidence;
use crate::error::{Error, Result};

/// The folder of silicon's other litmus configurations, beside litmus.json.
pub const STRESS_DIR: &str = "litmus-stress";

/// One source of litmus outcomes graded: silicon in one configuration, or an engine.
#[derive(Debug, Clone)]
pub struct Graded {
    /// Its name on the page.
    pub name: String,
    /// What it is (`silicon`, `engine`) and how it ran.
    pub kind: String,
    /// Each test that reported an outcome, graded.
    pub grades: Vec<TestGrade>,
    /// The tests not run, grouped by reason, in the order the file gives.
    pub not_run: Vec<(String, Vec<String>)>,
    /// Instances that did not report, over all tests.
    pub unreported: u64,
    /// Forbidden outcomes the errata ledger explains (silicon's): ledger key to
    /// erratum ids.
    pub ledger: BTreeMap<String, Vec<String>>,
}

impl Graded {
    /// Tests that failed: an outcome seen that the model does not allow.
    pub fn failed(&self) -> usize {
        self.grades.iter().filter(|g| !g.passed()).count()
    }

    /// Passing tests that showed a weak outcome.
    pub fn weak_seen(&self) -> usize {
        self.grades.iter().filter(|g| g.passed() && !g.weak_seen().is_empty()).count()
    }

    /// Passing tests that allow a weak outcome and showed none: the weak case untested.
    pub fn weak_untested(&self) -> usize {
        self.grades.iter().filter(|g| g.passed() && g.weak_allowed > 0 && g.weak_seen().is_empty()).count()
    }

    /// Tests not run.
    pub fn not_run_count(&self) -> usize {
        self.not_run.iter().map(|(_, t)| t.len()).sum()
    }
}

/// A compiler's litmus report, as `litmus-compiled` wrote it.
#[derive(Debug, Clone, Deserialize)]
pub struct CompilerReport {
    /// The compiler folder's name.
    pub compiler: String,
    /// Its tests.
    pub tests: Vec<CompiledTest>,
}

/// One test of a compiler's report (the fields the page shows).
#[derive(Debug, Clone, Deserialize)]
pub struct CompiledTest {
    /// The test id.
    pub id: String,
    /// `judged`, `compile_error`, `not_a_litmus_test` or `over_candidate_cap`.
    pub status: String,
    /// What the source forbids, if anything.
    pub source_forbids: Option<SourceForbids>,
    /// The compiled PTX's answer: `allowed` (a finding) or `forbidden (axioms)`.
    pub compiled_ptx: Option<String>,
    /// Whether the PTX allows what the source forbids.
    #[serde(default)]
    pub finding: bool,
    /// The compiler's error lines (`compile_error`).
    #[serde(default)]
    pub error: Vec<String>,
    /// Why it was not judged (the other statuses).
    pub reason: Option<String>,
}

/// The outcome a source forbids, and the rule that forbids it.
#[derive(Debug, Clone, Deserialize)]
pub struct SourceForbids {
    /// The outcome, `1:r0=1 1:r1=0`.
    pub outcome: String,
    /// The source language's rule.
    pub rule: String,
}

impl CompilerReport {
    /// Tests judged.
    pub fn judged(&self) -> usize {
        self.tests.iter().filter(|t| t.status == "judged").count()
    }

    /// Judged tests whose source forbids an outcome.
    pub fn forbidding(&self) -> usize {
        self.tests.iter().filter(|t| t.status == "judged" && t.source_forbids.is_some()).count()
    }

    /// The findings: judged tests whose PTX allows what the source forbids.
    pub fn findings(&self) -> Vec<&CompiledTest> {
        self.tests.iter().filter(|t| t.status == "judged" && t.finding).collect()
    }

    /// The tests not judged, grouped by reason (the status and the first line of
    /// the error, its hex addresses masked so that one cause reads as one reason),
    /// in first-seen order.
    pub fn not_judged(&self) -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        for t in self.tests.iter().filter(|t| t.status != "judged") {
            let first = t.error.first().map(String::as_str).or(t.reason.as_deref()).unwrap_or("");
            let reason = format!("{}: {}", t.status.replace('_', " "), mask_hex(first));
            match out.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, ids)) => ids.push(t.id.clone()),
                None => out.push((reason, vec![t.id.clone()])),
            }
        }
        out
    }
}

/// `text` with every hex literal (`0x5602a1e6c790`) as `0x…`: addresses differ
/// from one compiler run to the next.
fn mask_hex(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let digits = rest[at + 2..].chars().take_while(char::is_ascii_hexdigit).count();
        if digits == 0 {
            out.push_str("0x");
        } else {
            out.push_str("0x…");
        }
        rest = &rest[at + 2 + digits..];
    }
    out.push_str(rest);
    out
}

/// Everything the litmus section shows.
pub struct Litmus {
    /// How many tests the list holds (vectors/litmus.jsonl.gz).
    pub tests: usize,
    /// Silicon's configurations, then the engines.
    pub sources: Vec<Graded>,
    /// The compilers' reports.
    pub compilers: Vec<CompilerReport>,
    /// The errata ledger's `compiler_vs_model` disagreements: key to erratum ids.
    pub compiler_ledger: BTreeMap<String, Vec<String>>,
}

/// Reads and grades every litmus source: silicon under `vectors`, the engine and
/// compiler folders among `dirs`.
pub fn load(spec: &ptxvec_spec::Spec, vectors: &Path, dirs: &[PathBuf]) -> Result<Litmus> {
    let records = super::litmus::load(vectors)?;
    let mut ledger: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &spec.errata.errata {
        for d in e.disagreements.iter().filter(|d| d.starts_with(evidence::LEDGER_PREFIX)) {
            ledger.entry(d.clone()).or_default().push(e.id.clone());
        }
    }
    let silicon_dir = vectors.join("silicon/sm_90");
    let mut sources = Vec::new();
    let main = silicon_dir.join(evidence::FILE);
    if main.is_file() {
        let text = std::fs::read_to_string(&main).map_err(|e| Error::io(&main, e))?;
        sources.push(silicon(&records, &ledger, &main, &text, "")?);
    }
    let stress = silicon_dir.join(STRESS_DIR);
    if stress.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&stress)
            .map_err(|e| Error::io(&stress, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".json.gz"))
            .collect();
        files.sort();
        for f in files {
            let text = crate::io::gz::read_text(&f, 1 << 30)?;
            let config = f.file_name().map(|n| n.to_string_lossy().trim_end_matches(".json.gz").to_owned()).unwrap_or_default();
            sources.push(silicon(&records, &ledger, &f, &text, &config)?);
        }
    }
    for dir in dirs.iter().filter(|d| d.join(crate::device::engine::litmus::RESULTS).is_file()) {
        sources.push(engine(&records, dir)?);
    }
    let mut compilers = Vec::new();
    for dir in dirs.iter().filter(|d| d.join(crate::compiled_litmus::REPORT).is_file() && d.join("manifest.json").is_file()) {
        let path = dir.join(crate::compiled_litmus::REPORT);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let r: CompilerReport = serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("{}:{}:{}: not a litmus-compiled report: {e}", path.display(), e.line(), e.column())))?;
        compilers.push(r);
    }
    let mut compiler_ledger: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (key, id) in crate::compiled_litmus::ledgered(spec) {
        compiler_ledger.entry(key).or_default().push(id);
    }
    Ok(Litmus { tests: records.len(), sources, compilers, compiler_ledger })
}

/// Silicon's file `path` (its text `text`), graded; `config` names a stress
/// configuration (empty for the main run).
fn silicon(
    records: &BTreeMap<String, crate::litmus::record::Record>,
    ledger: &BTreeMap<String, Vec<String>>,
    path: &Path,
    text: &str,
    config: &str,
) -> Result<Graded> {
    let file = evidence::parse(text).map_err(|e| Error::Input(format!("{}:{}:{}: {e}", path.display(), e.line(), e.column())))?;
    let mut lines = Vec::new();
    let mut not_run: Vec<(String, Vec<String>)> = Vec::new();
    for (i, r) in file.tests.iter().enumerate() {
        if let Some(why) = &r.failed {
            match not_run.iter_mut().find(|(w, _)| w == why) {
                Some((_, ids)) => ids.push(r.id.clone()),
                None => not_run.push((why.clone(), vec![r.id.clone()])),
            }
            continue;
        }
        let outcomes = r.outcomes.iter().map(|o| Seen { regs: o.regs.clone(), mem: o.mem.clone(), count: o.count }).collect();
        lines.push(Line { line: i + 1, value: LitmusResult { id: r.id.clone(), outcomes } });
    }
    let mut bad = Vec::new();
    let grades = super::litmus::grade(records, &path.display().to_string(), &lines, &mut bad);
    if !bad.is_empty() {
        return Err(super::results::bad_lines_error(&bad));
    }
    let mut explained = BTreeMap::new();
    for g in &grades {
        for (key, _, s) in &g.seen {
            if matches!(s, Standing::Forbidden(_)) {
                let k = format!("{}{}:{}", evidence::LEDGER_PREFIX, g.id, outcome_line(key));
                if let Some(ids) = ledger.get(&k) {
                    explained.insert(k, ids.clone());
                }
            }
        }
    }
    unaccounted(records, &grades, &mut not_run, "no row in the file");
    let run = &file.run;
    let name = if config.is_empty() {
        format!("sm_90 silicon ({})", file.header.device)
    } else {
        format!("sm_90 silicon, stress {config}")
    };
    let kind = format!(
        "silicon, {}: {} instances a test, seed {}, stride {}, {} stress warps of {} iterations, {} CTAs per SM",
        file.header.device,
        run.instances,
        run.seed, run.stride, run.stress_warps, run.stress_iters, run.ctas_per_sm
    );
    Ok(Graded { name, kind, grades, not_run, unreported: 0, ledger: explained })
}

/// An outcome's key as the grade writes it (`1:r0=1 | x=1`) as the ledger writes
/// it (`1:r0=1 x=1`).
fn outcome_line(key: &str) -> String {
    key.split(" | ").map(str::trim).filter(|p| !p.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Adds the tests of the list that neither were graded nor are in `not_run`, as
/// not run for `reason`: every test of the list is counted once.
fn unaccounted(records: &BTreeMap<String, crate::litmus::record::Record>, grades: &[TestGrade], not_run: &mut Vec<(String, Vec<String>)>, reason: &str) {
    let mut seen: std::collections::BTreeSet<&str> = grades.iter().map(|g| g.id.as_str()).collect();
    seen.extend(not_run.iter().flat_map(|(_, ids)| ids.iter().map(String::as_str)));
    let rest: Vec<String> = records.keys().filter(|id| !seen.contains(id.as_str())).cloned().collect();
    if !rest.is_empty() {
        not_run.push((reason.to_owned(), rest));
    }
}

/// The account `litmus-engine` wrote beside the results.
#[derive(Debug, Deserialize)]
struct Account {
    engine: String,
    instances: u64,
    seed: u64,
    ran: Vec<Ran>,
    not_run: Vec<NotRun>,
}

#[derive(Debug, Deserialize)]
struct Ran {
    unreported: u64,
}

#[derive(Debug, Deserialize)]
struct NotRun {
    reason: String,
    tests: Vec<String>,
}

/// An engine folder's results, graded, with its account's tests not run.
fn engine(records: &BTreeMap<String, crate::litmus::record::Record>, dir: &Path) -> Result<Graded> {
    let path = dir.join(crate::device::engine::litmus::RESULTS);
    let mut bad = Vec::new();
    let lines = parse::<LitmusResult>(&path.display().to_string(), &read_input(&path)?, &mut bad);
    let grades = super::litmus::grade(records, &path.display().to_string(), &lines, &mut bad);
    if !bad.is_empty() {
        return Err(super::results::bad_lines_error(&bad));
    }
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let runs = dir.join(crate::device::engine::litmus::RUNS);
    let (kind, not_run, unreported) = if runs.is_file() {
        let text = std::fs::read_to_string(&runs).map_err(|e| Error::io(&runs, e))?;
        let a: Account = serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("{}:{}:{}: not a litmus-engine account: {e}", runs.display(), e.line(), e.column())))?;
        let kind = format!("engine: {}, {} instances a test, seed {}", a.engine, a.instances, a.seed);
        let not_run = a.not_run.into_iter().map(|n| (n.reason, n.tests)).collect();
        (kind, not_run, a.ran.iter().map(|r| r.unreported).sum())
    } else {
        ("engine (no litmus-runs.json)".to_owned(), Vec::new(), 0)
    };
    let mut not_run = not_run;
    unaccounted(records, &grades, &mut not_run, "no outcome in litmus-results.jsonl, and litmus-runs.json does not say why");
    Ok(Graded { name, kind, grades, not_run, unreported, ledger: BTreeMap::new() })
}

/// The section's HTML and its lines of the summary.
pub fn render(l: &Litmus, h: &mut String, summary: &mut String) {
    h.push_str("<h2 id=\"litmus\">Litmus tests: silicon and engines</h2>\n<p>Each source's outcomes graded as <code>ptxvec grade --litmus</code> grades them, against the memory model's oracle (<code>vectors/litmus.jsonl.gz</code>). A test <strong>fails</strong> when an outcome seen is not allowed: forbidden (by the axioms named), or impossible (a value no candidate execution gives). A passing test that allows a weak outcome (allowed, yet given by no sequentially consistent interleaving) either showed one or left the weak case untested. What did not run is neither passed nor failed.</p>\n");
    let _ = writeln!(
        h,
        "<table class=\"litmus\">\n<tr><th class=\"source\">source</th><th>ran, of {}</th><th>passed</th><th>failed</th><th>weak outcome seen</th><th>weak case untested</th><th>not run</th></tr>",
        l.tests
    );
    let _ = writeln!(summary, "Litmus tests ({} in the list):", l.tests);
    for s in &l.sources {
        let id = anchor("litmus", &s.name);
        let failed = s.failed();
        let fail_cell = if failed > 0 {
            format!("<td class=\"cell r0\"><a href=\"#{id}\"><b>{failed} FAIL</b></a></td>")
        } else {
            "<td class=\"cell r100\"><b>0</b></td>".to_owned()
        };
        let not_run = s.not_run_count();
        let not_run_cell = if not_run > 0 {
            format!("<td class=\"cell none\"><a href=\"#{id}\"><b>{not_run}</b><small>for {} reasons</small></a></td>", s.not_run.len())
        } else {
            "<td class=\"cell none\"><b>0</b></td>".to_owned()
        };
        let _ = writeln!(
            h,
            "<tr{}><th>{}<br><small>{}</small></th><td class=\"n\">{}</td><td class=\"n\">{}</td>{fail_cell}<td class=\"n\">{}</td><td class=\"n\">{}</td>{not_run_cell}</tr>",
            if failed > 0 { " class=\"fail\"" } else { "" },
            escape(&s.name),
            escape(&s.kind),
            s.grades.len(),
            s.grades.len() - failed,
            s.weak_seen(),
            s.weak_untested(),
        );
        let _ = writeln!(
            summary,
            "  {:<42} {} ran, {} pass, {failed} fail; weak outcomes seen in {} tests, untested in {}; {not_run} not run",
            s.name,
            s.grades.len(),
            s.grades.len() - failed,
            s.weak_seen(),
            s.weak_untested()
        );
    }
    h.push_str("</table>\n");
    for s in &l.sources {
        source_details(h, s);
    }
    compilers(l, h, summary);
}

/// One source's failures, test by test, and what did not run, by reason.
fn source_details(h: &mut String, s: &Graded) {
    let failing: Vec<&TestGrade> = s.grades.iter().filter(|g| !g.passed()).collect();
    if failing.is_empty() && s.not_run.is_empty() && s.unreported == 0 {
        return;
    }
    let _ = writeln!(h, "<h3 id=\"{}\">litmus · {}</h3>", anchor("litmus", &s.name), escape(&s.name));
    if s.unreported > 0 {
        let _ = writeln!(h, "<p>{} instances did not report (their output row kept the poison): they are not counted.</p>", s.unreported);
    }
    if !failing.is_empty() {
        h.push_str("<table class=\"groups\">\n<tr><th>verdict</th><th>test</th><th>outcomes not allowed</th><th>the outcomes</th></tr>\n");
        for g in failing {
            let bad: Vec<&(String, u64, Standing)> = g.seen.iter().filter(|(_, _, st)| matches!(st, Standing::Forbidden(_) | Standing::Impossible)).collect();
            let forbidden = bad.iter().filter(|(_, _, st)| matches!(st, Standing::Forbidden(_))).count();
            let impossible = bad.len() - forbidden;
            let mut what = Vec::new();
            if forbidden > 0 {
                what.push(format!("{forbidden} forbidden"));
            }
            if impossible > 0 {
                what.push(format!("{impossible} impossible"));
            }
            let _ = writeln!(
                h,
                "<tr class=\"fail\"><td class=\"fail\"><b>FAIL</b></td><td><code>{}</code><br><small>{} runs</small></td><td>{}</td><td><details class=\"litmus\"><summary>{} outcome(s)</summary><table>\n<tr><th>outcome</th><th>seen</th><th>why not allowed</th></tr>",
                escape(&g.id),
                g.runs,
                what.join(", "),
                bad.len()
            );
            for (key, n, st) in bad {
                let why = match st {
                    Standing::Forbidden(axioms) => {
                        let k = format!("{}{}:{}", evidence::LEDGER_PREFIX, g.id, outcome_line(key));
                        let ledger = s.ledger.get(&k).map_or_else(String::new, |ids| format!(" (errata ledger: {})", ids.join(", ")));
                        format!("forbidden: {}{ledger}", escape(&axioms.join(", ")))
                    }
                    _ => "impossible: no candidate execution gives it".to_owned(),
                };
                let _ = writeln!(h, "<tr><td class=\"msg\">{}</td><td class=\"n\">{n}</td><td>{why}</td></tr>", escape(key));
            }
            h.push_str("</table></details></td></tr>\n");
        }
        h.push_str("</table>\n");
    }
    if !s.not_run.is_empty() {
        by_reason(h, "not run", s.not_run_count(), &s.not_run);
    }
}

/// A folded table of tests grouped by `reason`: `n` tests `what` (not run, not
/// judged), each reason with its count and ids.
fn by_reason(h: &mut String, what: &str, n: usize, groups: &[(String, Vec<String>)]) {
    let _ = writeln!(
        h,
        "<details class=\"litmus\"><summary>{n} tests {what}, for {} reasons</summary>\n<table class=\"groups\">\n<tr><th>tests</th><th>reason</th><th>which</th></tr>",
        groups.len()
    );
    for (reason, ids) in groups {
        let _ = writeln!(
            h,
            "<tr><td class=\"n\">{}</td><td class=\"msg\">{}</td><td class=\"msg\">{}</td></tr>",
            ids.len(),
            escape(reason),
            escape(&ids.join(" "))
        );
    }
    h.push_str("</table></details>\n");
}

/// The compilers' reports: per compiler, what was judged, and each finding with the
/// ledger's entries.
fn compilers(l: &Litmus, h: &mut String, summary: &mut String) {
    if l.compilers.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"litmus-compilers\">Litmus tests as compilers compiled them</h2>\n<p>Each compiler's PTX for the litmus sources of <code>clients/compilers/</code>, read back and judged by the oracle (<code>ptxvec litmus-compiled</code>, <code>vectors/clients/&lt;compiler&gt;/litmus.json</code>). A finding: the compiled PTX allows an outcome the source language forbids; the errata ledger (<code>spec/errata.yaml</code>, kind <code>compiler_vs_model</code>) must list each.</p>\n<table class=\"litmus\">\n<tr><th class=\"source\">compiler</th><th>tests</th><th>judged</th><th>source forbids an outcome</th><th>the PTX forbids it too</th><th>the PTX allows it: finding</th><th>not judged</th></tr>\n");
    let _ = writeln!(summary, "Litmus tests as compilers compiled them:");
    let mut findings = String::new();
    for c in &l.compilers {
        let f = c.findings();
        let forbidding = c.forbidding();
        let not_judged: usize = c.tests.len() - c.judged();
        let finding_cell = if f.is_empty() {
            "<td class=\"cell r100\"><b>0</b></td>".to_owned()
        } else {
            format!("<td class=\"cell r0\"><a href=\"#{}\"><b>{}</b></a></td>", anchor("litmus-compiler", &c.compiler), f.len())
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{forbidding}</td><td class=\"n\">{}</td>{finding_cell}<td class=\"n\">{not_judged}</td></tr>",
            escape(&c.compiler),
            c.tests.len(),
            c.judged(),
            forbidding - f.len()
        );
        let mut ids: Vec<String> = Vec::new();
        let mut unlisted = 0;
        for t in &f {
            match l.compiler_ledger.get(&format!("litmus:{}:{}", c.compiler, t.id)) {
                Some(e) => ids.extend(e.iter().cloned()),
                None => unlisted += 1,
            }
        }
        ids.sort();
        ids.dedup();
        let _ = write!(
            summary,
            "  {:<42} {} tests, {} judged, {forbidding} where the source forbids an outcome: {} forbidden by the PTX too, {} findings",
            c.compiler,
            c.tests.len(),
            c.judged(),
            forbidding - f.len(),
            f.len()
        );
        if !ids.is_empty() {
            let _ = write!(summary, " (errata: {})", ids.join(", "));
        }
        if unlisted > 0 {
            let _ = write!(summary, ", {unlisted} not in the errata ledger");
        }
        let _ = writeln!(summary, "; {not_judged} not judged");
        compiler_details(&mut findings, l, c);
    }
    h.push_str("</table>\n");
    h.push_str(&findings);
}

/// One compiler's findings, each with its ledger entries, and what was not judged.
fn compiler_details(h: &mut String, l: &Litmus, c: &CompilerReport) {
    let f = c.findings();
    let not_judged = c.not_judged();
    if f.is_empty() && not_judged.is_empty() {
        return;
    }
    let _ = writeln!(h, "<h3 id=\"{}\">litmus · {}</h3>", anchor("litmus-compiler", &c.compiler), escape(&c.compiler));
    if !f.is_empty() {
        h.push_str("<table class=\"groups\">\n<tr><th>test</th><th>the source forbids</th><th>the compiled PTX</th><th>errata ledger</th></tr>\n");
        for t in f {
            let (outcome, rule) = t.source_forbids.as_ref().map_or(("", ""), |s| (s.outcome.as_str(), s.rule.as_str()));
            let ledger = match l.compiler_ledger.get(&format!("litmus:{}:{}", c.compiler, t.id)) {
                Some(ids) => ids.iter().map(|i| format!("<strong>{}</strong>", escape(i))).collect::<Vec<_>>().join(" "),
                None => "<span class=\"fail\"><b>FAIL</b>: no ledger entry lists it</span>".to_owned(),
            };
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td><span class=\"v\">{}</span><br><small class=\"why\">{}</small></td><td>{}</td><td>{ledger}</td></tr>",
                escape(&t.id),
                escape(outcome),
                markdown(rule),
                escape(t.compiled_ptx.as_deref().unwrap_or(""))
            );
        }
        h.push_str("</table>\n");
    }
    if !not_judged.is_empty() {
        let n: usize = not_judged.iter().map(|(_, t)| t.len()).sum();
        by_reason(h, "not judged", n, &not_judged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_addresses_are_masked_and_other_text_kept() {
        assert_eq!(mask_hex("Cannot select: 0x5602a1e6c790: ch = AtomicStore"), "Cannot select: 0x…: ch = AtomicStore");
        assert_eq!(mask_hex("0x 0xg 0x1"), "0x 0xg 0x…");
        assert_eq!(mask_hex("no address"), "no address");
    }

    #[test]
    fn an_outcome_key_reads_as_the_ledger_writes_it() {
        assert_eq!(outcome_line("1:r0=1 1:r1=0 | x=1 y=1"), "1:r0=1 1:r1=0 x=1 y=1");
        assert_eq!(outcome_line(" | x=1 y=2"), "x=1 y=2");
    }
}
