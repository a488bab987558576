//! `ptxvec eval`: the oracle as a tool. Reads records in the vector input format
//! (JSON Lines: at least `text` and `inputs`) and writes each back with `expect`
//! filled in for the chosen profiles. A line it cannot evaluate is answered
//! `{"error": "<input>:N: ..."}` in its place, and the exit code is then 2.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::expect::outputs;
use crate::semantics;
use crate::syntax::judge;

/// Evaluates one record; the error says what is wrong with it.
pub fn eval_record(spec: &Spec, line: &str, profiles: &[Profile]) -> Result<Value, String> {
    let mut rec: Map<String, Value> = match serde_json::from_str(line) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err("expected a JSON object".to_owned()),
        Err(e) => return Err(format!("not JSON: {e}")),
    };
    let text = rec
        .get("text")
        .and_then(Value::as_str)
        .ok_or("no \"text\" (the PTX instruction)")?
        .to_owned();
    let spelling = judge::reading(spec, &text).ok_or_else(|| {
        format!("`{text}` is no spelling of the spec (see `ptxvec check-syntax`)")
    })?;
    let sem = semantics::of(&spelling)?;
    let inputs = rec
        .get("inputs")
        .and_then(Value::as_object)
        .ok_or("no \"inputs\" object")?
        .clone();
    let negate = text.contains('!');
    let mut expect = Map::new();
    for &p in profiles {
        let out = outputs(sem, negate, &inputs, p)?;
        // With both profiles, another profile is written only where it differs.
        if profiles.len() == 1
            || p == Profile::PtxIsa
            || expect.get(Profile::PtxIsa.name()) != Some(&out)
        {
            expect.insert(p.name().into(), out);
        }
    }
    rec.insert("expect".into(), Value::Object(expect));
    Ok(Value::Object(rec))
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
        let answer = eval_record(spec, &line, profiles).unwrap_or_else(|e| {
            code = 2;
            json!({ "error": format!("{name}:{}: {e}", i + 1) })
        });
        let text = serde_json::to_string(&answer).map_err(|e| format!("error: {e}"))?;
        writeln!(out, "{text}").map_err(|e| format!("error: writing: {e}"))?;
    }
    Ok(code)
}
