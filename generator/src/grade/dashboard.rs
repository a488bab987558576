//! `ptxvec grade --clients DIR --html FILE`: one static page over every recorded
//! client (vectors/clients): a matrix of clients × instructions for syntax (the
//! parsers and ptxas, each `syntax.jsonl` graded with every case required) and one
//! for semantics (silicon's evidence as the reference row, then each engine's raw
//! buffers graded under the document's profile), then the compilers (each recorded
//! compiler's modules linted, lint against ptxas's verdict, and every illegal line).
//! Each cell is a pass rate and links to the failures behind it, further down the
//! same page. No scripts, no external resources; the same files give the same bytes.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::html::anchor;
use super::junit::escape;
use super::report::{Status, TestCase};
use super::results::{parse, read_input, SyntaxResult};
use super::{semantic, syntax};
use crate::error::{Error, Result};

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
    let mut semantic_rows = vec![silicon_row(vectors, &variants)?];
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
    let mut html = String::new();
    let _ = writeln!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvec conformance dashboard</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>ptxvec conformance dashboard</h1>\n<p>Every recorded client under <code>{}</code>, graded against the vectors of this commit. Each cell: passed of graded, as a rate; it links to the failures below. Syntax: every case required (a case the client predates is counted as not run). Semantics: the document's profile (<code>ptx-isa</code>); silicon's row is its evidence (<code>vectors/silicon/sm_90/vectors.json</code>), the reference, whose every departure from the document is in the errata ledger; <em>not run</em> counts the records of variants an engine could not load.</p>",
        escape(&clients.display().to_string())
    );
    let mut summary = String::new();
    matrix(&mut html, &mut summary, "syntax", "Syntax: parsers and assemblers", &syntax_rows, &instructions);
    matrix(&mut html, &mut summary, "semantic", "Semantics: silicon and engines", &semantic_rows, &instructions);
    compilers(&mut html, &mut summary, spec, &dirs)?;
    html.push_str("<h2>Failures</h2>\n");
    for (section, rows) in [("syntax", &syntax_rows), ("semantic", &semantic_rows)] {
        for r in rows {
            for (instruction, c) in &r.cells {
                failures(&mut html, section, r, instruction, c);
            }
        }
    }
    html.push_str("</body>\n</html>\n");
    Ok(Dashboard { html, summary })
}

/// The compilers' section: each recorded compiler's modules linted now, their
/// illegal lines, and lint against ptxas's recorded verdict, module by module
/// (`conformance_compiler`, as docs/conformance.md's table).
fn compilers(h: &mut String, summary: &mut String, spec: &Spec, dirs: &[std::path::PathBuf]) -> Result<()> {
    use super::conformance_compiler::{check, Totals};
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
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"cell {class}\">{} / {}</td></tr>",
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
            let _ = writeln!(findings, "<h3>{} <code>{}</code>: {} illegal</h3>\n<table>\n<tr><th>line</th><th>rule</th><th>text</th></tr>", escape(&n), escape(&c.module), c.illegal.len());
            for (line, rule, text) in &c.illegal {
                let _ = writeln!(findings, "<tr><td>{line}</td><td>{}</td><td class=\"msg\">{}</td></tr>", escape(rule), escape(text));
            }
            findings.push_str("</table>\n");
        }
    }
    h.push_str("</table>\n");
    h.push_str(&findings);
    Ok(())
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse;margin-bottom:1.5em}\
td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top}\
td.cell{text-align:center;min-width:7em}td.cell a{color:inherit;text-decoration:none}\
td.cell small{display:block;color:#333}\
.r100{background:#b7e4b0}.r90{background:#d9f0c4}.r50{background:#f7e8a6}.r0{background:#f4b6ae}.none{background:#eee;color:#777}\
.v{font-family:monospace;white-space:nowrap}code{font-family:monospace}\
td.msg{font-family:monospace;font-size:90%;max-width:40em;overflow-wrap:anywhere}\
h3{margin-top:1.5em}";

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
/// document's profile, of those it ran; the variants it could not run.
fn silicon_row(vectors: &Path, variants: &[semantic::Variant]) -> Result<Row> {
    let path = vectors.join("silicon/sm_90").join(crate::device::silicon::evidence::FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let e = crate::device::silicon::evidence::parse(&text).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    let mut cells: BTreeMap<String, Cell> = BTreeMap::new();
    for run in &e.variants {
        let Some(v) = variants.iter().find(|v| v.suite.id == run.variant) else {
            continue;
        };
        let cell = cells.entry(v.instruction.clone()).or_default();
        let get = |m: &Option<BTreeMap<String, usize>>| m.as_ref().and_then(|m| m.get(Profile::PtxIsa.name()).copied()).unwrap_or(0);
        cell.passed += get(&run.matches);
        cell.failed += get(&run.mismatches);
        if run.not_run.is_some() {
            cell.not_run += run.records.unwrap_or(0);
        }
    }
    Ok(Row {
        explained: BTreeMap::new(),
        client: format!("sm_90 silicon ({})", e.header.device),
        kind: "silicon evidence",
        cells,
    })
}

/// A matrix: a row per client, a column per instruction.
fn matrix(h: &mut String, summary: &mut String, section: &str, title: &str, rows: &[Row], instructions: &[String]) {
    let _ = writeln!(h, "<h2>{}</h2>\n<table>\n<tr><th>client</th>", escape(title));
    let _ = writeln!(summary, "{title}:");
    for i in instructions {
        let _ = write!(h, "<th>{}</th>", escape(i));
    }
    h.push_str("</tr>\n");
    for r in rows {
        let _ = write!(h, "<tr><th>{}<br><small>{}</small></th>", escape(&r.client), r.kind);
        let mut line = format!("  {:<42}", r.client);
        for i in instructions {
            let c = r.cells.get(i).cloned().unwrap_or_default();
            let graded = c.passed + c.failed;
            let not_run = if c.not_run > 0 {
                format!("<small>{} not run</small>", c.not_run)
            } else {
                String::new()
            };
            if graded == 0 {
                let _ = write!(h, "<td class=\"cell none\">–{not_run}</td>");
                let _ = write!(line, " {i}: -");
                continue;
            }
            let rate = c.passed as f64 / graded as f64;
            let class = match rate {
                r if r >= 1.0 => "r100",
                r if r >= 0.9 => "r90",
                r if r >= 0.5 => "r50",
                _ => "r0",
            };
            let text = format!("{:.1}%<small>{} / {}</small>{not_run}", rate * 100.0, c.passed, graded);
            if c.failures.is_empty() {
                let _ = write!(h, "<td class=\"cell {class}\">{text}</td>");
            } else {
                let id = anchor(&format!("{section}-{}", r.client), i);
                let _ = write!(h, "<td class=\"cell {class}\"><a href=\"#{id}\">{text}</a></td>");
            }
            let _ = write!(line, " {i}: {}/{graded}", c.passed);
        }
        h.push_str("</tr>\n");
        let _ = writeln!(summary, "{line}");
    }
    h.push_str("</table>\n");
}

/// The failures behind one cell, by failure group (most first), each with its
/// explanation where the client has one, and a few examples from distinct variants
/// or forms.
fn failures(h: &mut String, section: &str, r: &Row, instruction: &str, c: &Cell) {
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
        groups.entry(group(t)).or_default().push(t);
    }
    let mut groups: Vec<(String, Vec<&TestCase>)> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    h.push_str("<table>\n<tr><th>failure group</th><th>cases</th><th>example</th><th>what</th><th>expected</th><th>got</th></tr>\n");
    for (g, cases) in groups.iter().take(SHOWN) {
        let why = r
            .explained
            .get(&format!("{instruction}: {g}"))
            .map_or_else(String::new, |w| format!("<br><small>{}</small>", escape(w)));
        // One example per variant or form, the first of each, up to three.
        let mut seen = Vec::new();
        let examples: Vec<&&TestCase> = cases
            .iter()
            .filter(|t| {
                let key = t.groups.get("variant").or_else(|| t.groups.get("form")).cloned().unwrap_or_default();
                let new = !seen.contains(&key);
                seen.push(key);
                new
            })
            .take(EXAMPLES)
            .collect();
        for (k, t) in examples.iter().enumerate() {
            let f = &t.failures[0];
            let head = if k == 0 {
                format!(
                    "<td rowspan=\"{}\">{}{why}</td><td rowspan=\"{}\">{}</td>",
                    examples.len(),
                    escape(g),
                    examples.len(),
                    cases.len()
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                h,
                "<tr>{head}<td><code>{}</code></td><td>{}</td>{}{}</tr>",
                escape(&t.name()),
                escape(&f.what),
                value(&f.expected),
                value(&f.got)
            );
        }
    }
    h.push_str("</table>\n");
    if groups.len() > SHOWN {
        let _ = writeln!(h, "<p>… and {} more groups: <code>ptxvec grade</code> on the client's folder lists every case.</p>", groups.len() - SHOWN);
    }
}

/// Examples shown per failure group.
const EXAMPLES: usize = 3;

/// A bit pattern stays whole; a message wraps.
fn value(v: &str) -> String {
    let class = if v.len() <= 24 { "v" } else { "msg" };
    format!("<td class=\"{class}\">{}</td>", escape(v))
}

/// The group a failing case falls in: its kinds of defect, slots left out.
fn group(t: &TestCase) -> String {
    super::conformance_semantic::group(t)
}
