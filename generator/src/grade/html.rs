//! `--html`: the grading as one static page with no external resources (styles
//! inline, no scripts, no fonts or images): per section the counts, then a table per
//! instruction whose rows are its failures, each with its text, inputs, expected and
//! got, and the citation the expectation rests on.

use std::fmt::Write;

use super::junit::escape;
use super::report::{Report, Status, NOTHING_GRADED};

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse;margin-bottom:1.5em}\
td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\
td.code,code{font-family:monospace;white-space:pre-wrap;word-break:break-all}\
tr.failed td:first-child{border-left:4px solid #c00}\
.pass{color:#070}.fail{color:#c00}";

/// An id an element can carry: the section and instruction, other characters `-`.
pub fn anchor(section: &str, instruction: &str) -> String {
    let name: String = format!("{section}-{instruction}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("t-{name}")
}

/// The page.
pub fn render(r: &Report) -> String {
    let mut h = String::new();
    let verdict = if r.failed() {
        "<span class=\"fail\">FAILED</span>"
    } else {
        "<span class=\"pass\">passed</span>"
    };
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvec grade</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>ptxvec grade: {verdict}</h1>"
    );
    if !r.input_errors.is_empty() {
        let _ = writeln!(
            h,
            "<section id=\"input-errors\">\n<h2 class=\"fail\">Input errors: {} bad line(s) in the results</h2>\n<p>The lines read were graded; each of these was not.</p>\n<ul>",
            r.input_errors.len()
        );
        for b in &r.input_errors {
            let _ = writeln!(h, "<li><code>{}</code></li>", escape(&b.to_string()));
        }
        h.push_str("</ul>\n</section>\n");
    }
    for sec in &r.sections {
        let c = sec.counts();
        let _ = writeln!(
            h,
            "<section id=\"{}\">\n<h2>{} ({})</h2>\n<p>{} graded: {} passed, {} failed, {} not graded.</p>",
            escape(sec.name),
            escape(sec.name),
            escape(&sec.mode),
            c.graded(),
            c.passed,
            c.failed,
            c.not_graded
        );
        if sec.graded_nothing() {
            let _ = writeln!(h, "<p class=\"fail\">{}</p>", escape(NOTHING_GRADED));
        }
        if !sec.not_graded.is_empty() {
            let _ = writeln!(
                h,
                "<p>Not graded ({} with no result; <code>--all</code> requires them): {}</p>",
                sec.not_graded.len(),
                escape(&sec.not_graded.join(", "))
            );
        }
        for (instruction, ic) in sec.by_instruction() {
            let _ = writeln!(
                h,
                "<h3>{}</h3>\n<table id=\"{}\" class=\"instruction\">\n<caption>{}: {} passed, {} failed, {} not graded</caption>\n<tr><th>id</th><th>failure</th><th>text</th><th>inputs</th><th>expected</th><th>got</th><th>source</th><th>reproduce</th></tr>",
                escape(&instruction),
                anchor(sec.name, &instruction),
                escape(&instruction),
                ic.passed,
                ic.failed,
                ic.not_graded
            );
            let failed = sec
                .cases
                .iter()
                .filter(|t| t.instruction == instruction && t.status == Status::Failed);
            let mut any = false;
            for t in failed {
                any = true;
                for f in &t.failures {
                    let _ = writeln!(
                        h,
                        "<tr class=\"failed\"><td class=\"code\">{}</td><td>{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td><td>{}</td><td class=\"code\">{}</td></tr>",
                        escape(&t.name()),
                        escape(&f.what),
                        escape(&t.text),
                        escape(&t.inputs.to_string()),
                        escape(&f.expected),
                        escape(&f.got),
                        escape(&t.source),
                        escape(&t.reproduce)
                    );
                }
            }
            if !any {
                let _ = writeln!(
                    h,
                    "<tr class=\"clean\"><td colspan=\"8\">no failures</td></tr>"
                );
            }
            h.push_str("</table>\n");
        }
        h.push_str("</section>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}
