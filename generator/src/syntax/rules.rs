//! Every rule a syntax verdict can name, with its meaning: the general rules of
//! the judge (`syntax.*` malformed, `operand.*` and `qualifier.*` invalid, the families `set.<name>`
//! and `table.<id>`), and each instruction's own rules from the spec. Exported as
//! vectors/rules.json so that a consumer reads `rule` without reading this code.

use serde::Serialize;

use ptxvec_spec::model::{Effect, Requirement};
use ptxvec_spec::Spec;

use super::defect::Kind;
use super::rule_id::RuleId;

/// A general rule of the judge: its id (a family ends in `.`), the kind of its
/// defect, and what it means.
pub const GENERAL: &[(&str, Kind, &str)] = &[
    ("syntax.parse", Kind::Malformed, "The text is no statement of PTX's general grammar: an optional guard `@p`/`@!p`, a dotted opcode, operands separated by commas, each a name, a literal, `_`, `!x`, `x|y`, a brace vector of those or an address `[name]`, `[name+int]`, `[int]`."),
    ("syntax.semicolon", Kind::Malformed, "The statement does not end with `;`."),
    ("syntax.mnemonic", Kind::Malformed, "The opcode is none of the instructions the spec covers."),
    ("syntax.unknown_qualifier", Kind::Malformed, "A dotted word that is no qualifier of PTX."),
    ("qualifier.duplicate", Kind::Invalid, "A qualifier written twice."),
    ("qualifier.missing", Kind::Invalid, "A position the syntax line always fills (no braces) is empty."),
    ("qualifier.order", Kind::Invalid, "Qualifiers in another order than the document's: legal by default (ptxas takes any order, with a warning), invalid under `--strict`."),
    ("operand.count", Kind::Invalid, "More or fewer operands than the syntax line has."),
    ("operand.shape", Kind::Invalid, "An operand of another shape than the syntax line writes: address, brace vector and its length, `d|p` pair, negation, sink, scalar."),
    ("operand.guard", Kind::Invalid, "A guard predicate that is no predicate register."),
    ("operand.class", Kind::Invalid, "A register of another class than the operand's type (by its prefix: %r .b32, %rd .b64, %f .f32, %fd .f64, %h .b16, %p .pred)."),
    ("operand.register_required", Kind::Invalid, "An immediate where the operand must be a register (a destination)."),
    ("operand.sink", Kind::Invalid, "The sink `_` where the operand may not be discarded."),
    ("operand.address", Kind::Invalid, "An address that the operand's state space does not take (an immediate address)."),
    ("operand.address_size", Kind::Invalid, "A 32-bit register as the address of a 64-bit module."),
    ("operand.multiple_of", Kind::Invalid, "A literal that must be a multiple of a size (cp.reduce.async.bulk's size: 16) is not."),
    ("operand.range", Kind::Invalid, "A literal outside the range its operand takes (cp.reduce.async.bulk's size: 0 to 1048560, ptxas 13.5)."),
    ("module.target", Kind::Invalid, "A `.target` that the module's `.version` does not know (the target model's first version for it is later): the module is refused whatever its instructions."),
    ("operand.requires", Kind::Invalid, "An optional operand written without the qualifier it needs (cache-policy without .L2::cache_hint)."),
    ("operand.required_by", Kind::Invalid, "A qualifier written without the operand it needs (.L2::cache_hint without cache-policy)."),
    ("qualifier.not_allowed", Kind::Invalid, "A qualifier of PTX that no position of this instruction's syntax lines takes."),
    ("qualifier.extra", Kind::Invalid, "A qualifier of the instruction that the syntax line the others fit has no place for."),
    ("qualifier.required", Kind::Invalid, "A fixed qualifier of the syntax line is missing."),
    ("set.", Kind::Invalid, "`set.<name>`: a value outside the set `.name = { ... }` the position draws on in this syntax line."),
    ("table.", Kind::Invalid, "`table.<id>`: a combination of qualifiers that no row of the spec's table `<id>` lists."),
];

/// How case ids are built, part by part.
pub const ID_PARTS: &[(&str, &str)] = &[
    ("<instruction>/<form>/<qualifier chain>", "A legal case: the instruction, the syntax line (form id), the qualifiers written in order (`.global.add.u32`)."),
    ("/reg, /imm, /pair, /not, /sink", "The same legal spelling with registers everywhere, with immediates where the spec allows them, with the optional `|p` destination written, with the predicate source negated (`!%p`), or with the sink `_` as a destination."),
    ("<instruction>/<form>/<chain as written>/noncanonical", "A legal spelling with its qualifiers in another order than the document's (`noncanonical: true`): legal by default, invalid under check-syntax --strict (`qualifier.order`)."),
    ("!<rule>", "An illegal case: the legal case before the `!`, with one defect, named by the rule it breaks."),
    ("!<rule>:<detail>", "The defect in detail: the qualifier or operand changed (`!set.op:.and`, `!operand.class:d`)."),
    ("!<rule>:without:<qualifier>", "A required qualifier left out where the rest reads exactly as another syntax line, named by that reading's defect (`red/vector_f32/.add.v2.f32!operand.shape:without:.v2`: `red.add.f32 [%rd1], {%f1, %f2};`, the scalar line with a vector operand)."),
    ("!<rule>:target:<target>@<ptx>, !<rule>:version:<target>@<ptx>", "A module that breaks a requirement rule: the nearest target below it, or one PTX ISA version below, at `<target>` and `.version <ptx>`."),
];

/// One rule, as vectors/rules.json lists it.
#[derive(Debug, Clone, Serialize)]
pub struct RuleEntry {
    /// The rule id as verdicts name it; a family (`set.`, `table.`) ends in a dot.
    pub rule: String,
    /// For an instruction's own rule: the instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// The kind of defect that breaks it.
    pub kind: Kind,
    /// What it means.
    pub meaning: String,
    /// For an instruction's own rule: the document's words it encodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

/// The file.
#[derive(Debug, Clone, Serialize)]
pub struct RulesFile {
    /// What the file is.
    pub about: &'static str,
    /// The general rules, then each instruction's, in spec order.
    pub rules: Vec<RuleEntry>,
    /// How case ids are built.
    pub ids: Vec<IdPart>,
}

/// A part of a case id.
#[derive(Debug, Clone, Serialize)]
pub struct IdPart {
    /// Its form.
    pub part: &'static str,
    /// What it says.
    pub meaning: &'static str,
}

/// The catalog of every rule of `spec`.
pub fn catalog(spec: &Spec) -> RulesFile {
    let mut rules: Vec<RuleEntry> = GENERAL
        .iter()
        .map(|(id, kind, meaning)| RuleEntry {
            rule: (*id).to_owned(),
            instruction: None,
            kind: *kind,
            meaning: (*meaning).to_owned(),
            quote: None,
        })
        .collect();
    for f in &spec.instructions {
        let i = &f.instruction;
        for r in &i.rules {
            let mut condition = match &r.forms {
                Some(forms) => format!("a spelling of {}", forms.join(", ")),
                None => "a spelling".to_owned(),
            };
            for group in &r.when {
                let any: Vec<String> = group.0.iter().map(ToString::to_string).collect();
                condition += &format!(" with {}", any.join("|"));
            }
            if !r.unless.is_empty() {
                let none: Vec<String> = r.unless.iter().map(ToString::to_string).collect();
                condition += &format!(" without {}", none.join(", "));
            }
            let meaning = match &r.effect {
                Effect::Requires(reqs) => format!(
                    "{condition} needs {}",
                    reqs.iter()
                        .map(requirement)
                        .collect::<Vec<_>>()
                        .join(", or ")
                ),
                Effect::Forbid(why) => format!("{condition} is not allowed: {why}"),
                Effect::Removed(at) => format!("{condition} is removed from {}", requirement(at)),
            };
            rules.push(RuleEntry {
                rule: r.id.clone(),
                instruction: Some(i.instruction.clone()),
                kind: Kind::Invalid,
                meaning,
                quote: r.source.quote.clone(),
            });
        }
    }
    RulesFile {
        about: "Every rule a syntax case of vectors/syntax can name (its `rule`), and how case ids are built. Written by `ptxvec generate`; do not edit.",
        rules,
        ids: ID_PARTS
            .iter()
            .map(|(part, meaning)| IdPart { part, meaning })
            .collect(),
    }
}

/// The catalog entry of `rule` as a case of `instruction` names it, if any.
pub fn entry<'a>(file: &'a RulesFile, instruction: &str, rule: &RuleId) -> Option<&'a RuleEntry> {
    entry_named(file, instruction, &rule.to_string())
}

/// The catalog entry of the rule named `id` (`operand.shape`, `set.op`, `base`) as
/// a case or line of `instruction` names it, if any: an instruction's own rule, a
/// general rule, or the family (`set.`, `table.`) it is of.
pub fn entry_named<'a>(file: &'a RulesFile, instruction: &str, id: &str) -> Option<&'a RuleEntry> {
    file.rules.iter().find(|e| match &e.instruction {
        Some(i) => i == instruction && e.rule == id,
        None if e.rule.ends_with('.') => id.starts_with(&e.rule),
        None => e.rule == id,
    })
}

/// `PTX ISA 8.0 and target sm_90`, as a rule needs it.
fn requirement(r: &Requirement) -> String {
    match (r.ptx, r.target) {
        (Some(p), Some(t)) => format!("PTX ISA {p} and target {t}"),
        (Some(p), None) => format!("PTX ISA {p}"),
        (None, Some(t)) => format!("target {t}"),
        (None, None) => "nothing".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::rule_id::{ModuleRule, OperandRule, QualifierRule, SyntaxRule};

    /// The general rules documented are exactly the closed rule ids, and the two
    /// families: nothing a verdict can name goes undocumented in rules.json.
    #[test]
    fn every_general_rule_is_documented_once() {
        let mut want: Vec<String> = SyntaxRule::ALL
            .iter()
            .map(|&r| RuleId::from(r).to_string())
            .chain(QualifierRule::ALL.iter().map(|&r| RuleId::from(r).to_string()))
            .chain(OperandRule::ALL.iter().map(|&r| RuleId::from(r).to_string()))
            .chain(ModuleRule::ALL.iter().map(|&r| RuleId::from(r).to_string()))
            .chain(["set.".to_owned(), "table.".to_owned()])
            .collect();
        let mut have: Vec<String> = GENERAL.iter().map(|(id, _, _)| (*id).to_owned()).collect();
        want.sort();
        have.sort();
        assert_eq!(have, want);
    }
}
