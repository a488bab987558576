//! `coverage --html`: one static page, no external resources: a row per element
//! with the witnesses it needs and has (the first few ids of each kind), its holes
//! marked; then the defect class × form matrix.

use std::fmt::Write;

use super::elements::WitnessKind;
use super::matrix::Grid;
use super::Row;
use crate::grade::junit::escape;

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse;margin-bottom:1.5em}\
td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\
code{font-family:monospace;word-break:break-all}\
tr.hole td:first-child{border-left:4px solid #c00}\
tr.awaiting td:first-child{border-left:4px solid #c90}\
td.hole{background:#fdd}";

/// The page.
pub fn render(rows: &[Row<'_>], grid: &Grid) -> String {
    let mut h = String::new();
    let holes = rows.iter().filter(|r| !r.missing().is_empty()).count();
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvec coverage</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>ptxvec coverage</h1>\n<p>{} elements, {} without a witness they need, {} awaiting silicon that no recorded run covers yet; {} defect class × form holes.</p>",
        rows.len(),
        holes,
        rows.iter().filter(|r| r.missing().is_empty() && r.found.1.is_some()).count(),
        grid.holes()
    );
    let _ = writeln!(
        h,
        "<table>\n<tr><th>element</th><th>kind</th><th>needs</th>{}</tr>",
        WitnessKind::ALL
            .iter()
            .map(|k| format!("<th>{}</th>", k.name()))
            .collect::<String>()
    );
    for r in rows {
        let missing = r.missing();
        let needs: Vec<&str> = r.element.needs.iter().map(|k| k.name()).collect();
        let _ = write!(
            h,
            "<tr id=\"{}\"{}><td><code>{}</code></td><td>{}</td><td>{}</td>",
            escape(&anchor(&r.element.id)),
            match (missing.is_empty(), &r.found.1) {
                (false, _) => " class=\"hole\"",
                (true, Some(_)) => " class=\"awaiting\"",
                (true, None) => "",
            },
            escape(&r.element.id),
            r.element.kind.name(),
            needs.join(", ")
        );
        for k in WitnessKind::ALL {
            let cell = match r.found.0.get(k) {
                Some((n, ids)) => {
                    let list: Vec<String> = ids
                        .iter()
                        .map(|id| format!("<code>{}</code>", escape(id)))
                        .collect();
                    format!(
                        "{n}: {}{}",
                        list.join("<br>"),
                        if *n > ids.len() { " …" } else { "" }
                    )
                }
                None => match &r.found.1 {
                    Some(a) if *k == WitnessKind::Silicon => format!(
                        "awaiting silicon {}: {}",
                        escape(&a.silicon),
                        escape(&a.why)
                    ),
                    _ => String::new(),
                },
            };
            let class = if missing.contains(k) {
                " class=\"hole\""
            } else {
                ""
            };
            let _ = write!(h, "<td{class}>{cell}</td>");
        }
        let _ = writeln!(h, "</tr>");
    }
    let _ = writeln!(
        h,
        "</table>\n<h2>Defect class × form</h2>\n<table>\n<tr><th>form</th>{}</tr>",
        grid.columns
            .iter()
            .map(|c| format!("<th><code>{}</code></th>", escape(c)))
            .collect::<String>()
    );
    for (form, cells) in &grid.rows {
        let tds: String = cells
            .iter()
            .map(|c| match (c.cases, c.meaningful) {
                (0, true) => "<td class=\"hole\">0</td>".to_owned(),
                (0, false) => "<td>-</td>".to_owned(),
                (n, _) => format!("<td>{n}</td>"),
            })
            .collect();
        let _ = writeln!(h, "<tr><td><code>{}</code></td>{tds}</tr>", escape(form));
    }
    let _ = writeln!(h, "</table>\n</body>\n</html>");
    h
}

/// An element id as an HTML id: other characters than letters, digits, `-`, `_`
/// and `.` become `-`.
fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}
