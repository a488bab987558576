//! `ptxvec eval`: the oracle as a tool. Reads records in the vector input format
//! (JSON Lines: at least `text` and `inputs`) and writes each back with `expect`
//! filled in for the chosen profiles. A line it cannot evaluate is answered
//! `{"error": "<input>:N: ..."}` in its place, and the exit code is then 2.
//!
//! [`answer_line`] is the definition of a line's answer; [`run`] answers a chunk
//! of lines at a time in parallel ([`crate::batch`]), with the syntax judge's
//! reading of each qualifier chain kept ([`Index`]), and hands every line that
//! does not evaluate to [`answer_line`], which says why.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::expect::outputs;
use crate::batch::{self, InputLine};
use crate::error::{Error, Outcome, Result};
use crate::record::{strip_position, Record, Shape};
use crate::semantics::{self, Semantics};
use crate::syntax::context::{minimum, Module};
use crate::syntax::index::{Index, Tokens};
use crate::syntax::judge::{judge, reading, Defect, Order};
use crate::syntax::needs::{Need, Needs};
use crate::syntax::text::{self, Operand};

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
    let reading = semantics::read(spec, &rec.text).map_err(|e| EvalError::Record(e.to_string()))?;
    expect(rec, reading.semantics, reading.negate, profiles)
}

/// The record with `expect` filled in, its text computing `semantics` (`negate`: a
/// source operand is negated).
fn expect(
    mut rec: Record,
    semantics: Semantics,
    negate: bool,
    profiles: &[Profile],
) -> std::result::Result<Record, EvalError> {
    let shape = Shape::of(semantics);
    rec.inputs = rec
        .inputs
        .fit(shape)
        .map_err(|e| EvalError::Record(e.to_string()))?;
    let mut expect = BTreeMap::new();
    for &p in profiles {
        let out = outputs(semantics, negate, &rec.inputs, p)
            .map_err(|e| EvalError::Record(e.to_string()))?;
        // With both profiles, another profile is written only where it differs.
        if profiles.len() == 1 || p == Profile::PtxIsa || expect.get(&Profile::PtxIsa) != Some(&out)
        {
            expect.insert(p, out);
        }
    }
    rec.expect = expect;
    Ok(rec)
}

/// The syntax judge's verdict on a record's text, in the modules where it should
/// be legal: those of the record's own `requires`, else the lowest modules that
/// meet its spelling's needs (a text whose qualifiers fit no syntax line is
/// refused in any module, and is judged in the lowest one the model has). Legal
/// in one of them is legal; else the first module's defect is the answer.
fn refusal(spec: &Spec, rec: &Record) -> std::result::Result<(), String> {
    refusal_with(
        spec,
        rec,
        || reading(spec, &rec.text).map_or_else(|| Needs::none().0, |s| s.needs(&spec.targets).0),
        |m| judge(spec, &rec.text, m.ptx, m.target, Order::Lenient).defect,
    )
}

/// [`refusal`], with the needs of the text's spelling and the judge's verdict in a
/// module given.
fn refusal_with(
    spec: &Spec,
    rec: &Record,
    spelling_needs: impl FnOnce() -> Vec<Need>,
    defect_in: impl Fn(Module) -> Option<Defect>,
) -> std::result::Result<(), String> {
    let model = &spec.targets;
    let stated: Vec<Need> = rec
        .requires
        .iter()
        .filter_map(|r| {
            let target = match &r.target {
                Some(t) => Some(t.parse().ok()?),
                None => None,
            };
            let ptx = r.ptx.parse().ok()?;
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
            rec.text, m.ptx, m.target, d.kind, d.rule, d.message
        )),
    }
}

/// Evaluates every line of `input` (named `name` in errors) onto `out`. A line it
/// cannot evaluate is answered with an error record, and makes the run an input
/// error once every line is answered.
pub fn run(
    spec: &Spec,
    name: &str,
    input: impl Read,
    mut out: impl Write,
    profiles: &[Profile],
    force: bool,
) -> Result<Outcome> {
    let mut index = Index::new(spec);
    let bad_lines = batch::run(name, input, &mut out, |lines| {
        answer_lines(&mut index, name, lines, profiles, force)
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

/// A line made ready for the index.
enum Prepared {
    /// Answered by [`answer_line`].
    Plain,
    /// A blank line.
    Blank,
    /// A record, and its text's qualifier chain if the text tokenizes.
    Record(Box<Record>, Option<String>),
}

/// The answers to a chunk of lines, in order: equal, line for line, to
/// [`answer_line`]'s.
pub fn answer_lines(
    index: &mut Index<'_>,
    name: &str,
    lines: &[InputLine<'_>],
    profiles: &[Profile],
    force: bool,
) -> Vec<batch::Answer> {
    let spec = index.spec();
    index.answer_all(
        lines,
        |l| match std::str::from_utf8(l.bytes) {
            Ok(t) if t.trim().is_empty() => Prepared::Blank,
            Ok(t) => match Record::from_line(t) {
                Ok(rec) => {
                    let chain = text::chain_of(&rec.text).map(str::to_owned);
                    Prepared::Record(Box::new(rec), chain)
                }
                Err(_) => Prepared::Plain,
            },
            Err(_) => Prepared::Plain,
        },
        |p| match p {
            Prepared::Record(_, chain) => chain.as_deref(),
            _ => None,
        },
        |index, l, p| match p {
            Prepared::Blank => Ok(String::new()),
            Prepared::Record(rec, _) => match evaluate(index, *rec, profiles, force) {
                Some(rec) => Ok(rec.to_line()),
                None => answer_line(spec, name, l.no, l.bytes, profiles, force),
            },
            Prepared::Plain => answer_line(spec, name, l.no, l.bytes, profiles, force),
        },
    )
}

/// [`eval_record`] after the parse, with the text's reading from the index; `None`
/// where the record does not evaluate (then [`answer_line`] says why).
fn evaluate(index: &Index<'_>, rec: Record, profiles: &[Profile], force: bool) -> Option<Record> {
    let spec = index.spec();
    let tokens = Tokens::of(&rec.text);
    let parsed = tokens.parsed.as_ref().ok()?;
    let semantics = index.with_chain(tokens.chain, |chain| {
        if !force {
            refusal_with(
                spec,
                &rec,
                || chain.reading().map_or_else(|| Needs::none().0, |c| c.needs.0.clone()),
                |m| index.judge(&rec.text, &tokens, m.ptx, m.target, Order::Lenient).defect,
            )
            .ok()?;
        }
        semantics::of(&chain.reading()?.spelling).ok()
    })?;
    let negate = parsed.operands.iter().any(|o| matches!(o, Operand::Not(_)));
    drop(tokens);
    expect(rec, semantics, negate, profiles).ok()
}
