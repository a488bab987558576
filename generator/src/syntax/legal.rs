//! Every legal spelling of every form, with its operands written in each style that
//! applies, and its needs.

use ptxvec_spec::model::Form;
use ptxvec_spec::{Instruction, Spec};

use super::case::{need_records, Case, SourceRecord, Verdict};
use super::context;
use super::needs::Needs;
use super::operands::{self, Style};
use super::spelling::{allowed_spellings, Spelling};

/// A legal spelling with its needs, before it is written as cases.
#[derive(Debug, Clone)]
pub struct Legal<'s> {
    /// The qualifiers.
    pub spelling: Spelling<'s>,
    /// What it needs of the module.
    pub needs: Needs,
}

/// The legal spellings of one form, in enumeration order; those whose needs no
/// module meets (contradictory targets) are left out.
pub fn legal_spellings<'s>(spec: &'s Spec, instruction: &'s Instruction, form_id: &str) -> Vec<Legal<'s>> {
    let Some((group, form)) = instruction.form(form_id) else {
        return Vec::new();
    };
    allowed_spellings(instruction, group, form)
        .into_iter()
        .filter_map(|spelling| {
            let needs = spelling.needs(&spec.targets);
            (!needs.0.is_empty()).then_some(Legal { spelling, needs })
        })
        .collect()
}

/// A case id's middle part: the qualifiers after the mnemonic.
pub fn chain_key(s: &Spelling<'_>) -> String {
    s.qualifiers().iter().map(|q| q.spelling()).collect()
}

/// The text of a spelling in a style.
pub fn text_of(s: &Spelling<'_>, style: Style) -> String {
    compose(&s.chain(), &operands::render(s, style))
}

/// An instruction text from its dotted chain and operands.
pub fn compose(chain: &str, operands: &[String]) -> String {
    if operands.is_empty() {
        format!("{chain};")
    } else {
        format!("{chain} {};", operands.join(", "))
    }
}

/// The syntax line's own citation: the seed line it is written as.
pub fn form_source(instruction: &Instruction, form: &Form) -> SourceRecord {
    let seed = form.doc_syntax.first().map_or("", |d| d.seed.as_str());
    let section = instruction
        .sources
        .iter()
        .find(|s| s.seed() == Some(seed))
        .and_then(|s| s.section.clone())
        .unwrap_or_default();
    SourceRecord {
        cite: format!("seed {seed}, {section}, Syntax"),
        quote: form.doc_syntax.first().map(|d| d.text.clone()),
    }
}

/// The legal cases of one instruction, form by form.
pub fn legal_cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let mut out = Vec::new();
    for (_, form) in instruction.forms() {
        for legal in legal_spellings(spec, instruction, &form.id) {
            let Some(min) = legal.needs.0.first().and_then(|n| context::minimum(&spec.targets, n)) else {
                continue;
            };
            for style in Style::ALL {
                if !operands::style_applies(&legal.spelling, *style) {
                    continue;
                }
                out.push(Case {
                    id: format!("{}/{}/{}/{}", instruction.instruction, form.id, chain_key(&legal.spelling), style.tag()),
                    instruction: instruction.instruction.clone(),
                    form: form.id.clone(),
                    text: text_of(&legal.spelling, *style),
                    verdict: Verdict::Legal,
                    kind: None,
                    rule: None,
                    ptx: min.ptx.to_string(),
                    target: min.target.to_string(),
                    requires: need_records(&legal.needs),
                    noncanonical: false,
                    base: None,
                    source: form_source(instruction, form),
                });
            }
        }
    }
    out
}
