//! The expected outputs of one record, computed from the record's own inputs: the
//! one place both `generate` and `eval` take expectations from, so that a vector
//! file is self-contained (a test evaluates the committed files again and finds
//! the same bits).

use serde_json::{json, Map, Value};

use ptxvec_oracle::float::Expect;
use ptxvec_oracle::memory::Reduction;
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::{Lane, WARP_SIZE};

use super::warp::{self, WarpInputs};
use crate::semantics::Semantics;

pub use crate::hexbits::hex;
use crate::hexbits::{hex_list, hex_one, parse_hex};

/// An expectation as it is written: exact bits as hex, anything looser as an
/// accept class.
pub fn expect_json(e: Expect, width: u32) -> Value {
    match e {
        Expect::Bits(b) => json!(hex(b, width)),
        Expect::AnyNan => json!({"accept": "nan:any"}),
        Expect::Either(a, b) => json!({"accept": "one_of", "bits": [hex(a, width), hex(b, width)]}),
        Expect::BitsOrNan(a) => json!({"accept": "one_of", "bits": [hex(a, width)], "nan": true}),
        Expect::Undefined => json!({"accept": "undefined"}),
    }
}

fn lane_json<T: Copy>(l: Lane<T>, show: impl Fn(T) -> String) -> Value {
    match l {
        Lane::Value(v) => json!(show(v)),
        Lane::Undefined => json!({"accept": "undefined"}),
        Lane::NotExecuted => Value::Null,
    }
}

/// The outputs `sem` produces from `inputs` under `profile`. `negate` is the `!` of
/// vote's predicate source.
pub fn outputs(
    sem: Semantics,
    negate: bool,
    inputs: &Map<String, Value>,
    profile: Profile,
) -> Result<Value, String> {
    match sem {
        Semantics::Memory(r) => memory(r, inputs, profile),
        _ => warp_outputs(sem, negate, inputs, profile),
    }
}

fn memory(r: Reduction, inputs: &Map<String, Value>, profile: Profile) -> Result<Value, String> {
    let width = r.element.bits();
    let mem = hex_list(inputs, "mem", width)?;
    // One thread's operand, or (contention) every thread's, applied in the listed
    // order to the same address.
    let threads: Vec<Vec<u64>> = match (inputs.get("operand"), inputs.get("operands")) {
        (Some(_), None) => vec![hex_list(inputs, "operand", width)?],
        (None, Some(Value::Array(list))) if !list.is_empty() => list
            .iter()
            .map(|t| match t {
                Value::Array(items) => items
                    .iter()
                    .map(|v| parse_hex(v, "operands", width))
                    .collect(),
                v => Err(format!(
                    "\"operands\": expected a list per thread, found {v}"
                )),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err(
            "expected \"operand\" (one thread) or a non-empty \"operands\" (one list per thread)"
                .to_owned(),
        ),
    };
    if mem.is_empty() || threads.iter().any(|t| t.len() != mem.len()) {
        return Err(format!(
            "\"mem\" has {} elements and an operand has another count",
            mem.len()
        ));
    }
    let e: Vec<Value> = (0..mem.len())
        .map(|k| {
            // A later thread applies to the bits an earlier one left; where those are
            // not pinned down, neither is anything after.
            let mut acc = Expect::Bits(mem[k]);
            for t in &threads {
                acc = match acc {
                    Expect::Bits(m) => r.element(profile, m, t[k]),
                    _ => Expect::Undefined,
                };
            }
            expect_json(acc, width)
        })
        .collect();
    Ok(json!({ "mem": e }))
}

fn warp_outputs(
    sem: Semantics,
    negate: bool,
    inputs: &Map<String, Value>,
    profile: Profile,
) -> Result<Value, String> {
    let executing = hex_one(inputs, "executing", 32)? as u32;
    let mut x = WarpInputs {
        membermask: 0,
        executing,
        a: [0; WARP_SIZE],
        b: [0; WARP_SIZE],
        c: [0; WARP_SIZE],
    };
    if sem != Semantics::Activemask {
        x.membermask = hex_one(inputs, "membermask", 32)? as u32;
        let width = match sem {
            Semantics::Vote(_) | Semantics::Ballot => 4,
            Semantics::Match { wide: true, .. } => 64,
            _ => 32,
        };
        x.a = lanes(inputs, "a", width)?;
    }
    if let Semantics::Shfl(_) = sem {
        // One b and one c for the warp, as the instruction's operands are written.
        x.b = [hex_one(inputs, "b", 32)? as u32; WARP_SIZE];
        x.c = [hex_one(inputs, "c", 32)? as u32; WARP_SIZE];
    }
    let r = warp::evaluate(sem, negate, &x, profile)?;
    let mut out = Map::new();
    let d: Vec<Value> =
        r.d.iter()
            .map(|l| lane_json(*l, |v| hex(v, r.d_width)))
            .collect();
    out.insert("d".into(), Value::Array(d));
    if let Some(p) = r.p {
        let p: Vec<Value> = p
            .iter()
            .map(|l| lane_json(*l, |v| hex(v.into(), 4)))
            .collect();
        out.insert("p".into(), Value::Array(p));
    }
    Ok(Value::Object(out))
}

fn lanes(m: &Map<String, Value>, key: &str, width: u32) -> Result<[u64; WARP_SIZE], String> {
    let list = hex_list(m, key, width)?;
    <[u64; WARP_SIZE]>::try_from(list)
        .map_err(|l| format!("\"{key}\": {} lanes, expected {WARP_SIZE}", l.len()))
}
