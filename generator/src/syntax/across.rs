//! Combinations that no single syntax line can spell, ruled out by the document
//! all the same: a table cell marked "Not supported" (`red.global.v8.f32.add`) or a
//! sentence such as "`red` with vector type may be used only with `.global`"
//! (`red.shared.v2.f32.add`). Read literally, such a text only misses its syntax
//! line; read as the document means it, it breaks the table or the rule, and that
//! is the defect `check-syntax` names and the illegal cases carry.

use std::collections::BTreeSet;

use ptxvec_spec::model::{AnyOf, Effect, Rule, Table, TableKind};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{Instruction, Qualifier};

use super::placement::fit;
use super::spelling::{Refusal, Spelling};

/// The columns of a combinations table: per position of its entries, every
/// qualifier some entry names there.
pub fn columns(table: &Table) -> Vec<BTreeSet<Qualifier>> {
    let mut cols: Vec<BTreeSet<Qualifier>> = Vec::new();
    for entry in table.rows.iter().flat_map(|r| &r.entries) {
        for (i, group) in entry.iter().enumerate() {
            if cols.len() <= i {
                cols.push(BTreeSet::new());
            }
            cols[i].extend(group.0.iter().copied());
        }
    }
    cols
}

/// Whether a table refuses nothing that its forms' own syntax lines spell: every
/// combination of the values a form's positions take in the table's columns is an
/// entry. Only such a table is read across lines; a table that refuses within its
/// lines (cp.reduce.async.bulk's op-by-type table) leaves an out-of-line value to
/// the line's own set.
pub fn only_across(instruction: &Instruction, table: &Table) -> bool {
    let cols = columns(table);
    let entries: Vec<&Vec<AnyOf>> = table.rows.iter().flat_map(|r| &r.entries).collect();
    instruction.forms().filter(|(_, f)| table.forms.contains(&f.id)).all(|(group, form)| {
        // Per column, the values this form's positions take there.
        let taken: Vec<Vec<Qualifier>> = cols
            .iter()
            .map(|col| {
                form.syntax
                    .slots
                    .iter()
                    .flat_map(|slot| match &slot.token {
                        SlotToken::Fixed(q) => vec![*q],
                        SlotToken::Placeholder(p) => group.sets.get(p).map(|s| s.values.clone()).unwrap_or_default(),
                    })
                    .filter(|q| col.contains(q))
                    .collect()
            })
            .collect();
        let mut combos: Vec<Vec<Qualifier>> = vec![Vec::new()];
        for values in &taken {
            combos = combos
                .iter()
                .flat_map(|c| values.iter().map(move |v| [c.as_slice(), &[*v]].concat()))
                .collect();
        }
        combos.iter().all(|combo| {
            entries.iter().any(|e| e.iter().all(|g| g.0.iter().any(|q| combo.contains(q))))
        })
    })
}

/// The reading of `quals` on a form of an [`only_across`] table whose positions
/// take the table's whole columns, when the table has no entry for it. Forms are tried
/// in the table's order; the first that reads the qualifiers exactly wins.
pub fn table_refusal<'s>(instruction: &'s Instruction, quals: &[Qualifier]) -> Option<(&'s Table, Spelling<'s>)> {
    for table in instruction.tables.iter().filter(|t| t.kind == TableKind::Combinations) {
        let cols = columns(table);
        // Whether the table is read across lines depends on the spec alone, and
        // costs more than the placements: asked only once one of them reads the
        // qualifiers and the table refuses the reading (the batch judge reads tens
        // of thousands of chains that no table's columns place).
        let mut across = None;
        for (group, form) in instruction.forms().filter(|(_, f)| table.forms.contains(&f.id)) {
            let placement = fit(group, form, quals, &cols);
            if placement.cost(form) != 0 {
                continue;
            }
            let spelling = Spelling::placed(instruction, group, form, &placement, quals);
            if spelling.refusal() == Some(Refusal::Table(&table.id))
                && *across.get_or_insert_with(|| only_across(instruction, table))
            {
                return Some((table, spelling));
            }
        }
    }
    None
}

/// A forbid rule that names no form and whose condition the qualifiers meet: it
/// holds whichever line they are read on.
pub fn forbidden<'s>(instruction: &'s Instruction, quals: &[Qualifier]) -> Option<&'s Rule> {
    instruction
        .rules
        .iter()
        .find(|r| matches!(r.effect, Effect::Forbid(_)) && r.forms.is_none() && r.condition().matches("", quals))
}
