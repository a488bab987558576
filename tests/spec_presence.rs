//! Every syntax line, set, table row and example of every seed is in the spec, and
//! the spec quotes nothing the seeds do not print. Reads the seed text with its own
//! parser (tests/seed_text.rs), not with the spec loader.

use std::collections::BTreeMap;

use ptxvec_spec::model::TableKind;
use ptxvec_spec::{Qualifier, Spec};

use crate::seed_text::{parse, squash, SeedText};
use crate::spec_root;

fn load() -> Spec {
    Spec::load(&spec_root()).unwrap_or_else(|e| panic!("{e}"))
}

fn seeds(spec: &Spec) -> BTreeMap<String, SeedText> {
    spec.seeds
        .iter()
        .map(|(id, s)| (id.clone(), parse(&s.text)))
        .collect()
}

#[test]
fn every_seed_syntax_line_and_set_is_encoded_form_by_form() {
    let spec = load();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (seed, text) in seeds(&spec) {
        for group in &text.groups {
            // Which YAML group holds the forms whose doc_syntax quotes these lines.
            let mut homes = Vec::new();
            for line in &group.lines {
                let home = spec.instructions.iter().find_map(|f| {
                    f.instruction.syntax.iter().enumerate().find_map(|(gi, g)| {
                        g.forms
                            .iter()
                            .find(|form| {
                                form.doc_syntax
                                    .iter()
                                    .any(|d| d.printed.seed() == Some(seed.as_str()) && squash(&d.text) == *line)
                            })
                            .map(|form| (f.instruction.instruction.clone(), gi, form.id.clone()))
                    })
                });
                match home {
                    Some(h) => homes.push(h),
                    None => failures.push(format!(
                        "seed {seed}: syntax line `{line}` is in no form's doc_syntax"
                    )),
                }
            }
            homes.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
            if homes.len() > 1 {
                failures.push(format!(
                    "seed {seed}: lines of one syntax group are spread over {homes:?}"
                ));
            }
            let Some((ins, gi, form)) = homes.first() else {
                continue;
            };
            let yaml_group = &spec.instruction(ins).expect("found above").syntax[*gi];
            for (name, values) in &group.sets {
                checked += 1;
                match yaml_group.sets.get(name) {
                    None => failures.push(format!(
                        "seed {seed}: `{ins}` form `{form}`: set `.{name}` is missing"
                    )),
                    Some(set) => {
                        let ours: Vec<&str> = set.values.iter().map(|q| q.spelling()).collect();
                        if ours != *values {
                            failures.push(format!(
                                "seed {seed}: `{ins}` form `{form}`: set `.{name}` is {ours:?}, the seed says {values:?} ({} vs {} values)",
                                ours.len(),
                                values.len()
                            ));
                        }
                    }
                }
            }
            for (name, set) in &yaml_group.sets {
                if !group.sets.contains_key(name) && set.source.is_none() {
                    failures.push(format!(
                        "seed {seed}: `{ins}` form `{form}`: set `.{name}` is not printed with these lines; give it a `source`"
                    ));
                }
            }
        }
    }
    // The reverse: nothing quoted that the seed does not print.
    let parsed = seeds(&spec);
    for f in &spec.instructions {
        for (_, form) in f.instruction.forms() {
            // Lines of the full PTX ISA (where the seeds print none) are the
            // document's; only the seeds are here to check them against.
            for d in &form.doc_syntax {
                let Some(seed) = d.printed.seed() else { continue };
                let found = parsed
                    .get(seed)
                    .is_some_and(|t| t.groups.iter().any(|g| g.lines.contains(&squash(&d.text))));
                if !found {
                    failures.push(format!(
                        "{} form `{}` quotes a line seed {} does not print: `{}`",
                        f.instruction.instruction, form.id, seed, d.text
                    ));
                }
            }
        }
    }
    assert!(
        checked >= 30,
        "only {checked} sets compared: is the seed reader finding the syntax blocks?"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_seed_table_row_is_encoded_and_typed_consistently() {
    let spec = load();
    let mut failures = Vec::new();
    // (seed, header) → the rows the YAML claims, across all instructions.
    let mut claimed: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for f in &spec.instructions {
        for t in &f.instruction.tables {
            let (Some(seed), Some(header)) = (&t.seed, &t.doc_header) else {
                continue;
            };
            for row in &t.rows {
                let doc = row.doc.clone().unwrap_or_default();
                // Every backticked qualifier of the row is among the typed values.
                let typed: Vec<Qualifier> = row
                    .entries
                    .iter()
                    .flatten()
                    .flat_map(|g| g.0.iter().copied())
                    .chain(row.keys.iter().copied())
                    .collect();
                let exempt = t.kind == TableKind::Combinations
                    && row.entries.is_empty()
                    && row.note.is_some();
                for tok in doc.split('`').skip(1).step_by(2) {
                    let spelled = if tok.starts_with('.') {
                        tok.to_owned()
                    } else {
                        format!(".{tok}")
                    };
                    if let Ok(q) = spelled.parse::<Qualifier>() {
                        if !exempt && !typed.contains(&q) {
                            failures.push(format!("{} table `{}`: row `{doc}` shows `{q}` but its typed values lack it", f.instruction.instruction, t.id));
                        }
                    }
                }
                claimed
                    .entry((seed.clone(), header.clone()))
                    .or_default()
                    .push(doc);
            }
        }
    }
    let mut tables = 0;
    for (seed, text) in seeds(&spec) {
        for table in &text.tables {
            tables += 1;
            let mut want = table.rows.clone();
            let mut have = claimed
                .remove(&(seed.clone(), table.header.clone()))
                .unwrap_or_default();
            want.sort();
            have.sort();
            if want != have {
                failures.push(format!(
                    "seed {seed} table `{}`:\n  seed rows {want:#?}\n  spec rows {have:#?}",
                    table.header
                ));
            }
        }
    }
    for ((seed, header), _) in claimed {
        failures.push(format!(
            "spec claims a table seed {seed} does not print: `{header}`"
        ));
    }
    // seed 001: 1, seed 003: 2, seed 004: 5 (four variants tables and the quick reference).
    assert_eq!(tables, 8, "the seed reader found {tables} tables");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_seed_example_is_encoded() {
    let spec = load();
    let mut failures = Vec::new();
    let mut total = 0;
    for (seed, text) in seeds(&spec) {
        let mut want: Vec<String> = text.examples.clone();
        let mut have: Vec<String> = spec
            .instructions
            .iter()
            .flat_map(|f| f.instruction.examples.iter())
            .filter(|e| e.printed.seed() == Some(seed.as_str()))
            .map(|e| squash(&e.text))
            .collect();
        total += want.len();
        want.sort();
        have.sort();
        if want != have {
            failures.push(format!(
                "seed {seed}: examples differ\n  seed {want:#?}\n  spec {have:#?}"
            ));
        }
    }
    assert!(total >= 40, "only {total} example lines found in the seeds");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
