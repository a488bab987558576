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
}

/// A way ptxas reads a text that no syntax line allows, as a legal text: a
/// ledgered departure of ptxas from the verdict, which `check-syntax` reports and
/// the explorer holds to ptxas. Each names a rewrite (the generator applies it,
/// `syntax::departure`): ptxas accepts a text the judge refuses when the rewritten
/// text is legal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// A `.pred` among the qualifiers is read as nothing.
    ExtraPred,
    /// A second writing of one of these qualifiers is read as nothing.
    RepeatIgnored(Vec<crate::Qualifier>),
    /// cp.reduce.async.bulk's `mbar` without brackets is read as `[mbar]`.
    BareMbar,
    /// An immediate element of a float brace vector is read as a register where
    /// ptxas infers the vector's type from a register before it: a float literal
    /// past the first element (any element of a `.f32` vector), an integer literal
    /// as the first element of a `.f16` vector.
    VectorImmediate,
    /// ptxas fails (a signal) on an integer literal past the first element of a
    /// 16-bit or packed float brace vector.
    VectorIntegerElementFault,
    /// red's address written as the sink `_` is read as an address in `.shared`.
    SharedSinkAddress,
    /// ptxas fails (a signal) on red's address written as the sink `_` outside `.shared`.
    SinkAddressFault,
    /// A destination written `d|_` where the syntax line has no `|p` is read as `d`.
    SinkPredicateIgnored,
    /// `vote.sync.pred` without a `.mode` is read as a vote with one.
    VoteWithoutMode,
    /// `.noftz` on an `.f32` add is read as nothing, from PTX ISA 9.4.
    NoftzF32,
}

impl Departure {
    /// Whether ptxas fails on the texts this departure covers, rather than accepting them.
    pub fn fails(&self) -> bool {
        matches!(self, Departure::VectorIntegerElementFault | Departure::SinkAddressFault)
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
}
