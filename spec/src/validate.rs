//! The second pass: each part of the spec checked against the others.
//!
//! Every check runs and every problem is returned, each with the serde path of the
//! node at fault; the loader turns paths into lines and columns.

use std::collections::BTreeSet;

use crate::errata::{ElementAs, Ledger, Reading, Written};
use crate::model::{AnyOf, Instruction, OperandClass, TableKind};
use crate::qualifier::{QualKind, Qualifier};
use crate::source::Source;
use crate::target::{TargetModel, Variant};
use crate::template::{OperandShape, SlotToken};

/// A problem: the serde path of the node at fault, and what is wrong.
pub(crate) type Problem = (String, String);

/// What an instruction file is checked against.
pub(crate) struct Context<'a> {
    /// Seed numbers present in spec/seeds.
    pub seeds: &'a BTreeSet<String>,
    /// Ids in the errata ledger.
    pub errata: &'a BTreeSet<String>,
    /// The target model.
    pub targets: &'a TargetModel,
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push((path.into(), message.into()));
    }

    fn seed(&mut self, cx: &Context<'_>, path: String, seed: &str) {
        if !cx.seeds.contains(seed) {
            let known: Vec<&str> = cx.seeds.iter().map(String::as_str).collect();
            self.push(
                path,
                format!(
                    "unknown seed `{seed}` (expected one of {})",
                    known.join(", ")
                ),
            );
        }
    }

    fn source(&mut self, cx: &Context<'_>, path: String, source: &Source) {
        if let Some(seed) = source.seed() {
            self.seed(cx, path, seed);
        }
    }

    fn errata(&mut self, cx: &Context<'_>, path: &str, ids: &[String]) {
        for (i, id) in ids.iter().enumerate() {
            if !cx.errata.contains(id) {
                self.push(
                    format!("{path}.errata[{i}]"),
                    format!("unknown erratum `{id}`: spec/errata.yaml has no such id"),
                );
            }
        }
    }

    fn unique<'a>(&mut self, what: &str, items: impl Iterator<Item = (String, &'a str)>) {
        let mut seen = BTreeSet::new();
        for (path, id) in items {
            if !seen.insert(id) {
                self.push(path, format!("duplicate {what} id `{id}`"));
            }
        }
    }
}

/// Whether a name has the form of a PTX mnemonic (`red`, `cp.reduce.async.bulk`):
/// it names files under vectors/, so no `/`, no `..`, nothing empty.
fn is_instruction_name(name: &str) -> bool {
    name.split('.')
        .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}

/// Checks one instruction file.
pub(crate) fn instruction(ins: &Instruction, cx: &Context<'_>) -> Vec<Problem> {
    let mut p = Problems::default();
    if !is_instruction_name(&ins.instruction) {
        p.push(
            "instruction",
            format!(
                "`{}` is not an instruction name (expected words of letters, digits and `_` joined by single dots, such as `match.sync`); the name becomes a file name under vectors/",
                ins.instruction
            ),
        );
    }
    for (i, s) in ins.sources.iter().enumerate() {
        p.source(cx, format!("sources[{i}]"), s);
    }
    p.unique(
        "form",
        ins.syntax.iter().enumerate().flat_map(|(g, grp)| {
            grp.forms
                .iter()
                .enumerate()
                .map(move |(f, form)| (format!("syntax[{g}].forms[{f}].id"), form.id.as_str()))
        }),
    );
    syntax_groups(ins, cx, &mut p);
    let form_ids: BTreeSet<&str> = ins.forms().map(|(_, f)| f.id.as_str()).collect();
    // The qualifiers some form in `forms` (all forms if None) can hold.
    let possible = |forms: Option<&[String]>| -> BTreeSet<Qualifier> {
        ins.forms()
            .filter(|(_, f)| forms.is_none_or(|fs| fs.contains(&f.id)))
            .flat_map(|(g, f)| f.possible_qualifiers(g))
            .collect()
    };
    let check_forms = |p: &mut Problems, path: String, forms: &[String]| {
        for (i, f) in forms.iter().enumerate() {
            if !form_ids.contains(f.as_str()) {
                let known: Vec<&str> = form_ids.iter().copied().collect();
                p.push(
                    format!("{path}[{i}]"),
                    format!("unknown form `{f}` (expected one of {})", known.join(", ")),
                );
            }
        }
    };
    // `path` is the node holding `when` and `unless`; `when` names the list within it
    // (`.when` for rules and notes, empty for a table entry, which is itself the list).
    let check_quals = |p: &mut Problems,
                       path: String,
                       when_key: &str,
                       when: &[AnyOf],
                       unless: &[Qualifier],
                       can: &BTreeSet<Qualifier>| {
        let group_path = |i: usize| format!("{path}{when_key}[{i}]");
        for (i, g) in when.iter().enumerate() {
            for q in &g.0 {
                if !can.contains(q) {
                    p.push(
                        group_path(i),
                        format!("no form it applies to can hold `{q}`, so this can never match"),
                    );
                }
            }
        }
        for (i, q) in unless.iter().enumerate() {
            if !can.contains(q) {
                p.push(
                    format!("{path}.unless[{i}]"),
                    format!("no form it applies to can hold `{q}`"),
                );
            }
        }
    };

    p.unique(
        "rule",
        ins.rules
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("rules[{i}].id"), r.id.as_str())),
    );
    for (i, r) in ins.rules.iter().enumerate() {
        let path = format!("rules[{i}]");
        if let Some(fs) = &r.forms {
            check_forms(&mut p, format!("{path}.forms"), fs);
        }
        check_quals(
            &mut p,
            path.clone(),
            ".when",
            &r.when,
            &r.unless,
            &possible(r.forms.as_deref()),
        );
        let named: Vec<(String, &crate::model::Requirement)> = match &r.effect {
            crate::model::Effect::Requires(reqs) => reqs
                .iter()
                .enumerate()
                .map(|(j, req)| (format!("{path}.requires[{j}].target"), req))
                .collect(),
            crate::model::Effect::Removed(req) => vec![(format!("{path}.removed.target"), req)],
            crate::model::Effect::Forbid(_) => Vec::new(),
        };
        for (at, req) in named {
            if let Some(t) = req.target {
                if cx.targets.info(t).is_none() {
                    p.push(at, format!("{t} is not in spec/targets.yaml"));
                }
            }
        }
        p.source(cx, format!("{path}.source"), &r.source);
        p.errata(cx, &path, &r.errata);
    }

    p.unique(
        "table",
        ins.tables
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("tables[{i}].id"), t.id.as_str())),
    );
    for (i, t) in ins.tables.iter().enumerate() {
        let path = format!("tables[{i}]");
        match (&t.seed, &t.doc_header, &t.source) {
            (Some(seed), Some(_), None) => {
                p.seed(cx, format!("{path}.seed"), seed);
                for (r, row) in t.rows.iter().enumerate() {
                    if row.doc.is_none() {
                        p.push(format!("{path}.rows[{r}]"), "a row of a seed's table quotes it in `doc`");
                    }
                }
            }
            (None, None, Some(source)) => {
                p.source(cx, format!("{path}.source"), source);
                for (r, row) in t.rows.iter().enumerate() {
                    if row.doc.is_some() {
                        p.push(format!("{path}.rows[{r}].doc"), "a table derived from prose has no verbatim rows");
                    }
                }
            }
            _ => p.push(
                path.clone(),
                "a table is either a seed's (`seed` and `doc_header`) or derived from prose (`source`)",
            ),
        }
        check_forms(&mut p, format!("{path}.forms"), &t.forms);
        let forms = if t.forms.is_empty() {
            None
        } else {
            Some(t.forms.as_slice())
        };
        let can = possible(forms);
        match t.kind {
            TableKind::Combinations if t.forms.is_empty() => {
                p.push(
                    format!("{path}.forms"),
                    "a combinations table names the forms it constrains",
                );
            }
            _ => {}
        }
        for (r, row) in t.rows.iter().enumerate() {
            let rp = format!("{path}.rows[{r}]");
            match t.kind {
                TableKind::Combinations => {
                    if row.entries.is_empty() && row.note.is_none() {
                        p.push(rp.clone(), "a combinations row holds `entries`, or a `note` saying why it has none");
                    }
                    if !row.keys.is_empty() {
                        p.push(
                            format!("{rp}.keys"),
                            "`keys` belong to descriptive tables; use `entries`",
                        );
                    }
                    for (e, entry) in row.entries.iter().enumerate() {
                        check_quals(&mut p, format!("{rp}.entries[{e}]"), "", entry, &[], &can);
                    }
                }
                TableKind::Descriptive => {
                    if !row.entries.is_empty() {
                        p.push(
                            format!("{rp}.entries"),
                            "`entries` belong to combinations tables; use `keys`",
                        );
                    }
                    for (k, q) in row.keys.iter().enumerate() {
                        if !can.contains(q) {
                            p.push(
                                format!("{rp}.keys[{k}]"),
                                format!("no form of {} can hold `{q}`", ins.instruction),
                            );
                        }
                    }
                }
            }
        }
        p.errata(cx, &path, &t.errata);
    }

    p.unique(
        "semantic note",
        ins.semantics
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("semantics[{i}].id"), s.id.as_str())),
    );
    for (i, s) in ins.semantics.iter().enumerate() {
        let path = format!("semantics[{i}]");
        if let Some(fs) = &s.forms {
            check_forms(&mut p, format!("{path}.forms"), fs);
        }
        check_quals(
            &mut p,
            path.clone(),
            ".when",
            &s.when,
            &s.unless,
            &possible(s.forms.as_deref()),
        );
        p.source(cx, format!("{path}.source"), &s.source);
    }

    for (i, e) in ins.examples.iter().enumerate() {
        let path = format!("examples[{i}]");
        if let Some(seed) = e.printed.seed() {
            p.seed(cx, format!("{path}.seed"), seed);
        }
        match (&e.form, e.context) {
            (Some(_), true) => p.push(
                format!("{path}.form"),
                "a context line instantiates no form",
            ),
            (None, false) => p.push(
                path.clone(),
                "an example names the `form` it instantiates, or is marked `context: true`",
            ),
            (Some(f), false) => {
                check_forms(&mut p, format!("{path}.form"), std::slice::from_ref(f))
            }
            (None, true) => {}
        }
        p.errata(cx, &path, &e.errata);
    }
    p.0
}

fn syntax_groups(ins: &Instruction, cx: &Context<'_>, p: &mut Problems) {
    for (g, group) in ins.syntax.iter().enumerate() {
        let gp = format!("syntax[{g}]");
        let mut used = BTreeSet::new();
        for (f, form) in group.forms.iter().enumerate() {
            let fp = format!("{gp}.forms[{f}]");
            if form.syntax.mnemonic != ins.mnemonic {
                p.push(
                    format!("{fp}.syntax"),
                    format!(
                        "the line starts with `{}`, but the instruction's mnemonic is `{}`",
                        form.syntax.mnemonic, ins.mnemonic
                    ),
                );
            }
            let slots = &form.syntax.slots;
            for slot in slots {
                if let SlotToken::Placeholder(name) = &slot.token {
                    used.insert(name.as_str());
                    match group.sets.get(name) {
                        None => p.push(format!("{fp}.syntax"), format!("placeholder `.{name}` has no set in `sets` (expected `{name}: {{values: [...]}}`)")),
                        Some(set) if set.default.is_some() && !slot.optional => p.push(
                            format!("{gp}.sets.{name}.default"),
                            format!("`.{name}` is required in `{}`, so it can have no default", form.id),
                        ),
                        Some(_) => {}
                    }
                }
            }
            for (d, line) in form.doc_syntax.iter().enumerate() {
                if let Some(seed) = line.printed.seed() {
                    p.seed(cx, format!("{fp}.doc_syntax[{d}].seed"), seed);
                }
                let squash = |s: &str| s.split_whitespace().collect::<String>();
                if form.errata.is_empty() && squash(&line.text) != squash(&form.syntax.text) {
                    p.push(
                        format!("{fp}.doc_syntax[{d}]"),
                        "differs from `syntax` beyond whitespace; name the erratum that explains it in `errata`",
                    );
                }
            }
            if form.doc_syntax.is_empty() {
                p.push(
                    format!("{fp}.doc_syntax"),
                    "a form quotes at least one seed line",
                );
            }
            p.errata(cx, &fp, &form.errata);
            // Operands: the line and the `operands` map name the same things.
            let names: Vec<&str> = form.syntax.operand_names();
            for n in &names {
                if !form.operands.contains_key(*n) {
                    p.push(
                        format!("{fp}.operands"),
                        format!("operand `{n}` of the syntax line has no entry"),
                    );
                }
            }
            for (name, spec) in &form.operands {
                let op = format!("{fp}.operands.{name}");
                if !names.contains(&name.as_str()) {
                    p.push(
                        op.clone(),
                        format!("the syntax line has no operand `{name}`"),
                    );
                    continue;
                }
                let address = form
                    .syntax
                    .operands
                    .iter()
                    .any(|t| t.name == *name && t.shape == OperandShape::Address);
                match (&spec.class, address) {
                    (OperandClass::Address, false) => p.push(
                        format!("{op}.class"),
                        format!("`{name}` is not written `[{name}]`, so it is no address"),
                    ),
                    (c, true) if *c != OperandClass::Address => p.push(
                        format!("{op}.class"),
                        format!("`[{name}]` is an address: expected `class: address`"),
                    ),
                    (OperandClass::FromSlot(slot), _) => match group.sets.get(slot) {
                        Some(set)
                            if set.values.iter().all(|q| q.kind() == QualKind::Type)
                                && form.syntax.placeholders().any(|x| x == slot) => {}
                        _ => p.push(
                            format!("{op}.class"),
                            format!("`{slot}` is not a type placeholder of this line"),
                        ),
                    },
                    _ => {}
                }
                if let Some(v) = &spec.vector {
                    let ok = form.syntax.placeholders().any(|x| x == v)
                        && group
                            .sets
                            .get(v)
                            .is_some_and(|s| s.values.iter().all(|q| q.kind() == QualKind::Vector));
                    if !ok {
                        p.push(format!("{op}.vector"), format!("`{v}` is not a vector placeholder (`.v2`, `.v4`, ...) of this line"));
                    }
                }
                for (field, q) in [
                    ("requires", spec.requires),
                    ("required_by", spec.required_by),
                ] {
                    if let Some(q) = q {
                        if !form.possible_qualifiers(group).contains(&q) {
                            p.push(
                                format!("{op}.{field}"),
                                format!("the line can never hold `{q}`"),
                            );
                        }
                    }
                }
                if let Some(s) = &spec.source {
                    p.source(cx, format!("{op}.source"), s);
                }
            }
        }
        for (name, set) in &group.sets {
            let sp = format!("{gp}.sets.{name}");
            if !used.contains(name.as_str()) {
                p.push(
                    sp.clone(),
                    format!("no syntax line of this group uses `.{name}`"),
                );
            }
            if set.values.is_empty() {
                p.push(format!("{sp}.values"), "a set holds at least one value");
            }
            // A set may mix kinds: a spelling has one kind across the ISA, and
            // setp's comparisons `.lo` and `.hi` are mul's modifiers.
            let distinct: BTreeSet<_> = set.values.iter().collect();
            if distinct.len() != set.values.len() {
                p.push(format!("{sp}.values"), "a value is listed twice");
            }
            if let Some(d) = set.default {
                if !set.values.contains(&d) {
                    p.push(
                        format!("{sp}.default"),
                        format!("default `{d}` is not one of the values"),
                    );
                }
            }
            for (from, to) in &set.aliases {
                if !set.values.contains(from) || !set.values.contains(to) {
                    p.push(
                        format!("{sp}.aliases"),
                        format!("alias `{from}` → `{to}` names a value outside the set"),
                    );
                }
            }
            if let Some(s) = &set.source {
                p.source(cx, format!("{sp}.source"), s);
            }
        }
    }
}

/// Checks spec/targets.yaml on its own.
pub(crate) fn targets(model: &TargetModel) -> Vec<Problem> {
    let mut p = Problems::default();
    let mut seen = BTreeSet::new();
    for (i, t) in model.targets.iter().enumerate() {
        let path = format!("targets[{i}]");
        if !seen.insert(t.name) {
            p.push(
                format!("{path}.name"),
                format!("{} is listed twice", t.name),
            );
        }
        if t.withdrawn.is_some_and(|w| w <= t.ptx) {
            p.push(
                format!("{path}.withdrawn"),
                "withdrawn before it was introduced",
            );
        }
        if !model.ptx_versions.values.contains(&t.ptx) {
            p.push(
                format!("{path}.ptx"),
                format!("PTX ISA {} is not in `ptx_versions`", t.ptx),
            );
        }
        if t.name.variant == Variant::Family && model.family_of(t.name).is_none() {
            p.push(
                format!("{path}.name"),
                format!("{} belongs to no entry of `families`", t.name),
            );
        }
    }
    let mut members = BTreeSet::new();
    for (i, f) in model.families.iter().enumerate() {
        for (j, m) in f.members.iter().enumerate() {
            if m.variant != Variant::Family || model.info(*m).is_none() {
                p.push(
                    format!("families[{i}].members[{j}]"),
                    format!("{m} is not a family-specific target listed under `targets`"),
                );
            }
            if !members.insert(*m) {
                p.push(
                    format!("families[{i}].members[{j}]"),
                    format!("{m} is in two families"),
                );
            }
        }
    }
    let versions = &model.ptx_versions.values;
    if let Some(i) = versions.windows(2).position(|w| w[0] >= w[1]) {
        p.push(
            format!("ptx_versions.values[{}]", i + 1),
            "the versions must be strictly ascending",
        );
    }
    let mut cuda = BTreeSet::new();
    for (i, c) in model.cuda_releases.iter().enumerate() {
        if !versions.contains(&c.ptx) {
            p.push(
                format!("cuda_releases[{i}].ptx"),
                format!("PTX ISA {} is not in `ptx_versions`", c.ptx),
            );
        }
        if !cuda.insert(c.cuda.as_str()) {
            p.push(
                format!("cuda_releases[{i}].cuda"),
                format!("CUDA {} is listed twice", c.cuda),
            );
        }
    }
    p.0
}

/// Checks spec/errata.yaml against the instructions.
pub(crate) fn ledger(
    ledger: &Ledger,
    instructions: &dyn Fn(&str) -> bool,
    seeds: &BTreeSet<String>,
) -> Vec<Problem> {
    let mut p = Problems::default();
    p.unique(
        "erratum",
        ledger
            .errata
            .iter()
            .enumerate()
            .map(|(i, e)| (format!("errata[{i}].id"), e.id.as_str())),
    );
    for (i, e) in ledger.errata.iter().enumerate() {
        let path = format!("errata[{i}]");
        for (j, name) in e.instructions.iter().enumerate() {
            if !instructions(name) {
                p.push(
                    format!("{path}.instructions[{j}]"),
                    format!("unknown instruction `{name}`"),
                );
            }
        }
        if e.evidence.is_empty() {
            p.push(
                format!("{path}.evidence"),
                "an erratum carries its evidence",
            );
        }
        if let Some(d) = &e.departure {
            for (k, r) in d.steps().iter().enumerate() {
                if let Some(why) = step_problem(r) {
                    p.push(format!("{path}.departure[{k}]"), format!("step {k}: {why}"));
                }
            }
        }
        for (j, s) in e.evidence.iter().enumerate() {
            if let Some(seed) = s.seed() {
                if !seeds.contains(seed) {
                    p.push(
                        format!("{path}.evidence[{j}]"),
                        format!("unknown seed `{seed}`"),
                    );
                }
            }
        }
    }
    p.0
}

/// What is wrong with a step of a departure's reading, if anything: it must change
/// something, read an operand only where it names which, read vector elements only
/// of vectors it names, ask of a vector only where it reads vectors, and read the
/// whole text as another with no other change.
fn step_problem(r: &Reading) -> Option<&'static str> {
    let empty_set = |sets: &[Vec<crate::Qualifier>]| sets.iter().any(Vec::is_empty);
    let empty_form = |w: &crate::errata::OperandWritten| {
        w.is.is_empty()
            || w.is.iter().any(|f| match f {
                Written::AddressOf(e) | Written::VectorFrom(e) => e.is_empty(),
                _ => false,
            })
    };
    let vector_condition = !r.first.is_empty() || !r.rest.is_empty() || !r.registers.is_empty() || !r.apart.is_empty();
    if empty_set(&r.with) || empty_set(&r.once) {
        return Some("an empty set of qualifiers in `with` or `once` is never met: name at least one qualifier in each");
    }
    if r.operand.iter().chain(&r.written).any(empty_form) {
        return Some("an operand condition with no form is never met: expected at least one form in `is` (and in `address_of`, `vector_from`)");
    }
    if r.read_operand.is_some() && r.operand.is_none() {
        return Some("`read_operand` needs `operand` (which operand, and how it is written)");
    }
    if r.read_elements.is_some() != r.vectors.is_some() {
        return Some("`read_elements` and `vectors` go together: `vectors` names the vectors whose elements `read_elements` reads");
    }
    if vector_condition && r.vectors.is_none() {
        return Some("`first`, `rest`, `registers` and `apart` ask of the vectors a step reads: expected `vectors` and `read_elements`");
    }
    if r.apart.len() == 1 {
        return Some("`apart` names at least two forms (no neighbours written as two different ones of them)");
    }
    if let Some(e) = &r.read_elements {
        if e.which.is_empty() || matches!(&e.read_as, ElementAs::FirstOf(f) if f.is_empty()) {
            return Some("`read_elements` reads no element: expected at least one form in `which` and in `first_of`");
        }
    }
    if r.read_as.is_some() {
        let others = Reading { read_as: None, ..r.clone() };
        if others.changes() {
            return Some("`read_as` reads the whole text as another: no other change goes with it");
        }
    }
    (!r.changes()).then_some(
        "a step changes nothing: expected one of `drop`, `drop_repeats`, `replace`, `append`, `address`, `read_operand`, `read_elements`, `read_as`, `read_target`",
    )
}
