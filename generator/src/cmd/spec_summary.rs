//! `ptxvec spec`: what the spec encodes, instruction by instruction.

use std::fmt::Write;

use ptxvec_spec::model::Instruction;
use ptxvec_spec::Spec;

/// Counts for one form of an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormCounts {
    /// The form's id.
    pub id: String,
    /// Its syntax line.
    pub syntax: String,
    /// Qualifier positions, and how many of them are optional.
    pub positions: usize,
    /// Of which optional.
    pub optional: usize,
    /// Distinct qualifier values the positions can take.
    pub values: usize,
    /// Spellings the syntax line allows before rules and tables.
    pub spellings: u64,
}

/// The counts of every form of an instruction.
pub fn form_counts(ins: &Instruction) -> Vec<FormCounts> {
    ins.forms()
        .map(|(group, form)| FormCounts {
            id: form.id.clone(),
            syntax: form.syntax.text.clone(),
            positions: form.syntax.slots.len(),
            optional: form.syntax.slots.iter().filter(|s| s.optional).count(),
            values: form.slot_choices(group).map(|(n, _)| n as usize).sum(),
            spellings: form.template_spellings(group),
        })
        .collect()
}

/// The report `ptxvec spec` prints.
pub fn render(spec: &Spec) -> String {
    let mut out = String::new();
    let mut total_forms = 0;
    let mut total_spellings = 0;
    for file in &spec.instructions {
        let ins = &file.instruction;
        let forms = form_counts(ins);
        let _ = writeln!(
            out,
            "{}  ({} forms, {} rules, {} tables, {} semantic notes, {} examples)",
            ins.instruction,
            forms.len(),
            ins.rules.len(),
            ins.tables.len(),
            ins.semantics.len(),
            ins.examples.len()
        );
        for f in &forms {
            let _ = writeln!(
                out,
                "  {:<15} {:>2} qualifier positions ({} optional), {:>2} values, {:>5} spellings   {}",
                f.id, f.positions, f.optional, f.values, f.spellings, f.syntax
            );
            total_spellings += f.spellings;
        }
        total_forms += forms.len();
    }
    let _ = writeln!(
        out,
        "{} instructions, {} forms, {} spellings before rules; {} targets, {} errata",
        spec.instructions.len(),
        total_forms,
        total_spellings,
        spec.targets.targets.len(),
        spec.errata.errata.len()
    );
    out
}
