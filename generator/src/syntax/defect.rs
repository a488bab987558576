//! Why a text is illegal: the kind of defect (malformed or invalid), the rule it
//! breaks and the message; what the judge, the nearest lines and the batch index
//! all build.

use std::fmt;

use super::rule_id::RuleId;

/// Malformed: does not parse under PTX's general statement grammar, the one every
/// instruction shares (docs/formats.md, "Malformed and invalid"). Invalid: parses
/// under it, but breaks a rule of the instruction (its syntax lines included).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Not a statement: no parse, no `;`, an unknown opcode or qualifier word.
    Malformed,
    /// A statement, ruled out by the instruction: its syntax lines (qualifiers,
    /// operand count and shapes), a table, a rule, a version, a target.
    Invalid,
}

impl Kind {
    /// The kind as messages and JSON answers write it (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Malformed => "malformed",
            Kind::Invalid => "invalid",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a text is illegal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defect {
    /// Malformed or invalid.
    pub kind: Kind,
    /// The rule id: a spec rule (`cache_hint`), a table (`table.op_type`), or one of
    /// the syntax checks (`syntax.unknown_qualifier`, `operand.class`, ...).
    pub rule: RuleId,
    /// What is wrong, for people.
    pub message: String,
}

/// A defect of `kind`, breaking `rule`, said as `message`.
pub fn fail(kind: Kind, rule: impl Into<RuleId>, message: impl Into<String>) -> Defect {
    Defect {
        kind,
        rule: rule.into(),
        message: message.into(),
    }
}
