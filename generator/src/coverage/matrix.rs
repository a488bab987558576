//! Defect class × form: how many illegal cases apply each defect class to each
//! syntax line, and where a class is meaningful for a line but no case applies it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use ptxvec_spec::model::{Effect, Requirement};
use ptxvec_spec::{Instruction, PtxVersion, Spec};

use crate::syntax::case::{Case, Verdict};
use crate::syntax::rule_id::{OperandRule, QualifierRule, RuleId, SyntaxRule};

/// One cell: the cases, and whether the class is meaningful for the line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cell {
    /// Illegal cases of the line in the class.
    pub cases: usize,
    /// The class can be applied to the line.
    pub meaningful: bool,
}

/// The matrix.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    /// The defect classes, in column order.
    pub columns: Vec<String>,
    /// `instruction/form` and one cell per column.
    pub rows: Vec<(String, Vec<Cell>)>,
}

impl Grid {
    /// Cells where the class is meaningful and no case applies it.
    pub fn holes(&self) -> usize {
        self.rows
            .iter()
            .flat_map(|(_, cells)| cells)
            .filter(|c| c.meaningful && c.cases == 0)
            .count()
    }

    /// The holes, as `instruction/form × class`.
    pub fn hole_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (form, cells) in &self.rows {
            for (col, c) in self.columns.iter().zip(cells) {
                if c.meaningful && c.cases == 0 {
                    out.push(format!("{form} × {col}"));
                }
            }
        }
        out
    }
}

/// The defect class of an illegal case: its rule, with a spec rule named by what it
/// checks (`version`, `target`, `forbid`) and tables as `table`.
pub fn class_of(instruction: &Instruction, case: &Case) -> String {
    let tag = case.id.split_once('!').map_or("", |(_, t)| t);
    let rule = match &case.rule {
        None => return String::new(),
        Some(RuleId::Table(_)) => return "table".to_owned(),
        Some(r) => r,
    };
    if matches!(rule, RuleId::Spec(id) if instruction.rules.iter().any(|r| r.id == *id)) {
        return if tag.contains(":version:") {
            "version"
        } else if tag.contains(":target:") {
            "target"
        } else if tag.contains(":removed:") {
            "removed"
        } else {
            "forbid"
        }
        .to_owned();
    }
    rule.to_string()
}

/// The classes meaningful for a line.
fn meaningful(spec: &Spec, i: &Instruction, form_id: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = [
        RuleId::Operand(OperandRule::Class),
        RuleId::Operand(OperandRule::Shape),
        RuleId::Operand(OperandRule::Count),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let Some((_, form)) = i.form(form_id) else {
        return out;
    };
    // An unknown word and a duplicate are made of a qualifier the line writes
    // after its mnemonic: elect.sync's line writes none.
    if !form.syntax.slots.is_empty() {
        out.insert(RuleId::Syntax(SyntaxRule::UnknownQualifier).to_string());
        out.insert(RuleId::Qualifier(QualifierRule::Duplicate).to_string());
    }
    if form.syntax.operand_names().len() >= 2 {
        out.insert(RuleId::Syntax(SyntaxRule::Parse).to_string());
    }
    // A qualifier class or a table is meaningful where a single change to one of
    // the line's representative spellings falls in it unambiguously: `set.type`
    // is not, for cp.reduce.async.bulk's `.noftz` line, since every other type
    // reads as the `.global` line with `.noftz` extra; nor `set.vec_32_bit`, whose
    // only other value, `.v8`, the vector table refuses.
    for rule in crate::syntax::illegal::qualifier_rules(spec, i, form_id) {
        match rule {
            RuleId::Set(_) | RuleId::Qualifier(_) => {
                out.insert(rule.to_string());
            }
            RuleId::Table(_) => {
                out.insert("table".to_owned());
            }
            RuleId::Syntax(_) | RuleId::Operand(_) | RuleId::Module(_) | RuleId::Spec(_) => {}
        }
    }
    if form.operands.values().any(|o| o.requires.is_some()) {
        out.insert(RuleId::Operand(OperandRule::Requires).to_string());
        out.insert(RuleId::Operand(OperandRule::RequiredBy).to_string());
    }
    let applies = |r: &ptxvec_spec::model::Rule| {
        r.forms
            .as_ref()
            .is_none_or(|fs| fs.iter().any(|f| f == form_id))
    };
    for r in i.rules.iter().filter(|r| applies(r)) {
        match &r.effect {
            Effect::Forbid(_) if r.forms.is_some() => {
                out.insert("forbid".to_owned());
            }
            Effect::Forbid(_) => {}
            Effect::Requires(reqs) => {
                if reqs.iter().any(|q| q.target.is_some()) {
                    out.insert("target".to_owned());
                }
            }
            Effect::Removed(_) => {
                out.insert("removed".to_owned());
            }
        }
    }
    // A version is meaningful where some legal spelling of the line needs a version
    // that a module below it, on a target meeting the same need, could have: not
    // for `red.add.noftz.bf16`, whose 7.8 with sm_90 hides the earlier versions of
    // the rules it shares with other lines.
    let needs: BTreeSet<Vec<(PtxVersion, Option<ptxvec_spec::Target>)>> =
        crate::syntax::legal::legal_spellings(spec, i, form_id)
            .iter()
            .map(|l| l.needs.0.iter().map(|n| (n.ptx, n.target)).collect())
            .collect();
    let versioned = needs.iter().any(|alts| {
        let reqs: Vec<Requirement> = alts
            .iter()
            .map(|(ptx, target)| Requirement {
                ptx: Some(*ptx),
                target: *target,
            })
            .collect();
        (0..reqs.len()).any(|n| super::mutation::version_bounds(spec, &reqs, n))
    });
    if versioned {
        out.insert("version".to_owned());
    }
    out
}

/// Builds the matrix from the cases.
pub fn build(spec: &Spec, cases: &[Case]) -> Grid {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut columns: BTreeSet<String> = BTreeSet::new();
    let mut rows: Vec<(String, BTreeSet<String>)> = Vec::new();
    for f in &spec.instructions {
        let i = &f.instruction;
        for (_, form) in i.forms() {
            let m = meaningful(spec, i, &form.id);
            columns.extend(m.iter().cloned());
            rows.push((format!("{}/{}", i.instruction, form.id), m));
        }
        for c in cases
            .iter()
            .filter(|c| c.instruction == i.instruction && c.verdict == Verdict::Illegal)
        {
            let class = class_of(i, c);
            columns.insert(class.clone());
            *counts
                .entry((format!("{}/{}", c.instruction, c.form), class))
                .or_default() += 1;
        }
    }
    let columns: Vec<String> = columns.into_iter().collect();
    let rows = rows
        .into_iter()
        .map(|(form, m)| {
            let cells = columns
                .iter()
                .map(|col| Cell {
                    cases: counts
                        .get(&(form.clone(), col.clone()))
                        .copied()
                        .unwrap_or(0),
                    meaningful: m.contains(col),
                })
                .collect();
            (form, cells)
        })
        .collect();
    Grid { columns, rows }
}

/// The matrix as text: one line per form, `n` cases per class, `-` where the class
/// does not apply, `0!` where it applies and no case has it.
pub fn render(g: &Grid) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\ndefect class × form (cases; - not meaningful; 0! a hole):"
    );
    for (n, col) in g.columns.iter().enumerate() {
        let _ = writeln!(s, "  c{n:<2} {col}");
    }
    let width = g.rows.iter().map(|(f, _)| f.len()).max().unwrap_or(0);
    let head: String = (0..g.columns.len())
        .map(|n| format!("{:>5}", format!("c{n}")))
        .collect();
    let _ = writeln!(s, "{:<width$} {head}", "form");
    for (form, cells) in &g.rows {
        let line: String = cells
            .iter()
            .map(|c| {
                let v = match (c.cases, c.meaningful) {
                    (0, true) => "0!".to_owned(),
                    (0, false) => "-".to_owned(),
                    (n, _) => n.to_string(),
                };
                format!("{v:>5}")
            })
            .collect();
        let _ = writeln!(s, "{form:<width$} {line}");
    }
    for h in g.hole_names() {
        let _ = writeln!(s, "hole: {h}");
    }
    s
}
