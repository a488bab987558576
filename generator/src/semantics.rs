//! The join of spec and oracle: what a legal spelling computes, as the oracle's
//! terms. Qualifiers that change no value (memory order, scope, cache hints, the
//! completion mechanism) are dropped here, so that two spellings with the same
//! [`Semantics`] are one executable variant.

use ptxvec_oracle::float::{Format, MinMax};
use ptxvec_oracle::int::{IntOp, IntType};
use ptxvec_oracle::memory::{Element, Engine, Op, Reduction, Space};
use ptxvec_oracle::warp::redux::{ReduxF32, ReduxInt};
use ptxvec_oracle::warp::shfl::ShflMode;
use ptxvec_oracle::warp::vote::VoteMode;
use ptxvec_spec::{Mnemonic, Qualifier};

use crate::syntax::spelling::Spelling;

/// One executable variant, as the oracle computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Semantics {
    /// `red` and `cp.reduce.async.bulk`.
    Memory(Reduction),
    /// `redux.sync` on integers and bits.
    ReduxInt(ReduxInt),
    /// `redux.sync` on `.f32`.
    ReduxF32(ReduxF32),
    /// `vote.sync.{all,any,uni}.pred`.
    Vote(VoteMode),
    /// `vote.sync.ballot.b32`.
    Ballot,
    /// `shfl.sync`.
    Shfl(ShflMode),
    /// `match.any.sync` / `match.all.sync`; `wide` for `.b64`.
    Match {
        /// `.all` rather than `.any`.
        all: bool,
        /// `.b64` rather than `.b32`.
        wide: bool,
    },
    /// `activemask.b32`.
    Activemask,
    /// The non-sync `vote.{all,any,uni}.pred`: over the warp's active threads,
    /// with no membermask (PTX ISA 9.1, 9.7.13.8).
    VoteActive(VoteMode),
    /// The non-sync `vote.ballot.b32`: inactive threads contribute 0.
    BallotActive,
    /// The non-sync `shfl`: shfl.sync's lanes, its active threads for the
    /// membermask (PTX ISA 9.1, 9.7.9.5).
    ShflActive(ShflMode),
}

impl Semantics {
    /// Whether the instruction names the threads taking part (a membermask
    /// operand), rather than taking the warp's active ones (activemask, the non-sync
    /// `vote` and `shfl`) or being no collective.
    pub fn has_membermask(self) -> bool {
        !matches!(
            self,
            Semantics::Memory(_)
                | Semantics::Activemask
                | Semantics::VoteActive(_)
                | Semantics::BallotActive
                | Semantics::ShflActive(_)
        )
    }
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

/// What a spelling computes; an error names what the oracle lacks for it.
pub fn of(s: &Spelling<'_>) -> Result<Semantics, NotComputed> {
    let q = s.qualifiers();
    let has = |x: Qualifier| q.contains(&x);
    let first_of = |kind| q.iter().copied().find(|x| x.kind() == kind);
    let missing = |what: &'static str| NotComputed {
        spelling: s.chain(),
        what,
    };
    match s.form.syntax.mnemonic {
        Mnemonic::Red | Mnemonic::CpReduceAsyncBulk => {
            let engine = if s.form.syntax.mnemonic == Mnemonic::Red {
                Engine::Red
            } else {
                Engine::BulkReduce
            };
            // cp.reduce.async.bulk writes `.dst` before `.src`: the first space is
            // the destination.
            let space = match first_of(ptxvec_spec::QualKind::Space) {
                None => Space::Generic,
                Some(Qualifier::Global) => Space::Global,
                Some(Qualifier::Shared | Qualifier::SharedCta) => Space::SharedCta,
                // Shared memory of a CTA of the cluster: the document's "shared
                // memory" rules hold for it, and the oracle computes it as .shared.
                Some(Qualifier::SharedCluster) => Space::SharedCta,
                Some(_) => return Err(missing("state space")),
            };
            let ty = first_of(ptxvec_spec::QualKind::Type).ok_or_else(|| missing("type"))?;
            let (element, packed) = element(ty).ok_or_else(|| missing("element type"))?;
            let op_q = first_of(ptxvec_spec::QualKind::Op).ok_or_else(|| missing("operation"))?;
            let op = match (op_q, element) {
                (Qualifier::Add, Element::Float(_)) => Op::Add,
                (Qualifier::Min, Element::Float(_)) => Op::MinMax(MinMax::Min),
                (Qualifier::Max, Element::Float(_)) => Op::MinMax(MinMax::Max),
                (_, Element::Int(_)) => {
                    Op::Int(int_op(op_q).ok_or_else(|| missing("integer operation"))?)
                }
                _ => return Err(missing("float operation")),
            };
            let vector = first_of(ptxvec_spec::QualKind::Vector)
                .and_then(Qualifier::vector_len)
                .unwrap_or(1);
            let lanes = u8::try_from(vector * if packed { 2 } else { 1 })
                .map_err(|_| missing("vector width"))?;
            let mut r = Reduction {
                engine,
                space,
                op,
                element,
                lanes,
                packed,
                noftz: has(Qualifier::Noftz),
            };
            // The destination's space changes values only for the 32- and 64-bit
            // float add (flushing, and sm_90's NaN payloads); elsewhere every space is
            // one variant, stated with generic addressing.
            if !(op == Op::Add && matches!(element, Element::Float(f) if f.width() >= 32)) {
                r.space = Space::Generic;
            }
            Ok(Semantics::Memory(r))
        }
        Mnemonic::ReduxSync => {
            if has(Qualifier::F32) {
                let op = match first_of(ptxvec_spec::QualKind::Op) {
                    Some(Qualifier::Min) => MinMax::Min,
                    Some(Qualifier::Max) => MinMax::Max,
                    _ => return Err(missing("f32 operation")),
                };
                return Ok(Semantics::ReduxF32(ReduxF32 {
                    op,
                    abs: has(Qualifier::Abs),
                    nan: has(Qualifier::NaN),
                }));
            }
            let op = first_of(ptxvec_spec::QualKind::Op)
                .and_then(int_op)
                .ok_or_else(|| missing("operation"))?;
            let ty = first_of(ptxvec_spec::QualKind::Type).ok_or_else(|| missing("type"))?;
            let signed = ty == Qualifier::S32;
            ReduxInt::ALL
                .iter()
                .copied()
                .find(|f| f.op_and_type() == (op, if signed { IntType::S32 } else { IntType::U32 }))
                .map(Semantics::ReduxInt)
                .ok_or_else(|| missing("redux form"))
        }
        Mnemonic::VoteSync => match vote_mode(first_of(ptxvec_spec::QualKind::Mode)) {
            Some(Some(mode)) => Ok(Semantics::Vote(mode)),
            Some(None) => Ok(Semantics::Ballot),
            None => Err(missing("vote mode")),
        },
        Mnemonic::ShflSync => shfl_mode(first_of(ptxvec_spec::QualKind::Mode))
            .map(Semantics::Shfl)
            .ok_or_else(|| missing("shfl mode")),
        Mnemonic::Match => Ok(Semantics::Match {
            all: has(Qualifier::All),
            wide: has(Qualifier::B64),
        }),
        Mnemonic::Activemask => Ok(Semantics::Activemask),
        Mnemonic::Vote => match vote_mode(first_of(ptxvec_spec::QualKind::Mode)) {
            Some(Some(mode)) => Ok(Semantics::VoteActive(mode)),
            Some(None) => Ok(Semantics::BallotActive),
            None => Err(missing("vote mode")),
        },
        Mnemonic::Shfl => shfl_mode(first_of(ptxvec_spec::QualKind::Mode))
            .map(Semantics::ShflActive)
            .ok_or_else(|| missing("shfl mode")),
    }
}

/// vote's mode qualifier: `Some(Some(mode))` for `.all`, `.any`, `.uni`,
/// `Some(None)` for `.ballot`, `None` for anything else.
fn vote_mode(q: Option<Qualifier>) -> Option<Option<VoteMode>> {
    match q? {
        Qualifier::All => Some(Some(VoteMode::All)),
        Qualifier::Any => Some(Some(VoteMode::Any)),
        Qualifier::Uni => Some(Some(VoteMode::Uni)),
        Qualifier::Ballot => Some(None),
        _ => None,
    }
}

/// shfl's mode qualifier.
fn shfl_mode(q: Option<Qualifier>) -> Option<ShflMode> {
    match q? {
        Qualifier::Up => Some(ShflMode::Up),
        Qualifier::Down => Some(ShflMode::Down),
        Qualifier::Bfly => Some(ShflMode::Bfly),
        Qualifier::Idx => Some(ShflMode::Idx),
        _ => None,
    }
}

/// The element a type qualifier names, and whether it is packed (two per 32 bits).
fn element(ty: Qualifier) -> Option<(Element, bool)> {
    let int = |bits, signed| Some((Element::Int(IntType { bits, signed }), false));
    match ty {
        Qualifier::B32 | Qualifier::U32 => int(32, false),
        Qualifier::S32 => int(32, true),
        Qualifier::B64 | Qualifier::U64 => int(64, false),
        Qualifier::S64 => int(64, true),
        Qualifier::F16 => Some((Element::Float(Format::F16), false)),
        Qualifier::Bf16 => Some((Element::Float(Format::BF16), false)),
        Qualifier::F16x2 => Some((Element::Float(Format::F16), true)),
        Qualifier::Bf16x2 => Some((Element::Float(Format::BF16), true)),
        Qualifier::F32 => Some((Element::Float(Format::F32), false)),
        Qualifier::F64 => Some((Element::Float(Format::F64), false)),
        _ => None,
    }
}

fn int_op(q: Qualifier) -> Option<IntOp> {
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
pub fn read<'s>(spec: &'s ptxvec_spec::Spec, text: &str) -> crate::error::Result<Reading<'s>> {
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
