//! `ptxvec eval`: the oracle as a tool. Reads records in the vector input format
//! (JSON Lines: at least `text` and `inputs`) and writes each back with `expect`
//! filled in for the chosen profiles. A line it cannot evaluate is answered
//! `{"error": "<input>:N: ..."}` in its place, and the exit code is then 2.
//!
//! [`answer_line`] is the definition of a line's answer; [`run`] answers a chunk
//! of lines at a time in parallel ([`crate::io::batch`]), with the syntax judge's
//! reading of each qualifier chain kept ([`Index`]), and hands every line that
//! does not evaluate to [`answer_line`], which says why.

use std::collections::HashMap;
use std::sync::Mutex;

use std::io::{Read, Write};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::io::batch::{self, InputLine};
use crate::error::{Error, Outcome, Result};
use crate::record::{strip_position, Inputs, Record, Requirement};
use crate::family::{self, Semantics};
use crate::syntax::context::{minimum, Module};
use crate::syntax::index::{Index, Tokens};
use crate::syntax::judge::{reading, Order};
use crate::syntax::definition::judge;
use crate::syntax::defect::Defect;
use crate::syntax::needs::{Need, Needs};
use crate::syntax::text::Operand;

/// Why a line cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The line is no record: where it stops being one, and what was expected.
    #[error("{column}: {message}")]
    Json {
        /// 1-based column.
        column: usize,
        /// What was expected.
        message: String,
    },
    /// The record's text or inputs do not make an instruction the oracle computes.
    #[error(" {0}")]
    Record(String),
}

/// Evaluates one record; the error says what is wrong with it. Unless `force`, a
/// text that `check-syntax` refuses is refused here too, with the same rule.
pub fn eval_record(
    spec: &Spec,
    line: &str,
    profiles: &[Profile],
    force: bool,
) -> std::result::Result<Record, EvalError> {
    let rec = Record::from_line(line).map_err(|e| EvalError::Json {
        column: e.column(),
        message: match e.classify() {
            serde_json::error::Category::Data => strip_position(&e),
            _ => format!("not JSON: {}", strip_position(&e)),
        },
    })?;
    if !force {
        refusal(spec, &rec).map_err(EvalError::Record)?;
    }
    let reading = family::read(spec, &rec.text).map_err(|e| EvalError::Record(e.to_string()))?;
    let mut rec = rec;
    expect(&mut rec, reading.semantics, (reading.negate, reading.pair), profiles)?;
    Ok(rec)
}

/// Fills in the record's `expect`, its text computing `semantics` (`negate`: a
/// source operand is negated), its inputs fitted to their widths. In place: a
/// record is a few hundred bytes, and the batch holds it where it was read.
fn expect<S>(
    rec: &mut Record<S>,
    semantics: Semantics,
    written: (bool, bool),
    profiles: &[Profile],
) -> std::result::Result<(), EvalError> {
    let shape = semantics.shape().written(written.1);
    let none = Inputs::one_thread(Vec::new(), []);
    rec.inputs = std::mem::replace(&mut rec.inputs, none)
        .fit(shape)
        .map_err(|e| EvalError::Record(e.to_string()))?;
    rec.expect = family::expectations(semantics, written, &rec.inputs, profiles)
        .map_err(|e| EvalError::Record(e.to_string()))?;
    Ok(())
}

/// The syntax judge's verdict on a record's text, in the modules where it should
/// be legal: those of the record's own `requires`, else the lowest modules that
/// meet its spelling's needs (a text whose qualifiers fit no syntax line is
/// refused in any module, and is judged in the lowest one the model has). Legal
/// in one of them is legal; else the first module's defect is the answer.
fn refusal(spec: &Spec, rec: &Record) -> std::result::Result<(), String> {
    refusal_with(
        spec,
        &rec.text,
        &rec.requires,
        || reading(spec, &rec.text).map_or_else(|| Needs::none().0, |s| s.needs(&spec.targets).0),
        |m| judge(spec, &rec.text, m.ptx, m.target, Order::Lenient).defect,
    )
}

/// [`refusal`], with the needs of the text's spelling and the judge's verdict in a
/// module given.
fn refusal_with<S: AsRef<str>>(
    spec: &Spec,
    text: &str,
    requires: &[Requirement<S>],
    spelling_needs: impl FnOnce() -> Vec<Need>,
    defect_in: impl Fn(Module) -> Option<Defect>,
) -> std::result::Result<(), String> {
    let model = &spec.targets;
    let stated: Vec<Need> = requires
        .iter()
        .filter_map(|r| {
            let target = match &r.target {
                Some(t) => Some(t.as_ref().parse().ok()?),
                None => None,
            };
            let ptx = r.ptx.as_ref().parse().ok()?;
            // A module the model does not know cannot be judged: the spelling's own
            // needs are used instead.
            let known = model.ptx_versions.values.contains(&ptx)
                && target.is_none_or(|t| model.info(t).is_some());
            known.then_some(Need { ptx, target })
        })
        .collect();
    let needs = if stated.is_empty() {
        spelling_needs()
    } else {
        stated
    };
    let mut modules: Vec<Module> = needs.iter().filter_map(|n| minimum(model, n)).collect();
    if modules.is_empty() {
        modules.extend(Needs::none().0.iter().filter_map(|n| minimum(model, n)));
    }
    let mut first = None;
    for m in modules {
        match defect_in(m) {
            None => return Ok(()),
            Some(d) => {
                first.get_or_insert((m, d));
            }
        }
    }
    match first {
        None => Ok(()),
        Some((m, d)) => Err(format!(
            "`{}` is refused by check-syntax (.version {} .target {}): illegal ({}): {}: {} (--force evaluates it anyway)",
            text, m.ptx, m.target, d.kind, d.rule, d.message
        )),
    }
}

/// Evaluates every line of `input` (named `name` in errors) onto `out`. A line it
/// cannot evaluate is answered with an error record, and makes the run an input
/// error once every line is answered.
pub fn run(
    spec: &Spec,
    name: &str,
    input: impl Read + Send,
    mut out: impl Write,
    profiles: &[Profile],
    force: bool,
) -> Result<Outcome> {
    let mut texts = Texts::new(spec);
    let bad_lines = batch::run(name, input, &mut out, |lines, answers| {
        answer_lines(&mut texts, name, lines, profiles, force, answers);
    })?;
    if bad_lines.is_empty() {
        Ok(Outcome::Pass)
    } else {
        Err(Error::Input(format!(
            "{name}: {} line(s) could not be evaluated: {bad_lines:?}",
            bad_lines.len()
        )))
    }
}

/// The answer to line `no` of input `name` (its bytes without the line end): the
/// record with `expect` filled in, a blank line for a blank one, or the message of
/// the error record written in its place. The definition of what `eval` answers.
pub fn answer_line(
    spec: &Spec,
    name: &str,
    no: usize,
    bytes: &[u8],
    profiles: &[Profile],
    force: bool,
) -> batch::Answer {
    match std::str::from_utf8(bytes) {
        Ok(l) if l.trim().is_empty() => Ok(String::new()),
        // `file:line:column: message`, or `file:line: message`.
        Ok(l) => eval_record(spec, l, profiles, force)
            .map(|rec| rec.to_line())
            .map_err(|e| format!("{name}:{no}:{e}")),
        Err(e) => {
            let column = e.valid_up_to() + 1;
            Err(format!("{name}:{no}:{column}: not UTF-8"))
        }
    }
}

/// What a record's text and `requires` make of it, whatever its inputs: the
/// instruction the text computes, whether a source operand is negated and whether
/// the destination is written with its predicate (`d|p`), or
/// `None` where the record does not evaluate (then [`answer_line`] says why).
type Reading = Option<(Semantics, (bool, bool))>;

/// The most (text, `requires`) readings [`Texts`] keeps; past it, it starts over.
pub const MAX_TEXTS: usize = 8192;
/// A pair longer than this (text and requirements' strings) is read for each
/// record, never kept: the kept readings stay under `MAX_TEXTS` times this.
pub const MAX_KEY_BYTES: usize = 512;

/// Whether a (text, `requires`) pair is short enough to keep.
fn keepable(text: &str, requires: &[Requirement<&str>]) -> bool {
    let bytes = requires
        .iter()
        .fold(text.len(), |n, r| n + r.ptx.len() + r.target.map_or(0, str::len));
    bytes <= MAX_KEY_BYTES
}

/// Per `requires` list met with a text, the reading.
type PerRequires = Vec<(Vec<Requirement>, Reading)>;

/// Per text, its readings.
type Readings = HashMap<Box<str>, PerRequires>;

/// What the batch keeps from line to line: each distinct (text, `requires`)
/// pair's [`Reading`], so that a text is tokenized and judged once however many
/// records evaluate it. A pair met for the first time is read by the worker that
/// meets it, on the spot, and kept for the chunk's other lines at once (`met`),
/// for the chunks after once the chunk is answered (`kept`).
pub struct Texts<'s> {
    index: Index<'s>,
    /// The readings of the chunks before.
    kept: Readings,
    /// How many readings `kept` holds.
    count: usize,
    /// The readings made while the chunk is answered.
    met: Mutex<Readings>,
}

/// The reading kept in `readings` for a text and its `requires`, looked up
/// without copying either (a text is met with one or a few lists).
fn lookup<'r>(readings: &'r Readings, text: &str, requires: &[Requirement<&str>]) -> Option<&'r Reading> {
    readings
        .get(text)?
        .iter()
        .find(|(r, _)| r.iter().map(Requirement::as_strs).eq(requires.iter().cloned()))
        .map(|(_, reading)| reading)
}

impl<'s> Texts<'s> {
    /// Nothing kept yet, over `spec`.
    pub fn new(spec: &'s Spec) -> Texts<'s> {
        Texts {
            index: Index::new(spec),
            kept: HashMap::new(),
            count: 0,
            met: Mutex::new(HashMap::new()),
        }
    }

    /// The reading of a text and its `requires`: kept, or read now (and kept,
    /// where the pair is short enough).
    fn reading(&self, text: &str, requires: &[Requirement<&str>], force: bool) -> Reading {
        if let Some(r) = lookup(&self.kept, text, requires) {
            return *r;
        }
        if !keepable(text, requires) {
            return reading_of(&self.index, text, requires, force);
        }
        // A poisoned lock holds whole readings: each is inserted at once.
        let met = || self.met.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(r) = lookup(&met(), text, requires) {
            return *r;
        }
        // Read outside the lock; two workers may both read a pair (the same
        // reading), and the second finds the first's.
        let reading = reading_of(&self.index, text, requires, force);
        let mut met = met();
        if lookup(&met, text, requires).is_none() {
            met.entry(Box::from(text))
                .or_default()
                .push((requires.iter().map(owned).collect(), reading));
        }
        reading
    }

    /// Keeps the readings made while the chunk was answered, starting over once
    /// more than [`MAX_TEXTS`] would be kept.
    fn keep_met(&mut self) {
        let met = std::mem::take(self.met.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner));
        let n: usize = met.values().map(Vec::len).sum();
        if n == 0 {
            return;
        }
        if self.count + n > MAX_TEXTS {
            self.kept.clear();
            self.count = 0;
        }
        // Sorted, so that which readings a full map keeps does not depend on
        // hashing (it changes no answer, only the time).
        let mut met: Vec<(Box<str>, PerRequires)> = met.into_iter().collect();
        met.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (text, per_requires) in met {
            for (requires, reading) in per_requires {
                if self.count == MAX_TEXTS {
                    return;
                }
                self.kept.entry(text.clone()).or_default().push((requires, reading));
                self.count += 1;
            }
        }
    }
}

/// A requirement with its strings owned.
fn owned(r: &Requirement<&str>) -> Requirement {
    Requirement {
        ptx: r.ptx.to_owned(),
        target: r.target.map(str::to_owned),
    }
}

/// [`eval_record`]'s steps between the parse and the inputs, for a text and its
/// `requires`, with the chain's reading from the index.
fn reading_of(index: &Index<'_>, text: &str, requires: &[Requirement<&str>], force: bool) -> Reading {
    let spec = index.spec();
    let tokens = Tokens::of(text);
    let parsed = tokens.parsed.as_ref().ok()?;
    let semantics = index.with_chain(tokens.chain, |chain| {
        if !force {
            refusal_with(
                spec,
                text,
                requires,
                || chain.reading().map_or_else(|| Needs::none().0, |c| c.needs(&spec.targets).0.clone()),
                |m| index.judge(text, &tokens, m.ptx, m.target, Order::Lenient).defect,
            )
            .ok()?;
        }
        family::of(&chain.reading()?.spelling).ok()
    })?;
    let negate = parsed.operands.iter().any(|o| matches!(o, Operand::Not(_)));
    let pair = matches!(parsed.operands.first(), Some(Operand::Pair(..)));
    Some((semantics, (negate, pair)))
}

/// Fills `answers` with the answers to a chunk of lines, in order: equal, line for
/// line, to [`answer_line`]'s, in one parallel pass.
pub fn answer_lines(
    texts: &mut Texts<'_>,
    name: &str,
    lines: &[InputLine<'_>],
    profiles: &[Profile],
    force: bool,
    answers: &mut batch::Answers,
) {
    let this = &*texts;
    let spec = this.index.spec();
    answers.fill(lines, |l, buf| {
        // Blank lines, errors, bytes that are not UTF-8 and strings written with
        // an escape are the definition's.
        if let Ok(Ok(mut rec)) = std::str::from_utf8(l.bytes).map(Record::from_line_borrowed) {
            if let Some((sem, written)) = this.reading(rec.text, &rec.requires, force) {
                if expect(&mut rec, sem, written, profiles).is_ok() {
                    rec.write_line(buf);
                    return Ok(());
                }
            }
        }
        let text = answer_line(spec, name, l.no, l.bytes, profiles, force)?;
        buf.extend_from_slice(text.as_bytes());
        Ok(())
    });
    texts.keep_met();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_spec as spec;

    #[test]
    fn the_kept_readings_stay_bounded() {
        let spec = spec();
        let mut texts = Texts::new(&spec);
        let many: Vec<String> = (0..MAX_TEXTS + 10)
            .map(|i| format!("red.add.u32 [%rd{i}], %r1;"))
            .collect();
        for t in &many {
            assert!(texts.reading(t, &[], false).is_some(), "{t}");
        }
        texts.keep_met();
        assert_eq!(texts.count, MAX_TEXTS);
        assert_eq!(texts.count, texts.kept.values().map(Vec::len).sum::<usize>());
        // A text past the key bound is read where it is met, never kept.
        let long = format!("red.add.u32 [%rd1], %r1;{}", " ".repeat(MAX_KEY_BYTES));
        let mut texts = Texts::new(&spec);
        assert!(texts.reading(&long, &[], false).is_some());
        texts.keep_met();
        assert_eq!(texts.count, 0);
        // One that fits is kept, with its reading, once whatever its repeats.
        let short = "red.add.u32 [%rd1], %r1;";
        for _ in 0..3 {
            assert!(texts.reading(short, &[], false).is_some());
        }
        texts.keep_met();
        assert_eq!(texts.count, 1);
        assert!(matches!(lookup(&texts.kept, short, &[]), Some(Some(_))));
    }
}
