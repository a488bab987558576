//! The JSON Schemas whose lists come from the spec: vectors/lint.schema.json (the
//! instructions a diagnostic names, the rules) and vectors/schema.json (the
//! instructions a record's id opens with, the memory ones, the variants' ids, and
//! the memory and warp records' shapes). Each is a template written by hand, the shapes, with placeholders for
//! the lists, which `generate` fills: a new instruction or rule is in them without
//! an edit.
//!
//! A placeholder is `["@name"]`, an array written one item a line at its
//! indentation, or `@name` inside a string, an alternation of regular expressions
//! (`red|red\.async`) or a list in words; the properties `"@input"` and
//! `"@inputs"` are written once per memory input slot the families declare
//! (`operand`/`operands`, `swap`/`swaps`); the array items `"@memory-rules"` and
//! `"@warp-rules"` are written as one rule per layout of the memory families'
//! slots (`memory`) and per shape of the warp families' records (`warp`).

mod json;
mod memory;
mod warp;

use ptxvec_spec::Spec;

use crate::syntax::rules;
use crate::vectors::semantic::Variant;

/// The template of vectors/lint.schema.json.
const LINT_TEMPLATE: &str = include_str!("schemas/lint.schema.json");

/// The template of vectors/schema.json.
const RECORD_TEMPLATE: &str = include_str!("schemas/schema.json");

/// The template of vectors/litmus.schema.json.
const LITMUS_TEMPLATE: &str = include_str!("schemas/litmus.schema.json");

/// `lint.schema.json`, `schema.json` and `litmus.schema.json`: each file's name and
/// text, from the spec, every one of its semantic `variants` (`semantic::variants`)
/// and the litmus tests' lists.
pub fn files(spec: &Spec, variants: &[Variant<'_>]) -> [(&'static str, String); 3] {
    [("lint.schema.json", lint(spec)), ("schema.json", records(variants)), ("litmus.schema.json", litmus())]
}

/// vectors/litmus.schema.json: the shapes, flavours and placements of the
/// generated tests, and the axioms by the names a record gives them.
fn litmus() -> String {
    use crate::litmus::{record::axiom_name, Flavour, Placement, Shape};
    use ptxvec_oracle::model::axioms::Axiom;
    let shapes: Vec<String> = Shape::ALL.iter().map(|s| s.name().to_owned()).collect();
    let flavours: Vec<String> = Flavour::ALL.iter().map(|f| f.name().to_owned()).collect();
    let placements: Vec<String> = Placement::ALL.iter().map(|p| p.name().to_owned()).collect();
    let axioms: Vec<String> = Axiom::ALL.iter().map(|a| axiom_name(*a)).collect();
    fill(
        LITMUS_TEMPLATE,
        &[("shapes", &shapes), ("flavours", &flavours), ("placements", &placements), ("axioms", &axioms)],
        &[],
    )
}

/// vectors/lint.schema.json: every instruction, every rule by name, and the
/// families of rules (`set.`, `table.`) by their prefixes.
fn lint(spec: &Spec) -> String {
    let mut instructions: Vec<String> = spec.instructions.iter().map(|f| f.instruction.instruction.clone()).collect();
    instructions.sort();
    let catalog = rules::catalog(spec);
    let (families, mut names): (Vec<String>, Vec<String>) =
        catalog.rules.iter().map(|r| r.rule.clone()).partition(|r| r.ends_with('.'));
    names.sort();
    names.dedup();
    let mut prefixes: Vec<String> = families.iter().map(|f| regex_escape(f.trim_end_matches('.'))).collect();
    prefixes.sort();
    prefixes.dedup();
    fill(
        LINT_TEMPLATE,
        &[("instructions", &instructions), ("rules", &names)],
        &[("rule-families", prefixes.join("|"))],
    )
}

/// vectors/schema.json: the mnemonics the variants' ids open with, those of the
/// memory instructions (as patterns, and in words), the memory input slots' keys,
/// the variants' ids (a record's id is one of them), and a rule per layout of the
/// memory records and per shape of the warp records.
fn records(variants: &[Variant<'_>]) -> String {
    let mut mnemonics = Vec::new();
    let mut memory = Vec::new();
    let mut inputs = Vec::new();
    for v in variants {
        let m = v.spelling.form.syntax.mnemonic.spelling().to_owned();
        if let crate::record::Shape::Memory(slots) = v.semantics.shape() {
            memory.push(m.clone());
            inputs.extend(slots.inputs().map(|x| x.name.to_owned()));
        }
        mnemonics.push(m);
    }
    for list in [&mut mnemonics, &mut memory, &mut inputs] {
        list.sort();
        list.dedup();
    }
    let patterns = |list: &[String]| list.iter().map(|m| regex_escape(m)).collect::<Vec<_>>().join("|");
    let filled = fill(
        &each_input(RECORD_TEMPLATE, &inputs),
        &[],
        &[
            ("mnemonics", patterns(&mnemonics)),
            ("memory-names", memory.join(", ")),
            ("memory-ids", memory::ids(variants).join("|")),
            ("memory", patterns(&memory)),
            ("warp-ids", warp::ids(variants).join("|")),
        ],
    );
    let filled = each_value(&filled, "memory-rules", &memory::rules(variants, &inputs));
    each_value(&filled, "warp-rules", &warp::rules(variants))
}

/// `template` with the array item `"@name"` (a line of its own, with or without
/// its comma) written as `values`, one after another at its indentation; the
/// last keeps the placeholder's comma.
fn each_value(template: &str, name: &str, values: &[json::Json]) -> String {
    let placeholder = format!("\"@{name}\"");
    let mut out = String::with_capacity(template.len() * 2);
    for line in template.split_inclusive('\n') {
        let item = line.trim();
        if item.trim_end_matches(',') != placeholder {
            out.push_str(line);
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        for (i, v) in values.iter().enumerate() {
            out.push_str(&line[..indent]);
            v.write(indent, &mut out);
            if i + 1 < values.len() || item.ends_with(',') {
                out.push(',');
            }
            out.push('\n');
        }
    }
    out
}

/// `template` with each group of two properties `"@input": {…}` and
/// `"@inputs": {…}` written once per memory input slot the variants declare
/// (`operand` and `operands`, `swap` and `swaps`): a slot's keys in one record
/// and in a contention record. The group keeps its last line's comma. A group
/// needs at least one slot (every memory variant has its operand).
fn each_input(template: &str, names: &[String]) -> String {
    let lines: Vec<&str> = template.split_inclusive('\n').collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = String::with_capacity(template.len() * 2);
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].trim_start().starts_with("\"@input\": {") {
            out.push_str(lines[i]);
            i += 1;
            continue;
        }
        // The group ends where its second property closes, at its indentation.
        let at = indent(lines[i]);
        let closes: Vec<usize> = (i + 1..lines.len())
            .filter(|&j| indent(lines[j]) == at && lines[j].trim_start().starts_with('}'))
            .take(2)
            .collect();
        let end = closes.get(1).copied().unwrap_or(lines.len() - 1);
        let group = lines[i..=end].concat();
        let body = group.trim_end().trim_end_matches(',');
        let copies: Vec<String> = names
            .iter()
            .map(|n| body.replace("\"@inputs\"", &format!("\"{n}s\"")).replace("\"@input\"", &format!("\"{n}\"")))
            .collect();
        out.push_str(&copies.join(",\n"));
        if group.trim_end().ends_with(',') {
            out.push(',');
        }
        out.push('\n');
        i = end + 1;
    }
    out
}

/// The variants grouped by `shape` (those it gives `None` left out), each group's
/// ids sorted; the groups in the order their first variant comes in `variants`.
/// The memory and warp rules are one per group.
fn group_by<K: PartialEq>(variants: &[Variant<'_>], shape: impl Fn(&Variant<'_>) -> Option<K>) -> Vec<(K, Vec<String>)> {
    let mut groups: Vec<(K, Vec<String>)> = Vec::new();
    for v in variants {
        let Some(key) = shape(v) else { continue };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, ids)) => ids.push(v.id.clone()),
            None => groups.push((key, vec![v.id.clone()])),
        }
    }
    for (_, ids) in &mut groups {
        ids.sort();
        ids.dedup();
    }
    groups
}

/// Every id of `groups`, as a pattern, sorted.
fn id_patterns<K>(groups: Vec<(K, Vec<String>)>) -> Vec<String> {
    let mut ids: Vec<String> = groups.into_iter().flat_map(|(_, ids)| ids).map(|i| regex_escape(&i)).collect();
    ids.sort();
    ids
}

/// A rule of `allOf`: `then` holds the records whose id is one of `ids`.
fn rule_for_ids(ids: &[String], then: json::Json) -> json::Json {
    use json::{object, string};
    let ids: Vec<String> = ids.iter().map(|i| regex_escape(i)).collect();
    object(vec![
        ("if", object(vec![("properties", object(vec![("id", object(vec![("pattern", string(format!("^({})#", ids.join("|"))))]))]))])),
        ("then", then),
    ])
}

/// `text` with its regular-expression characters escaped (ids and mnemonics hold
/// `.` and `:`; `:` needs none).
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `template` with each array placeholder `["@name"]` replaced by the items of
/// `arrays`' `name`, and each `@name` of `strings` by its text, both as JSON
/// writes them.
fn fill(template: &str, arrays: &[(&str, &Vec<String>)], strings: &[(&str, String)]) -> String {
    let json = |s: &str| serde_json::Value::String(s.to_owned()).to_string();
    let mut out = String::with_capacity(template.len() * 2);
    for line in template.split_inclusive('\n') {
        let array = arrays.iter().find(|(name, _)| line.contains(&format!("[\"@{name}\"]")));
        match array {
            Some((name, items)) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                let head = line.split(&format!("[\"@{name}\"]")).next().unwrap_or_default();
                out.push_str(head);
                out.push_str("[\n");
                let body: Vec<String> = items.iter().map(|i| format!("{indent}  {}", json(i))).collect();
                out.push_str(&body.join(",\n"));
                out.push('\n');
                out.push_str(indent);
                out.push(']');
                out.push_str(line.rsplit(&format!("[\"@{name}\"]")).next().unwrap_or_default());
            }
            None => {
                let mut l = line.to_owned();
                for (name, text) in strings {
                    // Inside a JSON string: escaped as JSON escapes it, without its quotes.
                    let escaped = json(text);
                    l = replace_name(&l, name, &escaped[1..escaped.len() - 1]);
                }
                out.push_str(&l);
            }
        }
    }
    out
}

/// `line` with each `@name` that is the whole name (not the head of a longer one,
/// `@memory` of `@memory-ids`) replaced by `text`.
fn replace_name(line: &str, name: &str, text: &str) -> String {
    let placeholder = format!("@{name}");
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(&placeholder) {
        let after = &rest[at + placeholder.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-');
        out.push_str(&rest[..at]);
        out.push_str(if whole { text } else { &placeholder });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placeholder is filled, the files are JSON, and each of their
    /// references names a definition of the file.
    #[test]
    fn the_schemas_are_filled_and_parse() {
        let spec = crate::repo_spec();
        for (name, text) in files(&spec, &crate::vectors::semantic::variants(&spec)) {
            assert!(!text.contains("\"@") && !text.contains("(@") && !text.contains(" @"), "{name}: a placeholder is left");
            let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            // A rule placeholder is written as rules, not clobbered into a string.
            let rules = json["allOf"].as_array().map_or(&[][..], |a| a.as_slice());
            assert!(rules.iter().all(serde_json::Value::is_object), "{name}: an allOf item is no rule");
            let mut refs = Vec::new();
            references(&json, &mut refs);
            for r in refs {
                let def = r.strip_prefix("#/$defs/").unwrap_or_else(|| panic!("{name}: {r}"));
                assert!(json["$defs"].get(def).is_some(), "{name}: {r} names no definition");
            }
        }
    }

    /// Every `$ref` in `v`.
    fn references(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("$ref", serde_json::Value::String(r)) => out.push(r.clone()),
                        _ => references(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| references(x, out)),
            _ => {}
        }
    }

    #[test]
    fn a_value_placeholder_is_written_once_per_value_keeping_its_comma() {
        let values = [json::Json::Count(1), json::Json::Array(vec![json::Json::False])];
        let template = "[\n  \"@v\",\n  3\n]\n";
        assert_eq!(each_value(template, "v", &values), "[\n  1,\n  [\n    false\n  ],\n  3\n]\n");
        let last = "[\n  \"@v\"\n]\n";
        assert_eq!(each_value(last, "v", &values[..1]), "[\n  1\n]\n");
    }

    #[test]
    fn an_input_group_is_written_once_per_slot_keeping_its_comma() {
        let template = "{\n  \"mem\": 1,\n  \"@input\": {\n    \"x\": 1\n  },\n  \"@inputs\": {\n    \"x\": 2\n  }\n}\n";
        let names = ["operand".to_owned(), "swap".to_owned()];
        let want = "{\n  \"mem\": 1,\n  \"operand\": {\n    \"x\": 1\n  },\n  \"operands\": {\n    \"x\": 2\n  },\n  \"swap\": {\n    \"x\": 1\n  },\n  \"swaps\": {\n    \"x\": 2\n  }\n}\n";
        assert_eq!(each_input(template, &names), want);
        // A group followed by another property keeps its comma.
        let more = template.replace("    \"x\": 2\n  }\n}", "    \"x\": 2\n  },\n  \"z\": 3\n}");
        let got = each_input(&more, &names[..1]);
        assert!(got.contains("\"operands\": {\n    \"x\": 2\n  },\n  \"z\": 3"), "{got}");
    }

    #[test]
    fn a_name_is_replaced_only_where_it_is_whole() {
        assert_eq!(replace_name("\"^(@m)\\.\", \"@m-ids\", \"@m\"", "m", "x"), "\"^(x)\\.\", \"@m-ids\", \"x\"");
    }

    #[test]
    fn an_array_placeholder_is_written_one_item_a_line() {
        let items = vec!["a".to_owned(), "b.c".to_owned()];
        let got = fill("{\n  \"enum\": [\"@x\"],\n  \"p\": \"^(@y)$\"\n}\n", &[("x", &items)], &[("y", "a|b\\.c".to_owned())]);
        assert_eq!(got, "{\n  \"enum\": [\n    \"a\",\n    \"b.c\"\n  ],\n  \"p\": \"^(a|b\\\\.c)$\"\n}\n");
    }
}
