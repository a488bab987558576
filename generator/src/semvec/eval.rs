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
use crate::output::ErrorAnswer;
use crate::record::{strip_position, Record, Shape};
use crate::semantics;

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

/// Evaluates one record; the error says what is wrong with it.
pub fn eval_record(
    spec: &Spec,
    line: &str,
    profiles: &[Profile],
) -> std::result::Result<Record, EvalError> {
    let mut rec = Record::from_line(line).map_err(|e| EvalError::Json {
        column: e.column(),
        message: match e.classify() {
            serde_json::error::Category::Data => strip_position(&e),
            _ => format!("not JSON: {}", strip_position(&e)),
        },
    })?;
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

/// Evaluates every line of `input` (named `name` in errors) onto `out`. A line it
/// cannot evaluate is answered with an error record, and makes the run an input
/// error once every line is answered.
pub fn run(
    spec: &Spec,
    name: &str,
    input: impl BufRead,
    mut out: impl Write,
    profiles: &[Profile],
) -> Result<Outcome> {
    let mut bad_lines = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Error::Input(format!("{name}:{}: {e}", i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match eval_record(spec, &line, profiles) {
            Ok(rec) => rec.to_line(),
            Err(e) => {
                bad_lines.push(i + 1);
                // `file:line:column: message`, or `file:line: message`.
                ErrorAnswer::line(format!("{name}:{}:{e}", i + 1))
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
