//! `ptxvec eval`: the oracle as a tool. Reads records in the vector input format
//! (JSON Lines: at least `text` and `inputs`) and writes each back with `expect`
//! filled in for the chosen profiles. A line it cannot evaluate is answered
//! `{"error": "<input>:N: ..."}` in its place, and the exit code is then 2.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::expect::outputs;
use crate::error::{Error, Outcome, Result};
use crate::lines::{read_line, skip_line, Line, MAX_LINE_BYTES};
use crate::output::ErrorAnswer;
use crate::record::{strip_position, Record, Shape};
use crate::semantics;
use crate::syntax::context::{minimum, Module};
use crate::syntax::judge::{judge, reading, Order};
use crate::syntax::needs::{Need, Needs};

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
    let mut rec = Record::from_line(line).map_err(|e| EvalError::Json {
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
    let shape = Shape::of(reading.semantics);
    rec.inputs = rec
        .inputs
        .fit(shape)
        .map_err(|e| EvalError::Record(e.to_string()))?;
    let mut expect = BTreeMap::new();
    for &p in profiles {
        let out = outputs(reading.semantics, reading.negate, &rec.inputs, p)
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
        reading(spec, &rec.text).map_or_else(|| Needs::none().0, |s| s.needs(model).0)
    } else {
        stated
    };
    let mut modules: Vec<Module> = needs.iter().filter_map(|n| minimum(model, n)).collect();
    if modules.is_empty() {
        modules.extend(Needs::none().0.iter().filter_map(|n| minimum(model, n)));
    }
    let mut first = None;
    for m in modules {
        match judge(spec, &rec.text, m.ptx, m.target, Order::Lenient).defect {
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
    input: impl BufRead,
    mut out: impl Write,
    profiles: &[Profile],
    force: bool,
) -> Result<Outcome> {
    let mut input = input;
    let mut bad_lines = Vec::new();
    let mut buf = Vec::new();
    // Every line gets one answer, in order: a record, an error record in its place,
    // or a blank line for a blank one.
    for n in 1.. {
        let line = match read_line(&mut input, &mut buf)
            .map_err(|e| Error::Input(format!("{name}:{n}: {e}")))?
        {
            Line::End => break,
            Line::TooLong => {
                bad_lines.push(n);
                let e = format!("{name}:{n}: line longer than {MAX_LINE_BYTES} bytes");
                // Answered before the rest is skipped: the line may never end.
                writeln!(out, "{}", ErrorAnswer::line(e))
                    .and_then(|()| out.flush())
                    .map_err(Error::Stdout)?;
                skip_line(&mut input).map_err(|e| Error::Input(format!("{name}:{n}: {e}")))?;
                continue;
            }
            Line::Read => std::str::from_utf8(&buf),
        };
        let answer = match line {
            Ok(l) if l.trim().is_empty() => String::new(),
            Ok(l) => match eval_record(spec, l, profiles, force) {
                Ok(rec) => rec.to_line(),
                Err(e) => {
                    bad_lines.push(n);
                    // `file:line:column: message`, or `file:line: message`.
                    ErrorAnswer::line(format!("{name}:{n}:{e}"))
                }
            },
            Err(e) => {
                bad_lines.push(n);
                let column = e.valid_up_to() + 1;
                ErrorAnswer::line(format!("{name}:{n}:{column}: not UTF-8"))
            }
        };
        writeln!(out, "{answer}").map_err(Error::Stdout)?;
    }
    if bad_lines.is_empty() {
        Ok(Outcome::Pass)
    } else {
        Err(Error::Input(format!(
            "{name}: {} line(s) could not be evaluated: {bad_lines:?}",
            bad_lines.len()
        )))
    }
}
