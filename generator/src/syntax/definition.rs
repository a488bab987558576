//! The definition of the syntax judge: one text in one module. The general
//! statement grammar first (malformed texts), then the steps every judge shares
//! ([`super::verdict::verdict`]) on the text's chain read afresh. The batch judge
//! (`syntax::index`) takes the same steps on its kept readings.

use ptxvec_spec::{PtxVersion, Spec, Target};

use super::defect::{fail, Kind};
use super::judge::{parse_defect, read_chain, Judgement, Order};
use super::rule_id::SyntaxRule;
use super::text;
use super::verdict::{verdict, Chain, InModule};

/// Judges one instruction text in a module of `.version ptx` and `.target target`.
pub fn judge(spec: &Spec, text: &str, ptx: PtxVersion, target: Target, order: Order) -> Judgement {
    // Malformed first: the general statement grammar (docs/formats.md, "Malformed
    // and invalid"), which holds for every instruction. Only a text that parses
    // under it is judged against the instruction's own rules.
    // Comments are whitespace (PTX ISA 4.2): the `;` below is the statement's.
    let uncommented = text::uncommented(text);
    let parsed = match uncommented.as_deref().map_err(Clone::clone).and_then(text::tokenize) {
        Ok(p) => p,
        Err(e) => return Judgement::unparsed(parse_defect(&e)),
    };
    // PTX ISA 4.3 (Statements): "Statements begin with an optional label and end with
    // a semicolon." ptxas 13.5 without it: "Parsing error near 'ret': syntax error".
    if !uncommented.as_deref().is_ok_and(|t| t.trim_end().ends_with(';')) {
        return Judgement::unparsed(fail(
            Kind::Malformed,
            SyntaxRule::Semicolon,
            "expected `;` at the end of the instruction: every PTX statement ends with one",
        ));
    }
    // The rest is the batch judge's steps too (`verdict::verdict`), on the chain
    // read afresh here, its qualifiers placed on the groups' sets.
    let chain = Chain::read(spec, &parsed.words, read_chain);
    let module = InModule {
        model: &spec.targets,
        ptx,
        target,
        allowed: spec.targets.check_version(ptx, target).is_ok(),
    };
    verdict(&chain, parsed.guard.as_deref(), &parsed.operands, &module, order).into_judgement()
}
