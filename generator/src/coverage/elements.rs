//! The spec's elements, each with the kinds of witness it needs and how a vector is
//! recognized as one.

use std::collections::BTreeSet;

use ptxvec_spec::model::{Effect, Form, SemanticKind, SyntaxGroup, TableKind};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{ErratumKind, Instruction, PtxVersion, Qualifier, Spec, Target};

use crate::syntax::legal::legal_spellings;
use crate::syntax::operands::positions;

/// What part of the spec an element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ElementKind {
    /// A syntax line (form).
    SyntaxLine,
    /// A qualifier position of a syntax line: where a value outside its set, or no
    /// value, is a defect.
    QualifierPosition,
    /// One value at one position.
    QualifierValue,
    /// A row of an op×type (or descriptive) table.
    TableRow,
    /// A combinations table as a whole: something outside it is refused.
    Table,
    /// A rule: a version/target requirement or a forbidden combination.
    Rule,
    /// An operand of a syntax line, in one respect: its shape, its class, or a way
    /// of writing it (immediate, sink, negation, `d|p` pair).
    Operand,
    /// One alternative of a requirement, at its version or at its target.
    Boundary,
    /// A semantic note.
    SemanticNote,
    /// An entry of the errata ledger.
    Erratum,
}

impl ElementKind {
    /// Every kind, in report order.
    pub const ALL: &'static [ElementKind] = &[
        ElementKind::SyntaxLine,
        ElementKind::QualifierPosition,
        ElementKind::QualifierValue,
        ElementKind::TableRow,
        ElementKind::Table,
        ElementKind::Rule,
        ElementKind::Operand,
        ElementKind::Boundary,
        ElementKind::SemanticNote,
        ElementKind::Erratum,
    ];

    /// Its name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            ElementKind::SyntaxLine => "syntax line",
            ElementKind::QualifierPosition => "qualifier position",
            ElementKind::QualifierValue => "qualifier value",
            ElementKind::TableRow => "table row",
            ElementKind::Table => "table",
            ElementKind::Rule => "rule",
            ElementKind::Operand => "operand",
            ElementKind::Boundary => "version/target boundary",
            ElementKind::SemanticNote => "semantic note",
            ElementKind::Erratum => "erratum",
        }
    }
}

/// A kind of witness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WitnessKind {
    /// A legal syntax vector that exercises the element.
    Legal,
    /// An illegal syntax vector whose one defect is the element.
    Illegal,
    /// Any syntax vector that rests on the element (errata).
    Vector,
    /// A semantic record of a variant the note bears on.
    Semantic,
    /// vectors/silicon/sm_90/vectors.json: a run of such a variant whose every
    /// record matches the sm_90 profile.
    Silicon,
    /// The recorded exploration (explore/): a text on which ptxas departs from the
    /// verdict as the entry's `departure` predicts.
    Explored,
}

impl WitnessKind {
    /// Every kind, in report order.
    pub const ALL: &'static [WitnessKind] = &[
        WitnessKind::Legal,
        WitnessKind::Illegal,
        WitnessKind::Vector,
        WitnessKind::Semantic,
        WitnessKind::Silicon,
        WitnessKind::Explored,
    ];

    /// Its name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            WitnessKind::Legal => "legal",
            WitnessKind::Illegal => "illegal",
            WitnessKind::Vector => "vector",
            WitnessKind::Semantic => "semantic",
            WitnessKind::Explored => "explored",
            WitnessKind::Silicon => "silicon",
        }
    }
}

/// One way of writing an operand that a legal vector must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writing {
    /// Registers (and the operand present, where optional).
    Register,
    /// An immediate (`/imm`).
    Immediate,
    /// The sink `_` (`/sink`).
    Sink,
    /// Negated (`/not`).
    Negated,
    /// The `d|p` pair written (`/pair`).
    Pair,
}

/// The respect in which an operand element is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Respect {
    /// Its shape: an illegal vector writes another shape there.
    Shape,
    /// Its class: an illegal vector writes a register of another class there.
    Class,
    /// A way of writing it, shown legal.
    Writing(Writing),
}

/// How a vector is recognized as a witness of an element. Fields: `form` the
/// syntax line's id; `slot` an index into its qualifier positions; `index` into the
/// instruction's rules or semantic notes.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum Probe {
    /// A syntax line.
    Form { form: String },
    /// A position, its placeholder (none for a fixed qualifier), its values, and
    /// whether the line braces it.
    Position {
        form: String,
        slot: usize,
        placeholder: Option<String>,
        values: Vec<Qualifier>,
        optional: bool,
    },
    /// A value at a position.
    Value {
        form: String,
        slot: usize,
        value: Qualifier,
    },
    /// A table row: its entries (combinations) or keys (descriptive), on the table's forms.
    Row {
        forms: Vec<String>,
        entries: Vec<Vec<ptxvec_spec::model::AnyOf>>,
        keys: Vec<Qualifier>,
    },
    /// A combinations table, by id.
    Table { id: String },
    /// A rule, by id and index.
    Rule { id: String, index: usize },
    /// An operand of a form in one respect; `requires` is the qualifier without which
    /// the operand is not written.
    Operand {
        form: String,
        name: String,
        respect: Respect,
        requires: Option<Qualifier>,
    },
    /// A requirement alternative of a rule: its version (`version` true) or target.
    Boundary {
        index: usize,
        ptx: Option<PtxVersion>,
        target: Option<Target>,
        version: bool,
    },
    /// A semantic note, by index, and `instruction#id`.
    Note { index: usize, key: String },
    /// An erratum, by id; `silicon` for a finding about silicon.
    Erratum { id: String, silicon: bool },
}

/// One element of the spec.
#[derive(Debug, Clone)]
pub struct Element {
    /// Stable and readable: `red/scalar/.op=.add`, `red/rule/cluster_scope`, `E004`.
    pub id: String,
    /// The instruction it belongs to (`*` for an erratum of several).
    pub instruction: String,
    /// What it is.
    pub kind: ElementKind,
    /// The witnesses it needs.
    pub needs: Vec<WitnessKind>,
    /// How its witnesses are recognized.
    pub probe: Probe,
}

/// Every element of the spec, in spec order.
pub fn elements(spec: &Spec) -> Vec<Element> {
    let mut out = Vec::new();
    for f in &spec.instructions {
        instruction_elements(spec, &f.instruction, &mut out);
    }
    for e in &spec.errata.errata {
        let silicon = e.kind == ErratumKind::DocVsSilicon;
        out.push(Element {
            id: e.id.clone(),
            instruction: e.instructions.join(", "),
            kind: ElementKind::Erratum,
            // A finding about silicon rests on silicon's runs; a departure of
            // ptxas on the recorded exploration, which holds it to ptxas; any other
            // on a syntax vector (or a doc example the ptxas differential checks).
            needs: vec![if silicon {
                WitnessKind::Silicon
            } else if e.departure.is_some() {
                WitnessKind::Explored
            } else {
                WitnessKind::Vector
            }],
            probe: Probe::Erratum {
                id: e.id.clone(),
                silicon,
            },
        });
    }
    out
}

/// Where an instruction's elements go: each is pushed with the instruction's name.
struct Elements<'a> {
    instruction: &'a str,
    out: &'a mut Vec<Element>,
}

impl Elements<'_> {
    fn push(&mut self, id: String, kind: ElementKind, needs: Vec<WitnessKind>, probe: Probe) {
        self.out.push(Element {
            id,
            instruction: self.instruction.to_owned(),
            kind,
            needs,
            probe,
        });
    }
}

fn instruction_elements(spec: &Spec, i: &Instruction, out: &mut Vec<Element>) {
    let vocabulary: BTreeSet<Qualifier> = i
        .forms()
        .flat_map(|(g, f)| f.possible_qualifiers(g))
        .collect();
    let mut elements = Elements {
        instruction: &i.instruction,
        out,
    };
    for (group, form) in i.forms() {
        form_elements(spec, i, (group, form), &vocabulary, &mut elements);
        operand_elements(spec, i, &form.id, &mut elements);
    }
    table_elements(i, &mut elements);
    rule_elements(spec, i, &mut elements);
    note_elements(i, &mut elements);
}

/// A syntax line, its qualifier positions and their values. `vocabulary`: every
/// qualifier the instruction knows.
fn form_elements(
    spec: &Spec,
    i: &Instruction,
    (group, form): (&SyntaxGroup, &Form),
    vocabulary: &BTreeSet<Qualifier>,
    elements: &mut Elements<'_>,
) {
    let name = &i.instruction;
    let fid = &form.id;
    let legal = legal_spellings(spec, i, fid);
    elements.push(
        format!("{name}/{fid}"),
        ElementKind::SyntaxLine,
        vec![WitnessKind::Legal, WitnessKind::Illegal],
        Probe::Form { form: fid.clone() },
    );
    for (k, slot) in form.syntax.slots.iter().enumerate() {
        let (placeholder, values) = match &slot.token {
            SlotToken::Fixed(q) => (None, vec![*q]),
            SlotToken::Placeholder(p) => (
                Some(p.clone()),
                group
                    .sets
                    .get(p)
                    .map(|s| s.values.clone())
                    .unwrap_or_default(),
            ),
        };
        let label = placeholder.clone().unwrap_or_else(|| {
            values
                .first()
                .map(|q| q.spelling()[1..].to_owned())
                .unwrap_or_default()
        });
        // A defect exists at the position when it must be filled, or when the
        // instruction knows a qualifier of the same kind its set leaves out.
        let outsiders = placeholder.is_some()
            && vocabulary
                .iter()
                .any(|o| !values.contains(o) && values.iter().any(|v| v.kind() == o.kind()));
        let needs = if !slot.optional || outsiders {
            vec![WitnessKind::Illegal]
        } else {
            Vec::new()
        };
        elements.push(
            format!("{name}/{fid}/.{label}"),
            ElementKind::QualifierPosition,
            needs,
            Probe::Position {
                form: fid.clone(),
                slot: k,
                placeholder: placeholder.clone(),
                values: values.clone(),
                optional: slot.optional,
            },
        );
        for v in &values {
            // A value that no legal spelling holds (a table refuses every
            // combination with it) needs the refusal instead.
            let held = legal
                .iter()
                .any(|l| l.spelling.slots.get(k) == Some(&Some(*v)));
            let needs = vec![if held {
                WitnessKind::Legal
            } else {
                WitnessKind::Illegal
            }];
            elements.push(
                format!("{name}/{fid}/.{label}={v}"),
                ElementKind::QualifierValue,
                needs,
                Probe::Value {
                    form: fid.clone(),
                    slot: k,
                    value: *v,
                },
            );
        }
    }
}

/// The rows of the instruction's tables, and each combinations table as a whole.
fn table_elements(i: &Instruction, elements: &mut Elements<'_>) {
    let name = &i.instruction;
    for table in &i.tables {
        for (n, row) in table.rows.iter().enumerate() {
            // A row with no entries records a misprint (its note): nothing to witness.
            let empty = table.kind == TableKind::Combinations && row.entries.is_empty()
                || table.kind == TableKind::Descriptive && row.keys.is_empty();
            elements.push(
                format!("{name}/table.{}#{}", table.id, n + 1),
                ElementKind::TableRow,
                if empty {
                    Vec::new()
                } else {
                    vec![WitnessKind::Legal]
                },
                Probe::Row {
                    forms: table.forms.clone(),
                    entries: row.entries.clone(),
                    keys: row.keys.clone(),
                },
            );
        }
        if table.kind == TableKind::Combinations {
            elements.push(
                format!("{name}/table.{}", table.id),
                ElementKind::Table,
                vec![WitnessKind::Illegal],
                Probe::Table {
                    id: table.id.clone(),
                },
            );
        }
    }
}

/// The rules, and each requirement alternative at its version and its target.
fn rule_elements(spec: &Spec, i: &Instruction, elements: &mut Elements<'_>) {
    let name = &i.instruction;
    for (index, rule) in i.rules.iter().enumerate() {
        let needs = match rule.effect {
            Effect::Requires(_) | Effect::Removed(_) => vec![WitnessKind::Legal, WitnessKind::Illegal],
            Effect::Forbid(_) => vec![WitnessKind::Illegal],
        };
        elements.push(
            format!("{name}/rule.{}", rule.id),
            ElementKind::Rule,
            needs,
            Probe::Rule {
                id: rule.id.clone(),
                index,
            },
        );
        let Effect::Requires(reqs) = &rule.effect else {
            continue;
        };
        for (n, r) in reqs.iter().enumerate() {
            let alt = match (r.ptx, r.target) {
                (Some(p), Some(t)) => format!("{p}+{t}"),
                (Some(p), None) => p.to_string(),
                (None, Some(t)) => t.to_string(),
                (None, None) => format!("#{n}"),
            };
            let version_bounds = super::mutation::version_bounds(spec, reqs, n);
            for (version, present) in [(true, r.ptx.is_some()), (false, r.target.is_some())] {
                if !present {
                    continue;
                }
                let needs = if !version || version_bounds {
                    vec![WitnessKind::Legal, WitnessKind::Illegal]
                } else {
                    Vec::new()
                };
                elements.push(
                    format!(
                        "{name}/rule.{}/{alt}/{}",
                        rule.id,
                        if version { "version" } else { "target" }
                    ),
                    ElementKind::Boundary,
                    needs,
                    Probe::Boundary {
                        index,
                        ptx: r.ptx,
                        target: r.target,
                        version,
                    },
                );
            }
        }
    }
}

/// The semantic notes.
fn note_elements(i: &Instruction, elements: &mut Elements<'_>) {
    let name = &i.instruction;
    for (index, note) in i.semantics.iter().enumerate() {
        // Notes on memory order, atomicity, convergence, encoding and deprecation
        // change no value: no record states them.
        let valueless = matches!(
            note.kind,
            SemanticKind::MemoryOrder
                | SemanticKind::Atomicity
                | SemanticKind::Deprecation
                | SemanticKind::OperandEncoding
                | SemanticKind::Convergence
        );
        let needs = if valueless {
            vec![WitnessKind::Legal]
        } else {
            vec![
                WitnessKind::Legal,
                WitnessKind::Semantic,
                WitnessKind::Silicon,
            ]
        };
        elements.push(
            format!("{name}#{}", note.id),
            ElementKind::SemanticNote,
            needs,
            Probe::Note {
                index,
                key: format!("{name}#{}", note.id),
            },
        );
    }
}

fn operand_elements(
    spec: &Spec,
    i: &Instruction,
    fid: &str,
    elements: &mut Elements<'_>,
) {
    // The operands as the form's first legal spelling has them: classes and
    // vector lengths come from its qualifiers.
    let legal = legal_spellings(spec, i, fid);
    let Some(first) = legal.first() else { return };
    // A pair's second half is judged with the pair: its `pair` writing.
    for p in positions(&first.spelling) {
        // A pair the syntax requires (elect.sync's `d|p`) is written by every case:
        // only an optional one is a way of writing.
        let (opname, spec_op, negatable, pair) = (p.name, p.spec, p.negatable, matches!(p.pair, Some((_, true))));
        let requires = spec_op.requires;
        let mut respects = vec![(Respect::Shape, "shape"), (Respect::Class, "class")];
        if spec_op.imm {
            respects.push((Respect::Writing(Writing::Immediate), "imm"));
        }
        if spec_op.sink {
            respects.push((Respect::Writing(Writing::Sink), "sink"));
        }
        if negatable {
            respects.push((Respect::Writing(Writing::Negated), "not"));
        }
        if pair {
            respects.push((Respect::Writing(Writing::Pair), "pair"));
        }
        for (respect, label) in respects {
            let needs = match respect {
                Respect::Shape | Respect::Class => vec![WitnessKind::Legal, WitnessKind::Illegal],
                Respect::Writing(_) => vec![WitnessKind::Legal],
            };
            elements.push(
                format!("{}/{fid}/operand.{opname}/{label}", i.instruction),
                ElementKind::Operand,
                needs,
                Probe::Operand {
                    form: fid.to_owned(),
                    name: opname.to_owned(),
                    respect,
                    requires,
                },
            );
        }
    }
}
