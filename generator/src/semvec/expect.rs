//! The expected outputs of one record, computed from the record's own inputs: the
//! one place both `generate` and `eval` take expectations from, so that a vector
//! file is self-contained (a test evaluates the committed files again and finds
//! the same bits).

use ptxvec_oracle::float::Expect;
use ptxvec_oracle::memory::Reduction;
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::WARP_SIZE;

use super::warp::{self, LaneInputs};
use crate::error::{Error, Result};
use crate::record::{Bits, Expectation, Inputs, Out, Outputs, WarpInputs};
use crate::semantics::Semantics;

/// The outputs `sem` produces from `inputs` (already fitted to its shape, see
/// [`Inputs::fit`]) under `profile`. `negate` is the `!` of vote's predicate
/// source. An error where the inputs are of another kind than the semantics.
pub fn outputs(
    sem: Semantics,
    negate: bool,
    inputs: &Inputs,
    profile: Profile,
) -> Result<Outputs<Expectation>> {
    let other = |m: &str| Err(Error::Input(m.to_owned()));
    match (sem, inputs) {
        (Semantics::Memory(r), Inputs::Memory { mem, operand }) => {
            Ok(memory(r, mem, std::slice::from_ref(operand), profile))
        }
        (Semantics::Memory(r), Inputs::Contention { mem, operands }) => {
            Ok(memory(r, mem, operands, profile))
        }
        (Semantics::Memory(_), Inputs::Warp(_)) => {
            other("a memory reduction takes \"mem\" and \"operand\", not warp inputs")
        }
        (_, Inputs::Warp(w)) => warp_outputs(sem, negate, w, profile),
        (_, _) => other("a warp collective takes \"executing\" and lanes, not memory inputs"),
    }
}

/// Each thread's operand applied in the listed order to the same address.
fn memory(
    r: Reduction,
    mem: &[Bits],
    threads: &[Vec<Bits>],
    profile: Profile,
) -> Outputs<Expectation> {
    let width = r.element.bits();
    let e = mem
        .iter()
        .enumerate()
        .map(|(k, m)| {
            // A later thread applies to the bits an earlier one left; where those
            // are not pinned down, neither is anything after.
            let mut acc = Expect::Bits(m.value);
            for t in threads {
                acc = match acc {
                    Expect::Bits(m) => r.element(profile, m, t[k].value),
                    _ => Expect::Undefined,
                };
            }
            Expectation::of(acc, width)
        })
        .collect();
    Outputs::one(Out::Mem, e)
}

/// The per-lane form of a warp's inputs: one `b` and one `c` for the warp, as
/// the instruction's operands are written; an absent input reads as zeros.
pub fn lanes(w: &WarpInputs) -> LaneInputs {
    let value = |b: Option<Bits>| b.map_or(0, |b| b.value);
    let mut a = [0u64; WARP_SIZE];
    for (slot, v) in a.iter_mut().zip(w.a.iter().flatten()) {
        *slot = v.value;
    }
    LaneInputs {
        membermask: value(w.membermask) as u32,
        executing: w.executing.value as u32,
        a,
        b: std::array::from_fn(|l| w.b.as_ref().map_or(0, |b| b.lane(l)) as u32),
        c: [value(w.c) as u32; WARP_SIZE],
    }
}

fn warp_outputs(
    sem: Semantics,
    negate: bool,
    w: &WarpInputs,
    profile: Profile,
) -> Result<Outputs<Expectation>> {
    let r = warp::evaluate(sem, negate, &lanes(w), profile)?;
    let mut out = Outputs::one(
        Out::D,
        r.d.iter()
            .map(|l| Expectation::of_lane(*l, |v| Bits::new(v, r.d_width)))
            .collect(),
    );
    if let Some(p) = r.p {
        out.set(
            Out::P,
            p.iter()
                .map(|l| Expectation::of_lane(*l, Bits::pred))
                .collect(),
        );
    }
    Ok(out)
}
