//! Illegal cases with one defect each, made from legal spellings.
//!
//! Each mutation names the rule it breaks. Qualifier mutations are kept only when
//! the result is no legal spelling of any form (checked against the enumeration,
//! not against the judge) and every nearest line names the same rule
//! (`syntax::nearest`), so that "one defect" holds. A change that the line's first
//! legal spelling cannot make unambiguous is tried on its other representative
//! spellings (one per position and value).

use std::collections::BTreeSet;

use ptxvec_spec::model::{Effect, Form, SyntaxGroup};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{Instruction, PtxVersion, Qualifier, Spec};

use super::across;
use super::rule_id::{OperandRule, QualifierRule, RuleId, SyntaxRule};
use super::case::{need_records, Case, SourceRecord, Verdict};
use super::context::{self, Module};
use super::defect::Kind;
use super::legal::{chain_key, compose, form_source, legal_spellings, Legal};
use super::nearest::{agreed_rule, nearest};
use super::operands::{self, positions, Style};
use super::spelling::{every_spelling, Refusal, Spelling};
use super::text::tokenize;

/// The ptxas release whose targets a mutation's module must lie in.
pub const CHECK_PTXAS: &str = "13.5";

struct Mutant {
    tag: String,
    quals: Vec<String>,
    ops: Vec<String>,
    kind: Kind,
    rule: RuleId,
    module: Option<Module>,
    source: SourceRecord,
    /// The legal spelling it was made from (an index into the line's legal
    /// spellings; 0, the first, unless a qualifier mutation searched further) and
    /// the style its operands are written in.
    from: (usize, Style),
}

fn mutant(tag: impl Into<String>, quals: Vec<String>, ops: Vec<String>, kind: Kind, rule: impl Into<RuleId>, source: SourceRecord) -> Mutant {
    Mutant {
        tag: tag.into(),
        quals,
        ops,
        kind,
        rule: rule.into(),
        module: None,
        source,
        from: (0, Style::Registers),
    }
}

fn ptxas_says(msg: &str) -> SourceRecord {
    SourceRecord {
        cite: format!("ptxas {CHECK_PTXAS}"),
        quote: Some(msg.to_owned()),
    }
}

/// Every legal qualifier multiset of an instruction, sorted: what a mutation must avoid.
fn legal_sets(spec: &Spec, instruction: &Instruction) -> BTreeSet<Vec<Qualifier>> {
    instruction
        .forms()
        .flat_map(|(_, f)| legal_spellings(spec, instruction, &f.id))
        .map(|l| {
            let mut q = l.spelling.qualifiers();
            q.sort();
            q
        })
        .collect()
}

fn is_legal_set(sets: &BTreeSet<Vec<Qualifier>>, quals: &[String]) -> bool {
    let mut parsed: Vec<Qualifier> = match quals.iter().map(|q| q.parse()).collect() {
        Ok(p) => p,
        Err(_) => return false,
    };
    parsed.sort();
    sets.contains(&parsed)
}

/// The illegal cases of one instruction.
pub fn illegal_cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let sets = legal_sets(spec, instruction);
    let vocabulary: BTreeSet<Qualifier> = instruction
        .forms()
        .flat_map(|(g, f)| f.possible_qualifiers(g))
        .collect();
    let mut out = Vec::new();
    let mut first_form = true;
    for (group, form) in instruction.forms() {
        let legal = legal_spellings(spec, instruction, &form.id);
        let Some(base) = legal.first() else { continue };
        let mut muts = Vec::new();
        qualifier_mutants(instruction, &legal, group, form, &vocabulary, &sets, &mut muts);
        operand_mutants(base, &mut muts);
        // The qualifier without its operand, and the operand that only that
        // qualifier allows (cache-policy) in another shape or class, need a base
        // that writes the qualifier.
        let needs_operand: Vec<Qualifier> = form.operands.values().filter_map(|o| o.required_by).collect();
        if let Some(with) = legal.iter().find(|l| needs_operand.iter().any(|q| l.spelling.qualifiers().contains(q))) {
            if !std::ptr::eq(with, base) {
                let base_quals = base.spelling.qualifiers();
                let only_with: Vec<String> = positions(&with.spelling)
                    .iter()
                    .filter(|p| p.optional && p.spec.requires.is_some_and(|q| !base_quals.contains(&q)))
                    .map(|p| format!(":{}", p.name))
                    .collect();
                let mut extra = Vec::new();
                operand_mutants(with, &mut extra);
                let about_it = |m: &Mutant| {
                    m.rule == RuleId::Operand(OperandRule::RequiredBy)
                        || (m.quals == spelled(&with.spelling)
                            && matches!(m.rule, RuleId::Operand(OperandRule::Shape | OperandRule::Class))
                            && only_with.iter().any(|n| m.tag.ends_with(n.as_str())))
                };
                muts.extend(extra.into_iter().filter(about_it).map(|mut m| {
                    m.module = with.needs.0.iter().find_map(|n| context::checkable(&spec.targets, n, CHECK_PTXAS));
                    m.tag = format!("{}:{}", m.tag, chain_key(&with.spelling));
                    m.quals = spelled(&with.spelling);
                    m
                }));
            }
        }
        if first_form {
            foreign_mutants(spec, instruction, base, &vocabulary, &mut muts);
            first_form = false;
        }
        // Only qualifier mutations change the chain; operand mutations (also those on
        // a base that writes an optional qualifier) keep it legal.
        let base_quals = spelled(&base.spelling);
        muts.retain(|m| m.quals == base_quals || m.from.0 != 0 || matches!(m.rule, RuleId::Operand(_)) || kept(instruction, form, &sets, m));
        muts.extend(refused_mutants(spec, instruction, group, form));
        table_column_mutants(instruction, form, &legal, &mut muts);
        forbid_across_mutants(instruction, base, &mut muts);
        muts.extend(requirement_mutants(spec, &legal));
        for m in muts {
            if let Some(case) = to_case(spec, instruction, form, &legal, m) {
                out.push(case);
            }
        }
    }
    // Ids must be unique: a second case with the same id gets a counter.
    let mut seen = BTreeSet::new();
    for c in &mut out {
        let mut n = 1;
        let stem = c.id.clone();
        while !seen.insert(c.id.clone()) {
            n += 1;
            c.id = format!("{stem}~{n}");
        }
    }
    out
}

/// The rules a single change to a line's qualifiers can be named by (a position
/// left empty, given a value outside its set, an extra qualifier, a table column
/// moved), and those a table or forbid rule gives its own spellings: what the
/// search behind the illegal cases reaches. The coverage matrix holds these
/// classes meaningful for the line.
pub fn qualifier_rules(spec: &Spec, instruction: &Instruction, form_id: &str) -> BTreeSet<RuleId> {
    let Some((group, form)) = instruction.form(form_id) else {
        return BTreeSet::new();
    };
    let legal = legal_spellings(spec, instruction, form_id);
    let sets = legal_sets(spec, instruction);
    let vocabulary: BTreeSet<Qualifier> = instruction
        .forms()
        .flat_map(|(g, f)| f.possible_qualifiers(g))
        .collect();
    let mut muts = Vec::new();
    qualifier_mutants(instruction, &legal, group, form, &vocabulary, &sets, &mut muts);
    muts.extend(refused_mutants(spec, instruction, group, form));
    table_column_mutants(instruction, form, &legal, &mut muts);
    muts.into_iter().map(|m| m.rule).collect()
}

/// A qualifier mutation is kept when its qualifiers are no legal spelling of any
/// line and its rule is unambiguous.
fn kept(instruction: &Instruction, form: &Form, sets: &BTreeSet<Vec<Qualifier>>, m: &Mutant) -> bool {
    !is_legal_set(sets, &m.quals) && unambiguous(instruction, form, m)
}

/// A qualifier mutation names the rule of its own syntax line; keep it only when
/// that line is among the nearest to the result (operands counted,
/// `syntax::nearest`), every nearest line names that same rule, and no line reads
/// it exactly, so that its rule is unambiguous. `red.add.noftz [%rd1], %h1;` is the
/// `.f16` and the `.bf16` line each without its type: either way
/// `qualifier.required`. A mutation that reads exactly as another line is made by
/// [`elsewhere`] instead.
fn unambiguous(instruction: &Instruction, form: &Form, m: &Mutant) -> bool {
    let about_lines = matches!(
        m.rule,
        RuleId::Set(_) | RuleId::Qualifier(QualifierRule::Extra | QualifierRule::Required | QualifierRule::Missing)
    );
    if !about_lines {
        return true;
    }
    let Ok(quals) = m.quals.iter().map(|q| q.parse()).collect::<Result<Vec<Qualifier>, _>>() else {
        return true;
    };
    // A combination that a table or rule rules out across lines is named by that
    // table or rule, not by the nearest line.
    if across::table_refusal(instruction, &quals).is_some() || across::forbidden(instruction, &quals).is_some() {
        return false;
    }
    let Ok(text) = tokenize(&compose("x", &m.ops)) else { return false };
    agreed_rule(instruction, &quals, &text.operands).is_some_and(|(rule, forms)| rule == m.rule && forms.contains(&form.id))
}

/// The defect of qualifiers that a line reads exactly, with these operands: the
/// operands that do not fit it, or the table or forbid rule that refuses the
/// spelling (what `check-syntax` names before any version or target). `None` when
/// no line reads them exactly, or the reading is allowed.
fn elsewhere(instruction: &Instruction, quals: &[Qualifier], ops: &[String]) -> Option<(RuleId, SourceRecord)> {
    let written = tokenize(&compose("x", ops)).ok()?.operands;
    let near = nearest(instruction, quals, &written);
    let line = near.lines.first().filter(|_| near.cost == 0)?;
    let s = Spelling {
        instruction,
        group: line.group,
        form: line.form,
        slots: line.fit.placed.iter().map(|p| p.map(|i| quals[i])).collect(),
    };
    if let Err(d) = operands::check(&s, &written) {
        return Some((d.rule.into(), form_source(instruction, line.form)));
    }
    match s.refusal()? {
        Refusal::Table(id) => Some((RuleId::Table(id.to_owned()), table_source(instruction, id))),
        Refusal::Forbidden(r) => Some((RuleId::Spec(r.id.clone()), SourceRecord::of(&r.source))),
    }
}

/// The legal spellings a qualifier mutation may start from, in the order tried: the
/// line's first, then for each position and value the first spelling that holds it.
fn representatives(legal: &[Legal<'_>]) -> Vec<usize> {
    let mut out = vec![0];
    let slots = legal.first().map_or(0, |l| l.spelling.slots.len());
    for k in 0..slots {
        let mut values: Vec<Qualifier> = Vec::new();
        for (i, l) in legal.iter().enumerate() {
            let Some(v) = l.spelling.slots[k] else { continue };
            if !values.contains(&v) {
                values.push(v);
                if !out.contains(&i) {
                    out.push(i);
                }
            }
        }
    }
    out
}

fn to_case(spec: &Spec, instruction: &Instruction, form: &Form, legal: &[Legal<'_>], m: Mutant) -> Option<Case> {
    let base = legal.get(m.from.0)?;
    let module = match m.module {
        Some(md) => md,
        None => base
            .needs
            .0
            .iter()
            .find_map(|n| context::checkable(&spec.targets, n, CHECK_PTXAS))
            .or_else(|| base.needs.0.first().and_then(|n| context::minimum(&spec.targets, n)))?,
    };
    // A first qualifier that is the mnemonic's infix stands inside the opcode
    // (`bar.cta.red`), as the legal spelling writes it.
    let chain = form.syntax.mnemonic.chain(&m.quals);
    Some(Case {
        id: format!("{}/{}/{}!{}", instruction.instruction, form.id, chain_key(&base.spelling), m.tag),
        instruction: instruction.instruction.clone(),
        form: form.id.clone(),
        text: compose(&chain, &m.ops),
        verdict: Verdict::Illegal,
        kind: Some(m.kind),
        rule: Some(m.rule),
        ptx: module.ptx.to_string(),
        target: module.target.to_string(),
        requires: need_records(&base.needs),
        removed: None,
        noncanonical: false,
        base: Some(format!("{}/{}/{}/{}", instruction.instruction, form.id, chain_key(&base.spelling), m.from.1.tag())),
        source: m.source,
    })
}

fn spelled(s: &Spelling<'_>) -> Vec<String> {
    s.qualifiers().iter().map(|q| q.spelling().to_owned()).collect()
}

/// One change to a line's qualifiers.
#[derive(Clone, Copy)]
enum Change {
    /// The required position `k` left empty.
    Omit(usize),
    /// The placeholder at position `k` given a value of its kind outside its set.
    Replace(usize, Qualifier),
    /// A qualifier the line has no position for, before the last.
    Extra(Qualifier),
}

/// Mutations of the qualifier chain within the instruction's own vocabulary. The
/// unknown word and the duplicate are made from the line's first legal spelling;
/// each other change from the first representative spelling (in registers, or
/// with the optional `|p` written) for which it is one unambiguous defect, so that
/// the operands or the spelling can tell two lines apart where the qualifiers alone
/// do not (`match.sync.b32 %r1|%p1, ...` is `.all` without its mode).
fn qualifier_mutants(
    instruction: &Instruction,
    legal: &[Legal<'_>],
    group: &SyntaxGroup,
    form: &Form,
    vocabulary: &BTreeSet<Qualifier>,
    sets: &BTreeSet<Vec<Qualifier>>,
    out: &mut Vec<Mutant>,
) {
    let Some(base) = legal.first() else { return };
    let s = &base.spelling;
    let quals = spelled(s);
    let ops = operands::render(s, Style::Registers);
    let src = form_source(s.instruction, form);
    // An unknown word: the last qualifier with its last letter doubled.
    if let Some(last) = quals.last() {
        let typo = format!("{last}{}", last.chars().last().unwrap_or('x'));
        if typo.parse::<Qualifier>().is_err() {
            let mut q = quals.clone();
            let n = q.len() - 1;
            q[n] = typo;
            out.push(mutant("syntax.unknown_qualifier", q, ops.clone(), Kind::Malformed, SyntaxRule::UnknownQualifier, ptxas_says("Unknown modifier")));
        }
        let mut q = quals.clone();
        q.push(last.clone());
        out.push(mutant("qualifier.duplicate", q, ops.clone(), Kind::Invalid, QualifierRule::Duplicate, src.clone()));
    }
    let mut changes = Vec::new();
    for (k, slot) in form.syntax.slots.iter().enumerate() {
        if !slot.optional {
            changes.push(Change::Omit(k));
        }
        let SlotToken::Placeholder(p) = &slot.token else { continue };
        let Some(set) = group.sets.get(p) else { continue };
        let kinds: BTreeSet<_> = set.values.iter().map(|v| v.kind()).collect();
        for other in vocabulary.iter().filter(|o| kinds.contains(&o.kind()) && !set.values.contains(o)) {
            changes.push(Change::Replace(k, *other));
        }
    }
    let possible = form.possible_qualifiers(group);
    for extra in vocabulary.iter().filter(|q| !possible.contains(q)) {
        changes.push(Change::Extra(*extra));
    }
    let tries: Vec<(usize, Style)> = representatives(legal)
        .into_iter()
        .flat_map(|i| [(i, Style::Registers), (i, Style::WithPair)])
        .filter(|(i, style)| operands::style_applies(&legal[*i].spelling, *style))
        .collect();
    for change in changes {
        // A change of an optional position needs a spelling that writes it: the
        // first legal one, where no representative does (red.async's `{.ss}`, which
        // changes no value).
        let slot = match change {
            Change::Omit(k) | Change::Replace(k, _) => Some(k),
            Change::Extra(_) => None,
        };
        let writing = slot
            .and_then(|k| legal.iter().position(|l| l.spelling.slots[k].is_some()))
            .filter(|i| !tries.iter().any(|(t, _)| t == i))
            .map(|i| (i, Style::Registers));
        let made = tries.iter().copied().chain(writing).find_map(|(i, style)| {
            let m = change_mutant(instruction, &legal[i], form, change, style, &src)?;
            let m = Mutant { from: (i, style), ..m };
            let own_line = matches!(m.rule, RuleId::Set(_) | RuleId::Qualifier(_));
            (!own_line || kept(instruction, form, sets, &m)).then_some(m)
        });
        out.extend(made);
    }
}

/// One change applied to one legal spelling, named by the rule it breaks: the
/// line's own (`qualifier.required`, `qualifier.missing`, `set.<name>`,
/// `qualifier.extra`), or, for an omission that another line reads exactly, that
/// reading's defect (`red.global.add.f32 [%rd1], {%f1, %f2};`: the scalar line with
/// a vector operand, `operand.shape`), tagged `<rule>:without:<value>`.
fn change_mutant(
    instruction: &Instruction,
    l: &Legal<'_>,
    form: &Form,
    change: Change,
    style: Style,
    src: &SourceRecord,
) -> Option<Mutant> {
    let s = &l.spelling;
    let ops = operands::render(s, style);
    // The index of position `k` among the qualifiers written.
    let written_at = |k: usize| s.slots[..k].iter().flatten().count();
    let mut quals = spelled(s);
    match change {
        Change::Omit(k) => {
            let v = s.slots[k]?;
            quals.remove(written_at(k));
            let parsed: Vec<Qualifier> = quals.iter().filter_map(|q| q.parse().ok()).collect();
            if let Some((rule, source)) = elsewhere(instruction, &parsed, &ops) {
                return Some(mutant(format!("{rule}:without:{v}"), quals, ops, Kind::Invalid, rule, source));
            }
            let rule = RuleId::Qualifier(match form.syntax.slots[k].token {
                SlotToken::Fixed(_) => QualifierRule::Required,
                SlotToken::Placeholder(_) => QualifierRule::Missing,
            });
            Some(mutant(format!("{rule}:{v}"), quals, ops, Kind::Invalid, rule, src.clone()))
        }
        Change::Replace(k, other) => {
            let v = s.slots[k]?;
            let SlotToken::Placeholder(p) = &form.syntax.slots[k].token else { return None };
            if s.qualifiers().contains(&other) || other.kind() != v.kind() {
                return None;
            }
            quals[written_at(k)] = other.spelling().to_owned();
            Some(mutant(format!("set.{p}:{other}"), quals, ops, Kind::Invalid, RuleId::Set(p.to_string()), src.clone()))
        }
        Change::Extra(extra) => {
            let at = quals.len().saturating_sub(1);
            quals.insert(at, extra.spelling().to_owned());
            Some(mutant(format!("qualifier.extra:{extra}"), quals, ops, Kind::Invalid, QualifierRule::Extra, src.clone()))
        }
    }
}

/// How many qualifiers of each kind the foreign mutants put to an instruction: the
/// most any kind of the first 14 instructions had (17 types), so that every kind
/// shows while the illegal cases grow linearly with the instructions, not with
/// instructions times the vocabulary.
pub const FOREIGN_PER_KIND: usize = 17;

/// The qualifiers the foreign mutants draw on: per kind, the first
/// [`FOREIGN_PER_KIND`] in vocabulary order of those code names and those some
/// instruction of the spec takes ([`known_vocabulary`]).
pub fn foreign_pool(spec: &Spec) -> Vec<Qualifier> {
    let mut per_kind: std::collections::BTreeMap<ptxvec_spec::QualKind, usize> = std::collections::BTreeMap::new();
    known_vocabulary(spec)
        .into_iter()
        .filter(|q| {
            let n = per_kind.entry(q.kind()).or_default();
            *n += 1;
            *n <= FOREIGN_PER_KIND
        })
        .collect()
}

/// The spec's vocabulary in its order: the qualifiers code names, and every one an
/// instruction of `spec` takes (not those another spec loaded in the same process
/// declared).
pub fn known_vocabulary(spec: &Spec) -> Vec<Qualifier> {
    let used: BTreeSet<Qualifier> = spec
        .instructions
        .iter()
        .flat_map(|f| f.instruction.forms().flat_map(|(g, form)| form.possible_qualifiers(g)))
        .collect();
    Qualifier::all().into_iter().filter(|q| q.named_in_code() || used.contains(q)).collect()
}

/// Qualifiers PTX knows but the instruction does not take, and module-level defects.
fn foreign_mutants(spec: &Spec, instruction: &Instruction, base: &Legal<'_>, vocabulary: &BTreeSet<Qualifier>, out: &mut Vec<Mutant>) {
    let s = &base.spelling;
    let quals = spelled(s);
    let ops = operands::render(s, Style::Registers);
    // A word that makes the chain another instruction's (`.sync` turns the non-sync
    // `vote` into `vote.sync`, which ptxas reads it as) is no foreign qualifier.
    let mnemonic = s.form.syntax.mnemonic;
    let renames = |q: &Qualifier| {
        spec.instructions.iter().map(|f| f.instruction.mnemonic).any(|m| {
            m != mnemonic
                && m.opcode() == mnemonic.opcode()
                && m.spelling().split('.').skip(m.opcode().split('.').count()).any(|own| format!(".{own}") == q.spelling())
        })
    };
    for foreign in foreign_pool(spec).iter().filter(|q| !vocabulary.contains(q) && !renames(q)) {
        let mut q = quals.clone();
        let at = q.len().saturating_sub(1);
        q.insert(at, foreign.spelling().to_owned());
        out.push(mutant(
            format!("qualifier.not_allowed:{foreign}"),
            q,
            ops.clone(),
            Kind::Invalid,
            QualifierRule::NotAllowed,
            SourceRecord::text(format!("{}: no syntax line of {} has `{foreign}`", form_cite(instruction), instruction.instruction)),
        ));
    }
}

fn form_cite(instruction: &Instruction) -> String {
    instruction.sources.first().map_or_else(String::new, ToString::to_string)
}

/// Mutations of the operands.
fn operand_mutants(base: &Legal<'_>, out: &mut Vec<Mutant>) {
    let s = &base.spelling;
    let quals = spelled(s);
    // Every position written, so that the operand at index `i` is position `i`'s.
    let every = if operands::style_applies(s, Style::WithOptional) { Style::WithOptional } else { Style::Registers };
    let ops = operands::render(s, every);
    let ps = positions(s);
    let src = form_source(s.instruction, s.form);
    let m = |tag: &str, ops: Vec<String>, kind: Kind, rule: RuleId, src: SourceRecord| mutant(tag, quals.clone(), ops, kind, rule, src);
    if let Some(last) = ops.len().checked_sub(1) {
        let mut fewer = ops.clone();
        fewer.remove(last);
        if ps.iter().filter(|p| !p.optional).count() > fewer.len() {
            out.push(m("operand.count:fewer", fewer, Kind::Invalid, OperandRule::Count.into(), src.clone()));
        }
    }
    if ops.len() == ps.len() {
        let mut more = ops.clone();
        more.push("%r9".into());
        out.push(m("operand.count:more", more, Kind::Invalid, OperandRule::Count.into(), src.clone()));
    }
    // A missing comma: text that does not tokenize.
    if ops.len() >= 2 {
        let mut joined = ops.clone();
        let second = joined.remove(1);
        joined[0] = format!("{} {second}", joined[0]);
        out.push(m("syntax.parse", joined, Kind::Malformed, SyntaxRule::Parse.into(), ptxas_says("Parsing error ... syntax error")));
    }
    for (i, p) in ps.iter().enumerate() {
        let Some(whole) = ops.get(i) else { continue };
        // A pair the syntax requires (`d|p`) keeps its `|p` while `d` is mutated, so
        // that each mutant has one defect; the pair itself is mutated below.
        let (written, tail) = match (&p.pair, whole.split_once('|')) {
            (Some((_, false)), Some((d, q))) => (d, format!("|{q}")),
            _ => (whole.as_str(), String::new()),
        };
        let with_whole = |text: &str| {
            let mut o = ops.clone();
            o[i] = text.to_owned();
            o
        };
        let with = |text: &str| with_whole(&format!("{text}{tail}"));
        // A required pair cannot hold an address, a vector or an immediate as `d`
        // and still be one defect: ptxas 13.5 reads `[%rd9]|%p1` and `1|%p1` as
        // syntax errors, the general grammar `{%r1, %r1}|%p1` too.
        let paired = !tail.is_empty();
        if let Some((q, false)) = &p.pair {
            out.push(m(&format!("operand.shape:pair_missing:{}", p.name), with_whole(written), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Predicate output expected")));
            if !q.spec.sink {
                out.push(m(&format!("operand.sink:{}", q.name), with_whole(&format!("{written}|_")), Kind::Invalid, OperandRule::Sink.into(), ptxas_says("Predicate output expected")));
            }
        }
        let tag = |what: &str| format!("{what}:{}", p.name);
        match p.class {
            None => {
                out.push(m(&tag("operand.shape"), with("%rd9"), Kind::Invalid, OperandRule::Shape.into(), src.clone()));
                out.push(m(&tag("operand.class"), with("[%f9]"), Kind::Invalid, OperandRule::Class.into(), ptxas_says("Illegal to use symbol '%f9' of type .f32 as address operand. Use integer or bit only.")));
                out.push(m(&tag("operand.address"), with("[256]"), Kind::Invalid, OperandRule::Address.into(), ptxas_says("Immediate addresses allowed only for .local state space")));
                if let Some(n) = operands::narrow_refused(s, p.spec) {
                    let reg = match operands::narrow_class(n) {
                        super::text::RegClass::B16 => "[%h9]",
                        _ => "[%r9]",
                    };
                    out.push(m(&tag("operand.address_size"), with(reg), Kind::Invalid, OperandRule::AddressSize.into(), SourceRecord::of(&n.source)));
                }
            }
            Some(class) => {
                if !paired {
                    out.push(m(&tag("operand.shape"), with("[%rd9]"), Kind::Invalid, OperandRule::Shape.into(), src.clone()));
                }
                let wrong = match operands::reg_for(class) {
                    super::text::RegClass::B64 | super::text::RegClass::F64 => "%r9",
                    _ => "%rd9",
                };
                if let Some(n) = p.vector_len {
                    let elems: Vec<&str> = written.trim_matches(['{', '}']).split(", ").collect();
                    out.push(m(&tag("operand.shape:scalar"), with(elems[0]), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Vector expected for argument")));
                    let short = format!("{{{}}}", elems[..(n as usize - 1)].join(", "));
                    out.push(m(&tag("operand.shape:length"), with(&short), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Argument vector size mismatch")));
                    let mut bad = elems.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>();
                    bad[0] = wrong.to_owned();
                    out.push(m(&tag("operand.class"), with(&format!("{{{}}}", bad.join(", "))), Kind::Invalid, OperandRule::Class.into(), ptxas_says("Arguments mismatch")));
                    continue;
                }
                if !paired {
                    out.push(m(&tag("operand.shape:vector"), with(&format!("{{{written}, {written}}}")), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Vector operand is not allowed")));
                }
                out.push(m(&tag("operand.class"), with(wrong), Kind::Invalid, OperandRule::Class.into(), ptxas_says("Arguments mismatch")));
                if p.spec.dest && !paired {
                    out.push(m(&tag("operand.register_required"), with("1"), Kind::Invalid, OperandRule::RegisterRequired.into(), ptxas_says("Result register required")));
                }
                if p.spec.dest {
                    if !p.spec.sink {
                        out.push(m(&tag("operand.sink"), with("_"), Kind::Invalid, OperandRule::Sink.into(), ptxas_says("Result discard mode is not allowed")));
                    }
                    if p.pair.is_none() {
                        out.push(m(&tag("operand.shape:pair"), with(&format!("{written}|%p9")), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Predicate output not allowed")));
                    }
                } else {
                    out.push(m(&tag("operand.shape:sink"), with("_"), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Parsing error near '_': syntax error")));
                    if !p.negatable && class != Qualifier::Pred {
                        out.push(m(&tag("operand.shape:not"), with(&format!("!{written}")), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Illegal argument to predicate negation")));
                    }
                }
                if let Some(mult) = p.spec.multiple_of {
                    out.push(m(&tag("operand.multiple_of"), with(&(mult + mult / 2).to_string()), Kind::Invalid, OperandRule::MultipleOf.into(), p.spec.source.as_ref().map_or_else(|| src.clone(), SourceRecord::of)));
                }
                if let Some((q, _)) = &p.pair {
                    if p.spec.sink && q.spec.sink {
                        out.push(m(&tag("operand.shape:sinks"), with_whole("_|_"), Kind::Invalid, OperandRule::Shape.into(), ptxas_says("Parsing error near '_': syntax error")));
                    }
                }
            }
        }
    }
    // An optional operand without the qualifier it needs, and the qualifier without it.
    for p in ps.iter().filter(|p| p.optional) {
        let quals_now = s.qualifiers();
        let src = p.spec.source.as_ref().map_or_else(|| src.clone(), SourceRecord::of);
        match p.spec.requires {
            Some(q) if !quals_now.contains(&q) => {
                let mut more = ops.clone();
                more.push("%rd9".into());
                out.push(m(&format!("operand.requires:{}", p.name), more, Kind::Invalid, OperandRule::Requires.into(), src));
            }
            Some(_) => {
                let mut fewer = ops.clone();
                fewer.pop();
                out.push(m(&format!("operand.required_by:{}", p.name), fewer, Kind::Invalid, OperandRule::RequiredBy.into(), src));
            }
            None => {}
        }
    }
}

/// Spellings of the syntax line that a table or a forbid rule rules out, each
/// reduced to the fewest optional qualifiers that still break the same rule. A
/// chain another line reads and allows is no refusal: with this line's operands it
/// is that line's text with the wrong operands (`atom.cas.b32 %r1, [%rd1], %r2;`
/// lacks the `c` of the `.cas` line, whatever the line without `c` refuses).
fn refused_mutants(spec: &Spec, instruction: &Instruction, group: &SyntaxGroup, form: &Form) -> Vec<Mutant> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in every_spelling(instruction, group, form) {
        let Some(refusal) = s.refusal() else { continue };
        let minimal = reduce(&s, &refusal);
        let key = minimal.qualifiers();
        let allowed_elsewhere = super::judge::read_chain(instruction, &key)
            .is_ok_and(|readings| readings.iter().any(|(r, _)| r.refusal().is_none()));
        if allowed_elsewhere {
            continue;
        }
        if !seen.insert(key) {
            continue;
        }
        let (rule, source) = match &refusal {
            Refusal::Table(id) => (RuleId::Table(id.to_string()), table_source(instruction, id)),
            Refusal::Forbidden(r) => (RuleId::Spec(r.id.clone()), SourceRecord::of(&r.source)),
        };
        let ops = operands::render(&minimal, Style::Registers);
        let mut m = mutant(format!("{rule}:{}", chain_key(&minimal)), spelled(&minimal), ops, Kind::Invalid, rule, source);
        // Judged where its own version and target needs are met, so that the
        // refusal is its one defect.
        m.module = minimal
            .needs(&spec.targets)
            .0
            .iter()
            .find_map(|n| context::checkable(&spec.targets, n, CHECK_PTXAS));
        out.push(m);
    }
    out
}

fn table_source(instruction: &Instruction, id: &str) -> SourceRecord {
    let t = instruction.tables.iter().find(|t| t.id == id);
    t.and_then(|t| t.source.as_ref().map(SourceRecord::of))
        .unwrap_or_else(|| SourceRecord::text(format!("seed {}, table `{id}`", t.and_then(|t| t.seed.clone()).unwrap_or_default())))
}

/// For a table whose every refusal lies outside the syntax lines (red's
/// vector table), one position moved to another qualifier of its table column,
/// where the table has no entry for the result (`.v2` → `.v8` with `.f32`). Each
/// move (position, qualifier) is made once, from the first representative
/// spelling of the line where the table refuses it (`.min.noftz.v2.f16` →
/// `.f32`: the table's `.f32` column takes `.add` only). A table that refuses
/// spellings of its own forms gets its cases from `refused_mutants`; moving
/// across lines there would add second defects.
fn table_column_mutants(instruction: &Instruction, form: &Form, legal: &[Legal<'_>], out: &mut Vec<Mutant>) {
    let reps = representatives(legal);
    for table in instruction.tables.iter().filter(|t| t.forms.contains(&form.id) && across::only_across(instruction, t)) {
        let cols = across::columns(table);
        let mut done: BTreeSet<(usize, Qualifier)> = BTreeSet::new();
        for &i in &reps {
            let s = &legal[i].spelling;
            for (k, value) in s.slots.iter().enumerate() {
                let Some(v) = value else { continue };
                let Some(col) = cols.iter().find(|c| c.contains(v)) else { continue };
                for other in col.iter().filter(|o| *o != v) {
                    if done.contains(&(k, *other)) {
                        continue;
                    }
                    let mut slots = s.slots.clone();
                    slots[k] = Some(*other);
                    let trial = Spelling { slots, ..s.clone() };
                    let quals = trial.qualifiers();
                    let Some((t, _)) = across::table_refusal(instruction, &quals) else { continue };
                    // Read on whichever of the table's forms comes first; the case
                    // stays with the base it was made from.
                    if t.id != table.id {
                        continue;
                    }
                    done.insert((k, *other));
                    let mut m = mutant(
                        format!("table.{}:{}", table.id, chain_key(&trial)),
                        spelled(&trial),
                        operands::render(&trial, Style::Registers),
                        Kind::Invalid,
                        RuleId::Table(table.id.clone()),
                        table_source(instruction, &table.id),
                    );
                    m.from = (i, Style::Registers);
                    out.push(m);
                }
            }
        }
    }
}

/// Forbid rules that name no form and that the base misses by one qualifier: the
/// qualifier added, in place of the base's qualifier of the same kind if it has
/// one (`red.global.v2.f32.add` → `red.shared.v2.f32.add`).
fn forbid_across_mutants(instruction: &Instruction, base: &Legal<'_>, out: &mut Vec<Mutant>) {
    let quals = base.spelling.qualifiers();
    for rule in instruction.rules.iter().filter(|r| matches!(r.effect, Effect::Forbid(_)) && r.forms.is_none()) {
        let unmet: Vec<_> = rule.when.iter().filter(|g| !g.0.iter().any(|q| quals.contains(q))).collect();
        let ([group], false) = (unmet.as_slice(), rule.unless.iter().any(|q| quals.contains(q))) else { continue };
        let Some(&add) = group.0.first() else { continue };
        let mut q = quals.clone();
        match q.iter().position(|w| w.kind() == add.kind()) {
            Some(i) => q[i] = add,
            None => q.insert(0, add),
        }
        if across::forbidden(instruction, &q).map(|r| r.id.as_str()) != Some(rule.id.as_str()) {
            continue;
        }
        out.push(mutant(
            format!("{}:{add}", rule.id),
            q.iter().map(|x| x.spelling().to_owned()).collect(),
            operands::render(&base.spelling, Style::Registers),
            Kind::Invalid,
            RuleId::Spec(rule.id.clone()),
            SourceRecord::of(&rule.source),
        ));
    }
}

fn reduce<'s>(s: &Spelling<'s>, refusal: &Refusal<'s>) -> Spelling<'s> {
    let mut cur = s.clone();
    for k in 0..cur.slots.len() {
        if !cur.form.syntax.slots[k].optional || cur.slots[k].is_none() {
            continue;
        }
        let mut trial = cur.clone();
        trial.slots[k] = None;
        if trial.refusal().as_ref() == Some(refusal) {
            cur = trial;
        }
    }
    cur
}

/// Spelling `s` in `module`, which rule `rule` refuses it in (`what`: `version`,
/// `target`, `removed`).
fn module_mutant(s: &Spelling<'_>, rule: &ptxvec_spec::model::Rule, what: &str, module: Module) -> Mutant {
    let mut m = mutant(
        format!("{}:{what}:{}@{}", rule.id, module.target, module.ptx),
        spelled(s),
        operands::render(s, Style::Registers),
        Kind::Invalid,
        RuleId::Spec(rule.id.clone()),
        SourceRecord::of(&rule.source),
    );
    m.module = Some(module);
    m
}

/// For each version-and-target rule, the first legal spelling it binds, judged one
/// version below and on the nearest targets outside.
fn requirement_mutants(spec: &Spec, legal: &[Legal<'_>]) -> Vec<Mutant> {
    let model = &spec.targets;
    let mut out = Vec::new();
    let mut done_version = BTreeSet::new();
    let mut done_target = BTreeSet::new();
    for l in legal {
        let s = &l.spelling;
        for need in &l.needs.0 {
            let Some(min) = context::minimum(model, need) else { continue };
            let mut probes: Vec<(Module, &str)> = Vec::new();
            if let Some(below) = context::version_below(model, min) {
                probes.push((below, "version"));
            }
            for m in context::outside(model, need) {
                probes.push((m, "target"));
            }
            for (module, what) in probes {
                if l.needs.met_by(model, module.ptx, module.target) {
                    continue;
                }
                let Some(rule) = s.unmet_rule(model, module.ptx, module.target) else { continue };
                let key = (rule.id.clone(), what, module.target.variant);
                let done = if what == "version" { &mut done_version } else { &mut done_target };
                if !done.insert(key) {
                    continue;
                }
                out.push(module_mutant(s, rule, what, module));
            }
        }
        // A withdrawal (non-sync `vote` from PTX ISA 6.4 on sm_70): the first
        // spelling it binds, in the first module of the withdrawal.
        if let Some((rule, at)) = s.removal() {
            let need = crate::syntax::needs::Need { ptx: at.ptx.unwrap_or(PtxVersion { major: 1, minor: 0 }), target: at.target };
            if let Some(module) = context::minimum(model, &need) {
                if done_version.insert((rule.id.clone(), "removed", module.target.variant)) {
                    out.push(module_mutant(s, rule, "removed", module));
                }
            }
        }
    }
    out
}
