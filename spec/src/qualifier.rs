//! The PTX qualifier vocabulary: every spelling the spec's instructions use, each
//! with its kind (and a type's width, a vector's lanes).
//!
//! The vocabulary is data. Its rows are `spec/qualifiers.yaml` and the `qualifiers:`
//! of an instruction file (a spelling only that instruction uses), interned when the
//! spec is loaded ([`Qualifier::declare`]). A [`Qualifier`] is a small number into
//! that table. The spellings that code names (the semantic families ask for `.add`,
//! the judge for `.sync`) are the table's first rows, written once in the
//! `qualifiers!` table below, at fixed numbers: the order of that table is the order
//! of the vocabulary, and interned spellings follow it in load order (files in name
//! order). Nothing else about a qualifier lives in code.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{OnceLock, RwLock};

/// What a qualifier says about an instruction; the grouping the PTX ISA uses in its
/// syntax blocks (`.op`, `.type`, `.space`, ...). The illegal variants put a value
/// of the same kind outside a position's set, so kinds are as fine as the document's
/// sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QualKind {
    /// Reduction, vote or boolean operation: `.add`, `.and`, ...
    Op,
    /// Instruction or element type: `.u32`, `.f16x2`, `.pred`, ...
    Type,
    /// State space: `.global`, `.shared::cta`, ...
    Space,
    /// Memory-ordering semantics: `.relaxed`, `.release`, ...
    Sem,
    /// Memory-consistency scope: `.cta`, `.gpu`, ...
    Scope,
    /// Cache-eviction hint level: `.L2::cache_hint`.
    CacheHint,
    /// Vector width: `.v2`, `.v4`, `.v8`.
    Vector,
    /// Warp-collective mode: `.all`, `.up`, `.ballot`, ...
    Mode,
    /// Bulk-copy completion mechanism.
    Completion,
    /// Any other modifier: `.sync`, `.noftz`, `.abs`, `.sat`, `.lo`, ...
    Modifier,
    /// Rounding modifier: `.rz`, `.rmi`, ...
    Rounding,
    /// Comparison operator: `.eq`, `.ltu`, ...
    Compare,
    /// Matrix shape: `.m16n8k16`, ...
    Shape,
    /// Matrix layout: `.row`, `.col`, ...
    Layout,
    /// Cache operator or eviction priority: `.ca`, `.cg`, `.L1::evict_last`, ...
    CacheOp,
}

impl QualKind {
    /// The spelling `spec/qualifiers.yaml` writes.
    pub const fn name(self) -> &'static str {
        match self {
            QualKind::Op => "op",
            QualKind::Type => "type",
            QualKind::Space => "space",
            QualKind::Sem => "sem",
            QualKind::Scope => "scope",
            QualKind::CacheHint => "cache_hint",
            QualKind::Vector => "vector",
            QualKind::Mode => "mode",
            QualKind::Completion => "completion",
            QualKind::Modifier => "modifier",
            QualKind::Rounding => "rounding",
            QualKind::Compare => "compare",
            QualKind::Shape => "shape",
            QualKind::Layout => "layout",
            QualKind::CacheOp => "cache_op",
        }
    }
}

/// One row of the vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QualInfo {
    /// The PTX spelling, leading dot included.
    pub spelling: &'static str,
    /// Its kind.
    pub kind: QualKind,
    /// A type's width in bits (`.f16x2` → 32, `.pred` → 1).
    pub bits: Option<u32>,
    /// A vector qualifier's lane count (`.v4` → 4).
    pub lanes: Option<u32>,
}

/// How many qualifiers the vocabulary holds at most: a [`QualMask`] has a bit for
/// each. The whole PTX ISA 9.x spells about 700.
pub const CAPACITY: usize = 1024;

const WORDS: usize = CAPACITY / 64;

macro_rules! qualifiers {
    ($($variant:ident = $spelling:literal, $kind:ident $(, bits $bits:literal)? $(, lanes $lanes:literal)?;)*) => {
        // The numbers of the rows that code names, in table order.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[repr(u16)]
        enum Known { $($variant,)* }

        #[allow(non_upper_case_globals)]
        impl Qualifier {
            $(
                #[doc = concat!("`", $spelling, "`")]
                pub const $variant: Qualifier = Qualifier(Known::$variant as u16);
            )*
        }

        /// The rows that code names, at their fixed numbers.
        const KNOWN: &[QualInfo] = &[$(
            QualInfo {
                spelling: $spelling,
                kind: QualKind::$kind,
                bits: qualifiers!(@opt $($bits)?),
                lanes: qualifiers!(@opt $($lanes)?),
            },
        )*];
    };
    (@opt $v:literal) => { Some($v) };
    (@opt) => { None };
}

/// One PTX qualifier: its number in the vocabulary. Its on-disk and in-PTX
/// spelling includes the leading dot. Numbers follow the vocabulary's order, so
/// sets of qualifiers sort as the vocabulary does.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Qualifier(u16);

qualifiers! {
    And = ".and", Op;
    Or = ".or", Op;
    Xor = ".xor", Op;
    Add = ".add", Op;
    Inc = ".inc", Op;
    Dec = ".dec", Op;
    Min = ".min", Op;
    Max = ".max", Op;
    // atom's compare-and-swap and exchange (red and cp.reduce.async.bulk know them
    // only in illegal variants).
    Cas = ".cas", Op;
    Exch = ".exch", Op;
    // bar.red's population count.
    Popc = ".popc", Op;

    B16 = ".b16", Type, bits 16;
    B32 = ".b32", Type, bits 32;
    B64 = ".b64", Type, bits 64;
    U16 = ".u16", Type, bits 16;
    U32 = ".u32", Type, bits 32;
    U64 = ".u64", Type, bits 64;
    S16 = ".s16", Type, bits 16;
    S32 = ".s32", Type, bits 32;
    S64 = ".s64", Type, bits 64;
    F16 = ".f16", Type, bits 16;
    F16x2 = ".f16x2", Type, bits 32;
    Bf16 = ".bf16", Type, bits 16;
    Bf16x2 = ".bf16x2", Type, bits 32;
    F32 = ".f32", Type, bits 32;
    F64 = ".f64", Type, bits 64;
    B128 = ".b128", Type, bits 128;
    Pred = ".pred", Type, bits 1;

    Global = ".global", Space;
    Shared = ".shared", Space;
    SharedCta = ".shared::cta", Space;
    SharedCluster = ".shared::cluster", Space;

    Relaxed = ".relaxed", Sem;
    Release = ".release", Sem;
    Acquire = ".acquire", Sem;
    AcqRel = ".acq_rel", Sem;

    Cta = ".cta", Scope;
    Cluster = ".cluster", Scope;
    Gpu = ".gpu", Scope;
    Sys = ".sys", Scope;

    L2CacheHint = ".L2::cache_hint", CacheHint;

    V2 = ".v2", Vector, lanes 2;
    V4 = ".v4", Vector, lanes 4;
    V8 = ".v8", Vector, lanes 8;

    All = ".all", Mode;
    Any = ".any", Mode;
    Uni = ".uni", Mode;
    Ballot = ".ballot", Mode;
    Up = ".up", Mode;
    Down = ".down", Mode;
    Bfly = ".bfly", Mode;
    Idx = ".idx", Mode;

    MbarrierCompleteTxBytes = ".mbarrier::complete_tx::bytes", Completion;
    BulkGroup = ".bulk_group", Completion;

    Sync = ".sync", Modifier;
    Noftz = ".noftz", Modifier;
    Ftz = ".ftz", Modifier;
    Rn = ".rn", Rounding;
    Abs = ".abs", Modifier;
    NaN = ".NaN", Modifier;
    // barrier's "all threads in the CTA execute the same instruction".
    Aligned = ".aligned", Modifier;
    // red.async's "mmio Operation".
    Mmio = ".mmio", Modifier;
}

/// The rows interned after [`KNOWN`], each set once.
static INTERNED: [OnceLock<QualInfo>; CAPACITY] = [const { OnceLock::new() }; CAPACITY];

/// Spelling → qualifier, for every row; the lock is taken for writing only while a
/// spec is loaded.
fn by_spelling() -> &'static RwLock<(HashMap<&'static str, Qualifier>, usize)> {
    static MAP: OnceLock<RwLock<(HashMap<&'static str, Qualifier>, usize)>> = OnceLock::new();
    MAP.get_or_init(|| {
        let map = KNOWN.iter().enumerate().map(|(i, r)| (r.spelling, Qualifier(i as u16))).collect();
        RwLock::new((map, KNOWN.len()))
    })
}

/// A row that conflicts with the vocabulary, or one too many.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeclareError {
    /// The spelling is no qualifier spelling.
    #[error("`{0}` is not a qualifier spelling (expected `.` then letters, digits, `_` and `::`)")]
    Spelling(String),
    /// The spelling is declared with another kind, width or lane count.
    #[error("`{spelling}` is declared as {declared}, but the vocabulary has it as {known}")]
    Conflict {
        /// The spelling.
        spelling: String,
        /// What this declaration says.
        declared: String,
        /// What the vocabulary says.
        known: String,
    },
    /// A type without its width, or a width on a non-type.
    #[error("`{0}`: a type qualifier states its `bits`, a vector qualifier its `lanes`, and no other has either")]
    Shape(String),
    /// The vocabulary is full.
    #[error("the vocabulary holds at most {CAPACITY} qualifiers")]
    Full,
}

fn describe(i: &QualInfo) -> String {
    let mut s = format!("kind {}", i.kind.name());
    if let Some(b) = i.bits {
        s.push_str(&format!(", {b} bits"));
    }
    if let Some(l) = i.lanes {
        s.push_str(&format!(", {l} lanes"));
    }
    s
}

/// Whether `s` is spelled as a qualifier: `.` then words of letters, digits and `_`,
/// joined by `::`.
pub fn is_spelling(s: &str) -> bool {
    s.len() <= 64
        && s.strip_prefix('.').is_some_and(|w| {
            !w.is_empty()
                && w.split("::").all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        })
}

impl Qualifier {
    /// Interns a row of the vocabulary: the qualifier already spelled so, if its
    /// kind, width and lanes agree, else a new one.
    pub fn declare(spelling: &str, kind: QualKind, bits: Option<u32>, lanes: Option<u32>) -> Result<Qualifier, DeclareError> {
        if !is_spelling(spelling) {
            return Err(DeclareError::Spelling(spelling.to_owned()));
        }
        if (kind == QualKind::Type) != bits.is_some() || (kind == QualKind::Vector) != lanes.is_some() {
            return Err(DeclareError::Shape(spelling.to_owned()));
        }
        let check = |q: Qualifier| {
            let known = q.info();
            if (known.kind, known.bits, known.lanes) == (kind, bits, lanes) {
                Ok(q)
            } else {
                Err(DeclareError::Conflict {
                    spelling: spelling.to_owned(),
                    declared: describe(&QualInfo { spelling: known.spelling, kind, bits, lanes }),
                    known: describe(known),
                })
            }
        };
        if let Some(q) = Qualifier::lookup(spelling) {
            return check(q);
        }
        let mut w = by_spelling().write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&q) = w.0.get(spelling) {
            drop(w);
            return check(q);
        }
        let n = w.1;
        if n >= CAPACITY {
            return Err(DeclareError::Full);
        }
        let spelling: &'static str = Box::leak(spelling.to_owned().into_boxed_str());
        // Only this writer, under the lock, sets slot `n`: it is empty.
        let _ = INTERNED[n - KNOWN.len()].set(QualInfo { spelling, kind, bits, lanes });
        let q = Qualifier(n as u16);
        w.0.insert(spelling, q);
        w.1 = n + 1;
        Ok(q)
    }

    fn lookup(spelling: &str) -> Option<Qualifier> {
        by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).0.get(spelling).copied()
    }

    /// This qualifier's row.
    pub fn info(self) -> &'static QualInfo {
        let n = usize::from(self.0);
        match KNOWN.get(n) {
            Some(r) => r,
            // A number past KNOWN comes only from `declare`, which set its slot first.
            None => INTERNED[n - KNOWN.len()].get().unwrap_or(&KNOWN[0]),
        }
    }

    /// How many qualifiers the vocabulary holds: a cache of anything made from
    /// them is stale when this has grown.
    pub fn count() -> usize {
        by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).1
    }

    /// Every qualifier of the vocabulary, in its order.
    pub fn all() -> Vec<Qualifier> {
        let n = by_spelling().read().unwrap_or_else(std::sync::PoisonError::into_inner).1;
        (0..n as u16).map(Qualifier).collect()
    }

    /// Whether code names it: a row of the `qualifiers!` table, which every
    /// vocabulary holds whether an instruction uses it or not.
    pub fn named_in_code(self) -> bool {
        usize::from(self.0) < KNOWN.len()
    }

    /// Its number in the vocabulary (below [`CAPACITY`]).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The PTX spelling, leading dot included.
    pub fn spelling(self) -> &'static str {
        self.info().spelling
    }

    /// Which group of qualifiers this one belongs to.
    pub fn kind(self) -> QualKind {
        self.info().kind
    }

    /// The number of lanes a vector qualifier names (`.v4` → 4).
    pub fn vector_len(self) -> Option<u32> {
        self.info().lanes
    }

    /// The width in bits of a type qualifier's value (`.f16x2` → 32, `.pred` → 1,
    /// `.b128` → 128).
    pub fn type_bits(self) -> Option<u32> {
        self.info().bits
    }

    /// The qualifier a chain's word names, without its dot (`shared::cta`).
    pub fn from_word(word: &str) -> Option<Qualifier> {
        // The judge looks up every word of every line: one hash probe, with the
        // dot put back on the stack.
        let mut buf = [0u8; 65];
        let n = word.len();
        if n >= buf.len() {
            return None;
        }
        buf[0] = b'.';
        buf[1..=n].copy_from_slice(word.as_bytes());
        let dotted = std::str::from_utf8(&buf[..=n]).ok()?;
        Qualifier::lookup(dotted)
    }

    /// This qualifier's bit in a [`QualMask`].
    const fn bit(self) -> (usize, u64) {
        (self.0 as usize / 64, 1 << (self.0 % 64))
    }
}

impl fmt::Debug for Qualifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Qualifier({})", self.spelling())
    }
}

impl AsRef<str> for Qualifier {
    /// The spelling, leading dot included: a chain is written from qualifiers or from
    /// their spellings alike ([`crate::Mnemonic::chain`]).
    fn as_ref(&self) -> &str {
        self.spelling()
    }
}

impl fmt::Display for Qualifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

/// A spelling that names no qualifier of the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown qualifier `{0}` (expected a spelling of the vocabulary, spec/qualifiers.yaml, or of the file's `qualifiers:`)"
)]
pub struct UnknownQualifier(pub String);

/// A set of qualifiers, a bit each: what a qualifier position takes, tested in one
/// instruction (the judge tests each written qualifier against each position of
/// each line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QualMask([u64; WORDS]);

impl Default for QualMask {
    fn default() -> QualMask {
        QualMask::EMPTY
    }
}

impl QualMask {
    /// No qualifier.
    pub const EMPTY: QualMask = QualMask([0; WORDS]);

    /// Whether `q` is in the set.
    pub const fn has(&self, q: Qualifier) -> bool {
        let (w, b) = q.bit();
        self.0[w] & b != 0
    }

    /// The set with `q` added.
    #[must_use]
    pub const fn with(mut self, q: Qualifier) -> QualMask {
        let (w, b) = q.bit();
        self.0[w] |= b;
        self
    }

    /// Whether no qualifier is in the set.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// Whether the two sets share a qualifier.
    pub fn meets(&self, other: &QualMask) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// Whether every qualifier of this set is in `other`.
    pub fn within(&self, other: &QualMask) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    /// The union.
    #[must_use]
    pub fn union(mut self, other: &QualMask) -> QualMask {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        self
    }

    /// The qualifiers of the set, in the vocabulary's order.
    pub fn iter(&self) -> impl Iterator<Item = Qualifier> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            (0..64u16).filter(move |b| word >> b & 1 != 0).map(move |b| Qualifier(w as u16 * 64 + b))
        })
    }
}

impl FromIterator<Qualifier> for QualMask {
    fn from_iter<I: IntoIterator<Item = Qualifier>>(qs: I) -> QualMask {
        qs.into_iter().fold(QualMask::EMPTY, QualMask::with)
    }
}

impl FromStr for Qualifier {
    type Err = UnknownQualifier;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Qualifier::lookup(s).ok_or_else(|| UnknownQualifier(s.to_owned()))
    }
}

impl<'de> serde::Deserialize<'de> for Qualifier {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One row of `spec/qualifiers.yaml` or of an instruction file's `qualifiers:`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// The spelling, dot included.
    pub name: String,
    /// Its kind.
    pub kind: QualKind,
    /// A type's width.
    #[serde(default)]
    pub bits: Option<u32>,
    /// A vector qualifier's lanes.
    #[serde(default)]
    pub lanes: Option<u32>,
    /// Where the document names it.
    #[serde(default)]
    pub source: Option<crate::Source>,
}

impl Declaration {
    /// Interns the row.
    pub fn declare(&self) -> Result<Qualifier, DeclareError> {
        Qualifier::declare(&self.name, self.kind, self.bits, self.lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_qualifier_round_trips_through_its_spelling() {
        for q in Qualifier::all() {
            assert!(q.spelling().starts_with('.'), "{q:?}");
            assert_eq!(q.spelling().parse::<Qualifier>(), Ok(q), "{q:?}");
            assert_eq!(Qualifier::from_word(&q.spelling()[1..]), Some(q), "{q:?}");
        }
    }

    #[test]
    fn spellings_are_unique() {
        let mut seen: Vec<&str> = KNOWN.iter().map(|q| q.spelling).collect();
        seen.sort_unstable();
        let before = seen.len();
        seen.dedup();
        assert_eq!(before, seen.len());
    }

    #[test]
    fn type_qualifiers_and_only_they_have_a_width() {
        for q in Qualifier::all() {
            assert_eq!(q.kind() == QualKind::Type, q.type_bits().is_some(), "{q:?}");
            assert_eq!(q.kind() == QualKind::Vector, q.vector_len().is_some(), "{q:?}");
        }
    }

    #[test]
    fn unknown_spelling_is_an_error_that_names_it() {
        let e = ".fmaxyz".parse::<Qualifier>().unwrap_err();
        assert!(e.to_string().contains("`.fmaxyz`"), "{e}");
        // The PTX spelling is case-sensitive: `.nan` is not `.NaN`.
        assert!(".nan".parse::<Qualifier>().is_err());
    }

    #[test]
    fn a_declaration_interns_once_and_refuses_a_conflict() {
        let q = Qualifier::declare(".testonly::rz", QualKind::Rounding, None, None).unwrap();
        assert_eq!(Qualifier::declare(".testonly::rz", QualKind::Rounding, None, None), Ok(q));
        assert_eq!(Qualifier::from_word("testonly::rz"), Some(q));
        assert!(matches!(
            Qualifier::declare(".testonly::rz", QualKind::Compare, None, None),
            Err(DeclareError::Conflict { .. })
        ));
        assert!(matches!(Qualifier::declare(".add", QualKind::Type, Some(32), None), Err(DeclareError::Conflict { .. })));
        assert!(matches!(Qualifier::declare("rz", QualKind::Rounding, None, None), Err(DeclareError::Spelling(_))));
        assert!(matches!(Qualifier::declare(".t9", QualKind::Type, None, None), Err(DeclareError::Shape(_))));
        let m: QualMask = [Qualifier::Add, q].into_iter().collect();
        assert!(m.has(q) && m.has(Qualifier::Add) && !m.has(Qualifier::Or));
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![Qualifier::Add, q]);
    }
}
