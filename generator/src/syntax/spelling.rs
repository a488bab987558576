//! Qualifier spellings of a form, and what the spec's rules and tables say of them.
//!
//! A spelling is one choice per qualifier position of a syntax line (a value, or
//! nothing where the position is optional). The same functions judge a spelling
//! whether the enumerator built it or the judge parsed it from text, so the legal
//! list and `check-syntax` cannot drift apart.

use ptxvec_spec::model::{Effect, Form, Requirement, Rule, SyntaxGroup, TableKind};
use ptxvec_spec::template::SlotToken;
use ptxvec_spec::{Instruction, PtxVersion, Qualifier, Target, TargetModel};

use super::needs::Needs;

/// One choice per qualifier position of a form.
#[derive(Debug, Clone)]
pub struct Spelling<'s> {
    /// The instruction.
    pub instruction: &'s Instruction,
    /// The sets the form's placeholders draw on.
    pub group: &'s SyntaxGroup,
    /// The syntax line.
    pub form: &'s Form,
    /// Per position, the qualifier written there, `None` where an optional one is left out.
    pub slots: Vec<Option<Qualifier>>,
}

impl<'s> Spelling<'s> {
    /// The spelling a placement of `quals` on a line makes.
    pub fn placed(
        instruction: &'s Instruction,
        group: &'s SyntaxGroup,
        form: &'s Form,
        fit: &super::placement::Fit,
        quals: &[Qualifier],
    ) -> Spelling<'s> {
        Spelling { instruction, group, form, slots: fit.placed.iter().map(|p| p.map(|i| quals[i])).collect() }
    }
}

/// Why a well-formed spelling is not allowed, whatever the module.
#[derive(Debug, Clone)]
pub enum Refusal<'s> {
    /// No entry of a combinations table matches.
    Table(&'s str),
    /// A `forbid` rule applies.
    Forbidden(&'s Rule),
}

impl PartialEq for Refusal<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Refusal::Table(a), Refusal::Table(b)) => a == b,
            (Refusal::Forbidden(a), Refusal::Forbidden(b)) => a.id == b.id,
            _ => false,
        }
    }
}

impl<'s> Spelling<'s> {
    /// The qualifiers written, in canonical order.
    pub fn qualifiers(&self) -> Vec<Qualifier> {
        self.slots.iter().flatten().copied().collect()
    }

    /// The value of the named placeholder, if written.
    pub fn value_of(&self, placeholder: &str) -> Option<Qualifier> {
        self.form
            .syntax
            .slots
            .iter()
            .zip(&self.slots)
            .find(|(slot, _)| matches!(&slot.token, SlotToken::Placeholder(p) if p == placeholder))
            .and_then(|(_, q)| *q)
    }

    /// The canonical text of the qualifier chain: `red.relaxed.gpu.global.add.u32`.
    pub fn chain(&self) -> String {
        self.form.syntax.mnemonic.chain(&self.qualifiers())
    }

    /// The first table or forbid rule that rules the spelling out, in file order.
    pub fn refusal(&self) -> Option<Refusal<'s>> {
        let quals = self.qualifiers();
        let id = self.form.id.as_str();
        for table in &self.instruction.tables {
            if table.kind != TableKind::Combinations || !table.forms.iter().any(|f| f == id) {
                continue;
            }
            let allowed = table.rows.iter().flat_map(|r| &r.entries).any(|entry| {
                entry
                    .iter()
                    .all(|group| group.0.iter().any(|q| quals.contains(q)))
            });
            if !allowed {
                return Some(Refusal::Table(&table.id));
            }
        }
        self.instruction.rules.iter().find_map(|rule| {
            (matches!(rule.effect, Effect::Forbid(_)) && rule.condition().matches(id, &quals))
                .then_some(Refusal::Forbidden(rule))
        })
    }

    /// The rules on the module that apply (`requires` and `removed`), in file
    /// order.
    pub fn requiring_rules(&self) -> Vec<&'s Rule> {
        let quals = self.qualifiers();
        self.instruction
            .rules
            .iter()
            .filter(|r| r.effect.is_module_rule() && r.condition().matches(&self.form.id, &quals))
            .collect()
    }

    /// The requirement rule a module breaks, if any. Where several break, the most
    /// specific one is named: a rule on a qualifier (`.abs`) before a rule on the
    /// form (`.f32`) before the instruction's base rule, and among equals the later
    /// one in the file. Two rules with the same needs (redux.sync `.abs` and `.f32`)
    /// would otherwise leave the narrower one never reported.
    pub fn unmet_rule(&self, model: &TargetModel, ptx: PtxVersion, target: Target) -> Option<&'s Rule> {
        unmet_among(&self.requiring_rules(), model, ptx, target)
    }

    /// Every applicable requirement at once.
    pub fn needs(&self, model: &TargetModel) -> Needs {
        self.requiring_rules()
            .iter()
            .fold(Needs::none(), |acc, rule| match &rule.effect {
                Effect::Requires(reqs) => acc.and(model, &Needs::of_rule(reqs)),
                // A removal takes modules away above the needs, never below them:
                // the lowest modules that meet the needs keep the spelling, which
                // `removal` below says where it ends.
                Effect::Forbid(_) | Effect::Removed(_) => acc,
            })
    }

    /// Where the spelling is withdrawn, if a rule removes it: the first module of
    /// the removal (`.version` and `.target`, each the lowest that it takes).
    pub fn removal(&self) -> Option<(&'s Rule, Requirement)> {
        self.requiring_rules().into_iter().find_map(|r| match &r.effect {
            Effect::Removed(at) => Some((r, at.clone())),
            _ => None,
        })
    }
}

/// Among a spelling's requirement rules ([`Spelling::requiring_rules`]), the one a
/// module breaks that [`Spelling::unmet_rule`] names.
pub fn unmet_among<'s>(
    rules: &[&'s Rule],
    model: &TargetModel,
    ptx: PtxVersion,
    target: Target,
) -> Option<&'s Rule> {
    rules
        .iter()
        .copied()
        .filter(|r| match &r.effect {
            Effect::Requires(reqs) => !Needs::rule_met_by(reqs, model, ptx, target),
            Effect::Removed(at) => Needs::rule_met_by(std::slice::from_ref(at), model, ptx, target),
            Effect::Forbid(_) => false,
        })
        .max_by_key(|r| (r.when.len(), r.forms.is_some()))
}

/// Every spelling of a form that no table or forbid rule rules out (version and
/// target needs aside).
pub fn allowed_spellings<'s>(
    instruction: &'s Instruction,
    group: &'s SyntaxGroup,
    form: &'s Form,
) -> Vec<Spelling<'s>> {
    let mut all = every_spelling(instruction, group, form);
    all.retain(|s| s.refusal().is_none());
    all
}

/// Every spelling the syntax line's positions allow, refused or not, in the order of
/// the positions and the sets' value order (last position fastest), absent optionals
/// first.
pub fn every_spelling<'s>(
    instruction: &'s Instruction,
    group: &'s SyntaxGroup,
    form: &'s Form,
) -> Vec<Spelling<'s>> {
    let mut rows: Vec<Vec<Option<Qualifier>>> = vec![Vec::new()];
    for slot in &form.syntax.slots {
        let values: Vec<Qualifier> = match &slot.token {
            SlotToken::Fixed(q) => vec![*q],
            SlotToken::Placeholder(p) => group.sets.get(p).map_or(Vec::new(), |s| s.values.clone()),
        };
        let choices: Vec<Option<Qualifier>> = slot
            .optional
            .then_some(None)
            .into_iter()
            .chain(values.into_iter().map(Some))
            .collect();
        rows = rows
            .into_iter()
            .flat_map(|prefix| {
                choices.iter().map(move |v| {
                    let mut row = prefix.clone();
                    row.push(*v);
                    row
                })
            })
            .collect();
    }
    rows.into_iter()
        .map(|slots| Spelling {
            instruction,
            group,
            form,
            slots,
        })
        .collect()
}
