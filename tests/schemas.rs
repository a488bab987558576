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

/// The first record of a committed vector file, as JSON.
fn first_record(variant: &str) -> Value {
    let text = crate::support::vector_text(repo_root().join("vectors/semantic").join(format!("{variant}.jsonl.gz")));
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// A record of `variant` with `edit` applied: what a writer off the family's
/// declared shape would write.
fn edited(variant: &str, edit: impl FnOnce(&mut Value)) -> (String, Value) {
    let mut r = first_record(variant);
    edit(&mut r);
    (variant.to_owned(), r)
}

/// Whether the self-checking modules' reader of vector files (`record::read_text`,
/// then `Suite::parse`, which fits each record to its variant's shape) takes `line`.
fn reader_takes(spec: &ptxvec_spec::Spec, variant: &str, line: &str) -> Result<(), String> {
    let records = ptxvec_generator::record::read_text("edited.jsonl", line).map_err(|e| e.to_string())?;
    ptxvec_generator::device::selfcheck::Suite::parse(spec, variant, records).map(|_| ()).map_err(|e| e.to_string())
}

/// A warp record off its family's declared shape (`WarpShape`: which sources, each
/// once for the warp or once per lane, their widths, the lanes, `p`), or a memory
/// record off its slots (`MemoryShape`), is refused by vectors/schema.json, whose
/// rules `generate` writes from those shapes, and by the reader (the schema alone holds its classes and id); the records it was
/// edited from are taken by both. The schema is checked by
/// vectors/validate_schemas.py (Python's jsonschema, as CI runs it).
#[test]
fn a_record_off_its_declared_shape_is_refused_by_the_schema_and_the_reader() {
    let lanes = |v: &str, n: usize| Value::Array(vec![Value::from(v); n]);
    let cases = [
        // A source per lane given once, and one for the warp (or the CTA) per lane.
        edited("vote.sync.all.pred", |r| r["inputs"]["a"] = "0x1".into()),
        edited("redux.sync.add.u32", |r| r["inputs"]["a"] = "0x00000001".into()),
        edited("shfl.sync.idx.b32", |r| r["inputs"]["c"] = lanes("0x0000001f", 32)),
        edited("bar.red.popc.u32", |r| r["inputs"]["a"] = lanes("0x00000000", 1024)),
        edited("bar.red.and.pred", |r| r["inputs"]["c"] = "0x1".into()),
        // A required source or membermask missing; a key the shape has not.
        edited("redux.sync.add.u32", |r| {
            r["inputs"].as_object_mut().unwrap().remove("a");
        }),
        edited("shfl.sync.idx.b32", |r| {
            r["inputs"].as_object_mut().unwrap().remove("b");
        }),
        edited("bar.red.popc.u32", |r| {
            r["inputs"].as_object_mut().unwrap().remove("c");
        }),
        edited("match.any.sync.b32", |r| {
            r["inputs"].as_object_mut().unwrap().remove("membermask");
        }),
        edited("activemask.b32", |r| r["inputs"]["membermask"] = "0xffffffff".into()),
        edited("vote.all.pred", |r| r["inputs"]["membermask"] = "0xffffffff".into()),
        edited("elect.sync", |r| r["inputs"]["a"] = lanes("0x00000000", 32)),
        edited("redux.sync.add.u32", |r| r["inputs"]["b"] = "0x00000000".into()),
        // Values wider than their field: a source, d, p; a lane too many or too few.
        edited("match.any.sync.b32", |r| r["inputs"]["a"] = lanes("0x0000000100000000", 32)),
        edited("vote.sync.any.pred", |r| r["inputs"]["a"] = lanes("0x2", 32)),
        edited("redux.sync.add.u32", |r| r["expect"]["ptx-isa"]["d"][0] = "0x0000000100000000".into()),
        edited("vote.sync.all.pred", |r| r["expect"]["ptx-isa"]["d"][0] = "0x2".into()),
        edited("shfl.sync.idx.b32", |r| r["expect"]["ptx-isa"]["p"][0] = "0x2".into()),
        edited("redux.sync.add.u32", |r| r["inputs"]["a"] = lanes("0x00000000", 31)),
        edited("bar.red.popc.u32", |r| r["expect"]["ptx-isa"]["d"] = lanes("0x00000000", 32)),
        // The hand-written schema before the generated rules took these: a mask or a
        // source for the warp null, a membermask on a non-sync instruction, outputs
        // wider than bar.red's predicate or elect.sync's lane id.
        edited("redux.sync.add.u32", |r| r["inputs"]["executing"] = Value::Null),
        edited("shfl.sync.idx.b32", |r| r["inputs"]["c"] = Value::Null),
        edited("shfl.up.b32", |r| r["inputs"]["membermask"] = "0xffffffff".into()),
        edited("bar.red.and.pred", |r| r["expect"]["ptx-isa"]["d"][0] = "0x00000002".into()),
        edited("elect.sync", |r| r["expect"]["sm_90"]["d"][0] = "0x0000000100000000".into()),
        // p where the text writes d alone, and none where it writes d|p.
        edited("shfl.sync.idx.b32-d", |r| r["expect"]["ptx-isa"]["p"] = lanes("0x0", 32)),
        edited("match.all.sync.b32", |r| {
            r["expect"]["ptx-isa"].as_object_mut().unwrap().remove("p");
        }),
        edited("elect.sync", |r| {
            r["expect"]["ptx-isa"].as_object_mut().unwrap().remove("p");
        }),
    ];
    // Memory records off their family's slots (`MemoryShape`): an element too many,
    // a value wider than its slot, a slot or an output the layout lacks, `.cas`'s
    // swap missing.
    let memory = [
        edited("red.add.u32", |r| r["inputs"]["operand"] = Value::from(vec!["0x00000001"; 2])),
        edited("red.add.u32", |r| r["inputs"]["mem"][0] = "0x0000000100000000".into()),
        edited("red.add.noftz.f16x2", |r| r["inputs"]["operand"] = Value::from(vec!["0x3c00"; 1])),
        edited("red.add.f32", |r| r["inputs"]["swap"] = r["inputs"]["operand"].clone()),
        edited("red.add.f32", |r| r["expect"]["ptx-isa"]["d"] = r["expect"]["ptx-isa"]["mem"].clone()),
        edited("atom.cas.b32", |r| {
            r["inputs"].as_object_mut().unwrap().remove("swap");
        }),
        edited("atom.cas.b128", |r| r["expect"]["ptx-isa"]["mem"] = Value::from(vec!["0x0000000000000000"; 1])),
    ];
    // What the schema says and the reader leaves to it: a record's classes, one
    // per catalog its family draws from; its id, one of a variant's.
    let schema_only = [
        edited("redux.sync.add.u32", |r| r["class"].as_array_mut().unwrap().truncate(2)),
        edited("vote.ballot.b32", |r| r["class"] = Value::from(vec!["full"])),
        edited("redux.sync.add.u32", |r| r["id"] = "redux.sync.add.u33#0".into()),
        edited("red.add.u32", |r| r["id"] = "red.add.u33#0".into()),
    ];
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let mut valid = String::new();
    let mut invalid = String::new();
    let mut seen = BTreeSet::new();
    for (variant, record) in cases.iter().chain(&memory) {
        if seen.insert(variant.clone()) {
            let line = first_record(variant).to_string();
            reader_takes(&spec, variant, &line).unwrap_or_else(|e| panic!("{variant}: the reader refuses the committed record: {e}"));
            valid.push_str(&line);
            valid.push('\n');
        }
        let line = record.to_string();
        assert!(reader_takes(&spec, variant, &line).is_err(), "{variant}: the reader takes {line:.300}");
        invalid.push_str(&line);
        invalid.push('\n');
    }
    for (_, record) in &schema_only {
        invalid.push_str(&record.to_string());
        invalid.push('\n');
    }
    std::fs::write(dir.path().join("valid.jsonl"), valid).unwrap();
    std::fs::write(dir.path().join("invalid.jsonl"), invalid).unwrap();
    let out = std::process::Command::new("python3")
        .arg(repo_root().join("vectors/validate_schemas.py"))
        .args(["semantic=valid.jsonl", "--invalid", "semantic=invalid.jsonl"])
        .current_dir(dir.path())
        .output()
        .expect("python3 runs vectors/validate_schemas.py (it needs jsonschema: pip install jsonschema)");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // The cases by line, to name the one the schema took.
    let named: Vec<String> = cases.iter().chain(&memory).chain(&schema_only).enumerate().map(|(n, (v, _))| format!("invalid.jsonl:{}: {v}", n + 1)).collect();
    assert_eq!(out.status.code(), Some(0), "{said}\ncases: {named:#?}");
}
