//! Semantic vectors: for every executable variant, inputs chosen from the catalogs
//! and the expected outputs under each profile, as JSON Lines that any language can
//! read (format: docs/formats.md, schema: vectors/schema.json).

pub mod eval;
pub mod export;
pub mod records;

use std::collections::BTreeMap;

use ptxvec_spec::model::SemanticKind;
use ptxvec_spec::Spec;

use crate::family::binding;
use crate::record::index::Binding;
use crate::family::{self, Semantics};
use crate::syntax::case::{need_records, NeedRecord};
use crate::syntax::legal::legal_spellings;
use crate::syntax::operands::{self, Style};
use crate::syntax::spelling::Spelling;

/// The seed of the committed vectors.
pub const DEFAULT_SEED: u64 = 0x5054_5856_4543; // "PTXVEC"
/// Seeded random input pairs per memory variant in the committed vectors, beyond the
/// catalog's cross product.
pub const DEFAULT_COUNT: usize = 16;

/// One executable variant: the spellings that compute the same thing.
pub struct Variant<'s> {
    /// The file stem: the qualifier chain of its shortest spelling.
    pub id: String,
    /// The shortest spelling (no memory order, scope or cache hint).
    pub spelling: Spelling<'s>,
    /// What it computes.
    pub semantics: Semantics,
    /// Its minimal requirements.
    pub requires: Vec<NeedRecord>,
    /// The spec's semantic notes that bear on values, those defining the operation
    /// (or, for shfl, the lane selection) first:
    /// `red#operation`, `red#noftz_keeps_subnormals`.
    pub notes: Vec<String>,
    /// Whether the text writes the predicate destination (`d|p`), where the
    /// syntax has one. Where it is optional, each such variant has a twin that writes `d` alone (id
    /// `<chain>-d`), the shape compilers emit most: an engine that mishandles `|p`
    /// then fails only the twin with `|p`, not a right shuffle.
    pub pair: bool,
}

/// The suffix of the id of a variant that writes `d` alone where the syntax
/// allows `d|p`.
pub const D_ONLY: &str = "-d";

/// Every executable variant of the spec, in spec order (instruction, form, spelling).
pub fn variants(spec: &Spec) -> Vec<Variant<'_>> {
    let mut seen: BTreeMap<Semantics, ()> = BTreeMap::new();
    let mut out = Vec::new();
    for f in &spec.instructions {
        let i = &f.instruction;
        for (_, form) in i.forms() {
            for l in legal_spellings(spec, i, &form.id) {
                let Ok(sem) = family::of(&l.spelling) else {
                    continue;
                };
                if seen.insert(sem, ()).is_some() {
                    continue;
                }
                let quals = l.spelling.qualifiers();
                // The notes that bear on values; memory order, atomicity and
                // descriptive notes do not change a result.
                let mut notes = i
                    .semantics
                    .iter()
                    .filter(|n| {
                        !matches!(
                            n.kind,
                            SemanticKind::MemoryOrder
                                | SemanticKind::Atomicity
                                | SemanticKind::Deprecation
                                | SemanticKind::OperandEncoding
                                | SemanticKind::Convergence
                        )
                    })
                    .filter(|n| n.condition().matches(&form.id, &quals))
                    .map(|n| {
                        (
                            !matches!(
                                n.kind,
                                SemanticKind::Operation | SemanticKind::LaneSelection
                            ),
                            format!("{}#{}", i.instruction, n.id),
                        )
                    })
                    .collect::<Vec<_>>();
                // Stable: the defining notes first, each group in spec order.
                notes.sort_by_key(|(later, _)| *later);
                let notes = notes.into_iter().map(|(_, id)| id).collect();
                // `p` is written where the syntax's pair is optional (`d[|p]`, with a
                // twin that writes `d` alone) or mandatory (elect.sync's `d|p`).
                let optional_pair = operands::style_applies(&l.spelling, Style::WithPair);
                let pair = optional_pair
                    || operands::positions(&l.spelling).iter().any(|p| matches!(p.pair, Some((_, false))));
                let v = Variant {
                    id: l.spelling.chain(),
                    requires: need_records(&l.needs),
                    spelling: l.spelling,
                    semantics: sem,
                    notes,
                    pair,
                };
                let twin = optional_pair.then(|| Variant {
                    id: format!("{}{D_ONLY}", v.id),
                    requires: v.requires.clone(),
                    spelling: v.spelling.clone(),
                    semantics: v.semantics,
                    notes: v.notes.clone(),
                    pair: false,
                });
                out.push(v);
                out.extend(twin);
            }
        }
    }
    out
}

impl Variant<'_> {
    /// The instruction as a vector states it: operands as registers of their class,
    /// with the predicate destination written where the syntax has an optional one
    /// (`d|p`), since the records expect `p`.
    pub fn text(&self) -> String {
        let style = if self.pair {
            Style::WithPair
        } else {
            Style::Registers
        };
        crate::syntax::legal::compose(&self.spelling.chain(), &operands::render(&self.spelling, style))
    }

    /// Whether this is the twin that writes `d` alone where the syntax allows `d|p`.
    pub fn writes_d_alone(&self) -> bool {
        !self.pair && operands::style_applies(&self.spelling, Style::WithPair)
    }

    /// [`Variant::text`] and [`Variant::negated_text`] with the optional operands
    /// its records may hold written (`bar.red`'s `b`); empty where they hold none.
    pub fn optional_texts(&self) -> [String; 2] {
        if !binding::writes_optional(&self.spelling, self.semantics) {
            return [String::new(), String::new()];
        }
        let chain = self.spelling.chain();
        let written = operands::render(&self.spelling, Style::WithOptional);
        let negated = operands::negate(&self.spelling, &written);
        [
            crate::syntax::legal::compose(&chain, &written),
            crate::syntax::legal::compose(&chain, &negated),
        ]
    }

    /// What its text binds: its operands in order.
    pub fn operands(&self) -> Vec<Binding> {
        binding::bind(&self.spelling, self.semantics, self.pair)
            .into_iter()
            .map(|b| b.binding)
            .collect()
    }

    /// What a runner must choose that its records leave open.
    pub fn choices(&self) -> Vec<String> {
        self.semantics.choices(&self.spelling)
    }

    /// The text with vote's predicate source negated (`!%p`), as the syntax vectors
    /// write it.
    pub fn negated_text(&self) -> String {
        crate::syntax::legal::compose(&self.spelling.chain(), &operands::render(&self.spelling, Style::Negated))
    }
}
