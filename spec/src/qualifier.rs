//! Every PTX qualifier spelling that the covered instructions use, as one closed enum.
//!
//! The table below is the single place a spelling is written down: the enum, its
//! `ALL` list, its spelling and its kind all come from one row each, so nothing can
//! be added without being covered by the tests that walk `Qualifier::ALL`.

use std::fmt;
use std::str::FromStr;

/// What a qualifier says about an instruction; the grouping the PTX ISA uses in its
/// syntax blocks (`.op`, `.type`, `.space`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QualKind {
    /// Reduction or vote operation: `.add`, `.and`, ...
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
    /// Any other modifier: `.sync`, `.noftz`, `.abs`, ...
    Modifier,
}

macro_rules! qualifiers {
    ($($variant:ident = $spelling:literal, $kind:ident;)*) => {
        /// One PTX qualifier. Its on-disk and in-PTX spelling includes the leading dot.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Qualifier {
            $(
                #[doc = concat!("`", $spelling, "`")]
                $variant,
            )*
        }

        impl Qualifier {
            /// Every qualifier, in table order.
            pub const ALL: &'static [Qualifier] = &[$(Qualifier::$variant,)*];

            /// The PTX spelling, leading dot included.
            pub const fn spelling(self) -> &'static str {
                match self { $(Qualifier::$variant => $spelling,)* }
            }

            /// Which group of qualifiers this one belongs to.
            pub const fn kind(self) -> QualKind {
                match self { $(Qualifier::$variant => QualKind::$kind,)* }
            }
        }
    };
}

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

    B16 = ".b16", Type;
    B32 = ".b32", Type;
    B64 = ".b64", Type;
    U16 = ".u16", Type;
    U32 = ".u32", Type;
    U64 = ".u64", Type;
    S16 = ".s16", Type;
    S32 = ".s32", Type;
    S64 = ".s64", Type;
    F16 = ".f16", Type;
    F16x2 = ".f16x2", Type;
    Bf16 = ".bf16", Type;
    Bf16x2 = ".bf16x2", Type;
    F32 = ".f32", Type;
    F64 = ".f64", Type;
    B128 = ".b128", Type;
    Pred = ".pred", Type;

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

    V2 = ".v2", Vector;
    V4 = ".v4", Vector;
    V8 = ".v8", Vector;

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
    Rn = ".rn", Modifier;
    Abs = ".abs", Modifier;
    NaN = ".NaN", Modifier;
    // barrier's "all threads in the CTA execute the same instruction".
    Aligned = ".aligned", Modifier;
    // red.async's "mmio Operation".
    Mmio = ".mmio", Modifier;
}

impl AsRef<str> for Qualifier {
    /// The spelling, leading dot included: a chain is written from qualifiers or from
    /// their spellings alike ([`crate::Mnemonic::chain`]).
    fn as_ref(&self) -> &str {
        self.spelling()
    }
}

impl Qualifier {
    /// The number of lanes a vector qualifier names (`.v4` → 4).
    pub const fn vector_len(self) -> Option<u32> {
        match self {
            Qualifier::V2 => Some(2),
            Qualifier::V4 => Some(4),
            Qualifier::V8 => Some(8),
            _ => None,
        }
    }

    /// The width in bits of a type qualifier's value (`.f16x2` → 32, `.pred` → 1,
    /// `.b128` → 128).
    pub const fn type_bits(self) -> Option<u32> {
        use Qualifier::*;
        match self {
            Pred => Some(1),
            B16 | U16 | S16 | F16 | Bf16 => Some(16),
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 => Some(32),
            B64 | U64 | S64 | F64 => Some(64),
            B128 => Some(128),
            _ => None,
        }
    }
}

impl fmt::Display for Qualifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spelling())
    }
}

/// A spelling that names no qualifier known to ptxvec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown qualifier `{0}` (expected a PTX qualifier such as `.add`, `.u32` or `.shared::cta`)"
)]
pub struct UnknownQualifier(pub String);

impl Qualifier {
    /// The qualifier a chain's word names, without its dot (`shared::cta`).
    pub fn from_word(word: &str) -> Option<Qualifier> {
        // A binary search of the words in byte order: the judge looks up every word
        // of every line it is given, most of them in the first few comparisons.
        static BY_WORD: std::sync::OnceLock<Vec<(&'static str, Qualifier)>> =
            std::sync::OnceLock::new();
        let by_word = BY_WORD.get_or_init(|| {
            let mut v: Vec<_> = Qualifier::ALL.iter().map(|q| (&q.spelling()[1..], *q)).collect();
            v.sort_unstable();
            v
        });
        by_word
            .binary_search_by(|(w, _)| (*w).cmp(word))
            .ok()
            .map(|i| by_word[i].1)
    }

    /// This qualifier's bit in a [`QualMask`].
    const fn bit(self) -> u64 {
        1 << self as u32
    }
}

// Every qualifier has a bit of a `u64`.
const _: () = assert!(Qualifier::ALL.len() <= 64);

/// A set of qualifiers as one word: what a qualifier position takes, tested in one
/// instruction (the judge tests each written qualifier against each position of
/// each line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QualMask(u64);

impl QualMask {
    /// Whether `q` is in the set.
    pub const fn has(self, q: Qualifier) -> bool {
        self.0 & q.bit() != 0
    }

    /// The set with `q` added.
    #[must_use]
    pub const fn with(self, q: Qualifier) -> QualMask {
        QualMask(self.0 | q.bit())
    }
}

impl FromIterator<Qualifier> for QualMask {
    fn from_iter<I: IntoIterator<Item = Qualifier>>(qs: I) -> QualMask {
        QualMask(qs.into_iter().fold(0, |m, q| m | q.bit()))
    }
}

impl FromStr for Qualifier {
    type Err = UnknownQualifier;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Qualifier::ALL
            .iter()
            .copied()
            .find(|q| q.spelling() == s)
            .ok_or_else(|| UnknownQualifier(s.to_owned()))
    }
}

impl<'de> serde::Deserialize<'de> for Qualifier {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_qualifier_round_trips_through_its_spelling() {
        for &q in Qualifier::ALL {
            assert!(q.spelling().starts_with('.'), "{q:?}");
            assert_eq!(q.spelling().parse::<Qualifier>(), Ok(q), "{q:?}");
            assert_eq!(Qualifier::from_word(&q.spelling()[1..]), Some(q), "{q:?}");
        }
    }

    #[test]
    fn spellings_are_unique() {
        let mut seen: Vec<&str> = Qualifier::ALL.iter().map(|q| q.spelling()).collect();
        seen.sort_unstable();
        let before = seen.len();
        seen.dedup();
        assert_eq!(before, seen.len());
    }

    #[test]
    fn type_qualifiers_and_only_they_have_a_width() {
        for &q in Qualifier::ALL {
            assert_eq!(q.kind() == QualKind::Type, q.type_bits().is_some(), "{q:?}");
            assert_eq!(
                q.kind() == QualKind::Vector,
                q.vector_len().is_some(),
                "{q:?}"
            );
        }
    }

    #[test]
    fn unknown_spelling_is_an_error_that_names_it() {
        let e = ".fma".parse::<Qualifier>().unwrap_err();
        assert!(e.to_string().contains("`.fma`"), "{e}");
        // The PTX spelling is case-sensitive: `.nan` is not `.NaN`.
        assert!(".nan".parse::<Qualifier>().is_err());
    }
}
