//! The errata ledger, spec/errata.yaml: every place where the witnesses disagree.

use serde::Deserialize;

use crate::source::Source;

/// Who disagrees with whom.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErratumKind {
    /// The doc misprints something it states correctly elsewhere.
    DocTypo,
    /// The doc contradicts itself: an example or table against its own syntax.
    DocSelfContradiction,
    /// Two seeds say different things.
    SeedsDisagree,
    /// The doc and ptxas disagree.
    DocVsPtxas,
    /// The doc and silicon disagree.
    DocVsSilicon,
    /// ptxas itself fails (a signal, a hang) where it should give a verdict.
    PtxasFault,
    /// A compiler's PTX allows, under the document's memory model, an outcome that
    /// its source language's memory model forbids (`ptxvec litmus-compiled`; the
    /// entry's `disagreements` are `litmus:<compiler folder>:<test id>`).
    CompilerVsModel,
}

/// A way ptxas reads a text that no syntax line allows, as a legal text: a
/// ledgered departure of ptxas from the verdict, which `check-syntax` reports and
/// the explorer holds to ptxas. Each is a list of steps (the generator applies
/// them, `syntax::departure`): ptxas accepts a text the judge refuses when the
/// text read through the steps is legal. Every departure is data: the steps'
/// conditions and changes ([`Reading`]) name classes of texts, never one erratum.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// The text is read through each of these steps whose conditions it meets, in
    /// order, each asking of the text as written.
    Reads(Vec<Reading>),
    /// ptxas fails (a signal, an internal compiler error) on a text that these
    /// steps read as a legal one.
    FailsOn(Vec<Reading>),
}

/// One step of a [`Departure::Reads`] or [`Departure::FailsOn`]: where the text
/// meets its conditions, what ptxas reads in it instead. Every condition asks of
/// the text as written, not as an earlier step read it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    /// For each of these sets, one of its qualifiers is written.
    #[serde(default)]
    pub with: Vec<Vec<crate::Qualifier>>,
    /// For each of these sets, its qualifiers are written once in all (a repeat
    /// counts: `.bf16.bf16` is two).
    #[serde(default)]
    pub once: Vec<Vec<crate::Qualifier>>,
    /// None of these is written.
    #[serde(default)]
    pub without: Vec<crate::Qualifier>,
    /// Every word after the first is a qualifier the spec knows (a word it does
    /// not know may stop ptxas before the reading).
    #[serde(default)]
    pub qualifiers_only: bool,
    /// The module's PTX ISA version is this or later.
    #[serde(default)]
    pub ptx_from: Option<crate::PtxVersion>,
    /// The module's target architecture is this or later (`90`).
    #[serde(default)]
    pub arch_from: Option<u16>,
    /// The module's target architecture is below this.
    #[serde(default)]
    pub arch_below: Option<u16>,
    /// Exactly this many operands are written.
    #[serde(default)]
    pub operands: Option<usize>,
    /// Each of these operands is written as one of its forms (conditions alone).
    #[serde(default)]
    pub written: Vec<OperandWritten>,
    /// The brace vectors the step reads the elements of ([`Reading::read_elements`]):
    /// those on this side of the address that meet `first`, `rest`, `registers`
    /// and `apart`.
    #[serde(default)]
    pub vectors: Option<VectorSide>,
    /// The vector's first element is written as one of these.
    #[serde(default)]
    pub first: Vec<Element>,
    /// The vector has elements after the first, each written as one of these.
    #[serde(default)]
    pub rest: Vec<Element>,
    /// Each of the vector's registers is one of these.
    #[serde(default)]
    pub registers: Vec<Element>,
    /// No two neighbouring elements of the vector are written as two different
    /// ones of these (`[int, float]`: no integer literal next to a float one).
    #[serde(default)]
    pub apart: Vec<Element>,
    /// Each of these, wherever it is written, is read as nothing.
    #[serde(default)]
    pub drop: Vec<crate::Qualifier>,
    /// The second and later writings of each of these are read as nothing.
    #[serde(default)]
    pub drop_repeats: Vec<crate::Qualifier>,
    /// Each key written is read as its value.
    #[serde(default)]
    pub replace: std::collections::BTreeMap<crate::Qualifier, crate::Qualifier>,
    /// These are read after the written qualifiers.
    #[serde(default)]
    pub append: Vec<crate::Qualifier>,
    /// An address operand is read after the written ones (an `[mbar]` left out).
    #[serde(default)]
    pub address: bool,
    /// The operand at this position is written as one of these.
    #[serde(default)]
    pub operand: Option<OperandWritten>,
    /// That operand is read as this.
    #[serde(default)]
    pub read_operand: Option<OperandRead>,
    /// Elements of each vector the step reads ([`Reading::vectors`]) are read so.
    #[serde(default)]
    pub read_elements: Option<ElementRead>,
    /// The whole text is read as another, in another module: ptxas goes on to
    /// what it does with that text whatever the written one's defect.
    #[serde(default)]
    pub read_as: Option<TextRead>,
    /// The module's `.target` is read as this one: a rule ptxas checks against
    /// the architecture it assembles for (`-arch`) rather than the module's.
    #[serde(default)]
    pub read_target: Option<crate::Target>,
}

/// A condition of a [`Reading`] on one written operand.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandWritten {
    /// Its position, 0 the first.
    pub at: usize,
    /// It is written as one of these.
    pub is: Vec<Written>,
}

/// How an operand is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Written {
    /// The sink `_`.
    Sink,
    /// A register or a name with the sink as its predicate, `d|_`.
    SinkPair,
    /// The sink with a predicate after it, `_|p` (`_|_` too).
    SinkPaired,
    /// An integer literal.
    Int,
    /// A float literal of any spelling (`0f…`, `0d…`, `1.5`).
    Float,
    /// A `.f32` literal's bits, `0f…`.
    F32Bits,
    /// A `.f64` literal's bits, `0d…`.
    F64Bits,
    /// A decimal float literal, `1.5`.
    Decimal,
    /// A register declared with this type (`.b64`: `%rd`).
    Register(crate::Qualifier),
    /// An address, `[…]`, whatever it holds.
    Address,
    /// An address whose base is written as one of these (`[%h2]`, `[%h2+4]`).
    AddressOf(Vec<Element>),
    /// A brace vector whose first element is written as one of these.
    VectorFrom(Vec<Element>),
}

/// How one element of a brace vector (or the base of an address) is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Element {
    /// An integer literal.
    Int,
    /// A float literal of any spelling (`0f…`, `0d…`, `1.5`).
    Float,
    /// A register of any type.
    AnyRegister,
    /// A register declared with this type.
    Register(crate::Qualifier),
}

/// Which brace vectors a [`Reading`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VectorSide {
    /// Those after the first address operand (red's and atom's `b`).
    Sources,
    /// Those before it (atom's `d`).
    Destinations,
}

/// What a [`Reading`] reads a vector's elements as.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ElementRead {
    /// The elements read: those written as one of these.
    pub which: Vec<Element>,
    /// Only the first element (`first`) or only those after it (`rest`); every
    /// position when left out.
    #[serde(default)]
    pub at: Option<ElementPlace>,
    /// What each is read as.
    #[serde(rename = "as")]
    pub read_as: ElementAs,
}

/// The positions an [`ElementRead`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementPlace {
    /// The first element.
    First,
    /// Every element after the first.
    Rest,
}

/// What an element is read as.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElementAs {
    /// A register declared with this type.
    Register(crate::Qualifier),
    /// The vector's first element written as one of these; where it has none, the
    /// step reads nothing in that vector.
    FirstOf(Vec<Element>),
}

/// The text a [`Reading`] reads a whole text as.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextRead {
    /// The statement, as `check-syntax` takes it (`atom.global.add.noftz.bf16 %h1,
    /// [%rd1], %h2;`); the written text's label and guard are kept, but for a
    /// guard of a register that is no predicate (ptxas reports it and goes on).
    pub text: String,
    /// The module's PTX ISA version.
    pub ptx: crate::PtxVersion,
    /// The module's target.
    pub target: crate::Target,
}

/// What a [`Reading`] reads an operand as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperandRead {
    /// An address, `[%rd1]`.
    Address,
    /// The `d` of `d|_` alone.
    Unpaired,
    /// A register declared with this type.
    Register(crate::Qualifier),
    /// Nothing: the operand is not read (an operand past the line's last).
    Nothing,
}

impl Departure {
    /// Whether ptxas fails on the texts this departure covers, rather than accepting them.
    pub fn fails(&self) -> bool {
        matches!(self, Departure::FailsOn(_))
    }

    /// The steps.
    pub fn steps(&self) -> &[Reading] {
        match self {
            Departure::Reads(steps) | Departure::FailsOn(steps) => steps,
        }
    }

    /// Whether the departure decides from the whole text, whatever defect the
    /// verdict names: a step reads the whole text as another ([`Reading::read_as`]).
    pub fn reads_whole_text(&self) -> bool {
        self.steps().iter().any(|r| r.read_as.is_some())
    }
}

impl Reading {
    /// Whether the step changes anything where it applies.
    pub fn changes(&self) -> bool {
        !self.drop.is_empty()
            || !self.drop_repeats.is_empty()
            || !self.replace.is_empty()
            || !self.append.is_empty()
            || self.address
            || self.read_operand.is_some()
            || self.read_elements.is_some()
            || self.read_as.is_some()
            || self.read_target.is_some()
    }
}

/// One finding, with its evidence.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Erratum {
    /// Stable id, `E` and a number.
    pub id: String,
    /// The instructions concerned.
    pub instructions: Vec<String>,
    /// Who disagrees with whom.
    pub kind: ErratumKind,
    /// One sentence.
    pub summary: String,
    /// The doc's words, ptxas's messages, silicon's bits.
    pub evidence: Vec<Source>,
    /// What the spec does about it.
    pub resolution: String,
    /// The ptxas differential's checks whose answer differs from ours because of
    /// this finding: case ids, or `example:<seed>:<text>` for a doc example.
    #[serde(default)]
    pub disagreements: Vec<String>,
    /// The syntax cases whose verdict rests on this finding (case ids): the
    /// generator gives each the finding's evidence as its `source`.
    #[serde(default)]
    pub vectors: Vec<String>,
    /// For a finding that ptxas accepts what the spec refuses: how ptxas reads
    /// such a text, so that `check-syntax` can say that ptxas will take it.
    #[serde(default)]
    pub departure: Option<Departure>,
    /// The ptxas releases the departure is seen in; empty: every release checked.
    #[serde(default)]
    pub releases: Vec<String>,
}

impl Erratum {
    /// The evidence a case listed in `vectors` cites: the last item that quotes its
    /// witness (after the document's words come what ptxas or silicon said).
    pub fn cited_evidence(&self) -> Option<&Source> {
        self.evidence.iter().rev().find(|s| s.quote.is_some())
    }
}

/// spec/errata.yaml.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Every finding.
    pub errata: Vec<Erratum>,
    /// The entries with a `departure`, by the instruction they name, found on first
    /// use: the batch judge asks it of every line, and most entries have none or
    /// name another instruction.
    #[serde(skip)]
    departing: std::sync::OnceLock<Vec<(String, Vec<usize>)>>,
}

impl Ledger {
    /// The entries with a `departure` that name `instruction`, in file order, with
    /// it.
    pub fn departures_of(&self, instruction: &str) -> impl Iterator<Item = (&Erratum, &Departure)> {
        let by_instruction = self.departing.get_or_init(|| {
            let mut by: Vec<(String, Vec<usize>)> = Vec::new();
            for (i, e) in self.errata.iter().enumerate().filter(|(_, e)| e.departure.is_some()) {
                for name in &e.instructions {
                    match by.iter_mut().find(|(n, _)| n == name) {
                        Some((_, indices)) => indices.push(i),
                        None => by.push((name.clone(), vec![i])),
                    }
                }
            }
            by
        });
        let indices = by_instruction.iter().find(|(n, _)| n == instruction).map_or(&[][..], |(_, i)| i);
        indices
            .iter()
            .filter_map(|&i| self.errata[i].departure.as_ref().map(|d| (&self.errata[i], d)))
    }
}
