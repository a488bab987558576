//! Which operand of a variant's text holds which input or output of its records,
//! and what a runner must choose that the records do not say: what a consumer
//! needs to turn a record into a run. Written per variant into vectors/index.json
//! (every record of a variant has the same operands; vote's `!` is in its text),
//! and what the self-checking modules emit the instruction from.

use ptxvec_spec::Qualifier;

use super::Semantics;
use crate::record::index::Binding;
use crate::record::Shape;
use crate::syntax::legal::compose;
use crate::syntax::operands::{positions, render, Style};
use crate::syntax::spelling::Spelling;
use crate::syntax::text::{tokenize, Operand};

/// An operand as the device emits it: its binding, the register type the
/// syntax gives it (`None` for an address), and whether it may be written `!`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// What it holds, and how the text writes it.
    pub binding: Binding,
    /// Its register type.
    pub class: Option<Qualifier>,
    /// `{!}a`.
    pub negatable: bool,
}

/// What the text of `spelling` computing `semantics` binds, written with the
/// predicate destination where `pair` (`d|p`): its operands in order.
pub fn bind(spelling: &Spelling<'_>, semantics: Semantics, pair: bool) -> Vec<Bound> {
    let style = match (pair, writes_optional(spelling, semantics)) {
        (true, _) => Style::WithPair,
        (false, true) => Style::WithOptional,
        (false, false) => Style::Registers,
    };
    let text = compose(&spelling.chain(), &render(spelling, style));
    let written = tokenize(&text).map(|t| t.operands).unwrap_or_default();
    // A memory record's keys are its slots' names, a warp's the doc's names.
    let memory = match semantics.shape() {
        Shape::Memory(m) => Some(m),
        Shape::Warp(_) => None,
    };
    // The positions the written operands stand at (`bar.red` leaves its optional
    // `b` out from between `a` and `c`).
    let all = positions(spelling);
    let has_d = all.iter().any(|p| p.name == "d");
    written
        .iter()
        .zip(crate::syntax::operands::written(&all, written.len()))
        .map(|(op, pos)| {
            // A pair position written with its destination alone binds `d`.
            let name = match (&pos.pair, op) {
                (Some((p, _)), Operand::Pair(..)) => format!("{}|{}", pos.name, p.name),
                _ => pos.name.to_owned(),
            };
            // The doc's operand names, as the records' keys: a memory slot names
            // the operands that hold it (red writes `[a], b`, atom `d, [a], b{, c}`,
            // cp.reduce.async.bulk `[dstMem], [srcMem], size, [mbar]`), an address
            // holding it written `&`; redux.sync writes `dst, src, membermask`.
            let slot = memory.and_then(|m| m.slots().find(|s| s.operands.contains(&name.as_str())));
            let holds = match (memory.is_some(), slot, name.as_str()) {
                (_, Some(slot), _) if matches!(op, Operand::Address(..)) => format!("&{}", slot.name),
                (_, Some(slot), _) => slot.name.to_owned(),
                (false, _, "dst") => "d".to_owned(),
                // A predicate destination written alone under the name `p`
                // (`bar.red.and.pred p, a, c`) is the records' `d`.
                (false, _, "p") if !has_d => "d".to_owned(),
                (false, _, "src") => "a".to_owned(),
                _ => name,
            };
            Bound {
                binding: Binding {
                    operand: op.to_string(),
                    holds,
                },
                class: pos.class,
                negatable: pos.negatable,
            }
        })
        .collect()
}

/// Whether the records of `semantics` may hold an optional operand of the text
/// (`bar.red`'s thread count `b`): its binding then lists it, and a record that
/// leaves it out has a text without it.
pub fn writes_optional(spelling: &Spelling<'_>, semantics: Semantics) -> bool {
    let Shape::Warp(w) = semantics.shape() else {
        return false;
    };
    w.sources().any(|(_, s)| s.optional) && crate::syntax::operands::style_applies(spelling, Style::WithOptional)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Out;
    use crate::vectors::semantic::variants;

    /// Every operand binds a key the variant's records have (or an address, the
    /// size, the mbarrier), and every input and output the records have but
    /// `executing`/`exited` (no operand: which lanes run) is bound by some operand.
    #[test]
    fn every_operand_binds_a_key_of_the_records_and_every_key_is_bound() {
        let spec = ptxvec_spec::Spec::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec"
        )))
        .unwrap();
        for v in variants(&spec) {
            let bound: Vec<String> = v
                .operands()
                .iter()
                .flat_map(|b| b.holds.split('|').map(str::to_owned).collect::<Vec<_>>())
                .collect();
            let shape = v.semantics.shape().written(v.pair);
            let mut keys: Vec<&str> = shape.outputs().iter().map(|o| o.out.name()).collect();
            match shape {
                Shape::Memory(m) => keys.extend(m.inputs().map(|s| s.name)),
                Shape::Warp(w) => {
                    keys.extend(w.sources().map(|(k, _)| k));
                    if w.membermask {
                        keys.push("membermask");
                    }
                }
            }
            for k in &keys {
                let key = if *k == Out::Mem.name() { "&mem" } else { k };
                let held = bound
                    .iter()
                    .any(|b| b == key || (key == "operand" && b == "&operand"));
                assert!(held, "{}: no operand holds {key}: {bound:?}", v.id);
            }
            for b in &bound {
                let known = keys.contains(&b.as_str())
                    || ["&mem", "&operand", "size", "mbar"].contains(&b.as_str());
                assert!(known, "{}: `{b}` is no key of its records", v.id);
            }
        }
    }
}
