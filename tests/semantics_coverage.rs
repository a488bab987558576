//! Every executable variant in the spec has an oracle entry: each legal spelling of
//! every syntax line maps to the oracle's terms, and the oracle gives a value for it
//! under both profiles.

use std::collections::BTreeSet;

use ptxvec_generator::family::{self, Semantics};
use ptxvec_generator::syntax::legal::legal_spellings;
use ptxvec_oracle::float::Expect;
use ptxvec_oracle::memory::atom::Atom;
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::spec_root;

#[test]
fn every_legal_spelling_has_an_oracle_entry() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut variants = BTreeSet::new();
    let mut mnemonics = BTreeSet::new();
    let mut missing = Vec::new();
    let mut spellings = 0;
    for f in &spec.instructions {
        let i = &f.instruction;
        for (_, form) in i.forms() {
            for l in legal_spellings(&spec, i, &form.id) {
                spellings += 1;
                if !family::claims(l.spelling.form.syntax.mnemonic) {
                    continue;
                }
                match family::of(&l.spelling) {
                    Ok(s) => {
                        variants.insert(s);
                        mnemonics.insert(l.spelling.form.syntax.mnemonic);
                    }
                    Err(e) => missing.push(e.to_string()),
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "spellings without an oracle entry:\n{}",
        missing.join("\n")
    );
    assert!(spellings > 4000, "only {spellings} legal spellings");
    // A memory variant must have a defined value for ordinary operands (1 and 2)
    // under both profiles: the table of the spec never pairs an op with a type the
    // oracle leaves undefined.
    for v in &variants {
        if let Semantics::Memory(r) | Semantics::Atom(Atom::Reduce(r)) = v {
            for &p in Profile::ALL {
                assert_ne!(r.element(p, 1, 2), Expect::Undefined, "{r:?} under {p:?}");
            }
        }
    }
    // Every instruction a family claims contributes variants.
    let without: Vec<_> = spec
        .instructions
        .iter()
        .map(|f| f.instruction.mnemonic)
        .filter(|&m| family::claims(m) && !mnemonics.contains(&m))
        .collect();
    assert!(without.is_empty(), "instructions without an executable variant: {without:?}");
    println!(
        "{spellings} legal spellings, {} executable variants",
        variants.len()
    );
}
