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
/// the explorer holds to ptxas. Each names a rewrite (the generator applies it,
/// `syntax::departure`): ptxas accepts a text the judge refuses when the rewritten
/// text is legal. A rewrite of the chain and the operand count is data
/// ([`Departure::Reads`]); one that reads the operands' classes and literals is a
/// named reading of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// The text is read through each of these steps whose conditions it meets, in
    /// order, each asking of the text as written.
    Reads(Vec<Reading>),
    /// ptxas fails (a signal, an internal compiler error) on a text that these
    /// steps read as a legal one.
    FailsOn(Vec<Reading>),
    /// An immediate element of a float brace vector is read as a register where
    /// ptxas infers the vector's type from a register before it: a float literal
    /// past the first element (any element of a `.f32` vector), an integer literal
    /// as the first element of a `.f16` vector.
    VectorImmediate,
    /// ptxas fails (a signal) on an integer literal past the first element of a
    /// 16-bit or packed float brace vector.
    VectorIntegerElementFault,
    /// A fourth operand of atom's `.and`, `.or`, `.xor` or `.exch` (`.b32`, `.b64`,
    /// `.b128`, no `.L2::cache_hint`) is read as nothing where it fits as a `c` of
    /// the type's width (a register or a float literal; an integer literal or a
    /// `%rd` register is read as a cache-policy), outside `.shared` and
    /// `.shared::cta` on sm_90 and later.
    ExtraOperand,
    /// ptxas stops with an internal compiler error on the texts of
    /// [`Departure::ExtraOperand`] to `.shared` or `.shared::cta` on sm_90 and later.
    ExtraOperandFault,
    /// A `.pred` register as an element of a vector destination is read as the
    /// vector's first `.b32` register, where it has one and no `.f32` register.
    PredVectorElement,
    /// ptxas stops with an internal compiler error on a `.pred` register as an
    /// element of a source vector (`b`), where [`Departure::PredVectorElement`]'s
    /// reading of it gives a legal text.
    PredVectorElementFault,
    /// ptxas fails (a signal) on a scalar atom whose destination is the sink `_`
    /// and whose type is `.bf16` or `.bf16x2`, whatever the module: the text with a
    /// register of the type for `_`, legal for sm_90 (at the module's version, PTX
    /// ISA 7.8 at least), is one it fails on.
    SinkBf16Fault,
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
    /// None of these is written.
    #[serde(default)]
    pub without: Vec<crate::Qualifier>,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Written {
    /// The sink `_`.
    Sink,
    /// A register or a name with the sink as its predicate, `d|_`.
    SinkPair,
    /// An integer literal.
    Int,
    /// A register declared with this type (`.b64`: `%rd`).
    Register(crate::Qualifier),
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
}

impl Departure {
    /// Whether ptxas fails on the texts this departure covers, rather than accepting them.
    pub fn fails(&self) -> bool {
        matches!(
            self,
            Departure::FailsOn(_)
                | Departure::VectorIntegerElementFault
                | Departure::ExtraOperandFault
                | Departure::PredVectorElementFault
                | Departure::SinkBf16Fault
        )
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
