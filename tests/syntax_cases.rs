//! The syntax vectors: generated deterministically, committed up to date, agreeing
//! with check-syntax case by case, and covering every constraint of the spec.

use std::collections::BTreeSet;

use ptxvec_generator::syntax::case::Verdict;
use ptxvec_generator::syntax::judge::{judge, Order};
use ptxvec_generator::syntax::vectors;
use ptxvec_spec::model::{Effect, TableKind};
use ptxvec_spec::Spec;

use crate::spec_root;

fn spec() -> Spec {
    Spec::load(&spec_root()).unwrap()
}

#[test]
fn every_case_gets_the_same_verdict_and_rule_from_check_syntax() {
    let spec = spec();
    let mut wrong = Vec::new();
    let mut n = 0;
    for f in &spec.instructions {
        for c in vectors::cases(&spec, &f.instruction) {
            n += 1;
            let m = c.module().unwrap();
            let j = judge(&spec, &c.text, m.ptx, m.target, Order::Lenient);
            let got = (
                j.legal(),
                j.defect.as_ref().map(|d| d.rule.clone()),
                j.defect.as_ref().map(|d| d.kind),
            );
            let want = (c.verdict == Verdict::Legal, c.rule.clone(), c.kind);
            if got != want {
                wrong.push(format!(
                    "{} `{}` at {} {}: want {want:?}, got {got:?}",
                    c.id, c.text, c.ptx, c.target
                ));
            }
        }
    }
    assert!(n > 7000, "only {n} cases");
    assert!(
        wrong.is_empty(),
        "{} of {n} cases disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn generation_is_deterministic_and_the_committed_files_are_current() {
    let spec = spec();
    let vectors_dir = spec_root().join("../vectors");
    for f in &spec.instructions {
        let a = vectors::to_jsonl(&vectors::cases(&spec, &f.instruction));
        let b = vectors::to_jsonl(&vectors::cases(&spec, &f.instruction));
        assert_eq!(a, b, "{}: two runs differ", f.instruction.instruction);
        let path = vectors::file_for(&vectors_dir, &f.instruction.instruction);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == a,
            "{} is stale: run `cargo run --release -- generate`",
            path.display()
        );
    }
}

#[test]
fn ids_are_unique() {
    let spec = spec();
    let mut seen = BTreeSet::new();
    for f in &spec.instructions {
        for c in vectors::cases(&spec, &f.instruction) {
            assert!(seen.insert(c.id.clone()), "duplicate id {}", c.id);
        }
    }
}

#[test]
fn every_constraint_has_an_illegal_case() {
    let spec = spec();
    let mut missing = Vec::new();
    for f in &spec.instructions {
        let ins = &f.instruction;
        let rules: BTreeSet<String> = vectors::cases(&spec, ins)
            .into_iter()
            .filter(|c| c.verdict == Verdict::Illegal)
            .filter_map(|c| c.rule)
            .collect();
        let mut want: Vec<String> = Vec::new();
        for r in &ins.rules {
            // A requirement no lower than the target's own introduction cannot be
            // broken by a lower version alone; it still needs a too-low-target case.
            let _ = matches!(r.effect, Effect::Requires(_));
            want.push(r.id.clone());
        }
        for t in ins
            .tables
            .iter()
            .filter(|t| t.kind == TableKind::Combinations)
        {
            want.push(format!("table.{}", t.id));
        }
        for (_, form) in ins.forms() {
            for spec_op in form.operands.values() {
                if spec_op.multiple_of.is_some() {
                    want.push("operand.multiple_of".into());
                }
                if spec_op.requires.is_some() {
                    want.push("operand.requires".into());
                }
                if spec_op.required_by.is_some() {
                    want.push("operand.required_by".into());
                }
            }
        }
        // A missing comma needs two operands.
        if ins.forms().any(|(_, f)| f.syntax.operands.len() >= 2) {
            want.push("syntax.parse".into());
        }
        for generic in [
            "syntax.unknown_qualifier",
            "syntax.duplicate_qualifier",
            "syntax.operand_count",
            "syntax.operand_shape",
            "qualifier.not_allowed",
            "operand.class",
        ] {
            want.push(generic.into());
        }
        for w in want {
            if !rules.contains(&w) {
                missing.push(format!("{}: {w}", ins.instruction));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "constraints without an illegal case:\n{}",
        missing.join("\n")
    );
}

/// Every rule a case names has its entry in vectors/rules.json, and the committed
/// rules.json and targets.json are what `generate` writes.
#[test]
fn every_rule_is_catalogued_and_the_catalogs_are_current() {
    use ptxvec_generator::syntax::rules;
    let spec = spec();
    let catalog = rules::catalog(&spec);
    let mut missing = BTreeSet::new();
    for f in &spec.instructions {
        for c in vectors::cases(&spec, &f.instruction) {
            if let Some(rule) = &c.rule {
                let entry = rules::entry(&catalog, &c.instruction, rule);
                match entry {
                    Some(e) => assert_eq!(Some(e.kind), c.kind, "{}: {rule}", c.id),
                    None => {
                        missing.insert(format!("{} {rule}", c.instruction));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "rules without an entry: {missing:?}");
    let dir = tempfile::tempdir().unwrap();
    ptxvec_generator::exports::write(&spec, dir.path()).unwrap();
    for name in ["rules.json", "targets.json"] {
        let fresh = std::fs::read(dir.path().join(name)).unwrap();
        let committed = std::fs::read(spec_root().join("../vectors").join(name)).unwrap();
        assert!(
            fresh == committed,
            "vectors/{name} is stale (run `ptxvec generate`)"
        );
    }
}

/// targets.json's `met_by` against what ptxas 13.5 did (spec/targets.yaml, the
/// sm_10x family's note): code for a family target runs on its family's `a` and
/// `f` targets from that architecture on, not on plain targets nor other families;
/// code for an `a` target on that target alone; a plain target on every later one.
#[test]
fn targets_are_met_as_ptxas_takes_them() {
    let t = ptxvec_generator::exports::targets(&spec());
    let met_by = |target: &str| -> Vec<String> {
        t.targets
            .iter()
            .find(|e| e.target == target)
            .map(|e| e.met_by.clone())
            .unwrap_or_default()
    };
    let f = met_by("sm_100f");
    for yes in ["sm_100a", "sm_100f", "sm_103f", "sm_107f"] {
        assert!(f.iter().any(|x| x == yes), "sm_100f not met by {yes}");
    }
    for no in ["sm_100", "sm_103", "sm_110f", "sm_120f", "sm_90a"] {
        assert!(!f.iter().any(|x| x == no), "sm_100f met by {no}");
    }
    assert_eq!(met_by("sm_90a"), ["sm_90a"]);
    let plain = met_by("sm_90");
    assert!(plain.iter().any(|x| x == "sm_120"));
    assert!(!plain.iter().any(|x| x == "sm_89"));
}
