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
