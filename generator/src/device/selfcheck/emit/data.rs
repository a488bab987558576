//! The module-scope data of a self-checking module: each record's inputs, and
//! each profile's expectations, as initialized `.global` arrays.

use std::collections::BTreeSet;

use ptxvec_oracle::profile::Profile;

use super::super::{code, contention as contention_of, skipped, Suite, WARP};
use super::store_bits;
use crate::device::ptx::Module;
use crate::record::{Bits, Expectation, Inputs, MemoryShape, Per, Shape, Slot, Source};

/// The expectation arrays' symbols: per profile, per output, the prefix of its
/// arrays (profiles whose arrays equal an earlier profile's share them).
pub(super) struct ExpectData {
    /// `prefix[profile][output]`: `ptxvec_expect_<profile>_<output>`.
    pub prefix: Vec<Vec<String>>,
    /// The prefixes whose `_b` array differs from `_a` and was written.
    with_b: BTreeSet<String>,
}

impl ExpectData {
    /// The `b` array of `prefix`: its `_a` array where `b` equals `a`.
    pub fn b_symbol(&self, prefix: &str) -> String {
        if self.with_b.contains(prefix) {
            format!("{prefix}_b")
        } else {
            format!("{prefix}_a")
        }
    }
}

/// Writes every profile's expectations of every output: kind, a and b arrays.
pub(super) fn expectations(m: &mut Module, s: &Suite) -> ExpectData {
    let outs = s.outputs();
    let mut prefix = vec![Vec::new(); Profile::ALL.len()];
    let mut with_b = BTreeSet::new();
    let mut emitted: Vec<(Vec<&Expectation>, String)> = Vec::new();
    for (pi, p) in Profile::ALL.iter().enumerate() {
        for (o, width) in &outs {
            let slots: Vec<&Expectation> =
                s.records.iter().flat_map(|r| s.slots(r, *p, *o)).collect();
            if let Some((_, name)) = emitted.iter().find(|(e, _)| *e == slots) {
                prefix[pi].push(name.clone());
                continue;
            }
            let name = format!("ptxvec_expect_{}_{}", p.name().replace('-', "_"), o.name());
            let codes: Vec<(u8, u64, u64)> = slots.iter().map(|x| code(x)).collect();
            let bits = store_bits(*width);
            let kinds: Vec<u64> = codes.iter().map(|c| u64::from(c.0)).collect();
            let a: Vec<u64> = codes.iter().map(|c| c.1).collect();
            let b: Vec<u64> = codes.iter().map(|c| c.2).collect();
            m.comment(&format!(
                "{} expectations of `{}`: kind (bit 0: a or b, bit 1: any NaN, bit 2: anything), a, b.",
                p.name(),
                o.name()
            ));
            m.array(&format!("{name}_kind"), 8, &kinds);
            m.array(&format!("{name}_a"), bits, &a);
            if b == a {
                m.comment(&format!("{name}_b: the same as {name}_a"));
            } else {
                m.array(&format!("{name}_b"), bits, &b);
                with_b.insert(name.clone());
            }
            emitted.push((slots, name.clone()));
            prefix[pi].push(name);
        }
    }
    ExpectData { prefix, with_b }
}

/// Writes the records' inputs.
pub(super) fn inputs(m: &mut Module, s: &Suite) {
    match s.shape {
        Shape::Memory(shape) => memory_inputs(m, s, shape),
        Shape::Warp(_) => warp_inputs(m, s),
    }
}

/// A memory variant's inputs: the memory (`ptxvec_mem_in`) and each input slot
/// the family declares (`ptxvec_operand`), per record; then for contention blocks
/// each thread's (`ptxvec_operands`).
fn memory_inputs(m: &mut Module, s: &Suite, shape: MemoryShape) {
    let Some(memory) = shape.memory() else {
        return;
    };
    let slots: Vec<Slot> = shape.inputs().collect();
    let mut mem = Vec::new();
    let mut values = vec![Vec::new(); slots.len()];
    for r in &s.records {
        // A contention record's own thread carries the first thread's inputs.
        let (a, held): (&Vec<Bits>, Vec<Option<&Vec<Bits>>>) = match &r.inputs {
            Inputs::Memory { mem, slots: given } => (mem, slots.iter().map(|x| given.get(x.name)).collect()),
            Inputs::Contention { mem, slots: given } => {
                (mem, slots.iter().map(|x| given.get(x.name).and_then(|t| t.first())).collect())
            }
            Inputs::Warp(_) => continue,
        };
        mem.extend(a.iter().map(|x| x.value));
        for (v, h) in values.iter_mut().zip(held) {
            v.extend(h.into_iter().flatten().map(|x| x.value));
        }
    }
    // The memory and the first input under one comment, each further input under
    // its own.
    let first = slots.first().map_or(String::new(), |x| format!(", {}", x.about));
    m.comment(&format!(
        "Inputs: {}{first}; element after element, record after record.",
        memory.about
    ));
    m.array(&format!("ptxvec_{}_in", memory.name), memory.width, &mem);
    for (k, (slot, v)) in slots.iter().zip(&values).enumerate() {
        if k > 0 {
            m.comment(&format!("Inputs: {}.", slot.about));
        }
        m.array(&format!("ptxvec_{}", slot.name), slot.width, v);
    }
    let contention = s.contention_records();
    if contention.is_empty() {
        return;
    }
    let flags: Vec<u64> = s
        .records
        .iter()
        .map(|r| u64::from(contention_of(r).is_some()))
        .collect();
    let idx: Vec<u64> = contention.iter().map(|&r| r as u64).collect();
    m.comment("Per record: 1 for a contention record (its own thread stays idle).");
    m.array("ptxvec_contended", 8, &flags);
    m.comment("Per contention block: its record.");
    m.array("ptxvec_contention_record", 32, &idx);
    for slot in &slots {
        let per_thread: Vec<u64> = contention
            .iter()
            .flat_map(|&r| match &s.records[r].inputs {
                Inputs::Contention { slots: given, .. } => given.get(slot.name),
                _ => None,
            })
            .flatten()
            .flatten()
            .map(|x| x.value)
            .collect();
        m.comment(&format!("Per contention block, per thread ({WARP}): {}.", slot.per_thread));
        m.array(&format!("ptxvec_{}", slot.threads_key()), slot.width, &per_thread);
    }
}

fn warp_inputs(m: &mut Module, s: &Suite) {
    let Shape::Warp(shape) = s.shape else {
        return;
    };
    let (mut flags, mut mm, mut ex, mut exits) = (vec![], vec![], vec![], vec![]);
    // Per source: a lane's own entry, or one per record (Per::Warp).
    let mut sources: Vec<(&str, Source, Vec<u64>)> = shape.sources().map(|(k, src)| (k, src, vec![])).collect();
    for r in &s.records {
        if let Inputs::Warp(w) = &r.inputs {
            let value = |x: Option<Bits>| x.map_or(0, |x| x.value);
            flags.push(u64::from(skipped(r)) | u64::from(s.negates(r)) << 1 | u64::from(s.omits(r)) << 2);
            mm.push(value(w.membermask));
            // A word per warp: record × warps + warp.
            let exited = w.exits();
            for k in 0..shape.warps {
                ex.push(u64::from(w.executing.warp(k)));
                exits.push(u64::from(exited.warp(k)));
            }
            for (key, src, values) in &mut sources {
                let v = w.sources().into_iter().find_map(|(k, v)| (k == *key).then_some(v)).and_then(Option::as_ref);
                let lane = |l: usize| v.map_or(0, |v| v.lane(l));
                if src.per == Per::Warp {
                    values.push(lane(0));
                } else {
                    values.extend((0..s.threads()).map(lane));
                }
            }
        }
    }
    if shape.sources().any(|(_, src)| src.optional) {
        m.comment(
            "Per record: flags (bit 0 skip, bit 1 negate the predicate source, bit 2 leave\n\
             the optional operand out), membermask. Per record and warp (record * warps +\n\
             warp, a bit per lane): executing threads, threads that exit first (the others\n\
             branch around).",
        );
    } else {
        m.comment(
            "Per record: flags (bit 0 skip, bit 1 negate the predicate source), membermask,\n\
             executing lanes, lanes that exit first (the others branch around).",
        );
    }
    m.array("ptxvec_flags", 32, &flags);
    m.array("ptxvec_membermask", 32, &mm);
    m.array("ptxvec_executing", 32, &ex);
    m.array("ptxvec_exits", 32, &exits);
    // `a` under its own comment, `b` and `c` under one.
    let say = |key: &str, src: &Source| match src.per {
        Per::Warp => format!("Per record: {key}."),
        Per::Lane | Per::Either => format!("Per record and lane: {key}."),
    };
    for group in [&["a"][..], &["b", "c"][..]] {
        let held: Vec<&(&str, Source, Vec<u64>)> = sources.iter().filter(|(k, ..)| group.contains(k)).collect();
        if held.is_empty() {
            continue;
        }
        m.comment(&held.iter().map(|(k, src, _)| say(k, src)).collect::<Vec<_>>().join(" "));
        for (key, src, values) in held {
            m.array(&format!("ptxvec_{key}"), if src.field.width() == 64 { 64 } else { 32 }, values);
        }
    }
}
