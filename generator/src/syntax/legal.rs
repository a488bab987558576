//! Every legal spelling of every form, with its operands written in each style that
//! applies, and its needs.

use ptxvec_spec::model::{Form, Printed};
use ptxvec_spec::{Instruction, Origin, Qualifier, Spec};

use super::case::{need_records, Case, NeedRecord, SourceRecord, Verdict};
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
pub fn legal_spellings<'s>(
    spec: &'s Spec,
    instruction: &'s Instruction,
    form_id: &str,
) -> Vec<Legal<'s>> {
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

/// The syntax line's own citation: the doc line it is written as (a seed's, or
/// the full PTX ISA's).
pub fn form_source(instruction: &Instruction, form: &Form) -> SourceRecord {
    let printed = form.doc_syntax.first().map(|d| &d.printed);
    let section = instruction
        .sources
        .iter()
        .find(|s| match (printed, &s.origin) {
            (Some(Printed::Seed(p)), Origin::Seed(o)) | (Some(Printed::Doc(p)), Origin::Doc(o)) => p == o,
            _ => false,
        })
        .and_then(|s| s.section.clone())
        .unwrap_or_default();
    let cite = match printed {
        Some(Printed::Doc(d)) => format!("{d}, {section}, Syntax"),
        Some(Printed::Seed(s)) => format!("seed {s}, {section}, Syntax"),
        None => format!("seed , {section}, Syntax"),
    };
    SourceRecord {
        cite,
        quote: form.doc_syntax.first().map(|d| d.text.clone()),
    }
}

/// The legal cases of one instruction, form by form.
pub fn legal_cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let mut out = Vec::new();
    for (_, form) in instruction.forms() {
        let mut first_removed = true;
        for legal in legal_spellings(spec, instruction, &form.id) {
            let Some(min) = legal
                .needs
                .0
                .first()
                .and_then(|n| context::minimum(&spec.targets, n))
            else {
                continue;
            };
            let removal = legal.spelling.removal();
            let removed = removed_record(&legal.spelling);
            // The first spelling of a line that a rule withdraws is also legal just
            // below the withdrawal, on each count: its last version on the
            // withdrawal's target, and the nearest target outside it at its version.
            let mut modules = vec![(min, String::new())];
            if first_removed && removal.is_some() {
                first_removed = false;
                modules.extend(below_removal(spec, &legal).into_iter().map(|m| (m, format!("@{}:{}", m.ptx, m.target))));
            }
            for (module, at) in &modules {
                for style in Style::ALL {
                    if !operands::style_applies(&legal.spelling, *style) {
                        continue;
                    }
                    out.push(Case {
                        id: format!(
                            "{}/{}/{}{at}/{}",
                            instruction.instruction,
                            form.id,
                            chain_key(&legal.spelling),
                            style.tag()
                        ),
                        instruction: instruction.instruction.clone(),
                        form: form.id.clone(),
                        text: text_of(&legal.spelling, *style),
                        verdict: Verdict::Legal,
                        kind: None,
                        rule: None,
                        ptx: module.ptx.to_string(),
                        target: module.target.to_string(),
                        requires: need_records(&legal.needs),
                        removed: removed.clone(),
                        noncanonical: false,
                        base: None,
                        source: match operands::sink_source(&legal.spelling) {
                            Some(src) if *style == Style::Sink => SourceRecord::of(src),
                            _ if !at.is_empty() => removal.as_ref().map_or_else(|| form_source(instruction, form), |(rule, _)| SourceRecord::of(&rule.source)),
                            _ => form_source(instruction, form),
                        },
                    });
                }
            }
        }
    }
    out
}

/// Where a rule withdraws the spelling, as a case records it (`removed`).
fn removed_record(s: &Spelling<'_>) -> Option<NeedRecord> {
    s.removal().map(|(_, at)| NeedRecord {
        ptx: at.ptx.map(|v| v.to_string()).unwrap_or_default(),
        target: at.target.map(|t| t.to_string()),
    })
}

/// The modules just below a spelling's withdrawal ([`Spelling::removal`]) that
/// meet its needs: the version before the withdrawal's on its target, and the
/// nearest target outside the withdrawal's at its version.
pub fn below_removal(spec: &Spec, legal: &Legal<'_>) -> Vec<context::Module> {
    let model = &spec.targets;
    let Some((_, at)) = legal.spelling.removal() else {
        return Vec::new();
    };
    let (Some(ptx), Some(target)) = (at.ptx, at.target) else {
        return Vec::new();
    };
    let need = crate::syntax::needs::Need { ptx, target: Some(target) };
    let mut out = Vec::new();
    if let Some(first) = context::minimum(model, &need) {
        out.extend(context::version_below(model, first));
    }
    out.extend(context::outside(model, &need));
    out.retain(|m| legal.needs.met_by(model, m.ptx, m.target));
    out
}

/// Orders that the document's own examples or real code write, beyond the swaps
/// [`noncanonical_cases`] makes: (text, where it is written).
const WRITTEN_ORDERS: &[(&str, &str)] = &[
    (
        "red.global.sys.add.u32 [%rd1], %r1;",
        "seed 001, red, Examples: `red.global.sys.add.u32 [a], 1;`",
    ),
    (
        "red.global.cluster.relaxed.add.u32 [%rd1], %r1;",
        "seed 001, red, Examples: `red.global.cluster.relaxed.add.u32 [a], 1;`",
    ),
    (
        "red.global.v8.f16.add.noftz [%rd1], {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8};",
        "seed 001, red, Examples: `red.global.v8.f16.add.noftz  [gbl], {%h0, ..., %h7};`",
    ),
    (
        "red.add.global.relaxed.gpu.f64 [%rd1], %fd1;",
        "real code: the ptx-syntax crate's test corpus",
    ),
];

/// Legal cases whose qualifiers are not in the document's order: ptxas takes any
/// order (errata E004), the two state spaces of cp.reduce.async.bulk aside, and the
/// `.sync` of `redux.sync`, `vote.sync` and `shfl.sync` anywhere in the chain
/// ([`ptxvec_spec::Mnemonic::opcode`]); so a parser that takes only the document's
/// order must fail here. Per syntax line, its legal spelling with the most
/// qualifiers, the mnemonic's `.sync` counted among them, with every pair of
/// positions swapped (two spaces excepted) and with the whole order reversed (the
/// spaces kept in theirs); then the orders the document's examples and real code
/// write. Legal by default, invalid under `check-syntax --strict`
/// (`qualifier.order`).
pub fn noncanonical_cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let ptxas = any_order_evidence(spec);
    let mut out = Vec::new();
    let mnemonic = instruction.mnemonic;
    // The mnemonic's words after its opcode (`.sync`): they move with the rest.
    let floating: Vec<Qualifier> = mnemonic
        .spelling()
        .split('.')
        .skip(mnemonic.opcode().split('.').count())
        .filter_map(Qualifier::from_word)
        .collect();
    for (_, form) in instruction.forms() {
        let legal = legal_spellings(spec, instruction, &form.id);
        // The first spelling with the most qualifiers: every position it fills moves.
        let Some(base) = legal
            .iter()
            .rev()
            .max_by_key(|l| l.spelling.qualifiers().len())
        else {
            continue;
        };
        // The mnemonic's infix (`bar.cta.red`) is the opcode's: it stays in place.
        let infix: Vec<Qualifier> = mnemonic
            .infix()
            .filter(|i| base.spelling.qualifiers().first() == Some(i))
            .into_iter()
            .collect();
        let quals: Vec<Qualifier> = floating
            .iter()
            .copied()
            .chain(base.spelling.qualifiers().into_iter().skip(infix.len()))
            .collect();
        let space = |q: Qualifier| q.kind() == ptxvec_spec::QualKind::Space;
        let spaces = |o: &[Qualifier]| o.iter().copied().filter(|&q| space(q)).collect::<Vec<_>>();
        let mut orders: Vec<Vec<Qualifier>> = Vec::new();
        for i in 0..quals.len() {
            for j in i + 1..quals.len() {
                let mut o = quals.clone();
                o.swap(i, j);
                if spaces(&o) == spaces(&quals) {
                    orders.push(o);
                }
            }
        }
        let reversed = reversed_but_spaces(&quals);
        if !orders.contains(&reversed) && reversed != quals {
            orders.push(reversed);
        }
        for order in orders {
            // The id keeps the chain after the whole mnemonic where `.sync` stands
            // in its place, and names it among the rest where it moved.
            let in_place = order[..floating.len()] == floating[..];
            let opcode = mnemonic.chain(&infix);
            let (head, shown) = if in_place {
                (opcode.as_str(), &order[floating.len()..])
            } else {
                (mnemonic.opcode(), &order[..])
            };
            let chain: String = shown.iter().map(|q| q.spelling()).collect();
            let text = compose(
                &format!("{head}{chain}"),
                &operands::render(&base.spelling, Style::Registers),
            );
            if let Some(c) =
                noncanonical(spec, instruction, form, base, &chain, text, ptxas.clone())
            {
                out.push(c);
            }
        }
    }
    for (text, cite) in WRITTEN_ORDERS {
        let Some(spelling) = super::judge::reading(spec, text) else {
            continue;
        };
        if spelling.instruction.instruction != instruction.instruction {
            continue;
        }
        let form = spelling.form;
        let needs = spelling.needs(&spec.targets);
        let base = Legal { spelling, needs };
        let words = super::text::tokenize(text)
            .map(|t| t.words)
            .unwrap_or_default();
        let skip = base
            .spelling
            .form
            .syntax
            .mnemonic
            .spelling()
            .split('.')
            .count();
        let chain: String = words.iter().skip(skip).map(|w| format!(".{w}")).collect();
        let source = SourceRecord {
            cite: format!("{cite}; {}", ptxas.cite),
            quote: ptxas.quote.clone(),
        };
        if let Some(c) = noncanonical(
            spec,
            instruction,
            form,
            &base,
            &chain,
            (*text).to_owned(),
            source,
        ) {
            out.push(c);
        }
    }
    out
}

/// One noncanonical case of `base`'s spelling written as `chain`.
fn noncanonical(
    spec: &Spec,
    instruction: &Instruction,
    form: &Form,
    base: &Legal<'_>,
    chain: &str,
    text: String,
    source: SourceRecord,
) -> Option<Case> {
    let min = base
        .needs
        .0
        .first()
        .and_then(|n| context::minimum(&spec.targets, n))?;
    Some(Case {
        id: format!(
            "{}/{}/{chain}/noncanonical",
            instruction.instruction, form.id
        ),
        instruction: instruction.instruction.clone(),
        form: form.id.clone(),
        text,
        verdict: Verdict::Legal,
        kind: None,
        rule: None,
        ptx: min.ptx.to_string(),
        target: min.target.to_string(),
        requires: need_records(&base.needs),
        removed: removed_record(&base.spelling),
        noncanonical: true,
        base: None,
        source,
    })
}

/// What a noncanonical case rests on: ptxas's word in the ledger's entry on the
/// document's own orders (E004).
fn any_order_evidence(spec: &Spec) -> SourceRecord {
    let ptxas = spec
        .errata
        .errata
        .iter()
        .find(|e| e.id == "E004")
        .and_then(|e| {
            // The last ptxas item: the permutation probe, `.sync` moved included.
            e.evidence
                .iter()
                .rfind(|s| matches!(s.origin, Origin::Ptxas(_)))
        });
    SourceRecord {
        cite: "ptxas 13.5 takes qualifiers in any order, the two state spaces aside (errata E004)".to_owned(),
        quote: ptxas.and_then(|s| s.note.clone().or_else(|| s.quote.clone())),
    }
}

/// The order reversed, the state spaces kept in their own order (they are told
/// apart by it).
fn reversed_but_spaces(quals: &[Qualifier]) -> Vec<Qualifier> {
    let space = |q: &Qualifier| q.kind() == ptxvec_spec::QualKind::Space;
    let mut out: Vec<Qualifier> = quals.iter().rev().copied().collect();
    let spaces: Vec<Qualifier> = quals.iter().copied().filter(space).collect();
    let at: Vec<usize> = (0..out.len()).filter(|&k| space(&out[k])).collect();
    for (k, q) in at.into_iter().zip(spaces) {
        out[k] = q;
    }
    out
}
