//! One home per instruction family: what a legal spelling computes, what its
//! records hold, where their inputs come from, what the oracle gives for them and
//! how a device runs them, each family behind the one [`Family`] trait.
//!
//! The families are listed once, in the table at [`families!`]'s call below, in
//! the manner of wasmparser's `for_each_operator!`: the table makes the
//! [`Semantics`] enum (one arm per family), decides a spelling's family by its
//! mnemonic (an instruction no family claims has syntax vectors alone) and
//! dispatches every question to the family. Nothing else matches on
//! a family. A new instruction is its YAML, its oracle module, its family module
//! here and its line in the table (README, "Adding an instruction").

pub mod activemask;
pub mod atom;
pub mod barrier;
pub mod binding;
pub mod catalog;
pub mod collective;
pub mod elect;
pub mod matching;
pub mod memory;
pub mod redux;
pub mod shfl;
pub mod vote;

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{Mnemonic, QualKind, Qualifier};

use crate::error::Result;
use crate::record::{Expectation, Inputs, Outputs, Shape};
use crate::syntax::spelling::Spelling;

/// An instruction family, implemented by the type of its executable variants:
/// a value of it is what one spelling computes, with the qualifiers that change no
/// value (memory order, scope, cache hints, the completion mechanism) dropped, so
/// that two spellings that compute the same are one variant.
pub trait Family: Copy + Eq + Ord + std::hash::Hash + std::fmt::Debug {
    /// What a spelling of the family computes; an error names what the oracle lacks.
    fn read(s: &Spelling<'_>) -> std::result::Result<Self, NotComputed>;

    /// What its records hold: the inputs and outputs, their slots and widths.
    fn shape(self) -> Shape;

    /// Its records before their expectations, from the input catalogs, in a fixed
    /// order (a record's number is its id: new classes are appended).
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft>;

    /// What it gives on `inputs` (fitted to its shape) under `profile`; `negate`
    /// is a predicate source written `!`. An error for inputs of another shape.
    fn outputs(self, negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>>;

    /// How a device runs it (the self-checking modules emit from this, the
    /// spelling and the operand binding).
    fn execution(self, s: &Spelling<'_>) -> Execution;

    /// What a runner must choose that the records leave open (written into
    /// vectors/index.json).
    fn choices(self, _s: &Spelling<'_>) -> Vec<String> {
        Vec::new()
    }
}

/// The table of families: `Arm(Type) for "mnemonic" | "mnemonic";`. It makes the
/// [`Semantics`] enum, [`of`] and the dispatch, so that a family is matched here
/// and nowhere else. An instruction no family claims is of the syntax tier: its
/// vectors, judge, explorer walks, coverage and lint come from its YAML alone.
macro_rules! families {
    ($($(#[$doc:meta])* $arm:ident($family:ty) for $($mnemonic:literal)|+;)*) => {
        /// One executable variant, as the oracle computes it: its family's own value.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Semantics {
            $($(#[$doc])* $arm($family),)*
        }

        /// What a spelling computes: its family by its mnemonic, then the
        /// family's reading of its qualifiers.
        pub fn of(s: &Spelling<'_>) -> std::result::Result<Semantics, NotComputed> {
            match s.form.syntax.mnemonic.spelling() {
                $($($mnemonic)|+ => <$family as Family>::read(s).map(Semantics::$arm),)*
                _ => Err(NotComputed { spelling: s.chain(), what: "semantic family" }),
            }
        }

        /// Whether a family claims the mnemonic: its instruction has semantic
        /// vectors (the `semantics` tier), not only syntax ones.
        pub fn claims(m: Mnemonic) -> bool {
            matches!(m.spelling(), $($($mnemonic)|+)|*)
        }

        impl Semantics {
            /// What its records hold ([`Family::shape`]).
            pub fn shape(self) -> Shape {
                match self { $(Semantics::$arm(f) => f.shape(),)* }
            }

            /// Its records before their expectations ([`Family::drafts`]).
            pub fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
                match self { $(Semantics::$arm(f) => f.drafts(at),)* }
            }

            /// What it gives on `inputs` under `profile` ([`Family::outputs`]).
            pub fn outputs(self, negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
                match self { $(Semantics::$arm(f) => f.outputs(negate, inputs, profile),)* }
            }

            /// How a device runs it ([`Family::execution`]).
            pub fn execution(self, s: &Spelling<'_>) -> Execution {
                match self { $(Semantics::$arm(f) => f.execution(s),)* }
            }

            /// What a runner must choose ([`Family::choices`]).
            pub fn choices(self, s: &Spelling<'_>) -> Vec<String> {
                match self { $(Semantics::$arm(f) => f.choices(s),)* }
            }
        }
    };
}

families! {
    /// `red`, `cp.reduce.async.bulk` and `red.async`: memory reductions.
    Memory(ptxvec_oracle::memory::Reduction) for "red" | "cp.reduce.async.bulk" | "red.async";
    /// `atom`: memory reductions that return the old value, `.exch` and `.cas`.
    Atom(ptxvec_oracle::memory::atom::Atom) for "atom";
    /// `redux.sync`.
    Redux(redux::Redux) for "redux.sync";
    /// `vote.sync` and the non-sync `vote`.
    Vote(vote::Vote) for "vote.sync" | "vote";
    /// `shfl.sync` and the non-sync `shfl`.
    Shfl(shfl::Shfl) for "shfl.sync" | "shfl";
    /// `match.{any,all}.sync`.
    Match(matching::Match) for "match";
    /// `activemask`.
    Activemask(activemask::Activemask) for "activemask";
    /// `elect.sync`.
    Elect(elect::Elect) for "elect.sync";
    /// `bar.red` and `barrier.red`.
    Barrier(barrier::BarrierRed) for "bar.red" | "barrier.red";
}

/// What a text computing `semantics` expects of `inputs` (fitted to its shape)
/// under each of `profiles`; `negate`: a source is written `!`, `pair`: the text
/// writes `p` (a text that writes `d` alone has none). With several profiles, the
/// document's is always given and another only where it expects otherwise (how
/// the vector files and `ptxvec eval` write them).
pub fn expectations(
    semantics: Semantics,
    (negate, pair): (bool, bool),
    inputs: &Inputs,
    profiles: &[Profile],
) -> Result<std::collections::BTreeMap<Profile, Outputs<Expectation>>> {
    let mut expect = std::collections::BTreeMap::new();
    for &p in profiles {
        let mut out = semantics.outputs(negate, inputs, p)?;
        if !pair {
            out.p = None;
        }
        if profiles.len() == 1 || p == Profile::PtxIsa || expect.get(&Profile::PtxIsa) != Some(&out) {
            expect.insert(p, out);
        }
    }
    Ok(expect)
}

/// A spelling the oracle computes nothing for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{spelling}`: no {what} the oracle knows")]
pub struct NotComputed {
    /// The qualifier chain.
    pub spelling: String,
    /// What the oracle lacks: a state space, a type, an operation.
    pub what: &'static str,
}

/// A spelling's qualifiers as a family reads them.
pub(crate) struct Quals<'a, 's> {
    spelling: &'a Spelling<'s>,
    quals: Vec<Qualifier>,
}

impl<'a, 's> Quals<'a, 's> {
    pub(crate) fn of(spelling: &'a Spelling<'s>) -> Self {
        Quals {
            quals: spelling.qualifiers(),
            spelling,
        }
    }

    /// Whether the spelling writes `q`.
    pub(crate) fn has(&self, q: Qualifier) -> bool {
        self.quals.contains(&q)
    }

    /// The first qualifier of `kind` the spelling writes.
    pub(crate) fn first(&self, kind: QualKind) -> Option<Qualifier> {
        self.quals.iter().copied().find(|x| x.kind() == kind)
    }

    /// The error naming what the oracle lacks for this spelling.
    pub(crate) fn missing(&self, what: &'static str) -> NotComputed {
        NotComputed {
            spelling: self.spelling.chain(),
            what,
        }
    }
}

/// How a device runs a variant: what the self-checking modules emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// One thread per record, each on its own memory. The registers of the
    /// record's slots are the slots' (`Shape::Memory`), how the instruction writes
    /// them the operand binding's.
    Memory {
        /// Where it reduces.
        space: MemSpace,
        /// Element width in bits.
        width: u32,
        /// Elements per record (vector length × 2 for packed).
        lanes: u32,
        /// A generic address must point into global memory: a vector red or atom
        /// ("may be used only with .global space and with generic addressing where
        /// the address points to .global space"), red.async's release form. Its
        /// generic variant runs in the global windows alone.
        global_only: bool,
    },
    /// One warp per record: the records' shape says which inputs the lanes load,
    /// the operand binding which register each operand is.
    Warp,
}

/// Where a memory variant's instruction reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    /// `red.global`: global memory through a global address.
    Global,
    /// `red` without a space: global memory through a generic address.
    Generic,
    /// `red` without a space, run with the generic address of the CTA's shared
    /// memory (a window of a generic variant, `selfcheck::Window::Shared`).
    GenericShared,
    /// `red.shared` / `.shared::cta`: the word is copied into shared memory and back.
    SharedCta,
    /// `red.shared::cluster`: as `SharedCta`, through the CTA's own window.
    SharedCluster,
    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group`: one bulk op per block.
    BulkGlobal,
    /// `cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier…`: into the CTA's
    /// own shared memory, completion through an mbarrier.
    BulkCluster,
    /// `red.async…mbarrier::complete_tx::bytes`: each thread into its element of
    /// the peer CTA's shared memory (a cluster of two), completing on the peer's
    /// mbarrier.
    AsyncCluster,
}

/// A record before its expectations: text, inputs, and the class of each slot.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The instruction text.
    pub text: String,
    /// A predicate source written `!`, as `text` writes it.
    pub negate: bool,
    /// The inputs.
    pub inputs: Inputs,
    /// The class of each slot.
    pub class: Vec<String>,
}

/// What a family's catalogs draw a variant's records with.
#[derive(Debug, Clone, Copy)]
pub struct Sampling<'a> {
    /// The variant id, which salts its random streams.
    pub id: &'a str,
    /// The instruction text.
    pub text: &'a str,
    /// The text with its predicate source negated (`!%p`), where it has one.
    pub negated: &'a str,
    /// `text` and `negated` with the optional operands the records may hold
    /// written (`bar.red`'s thread count `b`); empty where they hold none.
    pub optional: [&'a str; 2],
    /// The seed of the random streams.
    pub seed: u64,
    /// Seeded random inputs beyond the catalog's cross product (memory reductions).
    pub count: usize,
}

impl Sampling<'_> {
    /// A draft of the plain text.
    pub fn draft(&self, inputs: Inputs, class: Vec<String>) -> Draft {
        Draft {
            text: self.text.to_owned(),
            negate: false,
            inputs,
            class,
        }
    }

    /// The drafts of one input: the plain text, then, where the source is
    /// negatable, the negated one.
    pub fn drafts(&self, negatable: bool, inputs: Inputs, class: Vec<String>) -> Vec<Draft> {
        self.drafts_written(false, negatable, inputs, class)
    }

    /// [`Sampling::drafts`] of the texts that write the optional operands where
    /// `optional`, for inputs that hold them.
    pub fn drafts_written(&self, optional: bool, negatable: bool, inputs: Inputs, class: Vec<String>) -> Vec<Draft> {
        let [text, negated] = if optional { self.optional } else { [self.text, self.negated] };
        let negated = negatable.then(|| Draft {
            text: negated.to_owned(),
            negate: true,
            inputs: inputs.clone(),
            class: class.clone(),
        });
        let plain = Draft {
            text: text.to_owned(),
            negate: false,
            inputs,
            class,
        };
        std::iter::once(plain).chain(negated).collect()
    }
}

/// A record's instruction text read against the spec: its spelling, what it
/// computes, and what its operands say.
#[derive(Debug, Clone)]
pub struct Reading<'s> {
    /// The spelling its qualifiers fit.
    pub spelling: Spelling<'s>,
    /// What it computes.
    pub semantics: Semantics,
    /// A source operand is negated (vote's `!%p`).
    pub negate: bool,
    /// The destination is written with its predicate (`d|p`).
    pub pair: bool,
}

/// Reads `text`: an error when it does not tokenize, fits no syntax line of the
/// spec, or computes nothing the oracle knows.
pub fn read<'s>(spec: &'s ptxvec_spec::Spec, text: &str) -> Result<Reading<'s>> {
    use crate::error::Error;
    use crate::syntax::text::{tokenize, Operand};
    let parsed = tokenize(text).map_err(|e| Error::Input(format!("`{text}`: {e}")))?;
    let spelling = crate::syntax::judge::reading(spec, text).ok_or_else(|| {
        Error::Input(format!(
            "`{text}` is no spelling of the spec (see `ptxvec check-syntax`)"
        ))
    })?;
    Ok(Reading {
        semantics: of(&spelling).map_err(|e| Error::Input(e.to_string()))?,
        negate: parsed.operands.iter().any(|o| matches!(o, Operand::Not(_))),
        pair: matches!(parsed.operands.first(), Some(Operand::Pair(..))),
        spelling,
    })
}

/// The integer operation an op qualifier names.
pub(crate) fn int_op(q: Qualifier) -> Option<ptxvec_oracle::int::IntOp> {
    use ptxvec_oracle::int::IntOp;
    Some(match q {
        Qualifier::And => IntOp::And,
        Qualifier::Or => IntOp::Or,
        Qualifier::Xor => IntOp::Xor,
        Qualifier::Add => IntOp::Add,
        Qualifier::Inc => IntOp::Inc,
        Qualifier::Dec => IntOp::Dec,
        Qualifier::Min => IntOp::Min,
        Qualifier::Max => IntOp::Max,
        _ => return None,
    })
}
