//! `ptxvec bench`'s batch stages: `check-syntax -` and `eval` over streams of
//! distinct lines built from the vectors, each as lines per second and as a ratio
//! to serde_json's bare parse of the same lines (`serde::de::IgnoredAny`, one
//! thread) timed in the same run, so that the ratio does not depend on the machine.
//!
//! - check-syntax: every syntax case (`{"id", "text", "ptx", "target"}`), copied
//!   [`SYNTAX_COPIES`] times with the registers renumbered in each copy (`%r1` →
//!   `%r65` ...), so that no two lines are the same;
//! - eval: every semantic record without its `expect` (what a consumer sends),
//!   copied [`SEMANTIC_COPIES`] times with its id made distinct (`...#3/1`).
//!
//! Each run answers the whole stream through the commands' own batch loop, with
//! a fresh index (as a new process has), into a sink that counts the answers.

use std::io::Write;
use std::time::{Duration, Instant};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::error::{Error, Result};
use crate::io::output::write_error;
use crate::vectors::semantic;
use crate::syntax::text::RegClass;
use crate::syntax::vectors;

/// Copies of the syntax cases in the check-syntax stream.
pub const SYNTAX_COPIES: usize = 48;
/// Copies of the semantic records in the eval stream.
pub const SEMANTIC_COPIES: usize = 4;

/// Times the batch stages `runs` times each and prints their table to `table`.
pub fn run(spec: &Spec, runs: usize, table: &mut dyn Write) -> Result<()> {
    let runs = runs.max(1);
    let syntax = syntax_stream(spec, SYNTAX_COPIES);
    let semantic = semantic_stream(spec, SEMANTIC_COPIES)?;
    writeln!(
        table,
        "\n{:<46} {:>8} {:>10} {:>10} {:>12} {:>12} {:>6}",
        "batch stage (distinct lines)", "lines", "min", "median", "lines/s", "parse/s", "ratio"
    )
    .map_err(write_error)?;
    let check = crate::cmd::check_syntax::Args {
        text: "-".to_owned(),
        ptx: None,
        target: None,
        strict: false,
    };
    let explored = explore_stream(spec, EXPLORE_TEXTS)?;
    // The command's process leaves its index to its exit (`check_syntax::run`): the
    // run hands it back, dropped once the clock is read.
    let check_syntax = |input: &[u8]| -> Result<(usize, Leftover<'_>)> {
        let mut out = Answers::default();
        let mut index = crate::syntax::index::Index::new(spec);
        crate::cmd::check_syntax::run_lines(&mut index, &check, input, &mut out)?;
        Ok((out.lines, Box::new(index)))
    };
    let stages: [Stage<'_>; 3] = [
        ("check-syntax - (syntax cases, renumbered)", &syntax, &check_syntax),
        ("check-syntax - (explorer's walks)", &explored, &check_syntax),
        ("eval (semantic records, distinct ids)", &semantic, &|input| {
            let mut out = Answers::default();
            semantic::eval::run(spec, "<bench>", input, &mut out, Profile::ALL, false)?;
            Ok((out.lines, Box::new(())))
        }),
    ];
    for (name, input, stage) in stages {
        let lines = input.iter().filter(|&&b| b == b'\n').count();
        let mut times = Vec::with_capacity(runs);
        let mut parses = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            let (answered, leftover) = stage(input)?;
            times.push(t.elapsed());
            drop(leftover);
            if answered != lines {
                return Err(Error::Input(format!(
                    "bench: {name}: {answered} answers to {lines} lines"
                )));
            }
            parses.push(bare_parse(input)?);
        }
        times.sort();
        parses.sort();
        let per_s = |d: Duration| lines as f64 / d.as_secs_f64().max(1e-9);
        let (ours, parse) = (per_s(times[runs / 2]), per_s(parses[runs / 2]));
        writeln!(
            table,
            "{name:<46} {lines:>8} {:>9.3}s {:>9.3}s {ours:>12.0} {parse:>12.0} {:>6.3}",
            times[0].as_secs_f64(),
            times[runs / 2].as_secs_f64(),
            ours / parse
        )
        .map_err(write_error)?;
    }
    Ok(())
}

/// A batch stage: its name, its input stream, and a run over it that returns how
/// many answer lines it wrote, and what the command's process leaves to its exit.
type Stage<'a> = (&'a str, &'a [u8], &'a dyn Fn(&[u8]) -> Result<(usize, Leftover<'a>)>);

/// What a stage's run leaves to its process's exit: dropped after the clock stops.
type Leftover<'a> = Box<dyn Send + 'a>;

/// How long serde_json takes to parse every line of `input` to `IgnoredAny`, on
/// this thread.
fn bare_parse(input: &[u8]) -> Result<Duration> {
    let t = Instant::now();
    for line in input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde::de::IgnoredAny>(line)
            .map_err(|e| Error::Input(format!("bench: a stream line is not JSON: {e}")))?;
    }
    Ok(t.elapsed())
}

/// Standard output's stand-in: counts the answer lines.
#[derive(Default)]
struct Answers {
    lines: usize,
}

impl Write for Answers {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // memchr's SIMD count: the sink must cost what a write to /dev/null does,
        // next to nothing, not a byte-at-a-time scan of every answer.
        self.lines += memchr::memchr_iter(b'\n', buf).count();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The check-syntax stream: every syntax case in its own module, `copies` times.
pub fn syntax_stream(spec: &Spec, copies: usize) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Request<'a> {
        id: usize,
        text: &'a str,
        ptx: &'a str,
        target: &'a str,
    }
    let cases: Vec<crate::syntax::case::Case> = spec
        .instructions
        .iter()
        .flat_map(|f| vectors::cases(spec, &f.instruction))
        .collect();
    let mut out = Vec::new();
    let mut id = 0;
    for copy in 0..copies {
        for c in &cases {
            let text = renumbered(&c.text, copy * 64);
            let r = Request {
                id,
                text: &text,
                ptx: &c.ptx,
                target: &c.target,
            };
            // A request of strings and a number: serde_json cannot fail on it.
            out.extend(serde_json::to_vec(&r).unwrap_or_default());
            out.push(b'\n');
            id += 1;
        }
    }
    out
}

/// Texts in the explorer's stream (about four in five illegal, most of them
/// noncanonical or near misses).
pub const EXPLORE_TEXTS: usize = 400_000;

/// The explorer's stream: `n` walks of seed 1, each at its module, as check-syntax
/// requests (`ptxvec audit-syntax --explore N --seed 1 --requests`).
pub fn explore_stream(spec: &Spec, n: usize) -> Result<Vec<u8>> {
    let tools = crate::ptxas::offline_tools(spec)?;
    let mut out = Vec::new();
    crate::ptxas::explore::requests(spec, &tools, (n, 1, None), &mut out)?;
    Ok(out)
}

/// `text` with `offset` added to the number of every register (`%rd2` → `%rd66`).
pub fn renumbered(text: &str, offset: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let name_len = rest[i + 1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .map_or(rest.len() - i, |n| n + 1);
        let name = &rest[i..i + name_len];
        let number = RegClass::of_name(name)
            .and_then(|c| name[c.prefix().len()..].parse::<u64>().ok().map(|n| (c, n)));
        match number {
            Some((c, n)) => out.push_str(&format!("{}{}", c.prefix(), n + offset as u64)),
            None => out.push_str(name),
        }
        rest = &rest[i + name_len..];
    }
    out.push_str(rest);
    out
}

/// The eval stream: every semantic record without `expect`, `copies` times, each
/// copy's ids made distinct.
pub fn semantic_stream(spec: &Spec, copies: usize) -> Result<Vec<u8>> {
    let mut records = Vec::new();
    for v in semantic::variants(spec) {
        records.extend(semantic::records::records(
            &v,
            semantic::DEFAULT_SEED,
            semantic::DEFAULT_COUNT,
        )?);
    }
    let mut out = Vec::new();
    for copy in 0..copies {
        for r in &records {
            let mut r = r.clone();
            r.expect.clear();
            r.id = format!("{}/{copy}", r.id);
            out.extend(r.to_line().into_bytes());
            out.push(b'\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renumbering_moves_registers_only() {
        // (text, offset, renumbered)
        let rows = [
            ("red.add.u32 [%rd1+4], %r12;", 64, "red.add.u32 [%rd65+4], %r76;"),
            ("shfl.sync.up.b32 %r1|%p1, %r2, 1, 0x1f, 0xffffffff;", 1, "shfl.sync.up.b32 %r2|%p2, %r3, 1, 0x1f, 0xffffffff;"),
            ("@!%p3 vote.sync.any.pred %p1, !%p2, mask;", 10, "@!%p13 vote.sync.any.pred %p11, !%p12, mask;"),
            ("red.add.u32 [%x1], %r;", 5, "red.add.u32 [%x1], %r;"),
            ("%", 3, "%"),
        ];
        for (text, offset, want) in rows {
            assert_eq!(renumbered(text, offset), want, "{text} + {offset}");
        }
    }
}
