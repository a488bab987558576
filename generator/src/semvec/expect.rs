//! The expected outputs of one record, computed from the record's own inputs: the
//! one place both `generate` and `eval` take expectations from, so that a vector
//! file is self-contained (a test evaluates the committed files again and finds
//! the same bits).

use serde_json::{json, Map, Value};

use ptxvec_oracle::float::Expect;
use ptxvec_oracle::memory::Reduction;
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::{self, DestPred, Lane, WARP_SIZE};

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
    if sem == Semantics::Activemask {
        let d: Vec<Value> = warp::activemask::activemask(executing)
            .iter()
            .map(|l| lane_json(*l, hex32))
            .collect();
        return Ok(json!({ "d": d }));
    }
    let mm = hex_one(inputs, "membermask", 32)? as u32;
    let width = match sem {
        Semantics::Vote(_) | Semantics::Ballot => 4,
        Semantics::Match { wide: true, .. } => 64,
        _ => 32,
    };
    let a = lanes(inputs, "a", width)?;
    let a32: [u32; WARP_SIZE] = std::array::from_fn(|i| a[i] as u32);
    let pred: [bool; WARP_SIZE] = std::array::from_fn(|i| a[i] != 0);
    let d32 = |r: [Lane<u32>; WARP_SIZE]| json!({ "d": r.iter().map(|l| lane_json(*l, hex32)).collect::<Vec<_>>() });
    Ok(match sem {
        Semantics::Vote(mode) => {
            let r = warp::vote::vote(mode, negate, mm, executing, &pred);
            json!({ "d": r.iter().map(|l| lane_json(*l, |b| hex(b.into(), 4))).collect::<Vec<_>>() })
        }
        Semantics::Ballot => d32(warp::vote::ballot(negate, mm, executing, &pred)),
        Semantics::ReduxInt(form) => d32(warp::redux::redux_int(form, mm, executing, &a32)),
        Semantics::ReduxF32(q) => d32(warp::redux::redux_f32(q, mm, executing, &a32)),
        Semantics::Match {
            all: false,
            wide: true,
        } => d32(warp::matching::match_any(mm, executing, &a)),
        Semantics::Match {
            all: false,
            wide: false,
        } => d32(warp::matching::match_any(mm, executing, &a32)),
        Semantics::Match {
            all: true,
            wide: true,
        } => dest_pred(&warp::matching::match_all(mm, executing, &a)),
        Semantics::Match {
            all: true,
            wide: false,
        } => dest_pred(&warp::matching::match_all(mm, executing, &a32)),
        Semantics::Shfl(mode) => {
            let b = hex_one(inputs, "b", 32)? as u32;
            let c = hex_one(inputs, "c", 32)? as u32;
            dest_pred(&warp::shfl::shfl_under(
                profile,
                mode,
                mm,
                executing,
                &a32,
                &[b; WARP_SIZE],
                &[c; WARP_SIZE],
            ))
        }
        Semantics::Activemask | Semantics::Memory(_) => {
            return Err("not a warp collective".to_owned())
        }
    })
}

fn hex32(x: u32) -> String {
    hex(x.into(), 32)
}

fn dest_pred(r: &[DestPred<u32>; WARP_SIZE]) -> Value {
    let d: Vec<Value> = r.iter().map(|x| lane_json(x.d, hex32)).collect();
    let p: Vec<Value> = r
        .iter()
        .map(|x| lane_json(x.p, |v| hex(v.into(), 4)))
        .collect();
    json!({"d": d, "p": p})
}

fn lanes(m: &Map<String, Value>, key: &str, width: u32) -> Result<[u64; WARP_SIZE], String> {
    let list = hex_list(m, key, width)?;
    <[u64; WARP_SIZE]>::try_from(list)
        .map_err(|l| format!("\"{key}\": {} lanes, expected {WARP_SIZE}", l.len()))
}
