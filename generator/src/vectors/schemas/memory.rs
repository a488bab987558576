//! The memory rules of vectors/schema.json: for each layout of the slots the memory
//! families declare ([`MemoryShape`]: the elements of an access, each slot's key
//! and width), one rule over the variants of that layout: as many elements in
//! every slot, in each contending thread's list and in `class`, each at its width,
//! and no key of a slot the layout lacks. A new memory variant, or a family whose
//! slots change, is in the schema without an edit.

use crate::record::{Dir, Field, MemoryShape, Shape};
use crate::vectors::semantic::Variant;

use super::json::{object, output, string, value, Json};

/// What the schema says of a memory shape: its elements, and each slot's key,
/// direction and element width, in the family's order (the float formats and the
/// registers are no part of a record on the page).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    elements: usize,
    slots: Vec<(&'static str, Dir, u32)>,
}

impl Layout {
    fn of(m: &MemoryShape) -> Layout {
        Layout {
            elements: m.elements,
            slots: m.slots().map(|s| (s.name, s.dir, s.width)).collect(),
        }
    }
}

/// The memory variants grouped by layout (see `group_by`).
fn groups(variants: &[Variant<'_>]) -> Vec<(Layout, Vec<String>)> {
    super::group_by(variants, |v| match v.semantics.shape() {
        Shape::Memory(m) => Some(Layout::of(&m)),
        Shape::Warp(_) => None,
    })
}

/// Every memory variant's id, as a pattern, sorted.
pub(super) fn ids(variants: &[Variant<'_>]) -> Vec<String> {
    super::id_patterns(groups(variants))
}

/// The memory rules: one per layout of [`groups`], an `if` on the ids of its
/// variants and a `then` that holds their records to it. `inputs` are the input
/// slots' keys of every memory variant, which a layout without them refuses.
pub(super) fn rules(variants: &[Variant<'_>], inputs: &[String]) -> Vec<Json> {
    groups(variants).into_iter().map(|(layout, ids)| super::rule_for_ids(&ids, rule(&layout, inputs))).collect()
}

/// `n` of `items`, no more, no fewer.
fn exactly(n: usize, items: Json) -> Json {
    object(vec![("items", items), ("minItems", Json::Count(n)), ("maxItems", Json::Count(n))])
}

/// What a record of `layout` holds, as a schema.
fn rule(layout: &Layout, all_inputs: &[String]) -> Json {
    let n = layout.elements;
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut words = vec![format!("{n} element{}", if n == 1 { "" } else { "s" })];
    for &(name, dir, width) in &layout.slots {
        let field = Field::Bits(width);
        words.push(format!("{name}: {width}-bit"));
        match dir {
            Dir::Both => {
                inputs.push((name.to_owned(), exactly(n, value(field))));
                outputs.push((name.to_owned(), exactly(n, output(field))));
            }
            Dir::In => {
                // One list in a one-thread record; one per thread in a contention
                // record, under the plural key.
                inputs.push((name.to_owned(), exactly(n, value(field))));
                inputs.push((format!("{name}s"), object(vec![("items", exactly(n, value(field)))])));
            }
            Dir::Out => outputs.push((name.to_owned(), exactly(n, output(field)))),
        }
    }
    for name in all_inputs {
        if !layout.slots.iter().any(|(s, _, _)| s == name) {
            inputs.push((name.clone(), Json::False));
            inputs.push((format!("{name}s"), Json::False));
        }
    }
    // The input slots come together: one list each in a one-thread record, one per
    // thread each in a contention record (`operand` with `swap`, `operands` with
    // `swaps`).
    let names: Vec<&str> = layout.slots.iter().filter(|s| s.1 == Dir::In).map(|s| s.0).collect();
    let mut together = Vec::new();
    for plural in ["", "s"] {
        for n in &names {
            let others = names.iter().filter(|o| *o != n).map(|o| string(format!("{o}{plural}"))).collect::<Vec<_>>();
            if !others.is_empty() {
                together.push((format!("{n}{plural}"), Json::Array(others)));
            }
        }
    }
    if !layout.slots.iter().any(|&(_, dir, _)| dir == Dir::Out) {
        outputs.push((crate::record::Out::D.name().to_owned(), Json::False));
    }
    object(vec![
        ("description", string(format!("{}.", words.join("; ")))),
        (
            "properties",
            object(vec![
                ("class", object(vec![("minItems", Json::Count(n)), ("maxItems", Json::Count(n))])),
                ("inputs", inputs_rule(inputs, together)),
                ("expect", object(vec![("additionalProperties", object(vec![("properties", Json::Object(outputs))]))])),
            ]),
        ),
    ])
}

/// The inputs' rule: their keys, and the keys each needs beside it, where any.
fn inputs_rule(properties: Vec<(String, Json)>, together: Vec<(String, Json)>) -> Json {
    let mut members = vec![("properties".to_owned(), Json::Object(properties))];
    if !together.is_empty() {
        members.push(("dependentRequired".to_owned(), Json::Object(together)));
    }
    Json::Object(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every memory variant is in one group, and no two groups have one layout.
    #[test]
    fn each_memory_variant_is_in_the_group_of_its_layout() {
        let spec = crate::repo_spec();
        let variants = crate::vectors::semantic::variants(&spec);
        let groups = groups(&variants);
        let mut memory = 0;
        for v in &variants {
            let Shape::Memory(m) = v.semantics.shape() else { continue };
            memory += 1;
            let holding: Vec<&Layout> = groups.iter().filter(|(_, ids)| ids.contains(&v.id)).map(|(l, _)| l).collect();
            assert_eq!(holding, [&Layout::of(&m)], "{}", v.id);
        }
        assert!(memory > 100, "{memory} memory variants");
        for (i, (a, _)) in groups.iter().enumerate() {
            assert!(groups[i + 1..].iter().all(|(b, _)| a != b));
        }
    }

    /// atom.cas.b128's layout: two 64-bit elements in every slot, swap among them.
    #[test]
    fn a_rule_states_its_layout() {
        let layout = Layout {
            elements: 2,
            slots: vec![("mem", Dir::Both, 64), ("operand", Dir::In, 64), ("d", Dir::Out, 64), ("swap", Dir::In, 64)],
        };
        let mut text = String::new();
        rule(&layout, &["operand".to_owned(), "swap".to_owned()]).write(0, &mut text);
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        let inputs = &r["properties"]["inputs"]["properties"];
        assert_eq!(inputs["mem"]["maxItems"], 2);
        assert_eq!(inputs["swap"]["items"]["pattern"], "^0x[0-9a-f]{16}$");
        assert_eq!(inputs["swaps"]["items"]["minItems"], 2);
        let out = &r["properties"]["expect"]["additionalProperties"]["properties"];
        assert_eq!(out["d"]["items"]["$ref"], "#/$defs/width64");
        assert_eq!(out["mem"]["minItems"], 2);
        assert_eq!(r["properties"]["class"]["maxItems"], 2);
        let together = &r["properties"]["inputs"]["dependentRequired"];
        assert_eq!(together["operand"], serde_json::json!(["swap"]));
        assert_eq!(together["swaps"], serde_json::json!(["operands"]));
        // red's: no d, no swap.
        let red = Layout { elements: 1, slots: vec![("mem", Dir::Both, 32), ("operand", Dir::In, 32)] };
        let mut text = String::new();
        rule(&red, &["operand".to_owned(), "swap".to_owned()]).write(0, &mut text);
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(r["properties"]["inputs"]["properties"]["swaps"], false);
        assert_eq!(r["properties"]["expect"]["additionalProperties"]["properties"]["d"], false);
        assert!(r["properties"]["inputs"].get("dependentRequired").is_none());
    }
}
