//! `--html`: the grading as one static page with no external resources (styles
//! inline, no scripts, no fonts or images). First the verdict and a table of the
//! sections' counts; then the results lines that could not be read; then per
//! section its counts per instruction, what was not graded (folded: the variants or
//! instructions no result names, per instruction, and the cases held back, by
//! reason), and per instruction a table of its failure classes, each folded: a few
//! failed cases in full (each failure: where, expected, got; the text, the inputs,
//! the citation the expectation rests on and the command that reproduces it), then
//! the names of the others, so that the page stays small when one defect fails
//! thousands of records. A bit pattern is never broken across lines, and a warp's
//! inputs are shown for the lanes whose output failed, not as 32 values in a row.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::junit::escape;
use super::report::{CaseInputs, FailureGroup, Report, Section, TestCase, EXAMPLES, NOTHING_GRADED};
use crate::record::{Bits, Inputs, LaneMask, LaneValue, Out, WarpInputs};

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse;margin-bottom:1.5em}\
td table{margin:2px 0}\
td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\
caption{caption-side:top;text-align:left;padding:2px 0}\
table.lanes caption,table.lanes td,table.lanes th{font-size:90%}\
td.code,code{font-family:monospace;white-space:pre-wrap;overflow-wrap:break-word}\
.v{font-family:monospace;white-space:nowrap}\
tr.failed>td:first-child{border-left:4px solid #c00}\
td.id,td.text{min-width:12em}\
details{margin:0.25em 0}summary{cursor:pointer}\
span.group{font-family:monospace;font-weight:bold}\
td.n{text-align:right}td.names{max-width:60em;overflow-wrap:anywhere}\
p.others{max-width:80em;overflow-wrap:anywhere;font-size:90%}\
p.why{max-width:60em;margin:0.3em 0}\
table.summary{font-size:110%}\
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

/// Inline markdown as HTML: escaped, `` `code` `` as `<code>`, `**strong**` as
/// `<strong>`. An unpaired backtick is kept as a character entity, so that no raw
/// backtick is left on the page.
pub fn markdown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('`') {
        out.push_str(&strong(&rest[..at]));
        let after = &rest[at + 1..];
        match after.find('`') {
            Some(end) => {
                let _ = write!(out, "<code>{}</code>", escape(&after[..end]));
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("&#96;");
                rest = after;
            }
        }
    }
    out.push_str(&strong(rest));
    out
}

/// Escaped text with `**strong**` as `<strong>`.
fn strong(text: &str) -> String {
    let parts: Vec<&str> = text.split("**").collect();
    if parts.len().is_multiple_of(2) {
        // Unpaired: kept as written.
        return escape(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(k, p)| if k % 2 == 1 { format!("<strong>{}</strong>", escape(p)) } else { escape(p) })
        .collect()
}

/// A bit pattern, kept whole on one line.
fn value(b: &Bits) -> String {
    format!("<span class=\"v\">{b}</span>")
}

/// Text as code: escaped, each bit pattern in it (`0x` and hex digits) kept whole,
/// and a line allowed to break after a comma (a JSON list has no spaces).
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        // A pattern is `0x` and a hex digit, not continuing a word.
        let start = rest.char_indices().find(|&(i, _)| {
            rest[i..].starts_with("0x")
                && rest[i + 2..].starts_with(|c: char| c.is_ascii_hexdigit())
                && rest[..i]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_ascii_alphanumeric())
        });
        let Some((i, _)) = start else {
            out.push_str(&escape(rest).replace(',', ",<wbr>"));
            break;
        };
        out.push_str(&escape(&rest[..i]).replace(',', ",<wbr>"));
        let len = 2 + rest[i + 2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len() - i - 2);
        let _ = write!(
            out,
            "<span class=\"v\">{}</span>",
            escape(&rest[i..i + len])
        );
        rest = &rest[i + len..];
    }
    out
}

/// A name or an instruction text (`cp.reduce.async.bulk.shared::cluster...#3`):
/// escaped, a line allowed to break after each `.`, `/`, `:` and `,`, so that a
/// long one does not widen its column and a short one does not break mid-word.
fn breakable(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        out.push_str(&escape(c.encode_utf8(&mut [0; 4])));
        if matches!(c, '.' | '/' | ':' | ',') {
            out.push_str("<wbr>");
        }
    }
    out
}

/// A command line, to be copied: it breaks only between words and after a `.`, `:`
/// or `/` in one (never at the hyphen of `emit-ptx` or `--variant`).
fn command(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            w.split_inclusive(['.', ':', '/'])
                .map(|piece| format!("<span class=\"v\">{}</span>", escape(piece)))
                .collect::<Vec<_>>()
                .join("<wbr>")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Bit patterns as a list that breaks only between them.
fn values(list: &[Bits]) -> String {
    list.iter().map(value).collect::<Vec<_>>().join(", ")
}

/// A case's inputs as a cell's content.
fn inputs(t: &TestCase) -> String {
    match &t.inputs {
        CaseInputs::Record(Inputs::Memory { mem, slots }) => {
            let mut h = format!("mem {}", values(mem));
            for (name, v) in slots.iter() {
                let _ = write!(h, "<br>{name} {}", values(v));
            }
            h
        }
        CaseInputs::Record(Inputs::Contention { mem, slots }) => {
            // Per thread its first slot's values bare (the operand), the others
            // named.
            let mut h = format!("mem {}", values(mem));
            let threads = slots.iter().next().map_or(0, |(_, lists)| lists.len());
            for k in 0..threads {
                let _ = write!(h, "<br>thread {k}:");
                for (n, (name, lists)) in slots.iter().enumerate() {
                    if let Some(v) = lists.get(k) {
                        let _ = if n == 0 { write!(h, " {}", values(v)) } else { write!(h, " {name} {}", values(v)) };
                    }
                }
            }
            h
        }
        CaseInputs::Record(Inputs::Warp(w)) => warp(t, w),
        i @ (CaseInputs::Module { .. } | CaseInputs::None) => code(&i.to_string()),
    }
}

/// A thread mask as a value.
fn mask(m: &LaneMask) -> String {
    format!("<span class=\"v\">{m}</span>")
}

/// Lane `l`'s bit of a mask, as a table cell says it.
fn bit(mask: u64, l: usize) -> &'static str {
    yes_no(mask >> l & 1 == 1)
}

/// A bit as a table cell says it.
fn yes_no(set: bool) -> &'static str {
    if set {
        "yes"
    } else {
        "no"
    }
}

/// A warp's inputs: the operands the warp shares, then a table of the lanes whose
/// output (`d[k]`, `p[k]`) failed, one row each. The other lanes are what the JSON
/// report is for: 32 values in a cell hide the one that matters.
fn warp(t: &TestCase, w: &WarpInputs) -> String {
    let mut shared = Vec::new();
    if let Some(m) = &w.membermask {
        shared.push(format!("membermask {}", value(m)));
    }
    shared.push(format!("executing {}", mask(&w.executing)));
    if let Some(e) = &w.exited {
        shared.push(format!("exited {}", mask(e)));
    }
    // The sources one for the warp: shfl's `c` is never per lane, so it reads
    // without "(every lane)"; a source that may be either says so.
    for (key, v) in w.sources() {
        if let Some(LaneValue::Warp(x)) = v {
            match key {
                "b" => shared.push(format!("b {} (every lane)", value(x))),
                _ => shared.push(format!("{key} {}", value(x))),
            }
        }
    }
    let mut h = shared.join("<br>");
    let lanes: BTreeSet<usize> = t
        .failures
        .iter()
        .filter_map(|f| f.slot)
        .filter(|s| matches!(s.output, Out::D | Out::P))
        .map(|s| s.index)
        .collect();
    if lanes.is_empty() {
        h.push_str("<br>(no lane's output failed by itself: every lane's inputs are in <code>--json</code>)");
        return h;
    }
    let per_lane: Vec<(&str, &Vec<Bits>)> = w
        .sources()
        .into_iter()
        .filter_map(|(k, v)| match v {
            Some(LaneValue::PerLane(list)) => Some((k, list)),
            _ => None,
        })
        .collect();
    let _ = write!(
        h,
        "<table class=\"lanes\"><caption>Lanes whose output failed (<code>d[k]</code>, <code>p[k]</code>: lane k); every lane's inputs are in <code>--json</code></caption><tr><th>lane</th>{}<th>executes</th><th>exited</th>{}</tr>",
        if w.membermask.is_some() { "<th>member</th>" } else { "" },
        per_lane.iter().map(|(k, _)| format!("<th>{k}</th>")).collect::<String>(),
    );
    let exits = w.exits();
    for l in lanes {
        let _ = write!(h, "<tr><td>{l}</td>");
        if let Some(m) = &w.membermask {
            let _ = write!(h, "<td>{}</td>", bit(m.value, l));
        }
        let _ = write!(
            h,
            "<td>{}</td><td>{}</td>",
            yes_no(w.executing.get(l)),
            yes_no(exits.get(l))
        );
        for (_, list) in &per_lane {
            let _ = write!(h, "<td>{}</td>", list.get(l).map(value).unwrap_or_default());
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    h
}

/// A failed case's failures: where, what was expected, what the result holds.
fn failures(t: &TestCase) -> String {
    let mut h =
        String::from("<table class=\"f\"><tr><th>where</th><th>expected</th><th>got</th></tr>");
    for f in &t.failures {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td></tr>",
            escape(&f.what),
            code(&f.expected),
            code(&f.got)
        );
    }
    h.push_str("</table>");
    h
}

/// What a section did not grade, folded: a page's first screen is for the verdict.
/// The variants or instructions no result names, per instruction; the cases held
/// back, by reason.
fn not_graded(h: &mut String, sec: &Section) {
    let unnamed = sec.not_graded_by_instruction();
    if !unnamed.is_empty() {
        let _ = writeln!(
            h,
            "<details class=\"unnamed\"><summary>Not graded: {} {} with no result (<code>--all</code> requires them)</summary>\n<table>\n<tr><th>instruction</th><th>{}</th><th>{}</th><th>names</th></tr>",
            sec.not_graded.len(),
            sec.unit(),
            sec.unit(),
            if sec.name == "syntax" { "cases" } else { "records" }
        );
        for (instruction, (n, cases)) in &unnamed {
            let names: Vec<String> = sec
                .not_graded
                .iter()
                .filter(|u| u.instruction == *instruction)
                .map(|u| match &u.not_run {
                    Some(why) => format!("{} <small>(not run: {})</small>", breakable(&u.name), escape(why)),
                    None => breakable(&u.name),
                })
                .collect();
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{n}</td><td>{cases}</td><td class=\"names\">{}</td></tr>",
                escape(instruction),
                names.join(", ")
            );
        }
        h.push_str("</table>\n</details>\n");
    }
    let reasons = sec.not_graded_reasons();
    if reasons.is_empty() {
        return;
    }
    let mut ids = BTreeMap::<&str, Vec<String>>::new();
    for t in sec.not_graded_cases() {
        ids.entry(t.not_graded.as_deref().unwrap_or_default())
            .or_default()
            .push(t.name());
    }
    let n: usize = reasons.iter().map(|r| r.1).sum();
    let _ = writeln!(
        h,
        "<details class=\"held\"><summary>Not graded: {n} case(s), for {} reason(s)</summary>\n<table>\n<tr><th>reason</th><th>cases</th><th>ids</th></tr>",
        reasons.len()
    );
    for (reason, count, _) in &reasons {
        let _ = writeln!(
            h,
            "<tr><td class=\"text\">{}</td><td>{count}</td><td class=\"code names\">{}</td></tr>",
            escape(reason),
            breakable(&ids.get(reason).map(|v| v.join(", ")).unwrap_or_default())
        );
    }
    h.push_str("</table>\n</details>\n");
}

/// A failed case as a row: its id, each failure, the text, the inputs, the citation
/// and the command that reproduces it.
fn case_row(h: &mut String, t: &TestCase) {
    let _ = writeln!(
        h,
        "<tr class=\"failed\"><td class=\"code id\">{}</td><td>{}</td><td class=\"code text\">{}</td><td>{}</td><td>{}</td><td class=\"code\">{}</td></tr>",
        breakable(&t.name()),
        failures(t),
        breakable(&t.text),
        inputs(t),
        escape(&t.source),
        command(&t.reproduce)
    );
}

/// One instruction's failures: a table of its failure classes, the largest first,
/// each folded: a few examples in full, then the names of the others.
fn instruction_failures(h: &mut String, sec: &Section, instruction: &str, groups: &[FailureGroup<'_>]) {
    let groups: Vec<&FailureGroup<'_>> = groups.iter().filter(|g| g.instruction == instruction).collect();
    let _ = writeln!(
        h,
        "<table id=\"{}\" class=\"instruction\">\n<tr><th>cases</th><th>failure class, what it means, and examples</th></tr>",
        anchor(sec.name, instruction)
    );
    if groups.is_empty() {
        h.push_str("<tr class=\"clean\"><td colspan=\"2\">no failures</td></tr>\n");
    }
    for g in groups {
        let examples = g.examples(EXAMPLES);
        let n = g.cases.len();
        let why = sec
            .explained
            .get(&g.key())
            .map_or_else(String::new, |w| format!("<p class=\"why\">{}</p>", markdown(w)));
        let _ = writeln!(
            h,
            "<tr><td class=\"n\">{n}</td><td><span class=\"group\">{}</span>{why}<details class=\"group\"><summary>{}</summary>\n<table class=\"cases\">\n<tr><th>id</th><th>failures</th><th>text</th><th>inputs</th><th>source</th><th>reproduce</th></tr>",
            escape(&g.group),
            if examples.len() == n { format!("the {n} case(s)") } else { format!("{} examples of {n}", examples.len()) },
        );
        for t in &examples {
            case_row(h, t);
        }
        h.push_str("</table>\n");
        let others: Vec<String> = g
            .cases
            .iter()
            .filter(|t| !examples.iter().any(|e| std::ptr::eq(*e, **t)))
            .map(|t| breakable(&t.name()))
            .collect();
        if !others.is_empty() {
            let _ = writeln!(
                h,
                "<details class=\"others\"><summary>The other {} (<code>--json</code> has each in full)</summary><p class=\"others\">{}</p></details>",
                others.len(),
                others.join(", ")
            );
        }
        h.push_str("</details></td></tr>\n");
    }
    h.push_str("</table>\n");
}

/// The page: the verdict and a table of the sections first; then per section its
/// counts per instruction, what was not graded (folded), and per instruction its
/// failure classes (folded).
pub fn render(r: &Report) -> String {
    let mut h = String::new();
    let verdict = if r.failed() {
        "<span class=\"fail\">FAILED</span>"
    } else {
        "<span class=\"pass\">passed</span>"
    };
    let _ = writeln!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptxvec grade</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>ptxvec grade: {verdict}</h1>\n<table class=\"summary\">\n<tr><th>results</th><th>mode</th><th>graded</th><th>passed</th><th>failed</th><th>not graded</th><th>with no result</th></tr>"
    );
    for sec in &r.sections {
        let c = sec.counts();
        let _ = writeln!(
            h,
            "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td class=\"n\">{2}</td><td class=\"n pass\">{3}</td><td class=\"n{4}\">{5}</td><td class=\"n\">{6}</td><td>{7}</td></tr>",
            escape(sec.name),
            escape(&sec.mode),
            c.graded(),
            c.passed,
            if c.failed > 0 { " fail" } else { "" },
            c.failed,
            c.not_graded,
            if sec.not_graded.is_empty() { "none".to_owned() } else { format!("{} {}", sec.not_graded.len(), sec.unit()) }
        );
    }
    h.push_str("</table>\n");
    if !r.input_errors.is_empty() {
        let _ = writeln!(
            h,
            "<section id=\"input-errors\">\n<h2 class=\"fail\">Input errors: {} bad line(s) in the results</h2>\n<p>The lines read were graded; each of these was not.</p>\n<ul>",
            r.input_errors.len()
        );
        for b in &r.input_errors {
            let _ = writeln!(h, "<li><code>{}</code></li>", code(&b.to_string()));
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
        let unnamed = sec.not_graded_by_instruction();
        let by = sec.by_instruction();
        let _ = writeln!(
            h,
            "<table class=\"by\">\n<tr><th>instruction</th><th>passed</th><th>failed</th><th>not graded</th><th>{} with no result</th></tr>",
            sec.unit()
        );
        let names: BTreeSet<&str> = by.keys().map(String::as_str).chain(unnamed.keys().copied()).collect();
        for instruction in names {
            let ic = by.get(instruction).copied().unwrap_or_default();
            let link = if ic.total() > 0 {
                format!("<a href=\"#{}\">{}</a>", anchor(sec.name, instruction), escape(instruction))
            } else {
                escape(instruction)
            };
            let _ = writeln!(
                h,
                "<tr><td>{link}</td><td class=\"n\">{}</td><td class=\"n{}\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                ic.passed,
                if ic.failed > 0 { " fail" } else { "" },
                ic.failed,
                ic.not_graded,
                unnamed.get(instruction).map_or(0, |u| u.0)
            );
        }
        h.push_str("</table>\n");
        not_graded(&mut h, sec);
        let groups = sec.failure_groups();
        for (instruction, ic) in &by {
            let _ = writeln!(
                h,
                "<h3>{}: {} graded: {} passed, <span class=\"{}\">{} failed</span>, {} not graded</h3>",
                escape(instruction),
                ic.graded(),
                ic.passed,
                if ic.failed > 0 { "fail" } else { "pass" },
                ic.failed,
                ic.not_graded
            );
            instruction_failures(&mut h, sec, instruction, &groups);
        }
        h.push_str("</section>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_keeps_each_bit_pattern_whole() {
        let v = |s: &str| format!("<span class=\"v\">{s}</span>");
        for (text, want) in [
            ("0x0000dead".to_owned(), v("0x0000dead")),
            ("null".to_owned(), "null".to_owned()),
            // In a JSON list: each pattern whole, a break allowed after each comma.
            (
                r#"["0x1","0xff"]"#.to_owned(),
                format!("[&quot;{}&quot;,<wbr>&quot;{}&quot;]", v("0x1"), v("0xff")),
            ),
            // `0x` inside a word, or with no digit, is not a pattern.
            ("ab0x12 0x 0xg".to_owned(), "ab0x12 0x 0xg".to_owned()),
            ("a<0x1>".to_owned(), format!("a&lt;{}&gt;", v("0x1"))),
        ] {
            assert_eq!(code(&text), want, "case: {text}");
        }
    }

    #[test]
    fn markdown_renders_code_and_strong_and_leaves_no_backtick() {
        assert_eq!(markdown("the `.b64` input <x>"), "the <code>.b64</code> input &lt;x&gt;");
        assert_eq!(markdown("**PTX**: 6.2+."), "<strong>PTX</strong>: 6.2+.");
        // An unpaired backtick (a C assertion's quote) is kept as an entity.
        assert_eq!(markdown("Assertion `0' failed"), "Assertion &#96;0&apos; failed");
        assert_eq!(markdown("a ** b"), "a ** b");
    }

    #[test]
    fn a_command_breaks_between_words_and_after_dots_only() {
        assert_eq!(
            command("ptxvec emit-ptx --variant red.add.f32"),
            "<span class=\"v\">ptxvec</span> <span class=\"v\">emit-ptx</span> \
             <span class=\"v\">--variant</span> <span class=\"v\">red.</span><wbr>\
             <span class=\"v\">add.</span><wbr><span class=\"v\">f32</span>"
        );
    }
}
