//! Each syntax line's positions as bit masks (what qualifiers a position takes,
//! plain and widened by each combinations table's columns), computed once per batch
//! index, so that reading a qualifier chain ([`InstructionMasks::read_chain`]) tests
//! bits where the definition (`judge::read_chain`) asks the group's sets and
//! builds the tables' columns for every chain. The steps, their order, the
//! placements and the defects are the definition's own: the masks are a
//! `judge::Lines` that `judge::read_chain_by` reads, as it reads the definition's
//! sets. The batch judge reads tens of thousands of distinct chains on the
//! explorer's stream, and this is most of its cost there.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use ptxvec_spec::model::{Form, SyntaxGroup, Table, TableKind};
use ptxvec_spec::qualifier::QualMask;
use ptxvec_spec::{Instruction, Qualifier, Spec};

use super::across;
use super::judge::{self, Lines, Unread};
use super::placement::{fit_taking, Fit};
use super::spelling::{Refusal, Spelling};

/// A set of qualifiers, a bit each.
type Bits = QualMask;

/// The qualifiers of `qs` as one set.
fn bits_of<'q>(qs: impl IntoIterator<Item = &'q Qualifier>) -> Bits {
    qs.into_iter().copied().collect()
}

/// Every instruction's masks, in spec order.
pub struct Masks<'s> {
    instructions: Vec<InstructionMasks<'s>>,
}

impl<'s> Masks<'s> {
    /// The masks of every instruction of `spec`.
    pub fn new(spec: &'s Spec) -> Masks<'s> {
        Masks {
            instructions: spec.instructions.iter().map(|f| InstructionMasks::new(&f.instruction)).collect(),
        }
    }

    /// The masks of `instruction`, one of the spec's.
    pub fn of(&self, instruction: &Instruction) -> Option<&InstructionMasks<'s>> {
        self.instructions.iter().find(|m| std::ptr::eq(m.instruction, instruction))
    }
}

/// One instruction's syntax lines as masks.
pub struct InstructionMasks<'s> {
    instruction: &'s Instruction,
    /// Every qualifier some position of some line takes.
    vocabulary: Bits,
    /// Its lines, in `Instruction::forms` order.
    lines: Vec<LineMasks<'s>>,
    /// Its combinations tables, in file order.
    tables: Vec<TableMasks<'s>>,
}

/// One syntax line: per position, what it takes.
struct LineMasks<'s> {
    group: &'s SyntaxGroup,
    form: &'s Form,
    takes: Vec<Bits>,
    /// Per qualifier, the positions that take it, a bit each (`takes` turned
    /// around, for the placement).
    positions: Positions,
}

/// Per qualifier some position takes, the positions that take it, a bit each, in
/// qualifier order (a qualifier no position takes has none).
struct Positions(Vec<(Qualifier, u64)>);

impl Positions {
    /// From what each position takes.
    fn of(takes: &[Bits]) -> Positions {
        let every = takes.iter().fold(QualMask::EMPTY, |m, t| m.union(t));
        Positions(
            every
                .iter()
                .map(|q| (q, takes.iter().take(ptxvec_spec::limits::MAX_SLOTS).enumerate().filter(|(_, t)| t.has(q)).fold(0, |m, (k, _)| m | 1 << k)))
                .collect(),
        )
    }

    /// The placement of `quals` onto these positions.
    fn place(&self, quals: &[Qualifier], count: usize) -> Fit {
        fit_taking(quals, count, |q| self.0.binary_search_by_key(&q, |&(x, _)| x).map_or(0, |i| self.0[i].1))
    }
}

/// A combinations table: the lines it constrains, their positions widened by its
/// columns (`across::table_refusal`'s placement).
struct TableMasks<'s> {
    table: &'s Table,
    /// Per line the table names (an index into `lines`, in `forms` order), what
    /// its positions take once widened: a position that takes any qualifier of a
    /// column takes every qualifier of it.
    lines: Vec<(usize, Positions)>,
    /// `across::only_across`, asked only once a reading needs it (as the
    /// definition asks it).
    across: OnceLock<bool>,
}

impl<'s> InstructionMasks<'s> {
    fn new(instruction: &'s Instruction) -> InstructionMasks<'s> {
        let lines: Vec<LineMasks<'s>> = instruction
            .forms()
            .map(|(group, form)| {
                let takes: Vec<Bits> = form
                    .syntax
                    .slots
                    .iter()
                    .map(|slot| group.mask(slot))
                    .collect();
                LineMasks {
                    group,
                    form,
                    positions: Positions::of(&takes),
                    takes,
                }
            })
            .collect();
        let tables = instruction
            .tables
            .iter()
            .filter(|t| t.kind == TableKind::Combinations)
            .map(|table| {
                let columns: Vec<Bits> = across::columns(table).iter().map(|c: &BTreeSet<Qualifier>| bits_of(c)).collect();
                let widened = |takes: &Bits| {
                    columns.iter().filter(|c| c.meets(takes)).fold(*takes, |m, c| m.union(c))
                };
                TableMasks {
                    table,
                    lines: lines
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| table.forms.contains(&l.form.id))
                        .map(|(k, l)| (k, Positions::of(&l.takes.iter().map(widened).collect::<Vec<_>>())))
                        .collect(),
                    across: OnceLock::new(),
                }
            })
            .collect();
        InstructionMasks {
            instruction,
            vocabulary: lines.iter().flat_map(|l| &l.takes).fold(QualMask::EMPTY, |m, t| m.union(t)),
            lines,
            tables,
        }
    }

    /// `judge::read_chain`: the spellings the qualifiers read as exactly (each
    /// with whether the order is the document's), or why none does; the
    /// definition's steps and defects ([`judge::read_chain_by`]) on the masks.
    pub fn read_chain(&self, quals: &[Qualifier]) -> Result<Vec<(Spelling<'s>, bool)>, Unread<'s>> {
        judge::read_chain_by(self, quals)
    }
}

impl<'s> Lines<'s> for InstructionMasks<'s> {
    type Written = Bits;

    fn instruction(&self) -> &'s Instruction {
        self.instruction
    }

    fn in_vocabulary(&self, q: Qualifier) -> bool {
        self.vocabulary.has(q)
    }

    fn written(&self, quals: &[Qualifier]) -> Bits {
        bits_of(quals)
    }

    fn count(&self) -> usize {
        self.lines.len()
    }

    fn line(&self, k: usize) -> (&'s SyntaxGroup, &'s Form) {
        (self.lines[k].group, self.lines[k].form)
    }

    /// `SetLines::could_read_exactly` on the masks: as many positions at least, a
    /// position for each qualifier (none of `written` outside what the line
    /// takes), and a qualifier for each position the line always fills.
    fn could_read_exactly(&self, k: usize, quals: &[Qualifier], written: &Bits) -> bool {
        let line = &self.lines[k];
        let slots = &line.form.syntax.slots;
        let taken = line.takes.iter().fold(QualMask::EMPTY, |m, t| m.union(t));
        quals.len() <= slots.len()
            && written.within(&taken)
            && slots.iter().zip(&line.takes).all(|(s, t)| s.optional || t.meets(written))
    }

    fn place(&self, k: usize, quals: &[Qualifier]) -> Fit {
        let line = &self.lines[k];
        line.positions.place(quals, line.takes.len())
    }

    /// `across::table_refusal` on the widened masks.
    fn table_refusal(&self, quals: &[Qualifier]) -> Option<(&'s Table, Spelling<'s>)> {
        for t in &self.tables {
            for (k, widened) in &t.lines {
                let line = &self.lines[*k];
                let placement = widened.place(quals, line.takes.len());
                if placement.cost(line.form) != 0 {
                    continue;
                }
                let s = Spelling::placed(self.instruction, line.group, line.form, &placement, quals);
                if s.refusal() == Some(Refusal::Table(&t.table.id))
                    && *t.across.get_or_init(|| across::only_across(self.instruction, t.table))
                {
                    return Some((t.table, s));
                }
            }
        }
        None
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_spec as spec;

    /// The readings equal the definition's on every case's qualifiers and on
    /// seeded random lists over each instruction's vocabulary (repeats, any order,
    /// words of other instructions).
    #[test]
    fn chains_read_as_the_definition_reads_them() {
        let spec = spec();
        let masks = Masks::new(&spec);
        let every: Vec<Qualifier> = crate::syntax::illegal::foreign_pool(&spec);
        let mut checked = 0;
        for f in &spec.instructions {
            let instruction = &f.instruction;
            let m = masks.of(instruction).unwrap();
            let skip = instruction.mnemonic.spelling().split('.').count();
            let mut lists: Vec<Vec<Qualifier>> = crate::syntax::vectors::cases(&spec, instruction)
                .iter()
                .filter_map(|c| crate::syntax::text::tokenize(&c.text).ok())
                .filter_map(|t| crate::syntax::text::chain_qualifiers(instruction.mnemonic, &t.words, skip))
                .collect();
            let vocabulary: Vec<Qualifier> = instruction.forms().flat_map(|(g, f)| f.possible_qualifiers(g)).collect();
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(22);
            for _ in 0..3000 {
                let len = rand::Rng::random_range(&mut rng, 0..=7);
                let pick = |rng: &mut rand_chacha::ChaCha8Rng| {
                    // An instruction of no qualifier (elect.sync) draws other words alone.
                    if vocabulary.is_empty() || rand::Rng::random_range(rng, 0..20) == 0 {
                        every[rand::Rng::random_range(rng, 0..every.len())]
                    } else {
                        vocabulary[rand::Rng::random_range(rng, 0..vocabulary.len())]
                    }
                };
                lists.push((0..len).map(|_| pick(&mut rng)).collect());
            }
            for quals in &lists {
                let want = crate::syntax::judge::read_chain(instruction, quals);
                let got = m.read_chain(quals);
                assert_eq!(described(&got), described(&want), "{quals:?} of {}", instruction.instruction);
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// A reading as text, for comparison: every spelling and its order, or the
    /// defect and the nearest lines with their placements.
    fn described(r: &Result<Vec<(Spelling<'_>, bool)>, Unread<'_>>) -> String {
        match r {
            Ok(readings) => readings
                .iter()
                .map(|(s, o)| format!("{} {:?} {o}; ", s.form.id, s.slots))
                .collect(),
            Err(Unread::Fixed((d, form))) => format!("fixed {d:?} {form:?}"),
            Err(Unread::Nearest(lines)) => lines
                .iter()
                .map(|(l, d)| format!("{} {:?} {:?} {d:?}; ", l.form.id, l.fit.placed, l.fit.unplaced))
                .collect(),
        }
    }
}
