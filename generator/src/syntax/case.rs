//! One syntax vector: an instruction text, the module it is judged in, the verdict,
//! and where in the spec the verdict comes from. Serialized as one JSON line.

use serde::{Deserialize, Serialize};

use ptxvec_spec::Source;

use super::context::Module;
use super::defect::Kind;
use super::needs::Needs;
use super::rule_id::RuleId;

/// Legal or illegal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// ptxas must accept it at its minimum module.
    Legal,
    /// ptxas must reject it in the module the case names.
    Illegal,
}

/// One requirement alternative as written to the vector files. `S`: owned
/// strings, or slices of the line it was read from (`eval`'s batch reads
/// records without copying their strings).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeedRecord<S = String> {
    /// The lowest `.version`.
    pub ptx: S,
    /// The target it needs, in the target model's sense; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<S>,
}

impl<S: AsRef<str>> NeedRecord<S> {
    /// The same requirement with borrowed strings, to compare across string types.
    pub fn as_strs(&self) -> NeedRecord<&str> {
        NeedRecord {
            ptx: self.ptx.as_ref(),
            target: self.target.as_ref().map(AsRef::as_ref),
        }
    }
}

/// A citation as written to the vector files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRecord {
    /// `seed 001, Target ISA Notes`, `PTX ISA 9.1, ...`, `ptxas 13.5, ...`.
    pub cite: String,
    /// The witness's words, where the spec quotes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

impl SourceRecord {
    /// From a spec citation.
    pub fn of(s: &Source) -> SourceRecord {
        SourceRecord {
            cite: s.to_string(),
            quote: s.quote.clone(),
        }
    }

    /// A citation with words of our own.
    pub fn text(cite: impl Into<String>) -> SourceRecord {
        SourceRecord {
            cite: cite.into(),
            quote: None,
        }
    }
}

/// One syntax case. Field order is the JSON key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique and stable: `red/scalar/.global.add.u32/reg`, `...!operand.class`.
    pub id: String,
    /// The instruction's name.
    pub instruction: String,
    /// The syntax line it instantiates (or, for an illegal case, was made from).
    pub form: String,
    /// The instruction text.
    pub text: String,
    /// Legal or illegal.
    pub verdict: Verdict,
    /// For an illegal case: malformed or invalid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// For an illegal case: the rule it breaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleId>,
    /// The module the verdict holds in: the lowest for a legal case.
    pub ptx: String,
    /// See `ptx`.
    pub target: String,
    /// Legal case: every way to meet its needs. Illegal case: those of the legal
    /// spelling it was made from.
    pub requires: Vec<NeedRecord>,
    /// Legal case: where a rule withdraws the spelling, if one does (the non-sync
    /// `vote` and `shfl`: PTX ISA 6.4 with sm_70): not legal in a module of that
    /// `.version` or later on that target or later, although it meets `requires`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<NeedRecord>,
    /// The qualifiers are not in the document's order: legal by default, invalid
    /// under `--strict` (rule `qualifier.order`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub noncanonical: bool,
    /// For an illegal case: the legal case it differs from by one defect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Where the verdict comes from.
    pub source: SourceRecord,
}

/// The needs in their vector-file form.
pub fn need_records(needs: &Needs) -> Vec<NeedRecord> {
    needs
        .0
        .iter()
        .map(|n| NeedRecord {
            ptx: n.ptx.to_string(),
            target: n.target.map(|t| t.to_string()),
        })
        .collect()
}

impl Case {
    /// The module the case is judged in.
    pub fn module(&self) -> Option<Module> {
        Some(Module {
            ptx: self.ptx.parse().ok()?,
            target: self.target.parse().ok()?,
        })
    }
}
