//! Replaying recorded silicon evidence against the oracle, without a GPU: each
//! record's inputs go through the oracle under both profiles, and every output bit
//! pattern the profile does not accept is a mismatch. CI runs this on every commit,
//! so an oracle change that breaks agreement with silicon fails there.

use std::path::Path;

use serde_json::{Map, Value};

use ptxvec_oracle::float::{Expect, Format};
use ptxvec_oracle::memory::Element;
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::{Lane, WARP_SIZE};
use ptxvec_spec::Spec;

use crate::semantics::{self, Semantics};
use crate::semvec::warp::{self, LaneInputs};
use crate::syntax::judge;

/// One output the profile does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// `file:line`.
    pub at: String,
    /// The instruction's qualifier chain (`red.global.add.f32`): what the errata
    /// ledger lists a doc-versus-silicon difference under.
    pub chain: String,
    /// The profile that does not accept it.
    pub profile: Profile,
    /// What was compared and how it differed.
    pub detail: String,
}

/// What a replay found.
#[derive(Debug, Default)]
pub struct Replay {
    /// Records replayed.
    pub records: usize,
    /// Individual outputs compared (lanes, elements).
    pub outputs: usize,
    /// Outputs a profile does not accept.
    pub mismatches: Vec<Mismatch>,
}

/// Replays one evidence file. A malformed file is an error naming `file:line`.
pub fn replay_file(spec: &Spec, path: &Path, out: &mut Replay) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    for (i, line) in text.lines().enumerate().skip(1) {
        let at = format!("{name}:{}", i + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{at}: not JSON: {e}"))?;
        replay_record(spec, &at, &v, out).map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(())
}

fn replay_record(spec: &Spec, at: &str, v: &Value, out: &mut Replay) -> Result<(), String> {
    if v.get("error").is_some() {
        return Ok(());
    }
    let text = v.get("text").and_then(Value::as_str).ok_or("no \"text\"")?;
    let spelling = judge::reading(spec, text)
        .ok_or_else(|| format!("`{text}` reads as no spelling of the spec"))?;
    let sem = semantics::of(&spelling)?;
    let chain = spelling.chain();
    let inputs = v
        .get("inputs")
        .and_then(Value::as_object)
        .ok_or("no \"inputs\"")?;
    let outputs = v
        .get("outputs")
        .and_then(Value::as_object)
        .ok_or("no \"outputs\"")?;
    out.records += 1;
    let negate = text.contains('!');
    for &profile in Profile::ALL {
        let mut fail = |detail: String| {
            out.mismatches.push(Mismatch {
                at: at.to_owned(),
                chain: chain.clone(),
                profile,
                detail,
            });
        };
        let compared = match sem {
            Semantics::Memory(r) => {
                let mem = hex_list(inputs, "mem")?;
                let operand = hex_list(inputs, "operand")?;
                let got = hex_list(outputs, "mem")?;
                let mut n = 0;
                for (k, ((m, o), g)) in mem.iter().zip(&operand).zip(&got).enumerate() {
                    let per = m.1 / r.element.bits();
                    for e in 0..per {
                        let field = |x: u64| bits_of(x, e * r.element.bits(), r.element.bits());
                        let want = r.element(profile, field(m.0), field(o.0));
                        let fmt = match r.element {
                            Element::Float(f) => f,
                            Element::Int(_) => Format::F64,
                        };
                        let g = field(g.0);
                        let ok = match (want, r.element) {
                            (Expect::Bits(w), Element::Int(_)) => w == g,
                            _ => want.accepts(fmt, g),
                        };
                        if !ok {
                            fail(format!("mem[{k}] element {e}: mem {:#x} operand {:#x}: silicon {g:#x}, oracle {want:#x?}", field(m.0), field(o.0)));
                        }
                        n += 1;
                    }
                }
                n
            }
            _ => replay_warp(sem, profile, negate, inputs, outputs, &mut fail)?,
        };
        out.outputs += compared;
    }
    Ok(())
}

/// Compares per-lane results; returns how many lanes had a defined expectation.
fn replay_warp(
    sem: Semantics,
    profile: Profile,
    negate: bool,
    inputs: &Map<String, Value>,
    outputs: &Map<String, Value>,
    fail: &mut impl FnMut(String),
) -> Result<usize, String> {
    // The probes record shfl's `b` and `c` per lane, and neither `a` nor a
    // membermask for activemask.
    let shfl = matches!(sem, Semantics::Shfl(_));
    let per_lane = |key: &str, needed: bool| -> Result<[u64; WARP_SIZE], String> {
        if needed || inputs.contains_key(key) {
            lanes(inputs, key)
        } else {
            Ok([0; WARP_SIZE])
        }
    };
    let x = LaneInputs {
        executing: hex_one(inputs, "executing")? as u32,
        membermask: if inputs.contains_key("membermask") {
            hex_one(inputs, "membermask")? as u32
        } else {
            u32::MAX
        },
        a: per_lane("a", false)?,
        b: per_lane("b", shfl)?.map(|v| v as u32),
        c: per_lane("c", shfl)?.map(|v| v as u32),
    };
    let d = written_lanes(outputs, "d")?;
    let p = if outputs.contains_key("p") {
        Some(written_lanes(outputs, "p")?)
    } else {
        None
    };
    let want = warp::evaluate(sem, negate, &x, profile)?;
    let (want_d, want_p) = (want.d, want.p);
    let mut n = 0;
    for lane in 0..WARP_SIZE {
        if let Lane::Value(w) = want_d[lane] {
            n += 1;
            if d[lane] != Some(w) {
                fail(format!(
                    "lane {lane} d: silicon {:?}, oracle {w:#x}",
                    d[lane]
                ));
            }
        }
        if let (Some(wp), Some(gp)) = (want_p, p) {
            if let Lane::Value(w) = wp[lane] {
                n += 1;
                if gp[lane].map(|x| x != 0) != Some(w) {
                    fail(format!("lane {lane} p: silicon {:?}, oracle {w}", gp[lane]));
                }
            }
        }
    }
    Ok(n)
}

/// `width` bits of `x` from bit `at`.
fn bits_of(x: u64, at: u32, width: u32) -> u64 {
    let m = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    (x >> at) & m
}

/// A hex string's value and its width in bits (4 per digit).
fn parse_hex(v: &Value) -> Result<(u64, u32), String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("{v} is not a hex string"))?;
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| format!("`{s}` does not start with 0x"))?;
    let value = u64::from_str_radix(digits, 16).map_err(|e| format!("`{s}`: {e}"))?;
    let width = u32::try_from(digits.len() * 4).map_err(|_| format!("`{s}` is too long"))?;
    Ok((value, width))
}

fn hex_one(m: &Map<String, Value>, key: &str) -> Result<u64, String> {
    parse_hex(m.get(key).ok_or_else(|| format!("no \"{key}\""))?).map(|(v, _)| v)
}

/// A field that is one hex string or a list of them.
fn hex_list(m: &Map<String, Value>, key: &str) -> Result<Vec<(u64, u32)>, String> {
    match m.get(key).ok_or_else(|| format!("no \"{key}\""))? {
        Value::Array(items) => items.iter().map(parse_hex).collect(),
        v => Ok(vec![parse_hex(v)?]),
    }
}

fn lanes(m: &Map<String, Value>, key: &str) -> Result<[u64; WARP_SIZE], String> {
    let got = written_lanes(m, key)?;
    Ok(std::array::from_fn(|i| got[i].unwrap_or(0)))
}

/// Per lane, the value, or `None` where the record holds `null`: a lane that wrote
/// nothing (it did not execute the instruction).
fn written_lanes(m: &Map<String, Value>, key: &str) -> Result<[Option<u64>; WARP_SIZE], String> {
    let Some(Value::Array(items)) = m.get(key) else {
        return Err(format!("\"{key}\" is not a list of {WARP_SIZE} lanes"));
    };
    if items.len() != WARP_SIZE {
        return Err(format!(
            "\"{key}\" has {} lanes, not {WARP_SIZE}",
            items.len()
        ));
    }
    let mut out = [None; WARP_SIZE];
    for (slot, v) in out.iter_mut().zip(items) {
        *slot = if v.is_null() {
            None
        } else {
            Some(parse_hex(v)?.0)
        };
    }
    Ok(out)
}
