//! The text summary `grade` prints on stdout: the verdict and each section's counts
//! first, then per section the counts per instruction and kind, the finer groups
//! that fail, what was not graded (a count per instruction; `--json` lists each),
//! and the failures by class, the largest first, a few examples each; the verdict
//! again last, for a reader of the output's tail.

use super::report::{strip_slots, Report, Section, TestCase, EXAMPLES, NOTHING_GRADED};

/// Failure classes the summary shows, the largest first, before it points to the
/// files with all of them.
pub const SUMMARY_GROUPS: usize = 16;

/// Reasons for not grading a case that the summary lists, most frequent first.
pub const SUMMARY_REASONS: usize = 10;

/// A section's counts, in one line.
fn counts_line(sec: &Section) -> String {
    let c = sec.counts();
    let mut line = format!(
        "{} ({}): {} graded, {} passed, {} failed, {} not graded",
        sec.name,
        sec.mode,
        c.graded(),
        c.passed,
        c.failed,
        c.not_graded
    );
    if !sec.not_graded.is_empty() {
        line += &format!("; {} {} with no result", sec.not_graded.len(), sec.unit());
    }
    line
}

/// One failed case in one line: its id, its first three defects, and the command
/// that reproduces it. A defect of the same kind as the one before it is named by
/// its slot alone (`d[33]`), so that a long reason is written once.
fn fail_line(t: &TestCase) -> String {
    let mut last = String::new();
    let what: Vec<String> = t
        .failures
        .iter()
        .take(3)
        .map(|f| {
            let kind = strip_slots(&f.what);
            let named = match f.what.split_once(": ") {
                Some((slot, _)) if kind == last => slot,
                _ => &f.what,
            };
            let line = format!("{named} (expected {}, got {})", clip(&f.expected), clip(&f.got));
            last = kind;
            line
        })
        .collect();
    let more = t.failures.len().saturating_sub(3);
    format!(
        "FAIL {}: {}{}  [{}]",
        t.name(),
        what.join("; "),
        if more > 0 {
            format!("; {more} more")
        } else {
            String::new()
        },
        t.reproduce
    )
}

/// Longest expectation or value a summary line shows whole.
const CLIP: usize = 120;

/// A value cut to [`CLIP`] characters (a permutation of 32 lanes is 700), saying
/// so.
fn clip(text: &str) -> String {
    match text.char_indices().nth(CLIP) {
        Some((at, _)) => format!("{}... ({} characters; --json has it whole)", &text[..at], text.chars().count()),
        None => text.to_owned(),
    }
}

/// The short human summary. First the verdict and each section's counts; then per
/// section the counts per instruction, the finer groups that fail, what was not
/// graded (a count per instruction: `--json` lists every variant or instruction,
/// and every case), and the failures by class, the largest first, each with a few
/// examples, one line each naming its id and the command that reproduces it; last
/// the verdict again, for a reader of the output's tail.
pub fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let verdict = format!("grade: {}", if r.failed() { "FAILED" } else { "passed" });
    let _ = writeln!(s, "{verdict}");
    for sec in &r.sections {
        let _ = writeln!(s, "  {}", counts_line(sec));
    }
    if !r.input_errors.is_empty() {
        let _ = writeln!(
            s,
            "  input errors: {} bad line(s) in the results, each on stderr (and in --json, --junit and --html); the lines read were graded",
            r.input_errors.len()
        );
    }
    let mut hidden = 0;
    for sec in &r.sections {
        let _ = writeln!(s, "\n{}", counts_line(sec));
        if sec.graded_nothing() {
            let _ = writeln!(s, "  {NOTHING_GRADED}");
        }
        let mut tallies: Vec<_> = sec.tallies().into_iter().collect();
        // The instructions and kinds first, then the finer groups.
        tallies.sort_by_key(|(g, _)| (!matches!(*g, "instruction" | "kind"), *g));
        for (g, rows) in tallies {
            // Every instruction and kind; of the finer groups only those that fail.
            let all = matches!(g, "instruction" | "kind");
            let rows: Vec<_> = rows.iter().filter(|(_, c)| all || c.failed > 0).collect();
            if rows.is_empty() {
                continue;
            }
            let _ = writeln!(s, "  by {g}{}:", if all { "" } else { ", failing" });
            for (v, c) in rows {
                let _ = writeln!(
                    s,
                    "    {v:<48} {:>6} passed {:>6} failed {:>6} not graded",
                    c.passed, c.failed, c.not_graded
                );
            }
        }
        let unnamed = sec.not_graded_by_instruction();
        if !unnamed.is_empty() {
            let _ = writeln!(
                s,
                "  not graded, no result names them ({} {}; --all requires them; --json FILE lists each, sections[].not_graded):",
                sec.not_graded.len(),
                sec.unit()
            );
            for (instruction, (n, cases)) in &unnamed {
                let not_run = sec
                    .not_graded
                    .iter()
                    .filter(|u| u.instruction == *instruction && u.not_run.is_some())
                    .count();
                let _ = writeln!(
                    s,
                    "    {instruction:<48} {n:>6} {} {cases:>7} {}{}",
                    if sec.name == "syntax" { "instruction " } else { "variants    " },
                    if sec.name == "syntax" { "cases" } else { "records" },
                    if not_run > 0 {
                        format!(" ({not_run} not run by the engine)")
                    } else {
                        String::new()
                    }
                );
            }
        }
        let reasons = sec.not_graded_reasons();
        if !reasons.is_empty() {
            let _ = writeln!(s, "  not graded, by reason:");
            for (reason, n, first) in reasons.iter().take(SUMMARY_REASONS) {
                let _ = writeln!(s, "    {n:>6}  {reason} (first: {})", first.name());
            }
            if reasons.len() > SUMMARY_REASONS {
                let _ = writeln!(
                    s,
                    "    ... and {} more reasons (--json lists every case)",
                    reasons.len() - SUMMARY_REASONS
                );
            }
        }
        let groups = sec.failure_groups();
        if !groups.is_empty() {
            let _ = writeln!(s, "  failures by class ({} classes, the largest first):", groups.len());
        }
        for (k, g) in groups.iter().enumerate() {
            if k == SUMMARY_GROUPS {
                hidden += groups[k..].iter().map(|g| g.cases.len()).sum::<usize>();
                let _ = writeln!(
                    s,
                    "  ... and {} more classes",
                    groups.len() - SUMMARY_GROUPS
                );
                break;
            }
            let _ = writeln!(s, "  {:>6}  {}", g.cases.len(), g.key());
            let examples = g.examples(EXAMPLES);
            for t in &examples {
                let _ = writeln!(s, "          {}", fail_line(t));
            }
            hidden += g.cases.len() - examples.len();
        }
    }
    if hidden > 0 {
        let _ = writeln!(
            s,
            "\n... and {hidden} more failed cases (--json, --junit or --html list every one)"
        );
    }
    let _ = writeln!(s, "{verdict}");
    s
}
