//! `ptxvec eval`: the oracle as a tool. Reads records in the vector input format
//! (JSON Lines: at least `text` and `inputs`) and writes each back with `expect`
//! filled in for the chosen profiles. A line it cannot evaluate is answered
//! `{"error": "<input>:N: ..."}` in its place, and the exit code is then 2.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::expect::outputs;
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
pub fn eval_record(spec: &Spec, line: &str, profiles: &[Profile]) -> Result<Record, EvalError> {
    let mut rec = Record::from_line(line).map_err(|e| EvalError::Json {
        column: e.column(),
        message: match e.classify() {
            serde_json::error::Category::Data => strip_position(&e),
            _ => format!("not JSON: {}", strip_position(&e)),
        },
    })?;
    let reading = semantics::read(spec, &rec.text).map_err(EvalError::Record)?;
    let shape = Shape::of(reading.semantics);
    rec.inputs = rec
        .inputs
        .fit(shape)
        .map_err(|e| EvalError::Record(e.to_string()))?;
    let mut expect = BTreeMap::new();
    for &p in profiles {
        let out = outputs(reading.semantics, reading.negate, &rec.inputs, p)
            .map_err(EvalError::Record)?;
        // With both profiles, another profile is written only where it differs.
        if profiles.len() == 1 || p == Profile::PtxIsa || expect.get(&Profile::PtxIsa) != Some(&out)
        {
            expect.insert(p, out);
        }
    }
    rec.expect = expect;
    Ok(rec)
}

/// One answer line of `eval`: a record, or the error in its place.
#[derive(serde::Serialize)]
struct ErrorLine {
    error: String,
}

/// Evaluates every line of `input` (named `name` in errors) onto `out`; returns the
/// exit code: 0, or 2 when some line could not be evaluated.
pub fn run(
    spec: &Spec,
    name: &str,
    input: impl BufRead,
    mut out: impl Write,
    profiles: &[Profile],
) -> Result<u8, String> {
    let mut code = 0;
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("error: {name}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match eval_record(spec, &line, profiles) {
            Ok(rec) => rec.to_line(),
            Err(e) => {
                code = 2;
                serde_json::to_string(&ErrorLine {
                    // `file:line:column: message`, or `file:line: message`.
                    error: format!("{name}:{}:{e}", i + 1),
                })
                .map_err(|e| format!("error: {e}"))?
            }
        };
        writeln!(out, "{answer}").map_err(|e| format!("error: writing: {e}"))?;
    }
    Ok(code)
}
