//! The litmus record: one JSON line of `vectors/litmus.jsonl.gz` per generated test,
//! with the allowed outcomes the oracle gives it (each marked weak or not) and the
//! forbidden ones with the axioms that forbid them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use ptxvec_oracle::model::{self, judge, Event, Op, Val};

use super::spelling::scope_word;
use super::{mem_key, outcome_keys, reg_key, Generated};

/// The chapter the outcomes come from.
pub const SOURCE: &str = "PTX ISA 9.1, 8 Memory Consistency Model (8.9 Ordering of memory operations, 8.10 Axioms)";

/// One record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// `MP/rel_acq/gpu/other_ctas`.
    pub id: String,
    /// `MP`, `SB`, `LB`, `IRIW`, `WRC`, `CoRR`, `2+2W`, `S`, `CoWR`, `CoWW`,
    /// `CoRW`, `Atomicity`.
    pub shape: String,
    /// `weak`, `relaxed`, `rel_acq`, `fence_acq_rel`, `fence_sc`, `rmw_acq_rel`,
    /// `red_rel_acq`.
    pub flavour: String,
    /// The scope of every strong operation (`.gpu`); `null` for `weak`.
    pub scope: Option<String>,
    /// `same_warp`, `same_cta`, `other_ctas`, `other_clusters`.
    pub placement: String,
    /// The `.version` and `.target` to emit.
    pub requires: Requires,
    /// Every location's value before the test: 0.
    pub init: BTreeMap<String, u32>,
    /// The threads.
    pub threads: Vec<ThreadRecord>,
    /// The registers and locations an outcome gives.
    pub observed: Observed,
    /// The outcomes the model allows.
    pub allowed: Vec<Allowed>,
    /// The outcomes some candidate execution produces and the axioms rule out.
    pub forbidden: Vec<Forbidden>,
    /// Where the outcomes come from.
    pub source: String,
}

/// A `.version` and `.target`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requires {
    /// `6.0`.
    pub ptx: String,
    /// `sm_70`.
    pub target: String,
}

/// One thread: where it runs and what it executes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadRecord {
    /// The cluster, on one device.
    pub cluster: u8,
    /// The CTA, in that cluster.
    pub cta: u8,
    /// The warp, in that CTA.
    pub warp: u8,
    /// The lane, in that warp: given only where the test's threads share a warp
    /// (`same_warp`), each its own. A runner may deal the lanes at random; what it
    /// keeps is that the threads share a warp and none shares a lane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<u8>,
    /// Its instructions in program order, operands written as the chapter's litmus
    /// tests write them: `%rN` for register `N`, `[x]` for location `x`.
    pub instructions: Vec<String>,
}

/// What an outcome gives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Observed {
    /// Register keys: `1:r0`.
    pub regs: Vec<String>,
    /// Location keys: `x`.
    pub mem: Vec<String>,
}

/// An allowed outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowed {
    /// Register key to value.
    pub regs: BTreeMap<String, u32>,
    /// Location key to final value.
    pub mem: BTreeMap<String, u32>,
    /// No sequentially consistent interleaving gives it.
    pub weak: bool,
}

/// A forbidden outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forbidden {
    /// Register key to value.
    pub regs: BTreeMap<String, u32>,
    /// Location key to final value.
    pub mem: BTreeMap<String, u32>,
    /// The axioms that reject its candidate executions, each as `8.10.6 Causality`.
    pub axioms: Vec<String>,
}

/// The instruction text of `event` with operands.
pub fn instruction(opcode: &str, event: &Event) -> String {
    let value = |v: Val| match v {
        Val::Const(c) => c.to_string(),
        Val::Reg(r) => format!("%r{}", r.0),
    };
    let operand = |rmw: model::Rmw| match rmw {
        model::Rmw::Add(k) | model::Rmw::Exch(k) => k.to_string(),
    };
    match event.op {
        Op::Ld { loc, reg } => format!("{opcode} %r{}, [{}];", reg.0, mem_key(loc)),
        Op::St { loc, val } => format!("{opcode} [{}], {};", mem_key(loc), value(val)),
        Op::Atom { loc, reg, rmw } => format!("{opcode} %r{}, [{}], {};", reg.0, mem_key(loc), operand(rmw)),
        Op::Red { loc, rmw } => format!("{opcode} [{}], {};", mem_key(loc), operand(rmw)),
        Op::Fence | Op::AliasFence => format!("{opcode};"),
    }
}

/// The name of an axiom in a record: `8.10.6 Causality`.
pub fn axiom_name(a: model::axioms::Axiom) -> String {
    format!("{} {}", a.section(), a.title())
}

/// The record of `test`, or why the oracle cannot judge it.
pub fn record(test: &Generated) -> Result<Record, model::Unsupported> {
    let verdict = judge(&test.litmus)?;
    let sc = model::sc::outcomes(&test.litmus);
    let threads = test
        .litmus
        .threads
        .iter()
        .zip(&test.opcodes)
        .enumerate()
        .map(|(i, (t, ops))| ThreadRecord {
            cluster: t.place.cluster,
            cta: t.place.cta,
            warp: test.placement.warp(i),
            lane: test.placement.lane(i),
            instructions: t.events.iter().zip(ops).map(|(e, op)| instruction(op, e)).collect(),
        })
        .collect();
    let mut regs = Vec::new();
    let mut locs = std::collections::BTreeSet::new();
    for (i, t) in test.litmus.threads.iter().enumerate() {
        for e in &t.events {
            if let Op::Ld { reg, .. } | Op::Atom { reg, .. } = e.op {
                let key = reg_key(i, reg);
                if !regs.contains(&key) {
                    regs.push(key);
                }
            }
            locs.extend(e.loc());
        }
    }
    let allowed = verdict
        .allowed
        .iter()
        .map(|o| {
            let (regs, mem) = outcome_keys(o);
            Allowed { regs, mem, weak: !sc.contains(o) }
        })
        .collect();
    let forbidden = verdict
        .forbidden
        .iter()
        .map(|(o, axioms)| {
            let (regs, mem) = outcome_keys(o);
            Forbidden { regs, mem, axioms: axioms.iter().map(|a| axiom_name(*a)).collect() }
        })
        .collect();
    Ok(Record {
        id: test.id.clone(),
        shape: test.shape.name().to_owned(),
        flavour: test.flavour.name().to_owned(),
        scope: test.scope.map(|s| scope_word(s).to_owned()),
        placement: test.placement.name().to_owned(),
        requires: Requires { ptx: test.requires.ptx.to_string(), target: test.requires.target() },
        init: locs.iter().map(|l| (mem_key(*l), 0)).collect(),
        threads,
        observed: Observed { regs, mem: locs.iter().map(|l| mem_key(*l)).collect() },
        allowed,
        forbidden,
        source: SOURCE.to_owned(),
    })
}

/// Every generated test's record, as JSON Lines, in the tests' order (judged on
/// every core: the oracle's walk is most of `generate`'s time for these).
pub fn jsonl(tests: &[Generated]) -> Result<String, model::Unsupported> {
    use rayon::prelude::*;
    let records: Vec<Record> = tests.par_iter().map(record).collect::<Result<_, _>>()?;
    let mut out = String::new();
    for r in &records {
        // A record of strings, numbers and maps with string keys always serializes.
        out.push_str(&serde_json::to_string(r).unwrap_or_default());
        out.push('\n');
    }
    Ok(out)
}
