//! The JSON Schemas of what users write and read (vectors/syntax-results.schema.json,
//! semantic-results.schema.json, lint.schema.json) held to the code, so that they
//! cannot drift: their lists are what the spec and the readers know, and their test
//! lines (tests/fixtures/schemas/, which vectors/validate_schemas.py holds to the
//! schemas in CI) are read by the Rust readers as the schemas say.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use ptxvec_generator::grade::results::{parse, BadLine, ResultLine, SemanticResult, SyntaxResult};
use ptxvec_generator::record::Outputs;
use ptxvec_generator::syntax::defect::Kind;

use crate::support::{repo_root, spec};

fn schema(name: &str) -> Value {
    let path = repo_root().join("vectors").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The strings of the JSON array at `pointer` in `v`, sorted.
fn strings(v: &Value, pointer: &str) -> BTreeSet<String> {
    v.pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no array at {pointer}"))
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

/// The keys of the JSON object at `pointer` in `v`.
fn keys(v: &Value, pointer: &str) -> BTreeSet<String> {
    v.pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .keys()
        .cloned()
        .collect()
}

#[test]
fn lint_schema_lists_what_the_spec_and_the_judge_know() {
    let s = schema("lint.schema.json");
    let spec = spec();
    // Every instruction of the spec, by the name a diagnostic gives.
    let instructions: BTreeSet<String> = spec.instructions.iter().map(|f| f.instruction.instruction.clone()).collect();
    assert_eq!(strings(&s, "/$defs/instruction/enum"), instructions);
    // Every kind of defect, as serde writes it; the match fails to compile when a
    // kind is added, so that this list is looked at again.
    let kinds = [Kind::Malformed, Kind::Invalid];
    for k in kinds {
        match k {
            Kind::Malformed | Kind::Invalid => {}
        }
    }
    let kinds: BTreeSet<String> = kinds.iter().map(|k| serde_json::to_value(k).unwrap().as_str().unwrap().to_owned()).collect();
    assert_eq!(strings(&s, "/$defs/kind/enum"), kinds);
    // The rules of the catalog (vectors/rules.json): each by name, the families
    // (`set.`, `table.`) by a pattern of their prefixes.
    let catalog = ptxvec_generator::syntax::rules::catalog(&spec);
    let (families, rules): (BTreeSet<String>, BTreeSet<String>) =
        catalog.rules.iter().map(|r| r.rule.clone()).partition(|r| r.ends_with('.'));
    assert_eq!(strings(&s, "/$defs/rule/anyOf/0/enum"), rules);
    let prefixes: Vec<&str> = families.iter().map(|f| f.trim_end_matches('.')).collect();
    assert_eq!(
        s.pointer("/$defs/rule/anyOf/1/pattern").and_then(Value::as_str),
        Some(format!("^({})\\.[a-z0-9_]+$", prefixes.join("|")).as_str())
    );
}

/// vectors/lint.schema.json and vectors/schema.json are what `generate` writes from
/// their templates (generator/src/vectors/schemas/): their lists of instructions,
/// rules and variants are never edited by hand.
#[test]
fn the_generated_schemas_are_current() {
    let spec = spec();
    let variants = ptxvec_generator::vectors::semantic::variants(&spec);
    for (name, text) in ptxvec_generator::vectors::schemas::files(&spec, &variants) {
        let committed = std::fs::read_to_string(repo_root().join("vectors").join(name)).unwrap();
        assert!(text == committed, "vectors/{name} is stale (run `ptxvec generate`)");
    }
}

#[test]
fn results_schemas_name_the_keys_the_readers_take() {
    // Syntax: every key a results line is written with, answers and skips.
    let written: BTreeSet<String> = [SyntaxResult::rejected("a", "m"), SyntaxResult::skipped("a", "why")]
        .iter()
        .flat_map(|r| serde_json::from_str::<serde_json::Map<String, Value>>(&r.to_line()).unwrap().keys().cloned().collect::<Vec<_>>())
        .collect();
    assert_eq!(keys(&schema("syntax-results.schema.json"), "/properties"), written);
    // Semantic: the outputs a record has, as the vectors write them.
    let all = Outputs::<u8> {
        d: Some(vec![]),
        mem: Some(vec![]),
        p: Some(vec![]),
    };
    let outputs: BTreeSet<String> = serde_json::to_value(&all).unwrap().as_object().unwrap().keys().cloned().collect();
    let semantic = schema("semantic-results.schema.json");
    assert_eq!(keys(&semantic, "/$defs/outputs/properties"), outputs);
    assert_eq!(keys(&semantic, "/properties"), ["id", "outputs", "skipped"].map(str::to_owned).into());
}

/// What `grade` makes of a test file: the lines read, the bad lines, and how many
/// lines are not blank.
type Read = (Vec<usize>, Vec<BadLine>, usize);

/// A test file of the schemas, as `grade` reads it.
fn read<T: ResultLine>(name: &str) -> Read {
    let path = repo_root().join("tests/fixtures/schemas").join(name);
    let bytes = std::fs::read(&path).unwrap();
    let lines = bytes.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count();
    let mut bad = Vec::new();
    let good = parse::<T>(&Path::new(name).display().to_string(), &bytes, &mut bad);
    (good.iter().map(|l| l.line).collect(), bad, lines)
}

/// Each line of `<schema>.valid.jsonl` read, and each of `<schema>.invalid.jsonl`
/// refused, by grade's reader of `T`.
fn read_as_the_schema_says<T: ResultLine>(schema: &str) {
    let (good, bad, lines) = read::<T>(&format!("{schema}.valid.jsonl"));
    assert!(bad.is_empty(), "{schema}: the reader refuses lines the schema takes: {bad:?}");
    assert_eq!(good.len(), lines, "{schema}.valid.jsonl");
    let (good, bad, lines) = read::<T>(&format!("{schema}.invalid.jsonl"));
    assert!(good.is_empty(), "{schema}: the reader takes lines {good:?}, which the schema refuses");
    assert_eq!(bad.len(), lines, "{schema}.invalid.jsonl: {bad:?}");
}

#[test]
fn the_schemas_test_lines_are_read_as_the_schemas_say() {
    read_as_the_schema_says::<SyntaxResult>("syntax-results");
    read_as_the_schema_says::<SemanticResult>("semantic-results");
}
