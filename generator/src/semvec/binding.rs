//! Which operand of a variant's text holds which input or output of its records,
//! and what a runner must choose that the records do not say: what a consumer
//! needs to turn a record into a run. Written per variant into vectors/index.json
//! (every record of a variant has the same operands; vote's `!` is in its text).

use serde::{Deserialize, Serialize};

use ptxvec_oracle::memory::Engine;
use ptxvec_spec::{QualKind, Qualifier};

use super::Variant;
use crate::semantics::Semantics;
use crate::syntax::operands::positions;
use crate::syntax::text::{tokenize, Operand};

/// One operand of the text and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    /// The operand as the text writes it: `[%rd1]`, `%r1|%p1`, `{%f1, %f2}`.
    pub operand: String,
    /// What it holds: an input key, an output key (`d`, `d|p`), `&mem` (the address
    /// of the memory whose bits are `inputs.mem` before and `expect.mem` after),
    /// `&operand` (the address of a buffer holding `inputs.operand`), `size` or
    /// `mbar`.
    pub holds: String,
}

/// What a record's text binds: its operands in order.
pub fn operands(v: &Variant<'_>) -> Vec<Binding> {
    let text = v.text();
    let written = tokenize(&text).map(|t| t.operands).unwrap_or_default();
    let memory = matches!(v.semantics, Semantics::Memory(_));
    written
        .iter()
        .zip(positions(&v.spelling))
        .map(|(op, pos)| {
            // A pair position written with its destination alone binds `d`.
            let name = match (&pos.pair, op) {
                (Some((p, _)), Operand::Pair(..)) => format!("{}|{}", pos.name, p.name),
                _ => pos.name.to_owned(),
            };
            // The doc's operand names, as the records' keys: red writes `[a], b`,
            // cp.reduce.async.bulk `[dstMem], [srcMem], size, [mbar]`, redux.sync
            // `dst, src, membermask`.
            let holds = match (memory, name.as_str()) {
                (true, "a" | "dstMem") => "&mem".to_owned(),
                (true, "b") => "operand".to_owned(),
                (true, "srcMem") => "&operand".to_owned(),
                (false, "dst") => "d".to_owned(),
                (false, "src") => "a".to_owned(),
                _ => name,
            };
            Binding {
                operand: op.to_string(),
                holds,
            }
        })
        .collect()
}

/// What a runner must choose for a variant that its records leave open.
pub fn choices(v: &Variant<'_>) -> Vec<String> {
    let Semantics::Memory(r) = v.semantics else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let quals = v.spelling.qualifiers();
    let named_space = quals.iter().any(|q| q.kind() == QualKind::Space);
    if r.engine == Engine::Red && !named_space {
        let vector = quals.iter().any(|q| q.kind() == QualKind::Vector);
        out.push(if vector {
            "window: the generic address points into global memory (PTX ISA 9.7.13.6: a vector red \"may be used only with .global space and with generic addressing where the address points to .global space\")".to_owned()
        } else {
            "window: the generic address points into global or into the CTA's shared memory; a record holds in either (ptxvec emit-ptx --window global|shared)".to_owned()
        });
    }
    if r.engine == Engine::BulkReduce {
        out.push("size: the bytes of `mem` (elements × element width / 8), which the document requires to be a multiple of 16, with both addresses 16-byte aligned".to_owned());
        out.push("&operand: a buffer in the CTA's shared memory holding `inputs.operand`, written by generic stores and made visible with fence.proxy.async before the instruction".to_owned());
        if quals.contains(&Qualifier::MbarrierCompleteTxBytes) {
            out.push("mbar: an mbarrier in the destination CTA's shared memory, initialized and armed with `expect_tx` for `size` bytes; the reduction completes on it".to_owned());
        } else {
            out.push(
                "completion: cp.async.bulk.commit_group, then cp.async.bulk.wait_group 0"
                    .to_owned(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Out, Shape};
    use crate::semvec::variants;

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
            let bound: Vec<String> = operands(&v)
                .iter()
                .flat_map(|b| b.holds.split('|').map(str::to_owned).collect::<Vec<_>>())
                .collect();
            let shape = Shape::written(v.semantics, v.pair);
            let mut keys: Vec<&str> = shape.outputs().iter().map(|o| o.out.name()).collect();
            match shape {
                Shape::Memory { .. } => keys.extend(["operand"]),
                Shape::Warp(w) => {
                    keys.extend(w.a.map(|_| "a"));
                    if w.membermask {
                        keys.push("membermask");
                    }
                    if w.shfl {
                        keys.extend(["b", "c"]);
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
