//! The conformance table of the recorded third-party clients (vectors/clients):
//! each client's syntax results graded against the vectors, one row per client.
//! docs/conformance.md prints it, and a test holds the page to what grading gives now, so
//! that a change to the vectors shows at once how each client's score moves.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use ptxvec_spec::Spec;

use super::report::Status;
use super::results::{self, parse, read_input, Answer, SyntaxResult};
use super::syntax;
use crate::error::{Error, Result};

/// How a client did on one kind of case: passed of graded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Score {
    passed: usize,
    graded: usize,
}

/// One client's row.
#[derive(Debug, Clone, Default)]
struct Row {
    client: String,
    legal: Score,
    malformed: Score,
    invalid: Score,
    skipped: usize,
    /// Cases of today's vectors that the recorded results do not name: the client
    /// was run before they existed. Neither passed nor failed.
    not_run: usize,
    /// Failures per (kind, instruction, rule), most first.
    groups: BTreeMap<(String, String, String), usize>,
}

/// The table, as markdown, for every `<client>/syntax.jsonl` under `clients`
/// (folders in name order).
pub fn table(spec: &Spec, vectors: &Path, clients: &Path) -> Result<String> {
    let cases = syntax::load(spec, vectors)?;
    let mut rows = Vec::new();
    for (dir, path) in client_folders(clients)?.into_iter().filter_map(|d| results::syntax_file(&d).map(|p| (d, p))) {
        let mut bad = Vec::new();
        let results = parse::<SyntaxResult>(&path.display().to_string(), &read_input(&path)?, &mut bad);
        if !bad.is_empty() {
            return Err(results::bad_lines_error(&bad));
        }
        let mode = syntax::Mode {
            parser: false,
            all: true,
        };
        let section = syntax::grade(&cases, &results, &bad, mode);
        let mut row = Row {
            client: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            skipped: results
                .iter()
                .filter(|r| matches!(r.value.answer, Answer::Skipped(_)))
                .count(),
            ..Row::default()
        };
        for c in &section.cases {
            let kind = c.groups.get("kind").map_or("", String::as_str);
            let score = match kind {
                "legal" => &mut row.legal,
                "malformed" => &mut row.malformed,
                "invalid" => &mut row.invalid,
                _ => continue,
            };
            let missing = c.failures.iter().any(|f| f.what == "no result");
            match c.status {
                Status::NotGraded => continue,
                Status::Failed if missing => {
                    row.not_run += 1;
                    continue;
                }
                Status::Passed => score.passed += 1,
                Status::Failed => {
                    let rule = c.groups.get("rule").cloned().unwrap_or_default();
                    *row.groups
                        .entry((kind.to_owned(), c.instruction.clone(), rule))
                        .or_default() += 1;
                }
            }
            score.graded += 1;
        }
        rows.push(row);
    }
    Ok(render(&rows))
}

/// The folders of the recorded clients under `clients`, in name order.
pub fn client_folders(clients: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut dirs: Vec<_> = std::fs::read_dir(clients)
        .map_err(|e| Error::io(clients, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Ok(dirs)
}

fn render(rows: &[Row]) -> String {
    let mut t = String::from(
        "| client | legal accepted | malformed rejected | invalid rejected | skipped | not run | top failure groups |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let score = |s: Score| format!("{} / {}", s.passed, s.graded);
    for r in rows {
        let mut groups: Vec<(&(String, String, String), &usize)> = r.groups.iter().collect();
        // Most failures first; ties in key order, so the table is stable.
        groups.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = groups
            .iter()
            .take(3)
            .map(|((kind, instruction, rule), n)| {
                let what = match kind.as_str() {
                    "legal" => "legal rejected".to_owned(),
                    k => format!("{k} accepted ({rule})"),
                };
                format!("{n} {instruction} {what}")
            })
            .collect();
        let _ = writeln!(
            t,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            r.client,
            score(r.legal),
            score(r.malformed),
            score(r.invalid),
            r.skipped,
            r.not_run,
            if top.is_empty() {
                "none".to_owned()
            } else {
                top.join("; ")
            }
        );
    }
    t
}
