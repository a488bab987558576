//! Litmus tests of the PTX memory consistency model (issue 42): the generated
//! tests, their spellings, and the names an outcome's registers and memory go by.
//!
//! # The interface to a runner
//!
//! [`generated`] returns every test as a [`Generated`]: its `id`, the
//! [`ptxvec_oracle::model::Litmus`] (threads, each with its place and its events in
//! program order), and `opcodes[thread][event]`, the PTX opcode of each event with
//! its qualifiers and without operands (`atom.acq_rel.gpu.global.add.u32`,
//! `fence.sc.cta`, `ld.global.u32`): a runner appends the operands. Every access is
//! to `.global` memory and 32 bits wide; every location holds 0 before the test.
//! [`Placement`] says where each thread runs (`same_warp`: in one warp, which
//! the oracle's places cannot say, so a runner reads it from the placement and the
//! record from each thread's `lane`); [`Requires`] the `.version` and
//! `.target` to emit. [`record::record`] gives a test's record: its allowed
//! outcomes (each marked weak when no sequentially consistent interleaving gives
//! it) and its forbidden ones with their axioms, as vectors/litmus.jsonl.gz holds
//! them.
//!
//! # The outcome key format
//!
//! A results file and a record name a register `T:rN`, thread `T`'s register
//! `N` ([`reg_key`]: `"1:r0"`, the register an `ld` or `atom` of thread 1 with
//! `reg: Reg(0)` sets), and a location by [`mem_key`]: `Loc(0)` is `"x"`, `Loc(1)`
//! `"y"`, `Loc(2)` `"z"`, `Loc(3)` `"w"`, any other `Loc(n)` `"mN"`. An outcome
//! gives every register some event sets and the final value of every location
//! some event accesses ([`outcome_keys`]).

pub mod record;
pub mod shapes;
pub mod spelling;

use std::collections::BTreeMap;

use ptxvec_oracle::model::{Loc, Outcome, Reg};

pub use shapes::{generated, Flavour, Generated, Placement, Shape};
pub use spelling::Requires;

/// The key of register `reg` of thread `thread`: `"1:r0"`.
pub fn reg_key(thread: usize, reg: Reg) -> String {
    format!("{thread}:r{}", reg.0)
}

/// The key of location `loc`: `"x"`, `"y"`, `"z"`, `"w"`, then `"m4"`, `"m5"`...
pub fn mem_key(loc: Loc) -> String {
    match loc.0 {
        0 => "x".to_owned(),
        1 => "y".to_owned(),
        2 => "z".to_owned(),
        3 => "w".to_owned(),
        n => format!("m{n}"),
    }
}

/// The register a [`reg_key`] names: `"1:r0"` is thread 1's `Reg(0)`; `None` for
/// any other text.
pub fn reg_of_key(key: &str) -> Option<(usize, Reg)> {
    let (t, r) = key.split_once(":r")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(t) && digits(r)).then_some(())?;
    Some((t.parse().ok()?, Reg(r.parse().ok()?)))
}

/// The location a [`mem_key`] names; `None` for any other text (`"m0"` is not a
/// key: location 0 is `"x"`).
pub fn loc_of_key(key: &str) -> Option<Loc> {
    let loc = match key {
        "x" => Loc(0),
        "y" => Loc(1),
        "z" => Loc(2),
        "w" => Loc(3),
        _ => Loc(key.strip_prefix('m').filter(|n| !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit()))?.parse().ok()?),
    };
    (mem_key(loc) == key).then_some(loc)
}

/// An outcome's registers and memory by their keys.
pub fn outcome_keys(o: &Outcome) -> (BTreeMap<String, u32>, BTreeMap<String, u32>) {
    let regs = o.regs.iter().map(|((t, r), v)| (reg_key(*t, *r), *v)).collect();
    let mem = o.mem.iter().map(|(l, v)| (mem_key(*l), *v)).collect();
    (regs, mem)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod key_tests {
    use super::*;

    #[test]
    fn keys_read_back_and_nothing_else_does() {
        for t in [0, 1, 3, 12] {
            for r in [0, 1, 9, 200] {
                assert_eq!(reg_of_key(&reg_key(t, Reg(r))), Some((t, Reg(r))));
            }
        }
        for l in 0..40 {
            assert_eq!(loc_of_key(&mem_key(Loc(l))), Some(Loc(l)));
        }
        for bad in ["", "1:", ":r0", "1:r", "t1.r0", "1:r0x", "-1:r0", "1:r+1"] {
            assert_eq!(reg_of_key(bad), None, "{bad}");
        }
        for bad in ["", "m", "m0", "m1", "m3", "m04", "v", "m-5", "m5x", "X"] {
            assert_eq!(loc_of_key(bad), None, "{bad}");
        }
    }
}
