//! `--junit`: the grading as JUnit XML, the form CI systems read (Jenkins, GitLab,
//! GitHub actions' test reporters): a `testsuite` per section and instruction, a
//! `testcase` per case or record, a `failure` with its message, `skipped` for what
//! is not graded (a case, or a whole variant or instruction no result names), an
//! `error` per results line that could not be read. `tests` counts every `testcase`, the skipped ones too (JUnit's
//! meaning), so the cases graded are `tests` less `skipped`. No timestamps and no
//! times, so that the file is deterministic.

use std::fmt::Write;

use super::report::{Report, Status, NOTHING_GRADED};

/// Escapes text for an XML attribute or element.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 allows no other control characters, not even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Why a variant or instruction of the vectors is not graded at all.
pub const NO_RESULT: &str = "not graded: no result names it (--all requires every one)";

/// The JUnit XML document.
pub fn render(r: &Report) -> String {
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (mut tests, mut failures, mut skipped) = (0, 0, 0);
    let mut body = String::new();
    for sec in &r.sections {
        if sec.graded_nothing() {
            // A test that fails, so that a CI reading only this file fails as the
            // exit status does.
            tests += 1;
            failures += 1;
            let _ = writeln!(
                body,
                "  <testsuite name=\"{0}\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n    <testcase classname=\"ptxvec.{0}\" name=\"results grade something\">\n      <failure message=\"{1}\" type=\"{0}\"/>\n    </testcase>\n  </testsuite>",
                sec.name,
                escape(NOTHING_GRADED)
            );
        }
        for (instruction, c) in sec.by_instruction() {
            tests += c.total();
            failures += c.failed;
            skipped += c.not_graded;
            let _ = writeln!(
                body,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">",
                escape(&format!("{}: {instruction}", sec.name)),
                c.total(),
                c.failed,
                c.not_graded
            );
            for t in sec.cases.iter().filter(|t| t.instruction == instruction) {
                let _ = write!(
                    body,
                    "    <testcase classname=\"{}\" name=\"{}\"",
                    escape(&format!("ptxvec.{}.{instruction}", sec.name)),
                    escape(&t.name())
                );
                match t.status {
                    Status::Passed => body.push_str("/>\n"),
                    Status::NotGraded => {
                        let _ = writeln!(
                            body,
                            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                            escape(t.not_graded.as_deref().unwrap_or_default())
                        );
                    }
                    Status::Failed => {
                        let message: Vec<&str> =
                            t.failures.iter().map(|f| f.what.as_str()).collect();
                        let mut detail = String::new();
                        for f in &t.failures {
                            let _ = writeln!(
                                detail,
                                "{}: expected {}, got {}",
                                f.what, f.expected, f.got
                            );
                        }
                        let _ = write!(
                            detail,
                            "text: {}\ninputs: {}\nsource: {}\nreproduce: {}",
                            t.text, t.inputs, t.source, t.reproduce
                        );
                        let _ = writeln!(
                            body,
                            ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                            escape(&format!("{}: {}", t.name(), message.join("; "))),
                            sec.name,
                            escape(&detail)
                        );
                    }
                }
            }
            body.push_str("  </testsuite>\n");
        }
        // What no result names is no less left out than a case skipped one by one:
        // a skipped test per variant (instruction, for syntax), so that a CI report
        // shows it.
        let n = sec.not_graded.len();
        if n > 0 {
            tests += n;
            skipped += n;
            let _ = writeln!(
                body,
                "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"0\" errors=\"0\" skipped=\"{n}\">",
                escape(&format!("{}: no result", sec.name))
            );
            for u in &sec.not_graded {
                let message = match &u.not_run {
                    Some(why) => format!("{NO_RESULT}; the engine did not run it: {why}"),
                    None => NO_RESULT.to_owned(),
                };
                let _ = writeln!(
                    body,
                    "    <testcase classname=\"ptxvec.{}\" name=\"{}\">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    sec.name,
                    escape(&u.name),
                    escape(&message)
                );
            }
            body.push_str("  </testsuite>\n");
        }
    }
    // A results line that could not be read is a test in error (JUnit's word for a
    // test that could not run), one per line.
    let errors = r.input_errors.len();
    if errors > 0 {
        tests += errors;
        let _ = writeln!(
            body,
            "  <testsuite name=\"input errors\" tests=\"{errors}\" failures=\"0\" errors=\"{errors}\" skipped=\"0\">"
        );
        for b in &r.input_errors {
            let _ = writeln!(
                body,
                "    <testcase classname=\"ptxvec.input\" name=\"{}\">\n      <error message=\"{}\" type=\"input\"/>\n    </testcase>",
                escape(&format!("{}:{}", b.file, b.line)),
                escape(&b.to_string())
            );
        }
        body.push_str("  </testsuite>\n");
    }
    let _ = writeln!(
        x,
        "<testsuites name=\"ptxvec grade\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\">"
    );
    x.push_str(&body);
    x.push_str("</testsuites>\n");
    x
}
