//! The typed shape of one instruction file under spec/instructions/.
//!
//! Every struct denies unknown fields, and every closed set is an enum, so a typo in
//! the YAML is an error with its line and column rather than a silently ignored key.
//! spec/README.md documents the same schema for people.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::qualifier::{QualKind, QualMask, Qualifier};
use crate::source::Source;
use crate::target::Target;
use crate::template::{Mnemonic, Slot, SlotToken, Template};
use crate::version::PtxVersion;

/// One instruction: spec/instructions/<name>.yaml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instruction {
    /// The name the PTX ISA gives the instruction: `match.sync`, `red`.
    pub instruction: String,
    /// What its syntax lines start with.
    pub mnemonic: Mnemonic,
    /// The words ptxas reads as the opcode, where they are not the mnemonic
    /// ([`crate::mnemonic::MnemonicInfo::opcode`]), with the evidence.
    #[serde(default)]
    pub opcode: Option<OpcodeWords>,
    /// A qualifier ptxas reads inside the opcode, after its first word
    /// ([`crate::mnemonic::MnemonicInfo::infix`]), with the evidence.
    #[serde(default)]
    pub infix: Option<Infix>,
    /// One line on what it does, from the doc.
    pub summary: String,
    /// The qualifier spellings this instruction alone uses, beyond the shared
    /// vocabulary (`spec/qualifiers.yaml`).
    #[serde(default)]
    pub qualifiers: Vec<crate::qualifier::Declaration>,
    /// The documents it is encoded from.
    pub sources: Vec<Source>,
    /// The syntax blocks: syntax lines with the sets their placeholders draw from.
    pub syntax: Vec<SyntaxGroup>,
    /// Version, target and combination rules.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// The doc's tables, row by row.
    #[serde(default)]
    pub tables: Vec<Table>,
    /// What the oracle needs to know of the meaning.
    #[serde(default)]
    pub semantics: Vec<SemanticNote>,
    /// The doc's own examples, verbatim.
    #[serde(default)]
    pub examples: Vec<Example>,
}

/// The words ptxas reads as an instruction's opcode.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpcodeWords {
    /// The opcode: the mnemonic's first words (`redux` of `redux.sync`).
    pub words: String,
    /// What shows it (ptxas's messages).
    pub source: Source,
}

/// A qualifier ptxas reads inside an instruction's opcode.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Infix {
    /// The qualifier (`.cta` of `bar{.cta}.red`).
    pub qualifier: Qualifier,
    /// What shows it.
    pub source: Source,
}

/// Syntax lines and the sets that follow them in the doc: `.op = { .add, ... }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyntaxGroup {
    /// The placeholder sets, by placeholder name (`op`, `level::cache_hint`).
    #[serde(default)]
    pub sets: BTreeMap<String, QualSet>,
    /// The forms whose lines draw on these sets.
    pub forms: Vec<Form>,
}

impl SyntaxGroup {
    /// Whether a qualifier position of one of this group's lines takes `q`: a fixed
    /// qualifier is itself, a placeholder takes its set's values.
    pub fn takes(&self, slot: &Slot, q: Qualifier) -> bool {
        match slot.takes {
            Some(mask) => mask.has(q),
            None => self.mask_of(&slot.token).has(q),
        }
    }

    /// What a position of one of this group's lines takes, as one mask.
    pub fn mask(&self, slot: &Slot) -> QualMask {
        slot.takes.unwrap_or_else(|| self.mask_of(&slot.token))
    }

    /// What a position with this token takes, as one mask (empty for a placeholder
    /// without a set).
    fn mask_of(&self, token: &SlotToken) -> QualMask {
        match token {
            SlotToken::Fixed(f) => std::iter::once(*f).collect(),
            SlotToken::Placeholder(p) => self
                .sets
                .get(p)
                .map(|s| s.values.iter().copied().collect())
                .unwrap_or_default(),
        }
    }
}

/// The values a placeholder takes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QualSet {
    /// Every value, in the doc's order.
    pub values: Vec<Qualifier>,
    /// What is assumed when an optional placeholder is left out.
    #[serde(default)]
    pub default: Option<Qualifier>,
    /// Values that mean another value: `.shared` means `.shared::cta`.
    #[serde(default)]
    pub aliases: BTreeMap<Qualifier, Qualifier>,
    /// Where the default or aliases are stated.
    #[serde(default)]
    pub source: Option<Source>,
}

/// One syntax line of the doc.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Form {
    /// Unique within the instruction: `scalar`, `vector_f32`.
    pub id: String,
    /// The line as each seed prints it, verbatim.
    pub doc_syntax: Vec<DocLine>,
    /// The line in parseable form. Equal to every `doc_syntax` text up to whitespace,
    /// unless `errata` names the ledger entries that explain the difference.
    pub syntax: Template,
    /// What each operand of the line is.
    pub operands: BTreeMap<String, OperandSpec>,
    /// Ledger entries about this form.
    #[serde(default)]
    pub errata: Vec<String>,
}

/// A line quoted from a seed, or from the full PTX ISA where the seeds print none
/// (the non-sync `vote` and `shfl`).
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawPrinted")]
pub struct DocLine {
    /// Where it is printed.
    pub printed: Printed,
    /// The text, verbatim.
    pub text: String,
}

/// Where a quoted line is printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Printed {
    /// A seed document, by its number ("004").
    Seed(String),
    /// The full PTX ISA, by its version ("PTX ISA 9.1").
    Doc(String),
}

impl Printed {
    /// The seed number, for a seed.
    pub fn seed(&self) -> Option<&str> {
        match self {
            Printed::Seed(s) => Some(s),
            Printed::Doc(_) => None,
        }
    }

    /// How ids and citations name it: the seed's number, or the document.
    pub fn name(&self) -> &str {
        match self {
            Printed::Seed(s) | Printed::Doc(s) => s,
        }
    }
}

/// The on-disk shape of a quoted line: exactly one of `seed` and `doc`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrinted {
    #[serde(default)]
    seed: Option<String>,
    #[serde(default)]
    doc: Option<String>,
    text: String,
    #[serde(default)]
    form: Option<String>,
    #[serde(default)]
    context: Option<bool>,
    #[serde(default)]
    errata: Option<Vec<String>>,
}

impl RawPrinted {
    fn printed(&self) -> Result<Printed, String> {
        match (&self.seed, &self.doc) {
            (Some(s), None) => Ok(Printed::Seed(s.clone())),
            (None, Some(d)) => Ok(Printed::Doc(d.clone())),
            _ => Err("a quoted line names exactly one of `seed` (\"004\") or `doc` (\"PTX ISA 9.1\")".to_owned()),
        }
    }
}

impl TryFrom<RawPrinted> for DocLine {
    type Error = String;

    fn try_from(raw: RawPrinted) -> Result<Self, String> {
        if raw.form.is_some() || raw.context.is_some() || raw.errata.is_some() {
            return Err("a syntax line's quote has only `seed` or `doc`, and `text`".to_owned());
        }
        Ok(DocLine {
            printed: raw.printed()?,
            text: raw.text,
        })
    }
}

/// What kind of register or address an operand is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum OperandClass {
    /// `[a]`: an address.
    Address,
    /// A register of this fixed type: `.b32`, `.pred`.
    Fixed(Qualifier),
    /// A register of the type a placeholder holds: `type`.
    FromSlot(String),
}

impl TryFrom<String> for OperandClass {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        if s == "address" {
            return Ok(OperandClass::Address);
        }
        if s.starts_with('.') {
            let q: Qualifier = s.parse().map_err(|e| format!("{e}"))?;
            return match q.kind() {
                QualKind::Type => Ok(OperandClass::Fixed(q)),
                _ => Err(format!(
                    "operand class `{s}` is not a type (expected `.b32`, `.pred`, ...)"
                )),
            };
        }
        if s.is_empty() {
            return Err("expected `address`, a type such as `.b32`, or a placeholder name".into());
        }
        Ok(OperandClass::FromSlot(s))
    }
}

/// One operand's spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandSpec {
    /// Address, fixed register type, or the type of a placeholder.
    pub class: OperandClass,
    /// An immediate may stand in place of a register.
    #[serde(default)]
    pub imm: bool,
    /// A brace vector whose length the named vector placeholder gives (`.v4` → 4).
    #[serde(default)]
    pub vector: Option<String>,
    /// The sink `_` may stand in place of a register.
    #[serde(default)]
    pub sink: bool,
    /// The instruction writes it: only a register (or a permitted sink) may stand here.
    #[serde(default)]
    pub dest: bool,
    /// Only integer registers (`.b`, `.u`, `.s`) of the class's size are taken, not
    /// float ones, although the class is a bit-size type (ptxas 13.5: redux.sync's
    /// operands, every membermask, match's `d`, cp.reduce's `size`, and the
    /// `cache-policy` of red and cp.reduce, where `%fd3`, `1.5` and `0d3FF0...` draw
    /// "Arguments mismatch").
    #[serde(default)]
    pub int_registers: bool,
    /// The operand may be present only together with this qualifier.
    #[serde(default)]
    pub requires: Option<Qualifier>,
    /// This qualifier may be present only together with the operand.
    #[serde(default)]
    pub required_by: Option<Qualifier>,
    /// An immediate must be a multiple of this.
    #[serde(default)]
    pub multiple_of: Option<u32>,
    /// An immediate must lie in `0..=max`.
    #[serde(default)]
    pub max: Option<Bound>,
    /// A register narrower than the address that ptxas refuses as this address
    /// operand (elsewhere it takes one, with "warning : Program uses 16-bit
    /// address").
    #[serde(default)]
    pub narrow: Option<NarrowAddress>,
    /// Where the operand's description is.
    #[serde(default)]
    pub source: Option<Source>,
}

/// A register ptxas refuses as an address operand because it is narrower than the
/// address: what the judge refuses and the illegal vectors write.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NarrowAddress {
    /// The register's width.
    pub register: NarrowRegister,
    /// Where one of these qualifiers is written, ptxas takes the register.
    #[serde(default)]
    pub unless: Vec<Qualifier>,
    /// ptxas's refusal: its release and its message as `quote`.
    pub source: Source,
}

/// The width of a register narrower than a 64-bit address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum NarrowRegister {
    /// A `.b16` register (`%h`).
    #[serde(rename = ".b16")]
    B16,
    /// A `.b32` register (`%r`).
    #[serde(rename = ".b32")]
    B32,
}

/// The largest value an immediate operand may take, with where that is said.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bound {
    /// The largest value.
    pub value: u64,
    /// The bound holds for the immediate's low bits, as many as the operand's type
    /// has (a `.u32` operand's value: ptxas 13.5 takes `4294967311` as barrier 15
    /// and refuses `4294967312`), rather than for the literal's whole value.
    #[serde(default)]
    pub wraps: bool,
    /// Where it is said (ptxas, where the document is silent).
    pub source: Source,
}

/// A set of qualifiers of which a spelling must hold at least one: `.shared|.shared::cta`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct AnyOf(pub Vec<Qualifier>);

impl TryFrom<String> for AnyOf {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        let qs = s
            .split('|')
            .map(|part| part.trim().parse::<Qualifier>().map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(AnyOf(qs))
    }
}

/// Which spellings a rule, note or table entry applies to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Condition<'a> {
    /// The forms; `None` means every form.
    pub forms: Option<&'a [String]>,
    /// Each group must have a member among the spelling's qualifiers.
    pub when: &'a [AnyOf],
    /// None of these may be among them.
    pub unless: &'a [Qualifier],
}

impl Condition<'_> {
    /// Whether a spelling of `form` with these qualifiers matches.
    pub fn matches(&self, form: &str, quals: &[Qualifier]) -> bool {
        self.forms.is_none_or(|fs| fs.iter().any(|f| f == form))
            && self
                .when
                .iter()
                .all(|g| g.0.iter().any(|q| quals.contains(q)))
            && !self.unless.iter().any(|q| quals.contains(q))
    }
}

/// One PTX ISA version and one target that together make something available.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// The lowest `.version`.
    #[serde(default)]
    pub ptx: Option<PtxVersion>,
    /// The target it needs (plain: that or later; `a`: exactly; `f`: the family).
    #[serde(default)]
    pub target: Option<Target>,
}

/// A rule from the doc's text: a requirement, or a combination it forbids.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawRule")]
pub struct Rule {
    /// Unique within the instruction; illegal variants name it.
    pub id: String,
    /// The forms it applies to; `None` means every form.
    pub forms: Option<Vec<String>>,
    /// The spellings it applies to.
    pub when: Vec<AnyOf>,
    /// ... except those holding one of these.
    pub unless: Vec<Qualifier>,
    /// What the rule says.
    pub effect: Effect,
    /// The doc's words.
    pub source: Source,
    /// Ledger entries about this rule.
    pub errata: Vec<String>,
}

/// What a rule says of the spellings it applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Available when any one of these holds.
    Requires(Vec<Requirement>),
    /// Not allowed, for this reason.
    Forbid(String),
    /// Withdrawn from every module that meets this (its `.version` or later, on its
    /// target or later): non-sync `vote` and `shfl` from PTX ISA 6.4 on sm_70 and
    /// later. Available below it, as the other rules say.
    Removed(Requirement),
}

impl Effect {
    /// Whether the rule depends on the module (`requires`, `removed`), rather than
    /// refusing its spellings everywhere (`forbid`).
    pub fn is_module_rule(&self) -> bool {
        !matches!(self, Effect::Forbid(_))
    }
}

impl Rule {
    /// Which spellings the rule applies to.
    pub fn condition(&self) -> Condition<'_> {
        Condition {
            forms: self.forms.as_deref(),
            when: &self.when,
            unless: &self.unless,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    #[serde(default)]
    forms: Option<Vec<String>>,
    #[serde(default)]
    when: Vec<AnyOf>,
    #[serde(default)]
    unless: Vec<Qualifier>,
    #[serde(default)]
    requires: Vec<Requirement>,
    #[serde(default)]
    forbid: Option<String>,
    #[serde(default)]
    removed: Option<Requirement>,
    source: Source,
    #[serde(default)]
    errata: Vec<String>,
}

impl TryFrom<RawRule> for Rule {
    type Error = String;

    fn try_from(r: RawRule) -> Result<Self, String> {
        let effect = match (r.requires.is_empty(), r.forbid, r.removed) {
            (false, None, None) => {
                if r.requires.iter().any(|q| q.ptx.is_none() && q.target.is_none()) {
                    return Err(format!("rule `{}`: each requirement names a `ptx` version, a `target`, or both", r.id));
                }
                Effect::Requires(r.requires)
            }
            (true, Some(reason), None) => Effect::Forbid(reason),
            (true, None, Some(at)) => {
                // A removal names the module it starts in: both halves, so that the
                // modules below it on either count keep the spelling.
                if at.ptx.is_none() || at.target.is_none() {
                    return Err(format!("rule `{}`: `removed` names both a `ptx` version and a `target`", r.id));
                }
                Effect::Removed(at)
            }
            _ => {
                return Err(format!(
                    "rule `{}`: expected exactly one of `requires` (a list of {{ptx, target}}), `forbid` (a reason) or `removed` ({{ptx, target}})",
                    r.id
                ))
            }
        };
        Ok(Rule {
            id: r.id,
            forms: r.forms,
            when: r.when,
            unless: r.unless,
            effect,
            source: r.source,
            errata: r.errata,
        })
    }
}

/// What a doc table is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// Lists the allowed qualifier combinations: a spelling of the table's forms is
    /// legal only if it matches one entry.
    Combinations,
    /// Describes behaviour; its rows name the qualifiers they are about.
    Descriptive,
}

/// A table of a seed, row by row, verbatim and typed; or a table the spec derives
/// from the doc's prose, which then has a `source` and no verbatim rows.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    /// Unique within the instruction.
    pub id: String,
    /// Combinations or descriptive.
    pub kind: TableKind,
    /// The seed it is printed in.
    #[serde(default)]
    pub seed: Option<String>,
    /// The table's first line, verbatim: how the presence test finds it in the seed.
    #[serde(default)]
    pub doc_header: Option<String>,
    /// For a table derived from prose: the prose.
    #[serde(default)]
    pub source: Option<Source>,
    /// For a combinations table, the forms it constrains.
    #[serde(default)]
    pub forms: Vec<String>,
    /// Every body row of the seed's table that belongs to this instruction.
    pub rows: Vec<TableRow>,
    /// Ledger entries about this table.
    #[serde(default)]
    pub errata: Vec<String>,
}

/// One body row of a doc table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRow {
    /// The row, verbatim; absent in a table derived from prose.
    #[serde(default)]
    pub doc: Option<String>,
    /// For a combinations table: the combinations the row allows, each a condition.
    #[serde(default)]
    pub entries: Vec<Vec<AnyOf>>,
    /// For a descriptive table: the qualifiers the row is about.
    #[serde(default)]
    pub keys: Vec<Qualifier>,
    /// Why a row holds no entries (e.g. it is a misprinted header).
    #[serde(default)]
    pub note: Option<String>,
}

/// The kinds of semantic fact the oracle needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SemanticKind {
    /// What the operation computes, as a formula or a sentence.
    Operation,
    /// Rounds to nearest, ties to even.
    RoundNearestEven,
    /// Subnormal inputs and results flush to sign-preserving zero.
    FlushSubnormals,
    /// Subnormal inputs and results are kept.
    PreserveSubnormals,
    /// +0.0 orders above -0.0.
    SignedZeroOrder,
    /// Any NaN input gives the canonical NaN.
    NanPropagate,
    /// NaN inputs are ignored; all-NaN gives the canonical NaN.
    NanSkip,
    /// The absolute value of each input is used.
    AbsInput,
    /// The result is truncated to the destination's width.
    Truncate,
    /// The result lies in a stated range.
    ResultRange,
    /// Every participating lane gets the same result.
    UniformResult,
    /// Lanes outside the membermask contribute zero.
    NonMemberZero,
    /// Where the behaviour is undefined.
    Undefined,
    /// What is atomic, and at what granularity.
    Atomicity,
    /// Memory ordering and scope.
    MemoryOrder,
    /// Which lane a value comes from (shfl).
    LaneSelection,
    /// When a predicate output is true.
    PredicateOutput,
    /// Operand encoding, such as shfl's packed `c`.
    OperandEncoding,
    /// Synchronization and convergence requirements.
    Convergence,
    /// A related spelling deprecated or removed.
    Deprecation,
}

/// One semantic fact, quoted from the doc.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SemanticNote {
    /// Unique within the instruction.
    pub id: String,
    /// What kind of fact.
    pub kind: SemanticKind,
    /// The forms it applies to; absent means all.
    #[serde(default)]
    pub forms: Option<Vec<String>>,
    /// The spellings it applies to.
    #[serde(default)]
    pub when: Vec<AnyOf>,
    /// ... except those holding one of these.
    #[serde(default)]
    pub unless: Vec<Qualifier>,
    /// A formula, in the doc's notation, where it gives one.
    #[serde(default)]
    pub formula: Option<String>,
    /// The doc's words.
    pub source: Source,
}

impl SemanticNote {
    /// Which spellings the note applies to.
    pub fn condition(&self) -> Condition<'_> {
        Condition {
            forms: self.forms.as_deref(),
            when: &self.when,
            unless: &self.unless,
        }
    }
}

/// One line of the doc's Examples block.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "RawPrinted")]
pub struct Example {
    /// The line, verbatim (continuation lines joined with a single space).
    pub text: String,
    /// Where it is printed.
    pub printed: Printed,
    /// The form it claims to instantiate; absent for context lines.
    pub form: Option<String>,
    /// A line of another instruction that the example needs (a declaration, `createpolicy`).
    pub context: bool,
    /// Ledger entries about this example.
    pub errata: Vec<String>,
}

impl TryFrom<RawPrinted> for Example {
    type Error = String;

    fn try_from(raw: RawPrinted) -> Result<Self, String> {
        Ok(Example {
            printed: raw.printed()?,
            text: raw.text,
            form: raw.form,
            context: raw.context.unwrap_or(false),
            errata: raw.errata.unwrap_or_default(),
        })
    }
}

impl Form {
    /// Every qualifier a spelling of this form can hold.
    pub fn possible_qualifiers<'a>(&'a self, group: &'a SyntaxGroup) -> Vec<Qualifier> {
        let mut out: Vec<Qualifier> = Vec::new();
        for slot in &self.syntax.slots {
            match &slot.token {
                SlotToken::Fixed(q) => out.push(*q),
                SlotToken::Placeholder(p) => {
                    if let Some(set) = group.sets.get(p) {
                        out.extend(set.values.iter().copied());
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// For each qualifier position, how many values it can take (a fixed qualifier: 1),
    /// and whether it may be left out.
    pub fn slot_choices<'a>(
        &'a self,
        group: &'a SyntaxGroup,
    ) -> impl Iterator<Item = (u64, bool)> + 'a {
        self.syntax.slots.iter().map(move |slot| {
            let n = match &slot.token {
                SlotToken::Fixed(_) => 1,
                SlotToken::Placeholder(p) => group.sets.get(p).map_or(0, |s| s.values.len() as u64),
            };
            (n, slot.optional)
        })
    }

    /// How many spellings the line allows before any rule or table: the product,
    /// over its positions, of the number of choices (plus one for leaving it out).
    pub fn template_spellings(&self, group: &SyntaxGroup) -> u64 {
        self.slot_choices(group)
            .map(|(n, optional)| n + u64::from(optional))
            .product()
    }
}

impl Instruction {
    /// Resolves what each qualifier position takes from its group's sets, once, so
    /// that [`SyntaxGroup::takes`] tests a bit instead of looking a set up by name.
    /// The loader calls it; an instruction not resolved answers the same, slower.
    pub fn resolve_slots(&mut self) {
        for g in &mut self.syntax {
            let masks: Vec<Vec<QualMask>> = g
                .forms
                .iter()
                .map(|f| f.syntax.slots.iter().map(|s| g.mask_of(&s.token)).collect())
                .collect();
            for (f, masks) in g.forms.iter_mut().zip(masks) {
                for (slot, mask) in f.syntax.slots.iter_mut().zip(masks) {
                    slot.takes = Some(mask);
                }
            }
        }
    }

    /// Every form with the group it belongs to, in file order.
    pub fn forms(&self) -> impl Iterator<Item = (&SyntaxGroup, &Form)> {
        self.syntax
            .iter()
            .flat_map(|g| g.forms.iter().map(move |f| (g, f)))
    }

    /// The form with this id.
    pub fn form(&self, id: &str) -> Option<(&SyntaxGroup, &Form)> {
        self.forms().find(|(_, f)| f.id == id)
    }
}
