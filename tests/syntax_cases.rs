//! The syntax vectors: generated deterministically, committed up to date, agreeing
//! with check-syntax case by case, and covering every constraint of the spec.

use std::collections::BTreeSet;

use ptxvec_generator::syntax::case::Verdict;
use ptxvec_generator::syntax::judge::Order;
use ptxvec_generator::syntax::definition::judge;
use ptxvec_generator::syntax::defect::Kind;
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
            .filter_map(|c| c.rule.map(|r| r.to_string()))
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
        // An unknown word and a duplicate need a qualifier after the mnemonic
        // (elect.sync's line has none).
        if ins.forms().any(|(_, f)| !f.syntax.slots.is_empty()) {
            want.push("syntax.unknown_qualifier".into());
            want.push("qualifier.duplicate".into());
        }
        for generic in [
            "operand.count",
            "operand.shape",
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
    ptxvec_generator::vectors::tables::write(&spec, dir.path()).unwrap();
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
    let t = ptxvec_generator::vectors::tables::targets(&spec());
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

/// PTX's general statement grammar, written again from docs/formats.md
/// ("Malformed and invalid") without the generator's tokenizer: whether `text` is a
/// statement of it. The opcodes are the covered instructions' (the only ones a case
/// can hold), as the spec crate lists them; the qualifier words are PTX's as it
/// lists them too.
fn general_grammar(text: &str) -> bool {
    // The opcodes as ptxas reads them: the `.sync` of redux, vote and shfl is a
    // qualifier word, which may stand anywhere in the chain.
    let followsym = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    // PTX ISA 4.4: [a-zA-Z]{followsym}* | [_$%]{followsym}+
    let name = |s: &str| {
        let mut cs = s.chars();
        match cs.next() {
            Some(c) if c.is_ascii_alphabetic() => cs.all(followsym),
            Some('_' | '$' | '%') => !cs.as_str().is_empty() && cs.all(followsym),
            _ => false,
        }
    };
    // PTX ISA 4.5: integers (decimal, 0x, 0b, octal; `-`; `U`), 0f/0d bit patterns,
    // decimal floats.
    let integer = |s: &str| {
        let b = s.strip_prefix('-').unwrap_or(s);
        let b = b.strip_suffix('U').unwrap_or(b);
        if let Some(h) = b.strip_prefix("0x").or_else(|| b.strip_prefix("0X")) {
            return !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit());
        }
        if let Some(h) = b.strip_prefix("0b").or_else(|| b.strip_prefix("0B")) {
            return !h.is_empty() && h.chars().all(|c| c == '0' || c == '1');
        }
        !b.is_empty() && b.chars().all(|c| c.is_ascii_digit())
    };
    let literal = |s: &str| {
        let b = s.strip_prefix('-').unwrap_or(s);
        let bits = |p: &str, n: usize| {
            b.strip_prefix(p)
                .is_some_and(|h| h.len() == n && h.chars().all(|c| c.is_ascii_hexdigit()))
        };
        integer(s)
            || bits("0f", 8)
            || bits("0F", 8)
            || bits("0d", 16)
            || bits("0D", 16)
            || (b.starts_with(|c: char| c.is_ascii_digit())
                && b.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
                && b.parse::<f64>().is_ok())
    };
    let scalar = |s: &str| {
        let s = s.trim();
        s == "_" || name(s) || literal(s)
    };
    let operand = |s: &str| {
        let s = s.trim();
        if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (base, offset) = match inner.split_once('+') {
                Some((b, o)) => (b.trim(), Some(o.trim())),
                None => (inner.trim(), None),
            };
            return (name(base) || integer(base)) && offset.is_none_or(integer);
        }
        if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            return inner.split(',').all(scalar);
        }
        if let Some(a) = s.strip_prefix('!') {
            return scalar(a);
        }
        if let Some((d, p)) = s.split_once('|') {
            return scalar(d) && scalar(p);
        }
        scalar(s)
    };
    let Some(body) = text.trim().strip_suffix(';') else {
        return false;
    };
    let mut body = body.trim();
    if let Some((label, rest)) = body.split_once(':') {
        if name(label) && !rest.starts_with(':') {
            body = rest.trim_start();
        }
    }
    if let Some(rest) = body.strip_prefix('@') {
        let Some((g, rest)) = rest.split_once(char::is_whitespace) else {
            return false;
        };
        if !name(g.strip_prefix('!').unwrap_or(g)) {
            return false;
        }
        body = rest.trim_start();
    }
    let (chain, operands) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    // An opcode with its infix written (`bar.cta.red`) is the opcode too.
    let words: Vec<&str> = chain.split('.').collect();
    static MNEMONICS: std::sync::OnceLock<Vec<ptxvec_spec::Mnemonic>> = std::sync::OnceLock::new();
    let mnemonics = MNEMONICS.get_or_init(|| crate::support::spec().instructions.iter().map(|f| f.instruction.mnemonic).collect());
    let Some(skip) = mnemonics.iter().filter_map(|m| m.opcode_in(&words)).max() else {
        return false;
    };
    let words_ok = words[skip..]
        .iter()
        .all(|w| ptxvec_spec::Qualifier::from_word(w).is_some());
    if !words_ok || operands.contains(';') {
        return false;
    }
    let operands = operands.trim();
    if operands.is_empty() {
        return true;
    }
    // Top-level commas: brackets and braces neither nest nor stay open.
    let mut pieces = Vec::new();
    let (mut open, mut start) = (None, 0);
    for (i, c) in operands.char_indices() {
        match (c, open) {
            ('[' | '{', None) => open = Some(c),
            (']', Some('[')) | ('}', Some('{')) => open = None,
            ('[' | '{' | ']' | '}', _) => return false,
            (',', None) => {
                pieces.push(&operands[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&operands[start..]);
    open.is_none() && pieces.into_iter().all(operand)
}

#[test]
fn the_general_grammar_recognizer_reads_the_readme_examples() {
    // (text, parses): docs/formats.md's cases of each side of the rule.
    let table: &[(&str, bool)] = &[
        ("L1: @!%p1 red.global.add.u32 [%rd1+4], %r1;", true),
        ("activemask.b32 {%r1, %r1};", true),
        ("red.add.v2.f32 [%rd1], %f1;", true),
        ("red.global.add.add.u32 [%rd1], %r1;", true),
        ("shfl.sync.up.b32 %r1|_, %r2, 1, 0, 0xffffffff;", true),
        ("match.all.sync.b32 _|_, %r1, 0xffffffff;", true),
        ("red.global.add.u32 [256], %r1;", true),
        ("red.global.add.u32 [%rd1], _;", true),
        ("red.global.add.u32 [%rd1] %r1;", false),
        ("red.global.add.u32 [_], %r1;", false),
        ("red.global.add.u32 [%rd1], %r1", false),
        ("red.global.add.u322 [%rd1], %r1;", false),
        ("atom.global.add.u32 %r2, [%rd1], %r1;", true),
        ("ld.global.u32 %r2, [%rd1];", false),
        ("red.global.add.u32 [%rd1, %r1;", false),
    ];
    let wrong: Vec<_> = table
        .iter()
        .filter(|(t, want)| general_grammar(t) != *want)
        .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
}

/// docs/formats.md, "Malformed and invalid": an illegal case is malformed exactly
/// when its text is no statement of the general grammar, and every legal case is one.
#[test]
fn every_case_is_malformed_exactly_when_the_general_grammar_refuses_it() {
    let spec = spec();
    let mut wrong = Vec::new();
    let (mut malformed, mut invalid) = (0, 0);
    for f in &spec.instructions {
        for c in vectors::cases(&spec, &f.instruction) {
            let parses = general_grammar(&c.text);
            let want = match (c.verdict, c.kind) {
                (Verdict::Legal, _) => true,
                (Verdict::Illegal, Some(Kind::Malformed)) => {
                    malformed += 1;
                    false
                }
                (Verdict::Illegal, _) => {
                    invalid += 1;
                    true
                }
            };
            if parses != want {
                wrong.push(format!(
                    "{} `{}`: {:?} {:?}, but the general grammar {}",
                    c.id,
                    c.text,
                    c.verdict,
                    c.kind,
                    if parses { "reads it" } else { "refuses it" }
                ));
            }
        }
    }
    assert!(malformed > 0 && invalid > 0, "{malformed} malformed, {invalid} invalid");
    assert!(wrong.is_empty(), "{} cases break the rule:\n{}", wrong.len(), wrong.join("\n"));
}

/// A legal case that writes the sink `_` rests on evidence that shows a sink (seed
/// 004's "Sink `_` allowed for `d` or `p`", or ptxas taking `%r2|_`), not on the
/// syntax line, whose `d[|p]` shows none.
#[test]
fn sink_cases_cite_the_evidence_for_the_sink() {
    let spec = spec();
    let mut n = 0;
    for f in &spec.instructions {
        for c in vectors::cases(&spec, &f.instruction) {
            if c.verdict != Verdict::Legal || !c.id.ends_with("/sink") {
                continue;
            }
            n += 1;
            let quote = c.source.quote.as_deref().unwrap_or_default();
            assert!(
                // The document writes the sink `_` or '_' (elect.sync).
                quote.contains("`_`") || quote.contains("'_'") || quote.contains("|_") || quote.contains("_|"),
                "{}: cites {:?}",
                c.id,
                c.source
            );
        }
    }
    // Six of shfl.sync and match.all.sync; six of the non-sync shfl: its four modes,
    // and its first spelling again on each side below its withdrawal; atom's `d`,
    // once per spelling that writes no optional qualifier (64: every operation
    // and type of its twelve lines); elect.sync's `d`, once.
    assert_eq!(n, 12 + 64 + 1, "the sink cases of shfl.sync, match.all.sync, shfl, atom and elect.sync");
}

/// Every case a ledger entry lists in `vectors` exists, and cites that entry's
/// evidence (spec/errata.yaml): a renamed case cannot leave the ledger pointing at
/// nothing.
#[test]
fn ledger_vectors_name_cases_that_cite_the_entry() {
    let spec = spec();
    let cases: Vec<_> = spec
        .instructions
        .iter()
        .flat_map(|f| vectors::cases(&spec, &f.instruction))
        .collect();
    let mut n = 0;
    for e in &spec.errata.errata {
        for id in &e.vectors {
            n += 1;
            let c = cases
                .iter()
                .find(|c| c.id == *id)
                .unwrap_or_else(|| panic!("{}: no case {id}", e.id));
            assert!(
                c.source.cite.contains(&format!("(errata {})", e.id)),
                "{}: {id} cites {:?}",
                e.id,
                c.source
            );
            assert_eq!(c.source.quote, e.cited_evidence().and_then(|s| s.quote.clone()));
        }
    }
    assert!(n >= 15, "{n} ledger vectors");
}
