//! `check-syntax`: is this instruction text legal in a module of this `.version` and
//! `.target`, and if not, which rule does it break?
//!
//! The order of the checks decides which defect is named when there are several:
//! first the general statement grammar that every instruction shares (malformed:
//! the text does not parse, no `;`, an unknown opcode or qualifier word), then the
//! module, the qualifiers against the syntax lines (the nearest line when none
//! reads them exactly: `syntax::nearest`), the operands, the tables and forbid
//! rules, and last the version and target rules (invalid). The generator's illegal
//! cases carry one defect each, so for them the order never matters; a test holds
//! the two to the same answers.


use ptxvec_spec::model::SyntaxGroup;
use ptxvec_spec::model::{Effect, Form, Rule, Table};
use ptxvec_spec::{Instruction, Mnemonic, PtxVersion, Qualifier, Spec, Target};

use super::across;
use super::chain_words::ChainWords;
use super::defect::{fail, Defect, Kind};
use super::rule_id::{OperandRule, QualifierRule, RuleId, SyntaxRule};
use super::nearest::{self, line_defect, operands_fit, Line};
use super::operands;
use super::placement::{fit, in_order, Fit};
use super::spelling::{Refusal, Spelling};
use super::text;
use super::word_key::{self, ByWord};

/// The verdict on one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// The instruction's name, once the mnemonic is known.
    pub instruction: Option<String>,
    /// The syntax line it was read as, once one is chosen.
    pub form: Option<String>,
    /// `None` when legal.
    pub defect: Option<Defect>,
    /// Legal but worth saying: a non-canonical qualifier order.
    pub warnings: Vec<String>,
}

impl Judgement {
    /// Whether the text is legal.
    pub fn legal(&self) -> bool {
        self.defect.is_none()
    }

    /// The verdict on a text the general statement grammar refuses before its
    /// chain names an instruction: `defect` alone.
    pub(crate) fn unparsed(defect: Defect) -> Judgement {
        Judgement {
            instruction: None,
            form: None,
            defect: Some(defect),
            warnings: Vec::new(),
        }
    }
}

/// How strictly qualifier order is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Any order ptxas accepts, with a warning when it is not the document's.
    Lenient,
    /// The document's order only.
    Strict,
}


/// The defect of a table or forbid rule that rules the spelling out in every module.
pub fn refusal_defect(s: &Spelling<'_>) -> Option<Defect> {
    match s.refusal()? {
        Refusal::Table(id) => Some(table_defect(&s.chain(), id)),
        Refusal::Forbidden(rule) => Some(forbid_defect(rule)),
    }
}

/// The defect of a chain that a combinations table `id` has no entry for, every
/// reader's (a spelling's refusal, and a chain the table refuses across lines).
pub(crate) fn table_defect(chain: &str, id: &str) -> Defect {
    fail(
        Kind::Invalid,
        RuleId::Table(id.to_owned()),
        format!("`{chain}` is not among the combinations of table `{id}`"),
    )
}

/// The defect of a forbid rule that a chain meets: the rule's own reason.
pub(crate) fn forbid_defect(rule: &Rule) -> Defect {
    let reason = match &rule.effect {
        Effect::Forbid(r) => r.as_str(),
        Effect::Requires(_) | Effect::Removed(_) => "",
    };
    fail(Kind::Invalid, RuleId::Spec(rule.id.clone()), reason.to_owned())
}

/// The defect of a text that does not tokenize.
pub(crate) fn parse_defect(e: &text::LexError) -> Defect {
    fail(Kind::Malformed, SyntaxRule::Parse, e.to_string())
}

/// The defect of a guard (`@%r1`) that names a register of a class other than
/// `.pred`; `None` for a predicate's.
pub(crate) fn guard_defect(guard: &str) -> Option<Defect> {
    text::guard_is_no_predicate(guard)
        .then(|| fail(Kind::Invalid, OperandRule::Guard, format!("guard `{guard}` must be a predicate")))
}

/// The defect of operands that do not fit a reading.
pub(crate) fn operand_defect(d: operands::OperandDefect) -> Defect {
    fail(Kind::Invalid, d.rule, d.message)
}

/// The defect of a qualifier that no position of any line of `instruction` takes.
fn not_a_qualifier(q: Qualifier, instruction: &Instruction) -> Defect {
    fail(
        Kind::Invalid,
        QualifierRule::NotAllowed,
        format!("`{q}` is not a qualifier of {}", instruction.instruction),
    )
}

/// The defect of a requirement rule that a module breaks (`chain`: the spelling's
/// canonical chain); `None` for a rule that requires nothing.
pub fn unmet_defect(rule: &Rule, chain: &str, ptx: PtxVersion, target: Target) -> Option<Defect> {
    let reqs = match &rule.effect {
        Effect::Requires(reqs) => reqs,
        Effect::Removed(at) => {
            let (Some(v), Some(t)) = (at.ptx, at.target) else {
                return None;
            };
            return Some(fail(
                Kind::Invalid,
                RuleId::Spec(rule.id.clone()),
                format!("`{chain}` is removed from PTX ISA {v} on .target {t} and later; the module has .version {ptx} and .target {target}"),
            ));
        }
        Effect::Forbid(_) => return None,
    };
    let alts: Vec<String> = reqs
        .iter()
        .map(|r| match (r.ptx, r.target) {
            (Some(v), Some(t)) => format!("PTX ISA {v} with {t}"),
            (Some(v), None) => format!("PTX ISA {v}"),
            (None, Some(t)) => t.to_string(),
            (None, None) => String::new(),
        })
        .collect();
    Some(fail(
        Kind::Invalid,
        RuleId::Spec(rule.id.clone()),
        format!(
            "`{chain}` needs {}; the module has .version {ptx} and .target {target}",
            alts.join(" or ")
        ),
    ))
}

/// A qualifier defect, and the id of the syntax line it was judged against.
pub type QualDefect = (Defect, Option<String>);

/// The spellings the qualifiers can be read as (each with whether the order is the
/// document's), or the defect of the nearest syntax line (and that line's id).
pub(crate) fn read_qualifiers<'s, S: AsRef<str>>(
    instruction: &'s Instruction,
    quals: &[Qualifier],
    written: &[text::Operand<S>],
) -> Result<Vec<(Spelling<'s>, bool)>, QualDefect> {
    read_chain(instruction, quals).map_err(|u| u.defect(instruction, quals, written))
}

/// Why no syntax line reads a chain's qualifiers exactly, as far as the chain
/// alone tells.
pub enum Unread<'s> {
    /// The defect, whatever the operands: a qualifier of no line, or a table or
    /// forbid rule that refuses the combination across lines.
    Fixed(QualDefect),
    /// The nearest lines by qualifiers, in spec order, each with the defect it
    /// names: the first one the written operands fit names the text's defect, else
    /// the first one (`nearest::nearest`'s tie-break).
    Nearest(Vec<(Line<'s>, Defect)>),
}

impl<'s> Unread<'s> {
    /// The defect of a text that writes `written` after the chain.
    pub fn defect<S: AsRef<str>>(
        &self,
        instruction: &'s Instruction,
        quals: &[Qualifier],
        written: &[text::Operand<S>],
    ) -> QualDefect {
        let (d, form) = self.defect_ref(instruction, quals, written);
        (d.into_owned(), form.map(str::to_owned))
    }

    /// [`Unread::defect`], borrowed from the reading where it comes from it.
    pub fn defect_ref<S: AsRef<str>>(
        &self,
        instruction: &'s Instruction,
        quals: &[Qualifier],
        written: &[text::Operand<S>],
    ) -> (std::borrow::Cow<'_, Defect>, Option<&str>) {
        use std::borrow::Cow;
        match self {
            Unread::Fixed((d, form)) => (Cow::Borrowed(d), form.as_deref()),
            Unread::Nearest(lines) => {
                let first = lines
                    .iter()
                    .find(|(l, _)| operands_fit(instruction, l, quals, written))
                    .or(lines.first());
                match first {
                    Some((line, d)) => (Cow::Borrowed(d), Some(line.form.id.as_str())),
                    None => (
                        Cow::Owned(fail(Kind::Invalid, QualifierRule::Missing, "no syntax line")),
                        None,
                    ),
                }
            }
        }
    }
}

/// An instruction's syntax lines as a chain's reading places qualifiers on them:
/// the definition's sets ([`SetLines`]), or the batch judge's bit masks
/// (`line_masks`). [`read_chain_by`] holds the reading's steps, their order and
/// their defects once, for both.
pub(crate) trait Lines<'s> {
    /// What a chain's qualifiers are read from once, for every line (the masks'
    /// set of them).
    type Written;
    /// The instruction.
    fn instruction(&self) -> &'s Instruction;
    /// Whether some position of some line takes `q`.
    fn in_vocabulary(&self, q: Qualifier) -> bool;
    /// `quals` as [`Lines::could_read_exactly`] asks them.
    fn written(&self, quals: &[Qualifier]) -> Self::Written;
    /// How many lines, in `Instruction::forms` order.
    fn count(&self) -> usize;
    /// Line `k`'s group and form.
    fn line(&self, k: usize) -> (&'s SyntaxGroup, &'s Form);
    /// A necessary condition for line `k` to read `quals` exactly: as many
    /// positions as qualifiers at least, a position for each qualifier, and a
    /// qualifier for each position the line always fills.
    fn could_read_exactly(&self, k: usize, quals: &[Qualifier], written: &Self::Written) -> bool;
    /// The placement of `quals` on line `k` (`placement::fit`, nothing widened).
    fn place(&self, k: usize, quals: &[Qualifier]) -> Fit;
    /// `across::table_refusal`: the first reading on a form of an across-lines
    /// table, its positions widened by the table's columns, that the table refuses.
    fn table_refusal(&self, quals: &[Qualifier]) -> Option<(&'s Table, Spelling<'s>)>;
}

/// The definition's [`Lines`]: the groups' sets, asked per qualifier.
pub(crate) struct SetLines<'s> {
    instruction: &'s Instruction,
    forms: Vec<(&'s SyntaxGroup, &'s Form)>,
}

impl<'s> SetLines<'s> {
    /// `instruction`'s lines.
    pub(crate) fn of(instruction: &'s Instruction) -> SetLines<'s> {
        SetLines { instruction, forms: instruction.forms().collect() }
    }
}

impl<'s> Lines<'s> for SetLines<'s> {
    type Written = ();

    fn instruction(&self) -> &'s Instruction {
        self.instruction
    }

    fn in_vocabulary(&self, q: Qualifier) -> bool {
        self.forms.iter().any(|(g, f)| f.syntax.slots.iter().any(|slot| g.takes(slot, q)))
    }

    fn written(&self, _: &[Qualifier]) {}

    fn count(&self) -> usize {
        self.forms.len()
    }

    fn line(&self, k: usize) -> (&'s SyntaxGroup, &'s Form) {
        self.forms[k]
    }

    fn could_read_exactly(&self, k: usize, quals: &[Qualifier], _: &()) -> bool {
        let (group, form) = self.forms[k];
        let slots = &form.syntax.slots;
        quals.len() <= slots.len()
            && quals.iter().all(|&q| slots.iter().any(|s| group.takes(s, q)))
            && slots
                .iter()
                .filter(|s| !s.optional)
                .all(|s| quals.iter().any(|&q| group.takes(s, q)))
    }

    fn place(&self, k: usize, quals: &[Qualifier]) -> Fit {
        let (group, form) = self.forms[k];
        fit(group, form, quals, &[])
    }

    fn table_refusal(&self, quals: &[Qualifier]) -> Option<(&'s Table, Spelling<'s>)> {
        across::table_refusal(self.instruction, quals)
    }
}

/// [`read_qualifiers`] before the operands are seen: the spellings, or why there
/// are none.
pub(crate) fn read_chain<'s>(
    instruction: &'s Instruction,
    quals: &[Qualifier],
) -> Result<Vec<(Spelling<'s>, bool)>, Unread<'s>> {
    read_chain_by(&SetLines::of(instruction), quals)
}

/// [`read_chain`] on `lines`: a qualifier no line takes; else the exact readings;
/// else a table that refuses the chain across lines, a forbid rule that holds on
/// every line, or the nearest lines by qualifiers, each with its defect.
pub(crate) fn read_chain_by<'s, L: Lines<'s>>(
    lines: &L,
    quals: &[Qualifier],
) -> Result<Vec<(Spelling<'s>, bool)>, Unread<'s>> {
    let instruction = lines.instruction();
    if let Some(&q) = quals.iter().find(|q| !lines.in_vocabulary(**q)) {
        return Err(Unread::Fixed((not_a_qualifier(q, instruction), None)));
    }
    // Only the exact readings are kept from these fits: a line that cannot read
    // the qualifiers exactly is not searched. The fits made are kept for the
    // nearest lines when no line reads the qualifiers exactly.
    let written = lines.written(quals);
    let mut fits: Vec<Option<Fit>> = Vec::with_capacity(lines.count());
    let mut exact = Vec::new();
    for k in 0..lines.count() {
        if !lines.could_read_exactly(k, quals, &written) {
            fits.push(None);
            continue;
        }
        let (group, form) = lines.line(k);
        let placed = lines.place(k, quals);
        if placed.cost(form) == 0 {
            exact.push((Spelling::placed(instruction, group, form, &placed, quals), in_order(&placed.placed)));
        }
        fits.push(Some(placed));
    }
    if !exact.is_empty() {
        return Ok(refused_last(exact));
    }
    if let Some((table, s)) = lines.table_refusal(quals) {
        return Err(Unread::Fixed((table_defect(&s.chain(), &table.id), Some(s.form.id.clone()))));
    }
    if let Some(rule) = across::forbidden(instruction, quals) {
        return Err(Unread::Fixed((forbid_defect(rule), None)));
    }
    let all = fits.into_iter().enumerate().map(|(k, placed)| {
        let (group, form) = lines.line(k);
        Line::new(group, form, placed.unwrap_or_else(|| lines.place(k, quals)))
    });
    Err(Unread::Nearest(
        nearest::nearest_of(all.collect())
            .lines
            .into_iter()
            .map(|line| {
                let d = line_defect(&line, quals);
                (line, d)
            })
            .collect(),
    ))
}

/// The exact readings of a chain, those a table or forbid rule refuses dropped
/// where some other reading is allowed: atom's `.cas.b32` fits both the line
/// `.op.type d, [a], b{, cache-policy}` (whose table has no `.cas`) and the line
/// `.op.type d, [a], b, c`, and `atom.cas.b32 %r1, [%rd1], %r2;` lacks its `c`,
/// rather than naming a `.cas` the first line's table refuses.
pub(crate) fn refused_last<'s>(exact: Vec<(Spelling<'s>, bool)>) -> Vec<(Spelling<'s>, bool)> {
    // One reading is kept whether refused or not: nothing to ask (nearly every
    // chain reads one way, and the batch judge asks its refusal later, once).
    if exact.len() < 2 || exact.iter().all(|(s, _)| s.refusal().is_some()) {
        return exact;
    }
    exact.into_iter().filter(|(s, _)| s.refusal().is_none()).collect()
}

/// The defect of a chain that writes a qualifier twice: the first written again.
pub(crate) fn repeated(quals: &[Qualifier]) -> Option<Defect> {
    let q = quals
        .iter()
        .enumerate()
        .find_map(|(k, q)| quals[..k].contains(q).then_some(q))?;
    Some(fail(
        Kind::Invalid,
        QualifierRule::Duplicate,
        format!("`{q}` is written twice"),
    ))
}

/// The instructions `spec` holds, by name, for messages that list them.
pub fn covered_names(spec: &Spec) -> String {
    let names: Vec<&str> = spec.instructions.iter().map(|f| f.instruction.instruction.as_str()).collect();
    names.join(", ")
}

/// What a chain's words say before any qualifier is placed: the instruction, and
/// its qualifiers as written.
pub(crate) struct Head<'s> {
    /// The instruction whose opcode the chain starts with.
    pub instruction: &'s Instruction,
    /// The words after the opcode, the mnemonic's own `.sync` taken out.
    pub quals: Vec<Qualifier>,
    /// Whether the mnemonic's `.sync` stands elsewhere than after the opcode (not
    /// the document's order; ptxas 13.5 accepts it, [`Mnemonic::opcode`]).
    pub moved: bool,
    /// The invalid defect of a chain without the mnemonic's `.sync`.
    pub missing: Option<Defect>,
    /// What the ledger's departures ask of the chain's words.
    pub words: ChainWords<'static>,
}

/// The instruction a chain's words (`redux`, `add`, `sync`, `u32`) start with and
/// its qualifiers, or the malformed defect: no covered opcode, or a word that is
/// no PTX qualifier.
pub(crate) fn head_of<'s, S: AsRef<str>>(spec: &'s Spec, words: &[S]) -> Result<Head<'s>, Defect> {
    // The rows of this spec's mnemonics only: another spec loaded in the process
    // may read a spelling otherwise (a row of its own).
    let opens = |m: &MnemonicWords| {
        m.mnemonic.opcode_in(words).is_some() && spec.instructions.iter().any(|f| f.instruction.mnemonic == m.mnemonic)
    };
    // Where two mnemonics share the opcode (`vote.sync` and `vote`), the one whose
    // own words (`.sync`) are written anywhere in the chain reads it; a chain
    // without them is the bare one's (ptxas 13.5 reads `vote.all.pred` as the
    // non-sync `vote`, and `vote.all.sync.pred` as `vote.sync`).
    let written = |m: &MnemonicWords| {
        m.own
            .iter()
            .all(|(own, _)| words.iter().skip(m.opcode.len()).any(|w| w.as_ref() == *own))
    };
    let table = mnemonic_words();
    let Some(m) = table
        .iter()
        .filter(|m| opens(m))
        .max_by_key(|m| (m.mnemonic.opcode().len(), written(m), m.mnemonic.spelling().len()))
    else {
        return Err(fail(
            Kind::Malformed,
            SyntaxRule::Mnemonic,
            format!("`{}` is not one of the instructions ptxvec covers ({})", words.first().map_or("", AsRef::as_ref), covered_names(spec)),
        ));
    };
    let mnemonic = m.mnemonic;
    let instruction = spec
        .instructions
        .iter()
        .map(|f| &f.instruction)
        .find(|i| i.mnemonic == mnemonic)
        .ok_or_else(|| fail(Kind::Malformed, SyntaxRule::Mnemonic, format!("no spec for `{mnemonic}`")))?;
    let skip = mnemonic.opcode_in(words).unwrap_or(m.opcode.len());
    let mut quals = Vec::with_capacity(words.len() - skip + 1);
    // The infix written inside the opcode (`bar.cta.red`) is the spelling's first
    // qualifier; written after it, ptxas refuses it ("Illegal modifier '.cta' for
    // instruction 'bar.red'").
    let infix = mnemonic.infix();
    if skip > m.opcode.len() {
        quals.extend(infix);
    }
    // `ChainWords::of(words)`, from the lookups made here: the opcode's words are
    // the mnemonic's.
    let mut spelled = ChainWords {
        first: m.opcode[0],
        ..ChainWords::default()
    };
    for &q in &m.opcode_quals {
        spelled.add(q);
    }
    quals.iter().for_each(|&q| spelled.add(q));
    for w in &words[skip..] {
        let w = w.as_ref();
        match qualifier_of(w) {
            Some(q) if Some(q) == infix => {
                return Err(fail(
                    Kind::Invalid,
                    QualifierRule::NotAllowed,
                    format!("`{q}` stands only inside the opcode (`{}`), not after it", mnemonic.chain(&[q])),
                ))
            }
            Some(q) => {
                quals.push(q);
                spelled.add(q);
            }
            None => {
                return Err(fail(
                    Kind::Malformed,
                    SyntaxRule::UnknownQualifier,
                    format!("`.{w}` is not a PTX qualifier"),
                ))
            }
        }
    }
    // The mnemonic's own words after the opcode (`.sync`): the first of each
    // written is the mnemonic's, wherever it stands.
    let mut moved = false;
    let mut missing = None;
    for (k, (word, q)) in m.own.iter().enumerate() {
        let q = q.ok_or_else(|| {
            fail(Kind::Malformed, SyntaxRule::Mnemonic, format!("`{mnemonic}`: `.{word}` is no qualifier"))
        })?;
        match quals.iter().position(|&w| w == q) {
            Some(at) => {
                moved |= at != k;
                quals.remove(at);
            }
            None => {
                missing.get_or_insert_with(|| {
                    fail(
                        Kind::Invalid,
                        QualifierRule::Missing,
                        format!("`{}` needs `{q}` (`{mnemonic}`); ptxas 13.5: \".sync modifier required\"", mnemonic.opcode()),
                    )
                });
            }
        }
    }
    Ok(Head {
        instruction,
        quals,
        moved,
        missing,
        words: spelled,
    })
}

/// A mnemonic's words, split once: its opcode's (`vote`), and its own after them
/// (`sync`), each with the qualifier it spells.
struct MnemonicWords {
    mnemonic: Mnemonic,
    opcode: Vec<&'static str>,
    /// The qualifiers the opcode's words spell (none today).
    opcode_quals: Vec<Qualifier>,
    own: Vec<(&'static str, Option<Qualifier>)>,
}

/// Every declared mnemonic's words, in declaration order (the batch judge reads
/// tens of thousands of chains: the words are split once, not per chain; made
/// again when a spec declares more).
fn mnemonic_words() -> std::sync::Arc<Vec<MnemonicWords>> {
    static WORDS: super::declared::Declared<Vec<MnemonicWords>> = super::declared::Declared::new();
    WORDS.get(Mnemonic::count(), || {
        Mnemonic::all()
            .into_iter()
            .map(|mnemonic| {
                let opcode: Vec<&'static str> = mnemonic.opcode().split('.').collect();
                let own = mnemonic
                    .spelling()
                    .split('.')
                    .skip(opcode.len())
                    .map(|w| (w, Qualifier::from_word(w)))
                    .collect();
                let opcode_quals = opcode.iter().filter_map(|w| Qualifier::from_word(w)).collect();
                MnemonicWords {
                    mnemonic,
                    opcode,
                    opcode_quals,
                    own,
                }
            })
            .collect()
    })
}

/// [`Qualifier::from_word`], by one lookup of the word as an integer
/// ([`word_key`]) rather than a search of the words (every word of every chain
/// read is looked up); the few longer words by `from_word`.
fn qualifier_of(word: &str) -> Option<Qualifier> {
    static BY_KEY: super::declared::Declared<ByWord<Qualifier>> = super::declared::Declared::new();
    let Some(key) = word_key::key(word) else {
        return Qualifier::from_word(word);
    };
    BY_KEY
        .get(Qualifier::count(), || {
            Qualifier::all()
                .into_iter()
                .filter_map(|q| Some((word_key::key(&q.spelling()[1..])?, q)))
                .collect()
        })
        .get(&key)
        .copied()
}

/// The spelling a text is read as, if its qualifiers fit a syntax line exactly
/// (operands and rules aside): what `emit-ptx` declares symbolic operands by.
pub fn reading<'s>(spec: &'s Spec, text: &str) -> Option<Spelling<'s>> {
    let parsed = text::tokenize(text).ok()?;
    let head = head_of(spec, &parsed.words).ok()?;
    if head.missing.is_some() {
        return None;
    }
    read_qualifiers(head.instruction, &head.quals, &parsed.operands)
        .ok()?
        .into_iter()
        .next()
        .map(|(s, _)| s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain's words are looked up as `Qualifier::from_word` looks them up:
    /// every qualifier's word (the long ones too), and words of no qualifier.
    #[test]
    fn words_are_looked_up_as_from_word_does() {
        let mut words: Vec<String> = Qualifier::all().iter().map(|q| q.spelling()[1..].to_owned()).collect();
        assert!(words.iter().any(|w| w.len() > 15), "a word longer than a key");
        let more: Vec<String> = words
            .iter()
            .flat_map(|w| [format!("{w}\0"), format!("{w}x"), w.to_uppercase(), w[..w.len() - 1].to_owned()])
            .collect();
        words.extend(more);
        words.extend(["", "sync", "add", &"x".repeat(40)].map(String::from));
        for w in &words {
            assert_eq!(qualifier_of(w), Qualifier::from_word(w), "{w:?}");
        }
    }
}
