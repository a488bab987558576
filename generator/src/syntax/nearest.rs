//! The syntax lines nearest to a text that no line reads exactly, and the defect
//! each of them names.
//!
//! Distance is counted in qualifiers first (those no position takes, plus required
//! positions left empty), then, among the lines equally near, a line whose operands
//! the text writes is nearer than one whose operands it does not:
//! `redux.sync.min %f1, %f2, %r3;` is the `.f32` line without its `.f32`, not the
//! integer line without its type, whose registers are integer ones. `check-syntax`
//! names the first nearest line's defect; the generator keeps a qualifier mutation
//! only when every nearest line names the same rule.

use std::sync::OnceLock;

use ptxvec_spec::model::{Form, OperandClass, SyntaxGroup};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{Instruction, Qualifier};

use super::defect::{Defect, Kind, fail};
use super::rule_id::{QualifierRule, RuleId};
use super::operands::{self, Position};
use super::placement::{fit, Fit};
use super::spelling::Spelling;
use super::text::Operand;

/// One line and how the qualifiers fall on it.
pub struct Line<'s> {
    /// The sets its placeholders draw on.
    pub group: &'s SyntaxGroup,
    /// The syntax line.
    pub form: &'s Form,
    /// The placement.
    pub fit: Fit,
    /// The spellings the placement completes to, with their operand positions
    /// ([`operands_fit`]'s), made when first asked: they depend on the chain
    /// alone, and the batch judge asks them of every line that writes the chain.
    completions: OnceLock<Vec<(Spelling<'s>, Vec<Position<'s>>)>>,
}

impl<'s> Line<'s> {
    /// `form` of `group`, with the qualifiers placed on it as `fit`.
    pub fn new(group: &'s SyntaxGroup, form: &'s Form, fit: Fit) -> Line<'s> {
        Line {
            group,
            form,
            fit,
            completions: OnceLock::new(),
        }
    }

    /// The spellings of `instruction` that the placement of `quals` completes
    /// to: each empty placeholder an operand's class or vector length is drawn
    /// from filled with each of its values in turn.
    fn completions(&self, instruction: &'s Instruction, quals: &[Qualifier]) -> &[(Spelling<'s>, Vec<Position<'s>>)] {
        self.completions.get_or_init(|| {
            let placed: Vec<Option<Qualifier>> = self.fit.placed.iter().map(|p| p.map(|i| quals[i])).collect();
            // The empty placeholders an operand's class or length is drawn from.
            let drawn: Vec<&str> = self
                .form
                .operands
                .values()
                .flat_map(|o| {
                    let class = match &o.class {
                        OperandClass::FromSlot(p) => Some(p.as_str()),
                        _ => None,
                    };
                    class.into_iter().chain(o.vector.as_deref())
                })
                .collect();
            let mut completions = vec![placed];
            for (k, slot) in self.form.syntax.slots.iter().enumerate() {
                let SlotToken::Placeholder(p) = &slot.token else {
                    continue;
                };
                if completions[0][k].is_some() || !drawn.contains(&p.as_str()) {
                    continue;
                }
                let values = self.group.sets.get(p).map(|s| s.values.clone()).unwrap_or_default();
                completions = completions
                    .into_iter()
                    .flat_map(|c| {
                        values.iter().map(move |v| {
                            let mut c = c.clone();
                            c[k] = Some(*v);
                            c
                        })
                    })
                    .collect();
            }
            completions
                .into_iter()
                .map(|slots| {
                    let s = Spelling {
                        instruction,
                        group: self.group,
                        form: self.form,
                        slots,
                    };
                    let ps = operands::positions(&s);
                    (s, ps)
                })
                .collect()
        })
    }
}

/// The nearest lines, in spec order, and their qualifier distance (0: exact).
pub struct Nearest<'s> {
    /// Qualifier defects of each nearest line.
    pub cost: usize,
    /// The lines.
    pub lines: Vec<Line<'s>>,
}

/// The lines nearest to the qualifiers, with the written operands as tie-break.
pub fn nearest<'s>(
    instruction: &'s Instruction,
    quals: &[Qualifier],
    written: &[Operand],
) -> Nearest<'s> {
    let near = nearest_by_qualifiers(instruction, quals);
    let fitting = |l: &Line<'s>| operands_fit(instruction, l, quals, written);
    let lines = if near.lines.iter().any(fitting) {
        near.lines.into_iter().filter(fitting).collect()
    } else {
        near.lines
    };
    Nearest {
        cost: near.cost,
        lines,
    }
}

/// The lines nearest to the qualifiers alone, before the operands break the tie:
/// what a qualifier chain reads as whatever is written after it (the batch judge
/// keeps it per chain).
pub fn nearest_by_qualifiers<'s>(instruction: &'s Instruction, quals: &[Qualifier]) -> Nearest<'s> {
    nearest_of(
        instruction
            .forms()
            .map(|(group, form)| Line::new(group, form, fit(group, form, quals, &[])))
            .collect(),
    )
}

/// The nearest of `all`, a chain's placements on every line: the lines with the
/// fewest qualifier defects, then the fewest qualifiers left over, in spec order.
pub fn nearest_of(all: Vec<Line<'_>>) -> Nearest<'_> {
    let key = |l: &Line<'_>| (l.fit.cost(l.form), l.fit.unplaced.len());
    let Some(best) = all.iter().map(key).min() else {
        return Nearest {
            cost: 0,
            lines: Vec::new(),
        };
    };
    Nearest {
        cost: best.0,
        lines: all.into_iter().filter(|l| key(l) == best).collect(),
    }
}

/// Whether the written operands fit a line as the qualifiers fall on it: a
/// position whose class or vector length comes from an empty placeholder takes
/// whatever one of that placeholder's values would give it.
pub fn operands_fit<'s, S: AsRef<str>>(
    instruction: &'s Instruction,
    line: &Line<'s>,
    quals: &[Qualifier],
    written: &[Operand<S>],
) -> bool {
    line.completions(instruction, quals)
        .iter()
        .any(|(s, ps)| operands::fits(s, ps, written))
}

/// The defect a line names for qualifiers it does not read exactly: a value
/// outside a placeholder's set, a required position left empty, or a qualifier
/// it has no place for.
pub fn line_defect(line: &Line<'_>, quals: &[Qualifier]) -> Defect {
    let (g, form, fit) = (line.group, line.form, &line.fit);
    let missing = fit.missing(form);
    let placeholders: Vec<&str> = missing
        .iter()
        .filter_map(|t| match t {
            SlotToken::Placeholder(p) => Some(p.as_str()),
            SlotToken::Fixed(_) => None,
        })
        .collect();
    if let ([one], [p], 1) = (
        fit.unplaced.as_slice(),
        placeholders.as_slice(),
        missing.len(),
    ) {
        let q = quals[*one];
        let set = g.sets.get(*p);
        let values = set
            .map(|s| {
                s.values
                    .iter()
                    .map(|v| v.spelling())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        return fail(
            Kind::Invalid,
            RuleId::Set(p.to_string()),
            if set.is_some_and(|s| s.values.contains(&q)) {
                // It is one of them, but written after a qualifier of its kind that
                // fills a later position (placement::fit).
                format!(
                    "`{q}` is one of .{p}, but written after a qualifier of its kind that comes later in `{}`: such qualifiers are read in the syntax line's order",
                    form.syntax.text
                )
            } else {
                format!(
                    "`{q}` is not one of .{p} = {{{values}}} in `{}`",
                    form.syntax.text
                )
            },
        );
    }
    if !placeholders.is_empty() {
        return fail(
            Kind::Invalid,
            QualifierRule::Missing,
            format!(
                "no `.{}` qualifier; nearest syntax line `{}`",
                placeholders.join("`, `."),
                form.syntax.text
            ),
        );
    }
    if !missing.is_empty() && fit.unplaced.is_empty() {
        let fixed: Vec<&str> = missing
            .iter()
            .filter_map(|t| match t {
                SlotToken::Fixed(q) => Some(q.spelling()),
                SlotToken::Placeholder(_) => None,
            })
            .collect();
        return fail(
            Kind::Invalid,
            QualifierRule::Required,
            format!("`{}` requires {}", form.syntax.text, fixed.join(" ")),
        );
    }
    let names: Vec<&str> = fit.unplaced.iter().map(|i| quals[*i].spelling()).collect();
    fail(
        Kind::Invalid,
        QualifierRule::Extra,
        format!(
            "no syntax line takes {} here; nearest `{}`",
            names.join(" "),
            form.syntax.text
        ),
    )
}

/// The rule every nearest line names for a text no line reads exactly, or `None`
/// when a line reads it exactly or the nearest lines name different rules (the
/// defect cannot be told apart).
pub fn agreed_rule(instruction: &Instruction, quals: &[Qualifier], written: &[Operand]) -> Option<(RuleId, Vec<String>)> {
    let near = nearest(instruction, quals, written);
    if near.cost == 0 {
        return None;
    }
    let rules: Vec<RuleId> = near
        .lines
        .iter()
        .map(|l| line_defect(l, quals).rule)
        .collect();
    let first = rules.first()?.clone();
    rules.iter().all(|r| *r == first).then(|| {
        (
            first,
            near.lines.iter().map(|l| l.form.id.clone()).collect(),
        )
    })
}
