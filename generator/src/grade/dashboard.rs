//! `ptxvec grade --clients DIR --html FILE`: one static page over every recorded
//! client (vectors/clients): a matrix of clients × instructions for syntax (the
//! parsers and ptxas, each `syntax.jsonl` graded with every case required) and one
//! for semantics (silicon's evidence as the reference row, then each engine's raw
//! buffers graded under the document's profile); where silicon departs from the
//! document, and the errata ledger's entries that say why; then the compilers (each
//! recorded compiler's modules linted, lint against ptxas's verdict, the illegal
//! lines by rule); then the litmus tests on silicon, the engines and as the
//! compilers compiled them ([`super::dashboard_litmus`]). Each cell is passed of
//! graded and that rate, with what did not run apart, and links to the failures
//! behind it, further down the same page, by class, each class with what it means
//! (the client's explanation, the rule an
//! illegal case breaks) and its examples folded. Every rule named is explained at
//! the end as vectors/rules.json explains it; explanations are inline markdown,
//! rendered. The matrices fit a 1,400-pixel window (fixed layout, names that
//! break at their dots). No scripts, no external resources; the same files give
//! the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::html::{anchor, markdown};
use super::junit::escape;
use super::report::{FailureGroup, Status, TestCase, EXAMPLES};
use super::results::{parse, read_input, SyntaxResult};
use super::{semantic, syntax};
use crate::error::{Error, Result};
use crate::syntax::rules::{RuleEntry, RulesFile};

/// The failure groups listed under each cell (the rest are counted).
pub const SHOWN: usize = 12;

/// One cell: what was graded of one instruction for one client.
#[derive(Debug, Default, Clone)]
struct Cell {
    passed: usize,
    failed: usize,
    /// Records of variants the client could not run.
    not_run: usize,
    /// The failed cases, in order.
    failures: Vec<TestCase>,
}

/// One row of a matrix.
struct Row {
    client: String,
    /// The client's explanations of its failure groups (`explanations.json`).
    explained: BTreeMap<String, String>,
    /// What the row is (`syntax results`, `engine`, `silicon evidence`).
    kind: &'static str,
    cells: BTreeMap<String, Cell>,
}

/// The page, and its matrices as text for stdout.
pub struct Dashboard {
    /// The HTML page.
    pub html: String,
    /// The two matrices, one line per row: what `grade` prints.
    pub summary: String,
}

/// Grades every client folder under `clients` and renders the page.
pub fn build(spec: &Spec, vectors: &Path, clients: &Path) -> Result<Dashboard> {
    let dirs = super::conformance::client_folders(clients)?;
    let instructions: Vec<String> = spec
        .instructions
        .iter()
        .map(|f| f.instruction.instruction.clone())
        .collect();
    let cases = syntax::load(spec, vectors)?;
    let mut syntax_rows = Vec::new();
    for (dir, path) in dirs.iter().filter_map(|d| super::results::syntax_file(d).map(|p| (d, p))) {
        let mut bad = Vec::new();
        let results = parse::<SyntaxResult>(&path.display().to_string(), &read_input(&path)?, &mut bad);
        if !bad.is_empty() {
            return Err(super::results::bad_lines_error(&bad));
        }
        let mode = syntax::Mode {
            parser: false,
            all: true,
        };
        let section = syntax::grade(&cases, &results, &bad, mode);
        syntax_rows.push(row(name(dir), "syntax results", &section.cases, &[]));
    }
    let variants = semantic::load(spec, vectors)?;
    let (silicon, departures) = silicon_row(vectors, &variants)?;
    let mut semantic_rows = vec![silicon];
    for dir in dirs.iter().filter(|d| d.join(crate::device::engine::FILE).is_file()) {
        let mode = semantic::Mode {
            profile: Profile::PtxIsa,
            all: false,
        };
        let section = semantic::grade_raw(&variants, dir, mode)?;
        let runs = crate::device::engine::RunsFile::read(dir)?.unwrap_or_else(|| crate::device::engine::RunsFile::new(""));
        let not_run = super::conformance_semantic::not_run_records(&runs, &variants);
        let mut r = row(name(dir), "engine", &section.cases, &not_run);
        r.explained = super::conformance_semantic::explanations(dir)?;
        semantic_rows.push(r);
    }
    let catalog = crate::syntax::rules::catalog(spec);
    let mut rules = Rules {
        catalog: &catalog,
        used: BTreeMap::new(),
    };
    let mut html = String::new();
    let _ = writeln!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvec conformance dashboard</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>ptxvec conformance dashboard</h1>\n<p>Every recorded client under <code>{}</code>, graded against the vectors of this commit. Each cell: how many passed of those graded, and that rate; below it, apart, how many did not run (a variant the engine could not load, a case the client predates): they are neither passed nor failed, and a cell where some did not run is striped. A cell links to its failures below. Syntax: every case required. Semantics: the document's profile (<code>ptx-isa</code>); silicon's row is its evidence (<code>vectors/silicon/sm_90/vectors.json</code>), the reference: where it departs from the document, the errata ledger says why, and so does this page (<a href=\"#silicon\">Silicon against the document</a>). Every rule a failure names is explained at the end (<a href=\"#rules\">Rules named on this page</a>). The litmus tests, on silicon, the engines and as the compilers compiled them, follow the compilers (<a href=\"#litmus\">Litmus tests</a>).</p>\n{LEGEND}",
        escape(&clients.display().to_string())
    );
    let mut summary = String::new();
    matrix(&mut html, &mut summary, "syntax", "Syntax: parsers and assemblers", &syntax_rows, &instructions);
    matrix(&mut html, &mut summary, "semantic", "Semantics: silicon and engines", &semantic_rows, &instructions);
    silicon_departures(&mut html, spec, &departures);
    compilers(&mut html, &mut summary, spec, &dirs, &mut rules)?;
    let litmus = super::dashboard_litmus::load(spec, vectors, &dirs)?;
    super::dashboard_litmus::render(&litmus, &mut html, &mut summary);
    html.push_str("<h2>Failures</h2>\n<p>Per client and instruction, the failures by class (the kinds of defect, slots left out; for an illegal syntax case accepted, its kind and rule), the largest first, each with what it means and a few examples, folded.</p>\n");
    for (section, rows) in [("syntax", &syntax_rows), ("semantic", &semantic_rows)] {
        for r in rows {
            for (instruction, c) in &r.cells {
                failures(&mut html, section, r, instruction, c, &mut rules);
            }
        }
    }
    rules.glossary(&mut html);
    html.push_str("</body>\n</html>\n");
    Ok(Dashboard { html, summary })
}

/// What the cells' colours say.
const LEGEND: &str = "<p class=\"legend\"><span class=\"cell r100\">all passed</span> <span class=\"cell r90\">90% or more</span> <span class=\"cell r50\">50% or more</span> <span class=\"cell r0\">under 50%</span> <span class=\"cell none\">nothing graded</span> <span class=\"cell r100 partial\">some did not run</span></p>";

/// The rules the page names, each explained once at its end as vectors/rules.json
/// explains it.
struct Rules<'a> {
    catalog: &'a RulesFile,
    /// By anchor: the entry, and the instruction it was named for.
    used: BTreeMap<String, (String, Option<&'a RuleEntry>)>,
}

impl Rules<'_> {
    /// A link to the rule's explanation, recorded so that the glossary holds it.
    fn link(&mut self, instruction: &str, rule: &str) -> String {
        let entry = crate::syntax::rules::entry_named(self.catalog, instruction, rule);
        let anchor = match entry {
            Some(e) => rule_anchor(e.instruction.as_deref(), &e.rule),
            None => rule_anchor(Some(instruction), rule),
        };
        let name = match entry {
            Some(e) => e.rule.clone(),
            None => rule.to_owned(),
        };
        self.used.entry(anchor.clone()).or_insert((name, entry));
        format!("<a class=\"rule\" href=\"#{anchor}\">{}</a>", escape(rule))
    }

    /// What the rule means, inline.
    fn meaning(&self, instruction: &str, rule: &str) -> String {
        crate::syntax::rules::entry_named(self.catalog, instruction, rule)
            .map_or_else(|| "(not in vectors/rules.json)".to_owned(), |e| markdown(&e.meaning))
    }

    /// Every rule named, with its meaning and the document's words it encodes.
    fn glossary(&self, h: &mut String) {
        if self.used.is_empty() {
            return;
        }
        h.push_str("<h2 id=\"rules\">Rules named on this page</h2>\n<p>As <code>vectors/rules.json</code> gives them: a general rule of the judge, a family (<code>set.&lt;name&gt;</code>, <code>table.&lt;id&gt;</code>), or an instruction's own rule, from the document's words.</p>\n<dl class=\"rules\">\n");
        for (anchor, (name, entry)) in &self.used {
            let whose = entry
                .and_then(|e| e.instruction.as_deref())
                .map_or_else(String::new, |i| format!(" <small>({})</small>", escape(i)));
            let _ = writeln!(h, "<dt id=\"{anchor}\"><code>{}</code>{whose}</dt>", escape(name));
            match entry {
                Some(e) => {
                    let _ = write!(h, "<dd class=\"meaning\">{}", markdown(&e.meaning));
                    if let Some(q) = &e.quote {
                        let _ = write!(h, "<blockquote>{}</blockquote>", markdown(q));
                    }
                    h.push_str("</dd>\n");
                }
                None => h.push_str("<dd class=\"meaning\">not in vectors/rules.json</dd>\n"),
            }
        }
        h.push_str("</dl>\n");
    }
}

/// The id of a rule's explanation: `rule-` and the instruction, for its own rules.
fn rule_anchor(instruction: Option<&str>, rule: &str) -> String {
    let raw = match instruction {
        Some(i) => format!("rule-{i}-{rule}"),
        None => format!("rule-{rule}"),
    };
    raw.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// How silicon departs from the document on one variant: its records that do not
/// keep the document's profile, and the ledger entries that name it.
struct SiliconDeparture {
    instruction: String,
    variant: String,
    mismatches: usize,
    records: usize,
    /// An example: record, slot, expected, got.
    example: Option<(String, String, String, String)>,
}

/// Silicon's cells below 100%: per variant, the records where silicon departs
/// from the document's profile, and the errata ledger's entries on it (those whose
/// `disagreements` name `silicon:sm_90:<variant>`).
fn silicon_departures(h: &mut String, spec: &Spec, departures: &[SiliconDeparture]) {
    h.push_str("<h2 id=\"silicon\">Silicon against the document</h2>\n");
    if departures.is_empty() {
        h.push_str("<p>Silicon keeps the document's profile on every record it ran.</p>\n");
        return;
    }
    h.push_str("<p>Silicon's row grades silicon's own outputs under the document's profile: where it is below 100%, silicon departs from what the document says. Each departure is in the errata ledger (<code>spec/errata.yaml</code>); the <code>sm_90</code> profile follows silicon there, and the vectors carry both expectations.</p>\n");
    let mut by: BTreeMap<&str, Vec<&SiliconDeparture>> = BTreeMap::new();
    for d in departures {
        by.entry(d.instruction.as_str()).or_default().push(d);
    }
    for (instruction, list) in by {
        let n: usize = list.iter().map(|d| d.mismatches).sum();
        let _ = writeln!(
            h,
            "<h3 id=\"{}\">{}: {n} records depart from the document</h3>\n<table class=\"departures\">\n<tr><th>variant</th><th>records</th><th>example</th><th>errata ledger</th></tr>",
            silicon_anchor(instruction),
            escape(instruction)
        );
        for d in list {
            let key = format!("silicon:sm_90:{}", d.variant);
            let entries: Vec<String> = spec
                .errata
                .errata
                .iter()
                .filter(|e| e.disagreements.contains(&key))
                .map(|e| {
                    format!(
                        "<p><strong>{}</strong> ({}): {}<br><em>Resolution:</em> {}</p>",
                        escape(&e.id),
                        kind_name(&e.kind),
                        markdown(&e.summary),
                        markdown(&e.resolution)
                    )
                })
                .collect();
            let example = d.example.as_ref().map_or_else(String::new, |(id, out, want, got)| {
                format!("<code>{}</code> {}: document {}, silicon {}", escape(id), escape(out), value_span(want), value_span(got))
            });
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td class=\"n\">{} of {}</td><td class=\"msg\">{example}</td><td class=\"ledger\">{}</td></tr>",
                breakable(&d.variant),
                d.mismatches,
                d.records,
                if entries.is_empty() {
                    "<p class=\"fail\">no ledger entry names this variant</p>".to_owned()
                } else {
                    entries.join("")
                }
            );
        }
        h.push_str("</table>\n");
    }
}

/// An erratum's kind, as the ledger writes it.
fn kind_name(k: &ptxvec_spec::ErratumKind) -> &'static str {
    use ptxvec_spec::ErratumKind as K;
    match k {
        K::DocTypo => "doc_typo",
        K::DocSelfContradiction => "doc_self_contradiction",
        K::SeedsDisagree => "seeds_disagree",
        K::DocVsPtxas => "doc_vs_ptxas",
        K::DocVsSilicon => "doc_vs_silicon",
        K::PtxasFault => "ptxas_fault",
        K::CompilerVsModel => "compiler_vs_model",
    }
}

/// The id of silicon's departures on one instruction.
fn silicon_anchor(instruction: &str) -> String {
    anchor("silicon", instruction)
}

/// A bit pattern that stays whole.
fn value_span(v: &str) -> String {
    format!("<span class=\"v\">{}</span>", escape(v))
}

/// A name that may break after each `.`, `:` and `/`.
fn breakable(text: &str) -> String {
    escape(text).replace('.', ".<wbr>").replace(':', ":<wbr>").replace('/', "/<wbr>")
}

/// The compilers' section: each recorded compiler's modules linted now, their
/// illegal lines by rule (each rule explained, the lines folded), and lint against
/// ptxas's recorded verdict, module by module (`conformance_compiler`, as
/// docs/conformance.md's table).
fn compilers(h: &mut String, summary: &mut String, spec: &Spec, dirs: &[std::path::PathBuf], rules: &mut Rules<'_>) -> Result<()> {
    use super::conformance_compiler::{check, IllegalLine, Totals};
    let dirs: Vec<&std::path::PathBuf> = dirs.iter().filter(|d| d.join("manifest.json").is_file()).collect();
    if dirs.is_empty() {
        return Ok(());
    }
    h.push_str("<h2>Compilers: their modules linted, against ptxas</h2>\n<table>\n<tr><th>compiler</th><th>modules</th><th>covered instructions</th><th>illegal at the module's .version and .target</th><th>lint agrees with ptxas</th></tr>\n");
    let mut findings = String::new();
    summary.push_str("Compilers: modules linted, against ptxas:\n");
    for dir in dirs {
        let checks = check(spec, dir)?;
        let t = Totals::of(&checks);
        let class = if t.agree == t.checked { "r100" } else { "r0" };
        let n = name(dir);
        // Writing to a String cannot fail.
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"cell {class}\">{} / {}</td></tr>",
            escape(&n),
            t.modules,
            t.covered,
            t.illegal,
            t.agree,
            t.checked
        );
        let _ = writeln!(
            summary,
            "  {n:<42} {} modules, {} covered, {} illegal, lint agrees with ptxas on {}/{}",
            t.modules, t.covered, t.illegal, t.agree, t.checked
        );
        for c in checks.iter().filter(|c| !c.illegal.is_empty()) {
            let _ = writeln!(
                findings,
                "<h3>{} <code>{}</code>: {} illegal</h3>\n<table class=\"groups\">\n<tr><th>lines</th><th>rule broken</th><th>the lines</th></tr>",
                escape(&n),
                escape(&c.module),
                c.illegal.len()
            );
            let mut by: BTreeMap<(&str, &str), Vec<&IllegalLine>> = BTreeMap::new();
            for i in &c.illegal {
                by.entry((i.instruction.as_str(), i.rule.as_str())).or_default().push(i);
            }
            for ((instruction, rule), lines) in by {
                let _ = writeln!(
                    findings,
                    "<tr><td class=\"n\">{}</td><td>{} <small>({})</small><br><small class=\"why\">{}</small></td><td><details class=\"group\"><summary>{} line(s)</summary><table>\n<tr><th>line</th><th>text</th></tr>",
                    lines.len(),
                    rules.link(instruction, rule),
                    escape(instruction),
                    rules.meaning(instruction, rule),
                    lines.len()
                );
                for i in lines {
                    let _ = writeln!(findings, "<tr><td>{}</td><td class=\"msg\">{}</td></tr>", i.line, escape(&i.text));
                }
                findings.push_str("</table></details></td></tr>\n");
            }
            findings.push_str("</table>\n");
        }
    }
    h.push_str("</table>\n");
    h.push_str(&findings);
    Ok(())
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;max-width:1600px}\
table{border-collapse:collapse;margin-bottom:1.5em}\
td,th{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}\
table.matrix{table-layout:fixed;width:100%;font-size:90%}\
table.matrix th{overflow-wrap:anywhere}table.matrix th.client{width:10em}\
td.cell{text-align:center}td.cell a{color:inherit;text-decoration:none;display:block}\
td.cell b{display:block;font-size:110%}td.cell small{display:block;color:#333}\
td.cell small.departs{text-decoration:underline}td.cell small.notrun{margin-top:3px;padding-top:2px;border-top:1px dashed #888;color:#444;font-style:italic}\
.r100{background:#b7e4b0}.r90{background:#d9f0c4}.r50{background:#f7e8a6}.r0{background:#f4b6ae}.none{background:#eee;color:#777}\
.partial{background-image:repeating-linear-gradient(135deg,transparent 0 7px,rgba(255,255,255,.55) 7px 11px)}\
p.legend span.cell{display:inline-block;padding:2px 8px;border:1px solid #bbb;margin-right:4px}\
.v{font-family:monospace;white-space:nowrap}code{font-family:monospace;background:#f3f3f3;padding:0 2px}\
td.n{text-align:right}\
td.msg{font-family:monospace;font-size:90%;max-width:40em;overflow-wrap:anywhere}\
small.why{display:block;max-width:60em;color:#333}\
table.groups>tbody>tr>td:nth-child(2){max-width:60em}\
td.ledger{max-width:60em}td.ledger p{margin:0 0 0.4em}\
details summary{cursor:pointer}\
dl.rules dt{margin-top:0.6em;font-weight:bold}dl.rules dd{margin-left:2em}\
blockquote{margin:0.3em 0 0 1em;padding-left:0.6em;border-left:3px solid #ccc;color:#444}\
h3{margin-top:1.5em}\
table.litmus{table-layout:fixed;width:100%}table.litmus th.source{width:45%}table.litmus th{overflow-wrap:anywhere}\
span.fail,p.fail{color:#a00}tr.fail>th{background:#f4b6ae}td.fail{background:#f4b6ae;text-align:center}";

fn name(dir: &Path) -> String {
    dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// A row from graded cases (a case without a result, `no result`, counts as not
/// run), and the records of variants not run.
fn row(client: String, kind: &'static str, cases: &[TestCase], not_run: &[(String, usize)]) -> Row {
    let mut cells: BTreeMap<String, Cell> = BTreeMap::new();
    for c in cases {
        let cell = cells.entry(c.instruction.clone()).or_default();
        let missing = c.failures.iter().any(|f| f.what == "no result");
        match c.status {
            Status::Passed => cell.passed += 1,
            Status::Failed if missing => cell.not_run += 1,
            Status::Failed => {
                cell.failed += 1;
                cell.failures.push(c.clone());
            }
            Status::NotGraded => {}
        }
    }
    for (instruction, n) in not_run {
        cells.entry(instruction.clone()).or_default().not_run += n;
    }
    Row {
        client,
        explained: BTreeMap::new(),
        kind,
        cells,
    }
}

/// Silicon's row: per instruction, the records its evidence matched under the
/// document's profile, of those it ran; the variants it could not run. And the
/// variants where silicon departs from the document.
fn silicon_row(vectors: &Path, variants: &[semantic::Variant]) -> Result<(Row, Vec<SiliconDeparture>)> {
    let path = vectors.join("silicon/sm_90").join(crate::device::silicon::evidence::FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let e = crate::device::silicon::evidence::parse(&text).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    let mut cells: BTreeMap<String, Cell> = BTreeMap::new();
    let mut departures = Vec::new();
    for run in &e.variants {
        let Some(v) = variants.iter().find(|v| v.suite.id == run.variant) else {
            continue;
        };
        let cell = cells.entry(v.instruction.clone()).or_default();
        let get = |m: &Option<BTreeMap<String, usize>>| m.as_ref().and_then(|m| m.get(Profile::PtxIsa.name()).copied()).unwrap_or(0);
        let (matched, mismatched) = (get(&run.matches), get(&run.mismatches));
        cell.passed += matched;
        cell.failed += mismatched;
        if run.not_run.is_some() {
            cell.not_run += run.records.unwrap_or(0);
        }
        if mismatched > 0 {
            departures.push(SiliconDeparture {
                instruction: v.instruction.clone(),
                variant: run.variant.clone(),
                mismatches: mismatched,
                records: matched + mismatched,
                example: run.ptx_isa_examples.as_ref().and_then(|x| x.first()).map(|x| {
                    (x.id.clone(), x.out.clone(), semantic::expectation_text(&x.expected), x.got.clone())
                }),
            });
        }
    }
    let row = Row {
        explained: BTreeMap::new(),
        client: format!("sm_90 silicon ({})", e.header.device),
        kind: "silicon evidence",
        cells,
    };
    Ok((row, departures))
}

/// A matrix: a row per client, a column per instruction. A cell: passed of
/// graded and the rate; apart, what did not run.
fn matrix(h: &mut String, summary: &mut String, section: &str, title: &str, rows: &[Row], instructions: &[String]) {
    let _ = writeln!(h, "<h2>{}</h2>\n<table class=\"matrix\">\n<tr><th class=\"client\">client</th>", escape(title));
    let _ = writeln!(summary, "{title}:");
    for i in instructions {
        let _ = write!(h, "<th>{}</th>", breakable(i));
    }
    h.push_str("</tr>\n");
    let silicon = rows.iter().position(|r| r.kind == "silicon evidence");
    for (k, r) in rows.iter().enumerate() {
        let _ = write!(h, "<tr><th>{}<br><small>{}</small></th>", breakable(&r.client), r.kind);
        let mut line = format!("  {:<42}", r.client);
        for i in instructions {
            let c = r.cells.get(i).cloned().unwrap_or_default();
            let graded = c.passed + c.failed;
            let not_run = if c.not_run > 0 {
                format!("<small class=\"notrun\">{} not run</small>", c.not_run)
            } else {
                String::new()
            };
            let partial = if c.not_run > 0 { " partial" } else { "" };
            if graded == 0 {
                let _ = write!(h, "<td class=\"cell none\"><b>–</b>{not_run}</td>");
                let _ = write!(line, " {i}: -");
                if c.not_run > 0 {
                    let _ = write!(line, " ({} not run)", c.not_run);
                }
                continue;
            }
            let rate = c.passed as f64 / graded as f64;
            let class = match rate {
                r if r >= 1.0 => "r100",
                r if r >= 0.9 => "r90",
                r if r >= 0.5 => "r50",
                _ => "r0",
            };
            // Silicon's failures are its departures from the document, each in the
            // ledger: the cell says so, and links to them.
            let departs = if Some(k) == silicon && c.failed > 0 {
                format!("<small class=\"departs\">{} depart from the document: see why</small>", c.failed)
            } else {
                String::new()
            };
            let text = format!("<b>{} / {}</b><small>passed, {:.1}%</small>{departs}{not_run}", c.passed, graded, rate * 100.0);
            let target = if Some(k) == silicon && c.failed > 0 {
                Some(silicon_anchor(i))
            } else if !c.failures.is_empty() {
                Some(anchor(&format!("{section}-{}", r.client), i))
            } else {
                None
            };
            match target {
                Some(id) => {
                    let _ = write!(h, "<td class=\"cell {class}{partial}\"><a href=\"#{id}\">{text}</a></td>");
                }
                None => {
                    let _ = write!(h, "<td class=\"cell {class}{partial}\">{text}</td>");
                }
            }
            let _ = write!(line, " {i}: {}/{graded}", c.passed);
            if c.not_run > 0 {
                let _ = write!(line, " ({} not run)", c.not_run);
            }
        }
        h.push_str("</tr>\n");
        let _ = writeln!(summary, "{line}");
    }
    h.push_str("</table>\n");
}

/// The failures behind one cell, by failure class (most first), each with what it
/// means (the client's explanation, or the rule an illegal case breaks) and a few
/// examples from distinct variants or forms, folded.
fn failures(h: &mut String, section: &str, r: &Row, instruction: &str, c: &Cell, rules: &mut Rules<'_>) {
    if c.failures.is_empty() {
        return;
    }
    let id = anchor(&format!("{section}-{}", r.client), instruction);
    let _ = writeln!(
        h,
        "<h3 id=\"{id}\">{} · {} · {}: {} failed</h3>",
        escape(section),
        escape(&r.client),
        escape(instruction),
        c.failures.len()
    );
    let mut groups: BTreeMap<String, Vec<&TestCase>> = BTreeMap::new();
    for t in &c.failures {
        groups.entry(t.group()).or_default().push(t);
    }
    let mut groups: Vec<(String, Vec<&TestCase>)> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    h.push_str("<table class=\"groups\">\n<tr><th>cases</th><th>failure class, and what it means</th><th>examples</th></tr>\n");
    for (g, cases) in groups.iter().take(SHOWN) {
        let mut why = Vec::new();
        if let Some(w) = r.explained.get(&format!("{instruction}: {g}")) {
            why.push(markdown(w));
        }
        // The rules the class's cases break: each named, linked, explained.
        let broken: BTreeSet<&str> = cases
            .iter()
            .filter(|t| t.failures.iter().any(|f| f.what.starts_with("illegal case accepted")))
            .filter_map(|t| t.groups.get("rule").map(String::as_str))
            .collect();
        for rule in broken {
            why.push(format!("{}: {}", rules.link(instruction, rule), rules.meaning(instruction, rule)));
        }
        let why = if why.is_empty() {
            String::new()
        } else {
            format!("<small class=\"why\">{}</small>", why.join("<br>"))
        };
        let group = FailureGroup {
            instruction,
            group: g.clone(),
            cases: cases.clone(),
        };
        let examples = group.examples(EXAMPLES);
        let _ = writeln!(
            h,
            "<tr><td class=\"n\">{}</td><td>{}{why}</td><td><details class=\"group\"><summary>{} example(s)</summary><table>\n<tr><th>case</th><th>what</th><th>expected</th><th>got</th></tr>",
            cases.len(),
            escape(g),
            examples.len()
        );
        for t in examples {
            let f = &t.failures[0];
            let _ = writeln!(
                h,
                "<tr><td><code>{}</code></td><td>{}</td>{}{}</tr>",
                breakable(&t.name()),
                escape(&f.what),
                value(&f.expected),
                value(&f.got)
            );
        }
        h.push_str("</table></details></td></tr>\n");
    }
    h.push_str("</table>\n");
    if groups.len() > SHOWN {
        let _ = writeln!(h, "<p>… and {} more classes: <code>ptxvec grade</code> on the client's folder lists every case.</p>", groups.len() - SHOWN);
    }
}

/// A bit pattern stays whole; a message wraps.
fn value(v: &str) -> String {
    let class = if v.len() <= 24 { "v" } else { "msg" };
    format!("<td class=\"{class}\">{}</td>", escape(v))
}

