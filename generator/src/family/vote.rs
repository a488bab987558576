//! `vote.sync` and the non-sync `vote`: `.all`, `.any`, `.uni` on a predicate, and
//! `.ballot.b32`, each with a source that may be written `!`.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::vote::{ballot, vote, VoteMode};
use ptxvec_spec::{QualKind, Qualifier};

use super::collective::{self, LaneOutputs, Lanes, Members};
use super::{catalog, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::Result;
use crate::record::{Expectation, Field, Inputs, Outputs, Shape, WarpShape};
use crate::syntax::spelling::Spelling;

/// One `vote` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Vote {
    /// What it asks of the predicates.
    pub poll: Poll,
    /// Who takes part.
    pub members: Members,
}

/// What a vote asks of the predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Poll {
    /// `.all`, `.any`, `.uni`: a predicate.
    Mode(VoteMode),
    /// `.ballot.b32`: a bit per lane.
    Ballot,
}

impl Family for Vote {
    fn read(s: &Spelling<'_>) -> std::result::Result<Vote, NotComputed> {
        let q = Quals::of(s);
        let poll = match q.first(QualKind::Mode) {
            Some(Qualifier::All) => Poll::Mode(VoteMode::All),
            Some(Qualifier::Any) => Poll::Mode(VoteMode::Any),
            Some(Qualifier::Uni) => Poll::Mode(VoteMode::Uni),
            Some(Qualifier::Ballot) => Poll::Ballot,
            _ => return Err(q.missing("vote mode")),
        };
        Ok(Vote {
            poll,
            members: Members::of(s, "vote"),
        })
    }

    fn shape(self) -> Shape {
        let d = match self.poll {
            Poll::Mode(_) => Field::Pred,
            Poll::Ballot => Field::Bits(32),
        };
        Shape::Warp(WarpShape {
            membermask: self.members == Members::Membermask,
            // The membermask's, the executing set's and the predicates' pattern
            // (the non-sync `vote` names the first two as well: its lanes, all).
            classes: 3,
            ..WarpShape::collective(Some(Field::Pred), d)
        })
    }

    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let lanes = Lanes {
            width: 4,
            read: |a| a.map(|x| x & 1),
            negatable: true,
            all_equal: true,
            patterns: |m| {
                catalog::pred_patterns(m)
                    .into_iter()
                    .map(|p| (p.class, std::array::from_fn(|l| p.bits >> l & 1)))
                    .collect()
            },
        };
        match self.members {
            Members::Membermask => {
                let mut out = collective::crossed(at, &lanes);
                out.extend(collective::rarer(at, &lanes));
                out
            }
            Members::Active => collective::crossed(at, &lanes)
                .into_iter()
                .filter_map(collective::active_only)
                .collect(),
        }
    }

    fn outputs(self, negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        // The non-sync form: "across all active threads in a warp", an inactive
        // thread's ballot bit 0 (PTX ISA 9.1, 9.7.13.8).
        collective::outputs(inputs, |x| {
            let (mm, ex, pred) = (self.members.mask(x), x.executing, x.pred());
            match self.poll {
                Poll::Mode(mode) => LaneOutputs::pred(vote(mode, negate, mm, ex, &pred)),
                Poll::Ballot => LaneOutputs::d32(ballot(negate, mm, ex, &pred)),
            }
        })
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
