//! Which rule a defect breaks, typed: what the judge, the illegal vectors and the
//! coverage report speak of, made into its string (`qualifier.missing`,
//! `table.op_type`, `cache_hint`) only when written, and read back from the
//! vector files as one.

use std::fmt;

/// A rule id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleId {
    /// The text is no statement of the grammar, or names an unknown word.
    Syntax(SyntaxRule),
    /// A qualifier chain that fits no syntax line.
    Qualifier(QualifierRule),
    /// A value outside the set of a syntax line's position: `set.<placeholder>`.
    Set(String),
    /// A combination an op×type table leaves out: `table.<id>`.
    Table(String),
    /// Operands of the wrong count, shape or class.
    Operand(OperandRule),
    /// A module the target model refuses, whatever its instructions.
    Module(ModuleRule),
    /// A rule of the instruction's YAML (`rules:`), by its id: a requirement, a
    /// forbidden combination or a withdrawal.
    Spec(String),
}

/// Defects of the statement grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SyntaxRule {
    /// The text does not parse.
    Parse,
    /// The statement does not end with `;`.
    Semicolon,
    /// The opcode is none of the instructions the spec covers.
    Mnemonic,
    /// A word no instruction knows.
    UnknownQualifier,
}

/// Defects of the qualifier chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QualifierRule {
    /// A qualifier written twice.
    Duplicate,
    /// A qualifier no position of the line takes.
    Extra,
    /// A position that must be filled, left empty.
    Missing,
    /// A qualifier the instruction knows but the line does not allow.
    NotAllowed,
    /// Qualifiers in another order than the document's (invalid under `--strict`).
    Order,
    /// A qualifier every spelling must write (`.sync`), left out.
    Required,
}

/// Defects of the module around the instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ModuleRule {
    /// A `.target` its `.version` does not know.
    Target,
}

/// Defects of the operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OperandRule {
    /// An address that may not be written so (an immediate).
    Address,
    /// An address register narrower than the address.
    AddressSize,
    /// A register or immediate of the wrong type.
    Class,
    /// Too few or too many operands.
    Count,
    /// A guard that is no predicate register.
    Guard,
    /// An immediate that is no multiple of what the operand takes.
    MultipleOf,
    /// An immediate out of the operand's range.
    Range,
    /// A destination written as an immediate.
    RegisterRequired,
    /// An operand whose qualifier is missing.
    Requires,
    /// A qualifier whose operand is missing.
    RequiredBy,
    /// An operand of the wrong shape (a vector, a pair, an address, a negation).
    Shape,
    /// The sink `_` where the operand may not be discarded.
    Sink,
}

/// The names of a closed set of rule kinds, each with its word, and the rule id
/// of each (the `RuleId` arm that holds the set).
macro_rules! named {
    ($ty:ident in $arm:ident { $($v:ident = $s:literal),* $(,)? }) => {
        impl From<$ty> for RuleId {
            fn from(r: $ty) -> RuleId {
                RuleId::$arm(r)
            }
        }

        impl $ty {
            /// Every one, in order.
            pub const ALL: &'static [$ty] = &[$($ty::$v),*];

            /// Its word in a rule id.
            pub const fn name(self) -> &'static str {
                match self { $($ty::$v => $s),* }
            }

            fn of(word: &str) -> Option<$ty> {
                match word { $($s => Some($ty::$v),)* _ => None }
            }
        }
    };
}

named!(SyntaxRule in Syntax {
    Parse = "parse",
    Semicolon = "semicolon",
    Mnemonic = "mnemonic",
    UnknownQualifier = "unknown_qualifier",
});
named!(QualifierRule in Qualifier {
    Duplicate = "duplicate",
    Extra = "extra",
    Missing = "missing",
    NotAllowed = "not_allowed",
    Order = "order",
    Required = "required",
});
named!(ModuleRule in Module { Target = "target" });
named!(OperandRule in Operand {
    Address = "address",
    AddressSize = "address_size",
    Class = "class",
    Count = "count",
    Guard = "guard",
    MultipleOf = "multiple_of",
    Range = "range",
    RegisterRequired = "register_required",
    Requires = "requires",
    RequiredBy = "required_by",
    Shape = "shape",
    Sink = "sink",
});

impl RuleId {
    /// Reads a rule id as the files write it. A word with no dot is a spec rule's
    /// id; `syntax.`, `qualifier.` and `operand.` take their closed sets, `set.`
    /// and `table.` a name. `None` for anything else.
    pub fn parse(s: &str) -> Option<RuleId> {
        let name = |n: &str| {
            (!n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .then(|| n.to_owned())
        };
        match s.split_once('.') {
            None => name(s).map(RuleId::Spec),
            Some(("syntax", w)) => SyntaxRule::of(w).map(RuleId::Syntax),
            Some(("qualifier", w)) => QualifierRule::of(w).map(RuleId::Qualifier),
            Some(("operand", w)) => OperandRule::of(w).map(RuleId::Operand),
            Some(("module", w)) => ModuleRule::of(w).map(RuleId::Module),
            Some(("set", p)) => name(p).map(RuleId::Set),
            Some(("table", t)) => name(t).map(RuleId::Table),
            Some(_) => None,
        }
    }

    /// A rule about the qualifier chain's structure: the grammar, the qualifiers
    /// or the operands (not a set, a table or a spec rule).
    pub fn structural(&self) -> bool {
        matches!(self, RuleId::Syntax(_) | RuleId::Qualifier(_) | RuleId::Operand(_))
    }
}

impl RuleId {
    /// The id as written, in two pieces: its namespace with the dot (empty for a
    /// spec rule) and its name; what a writer copies without formatting.
    pub fn parts(&self) -> (&'static str, &str) {
        match self {
            RuleId::Syntax(r) => ("syntax.", r.name()),
            RuleId::Qualifier(r) => ("qualifier.", r.name()),
            RuleId::Operand(r) => ("operand.", r.name()),
            RuleId::Module(r) => ("module.", r.name()),
            RuleId::Set(p) => ("set.", p),
            RuleId::Table(t) => ("table.", t),
            RuleId::Spec(id) => ("", id),
        }
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (namespace, name) = self.parts();
        f.write_str(namespace)?;
        f.write_str(name)
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RuleId, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        RuleId::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is no rule id (a spec rule's id, or syntax., qualifier., operand., set. or table. and its name)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_closed_rule_reads_back_as_written() {
        let all = SyntaxRule::ALL
            .iter()
            .map(|&r| RuleId::from(r))
            .chain(QualifierRule::ALL.iter().map(|&r| RuleId::from(r)))
            .chain(OperandRule::ALL.iter().map(|&r| RuleId::from(r)))
            .chain(ModuleRule::ALL.iter().map(|&r| RuleId::from(r)))
            .chain([
                RuleId::Set("op".to_owned()),
                RuleId::Table("op_type".to_owned()),
                RuleId::Spec("cache_hint_not_shared".to_owned()),
            ]);
        for r in all {
            assert_eq!(RuleId::parse(&r.to_string()), Some(r.clone()), "{r}");
        }
    }

    #[test]
    fn ids_outside_the_sets_are_refused() {
        for s in ["", "qualifier.", "qualifier.unknown", "operand.color", "syntax.x", "set.", "table.", "foo.bar", "a b", ".x"] {
            assert_eq!(RuleId::parse(s), None, "{s:?}");
        }
    }

    #[test]
    fn the_files_write_strings() {
        let r = RuleId::Table("op_type".to_owned());
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"table.op_type\"");
        assert_eq!(serde_json::from_str::<RuleId>("\"qualifier.extra\"").unwrap(), RuleId::Qualifier(QualifierRule::Extra));
        assert!(serde_json::from_str::<RuleId>("\"qualifier.nope\"").is_err());
    }
}
