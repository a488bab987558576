//! `elect.sync d|p, membermask`: the leader's lane id in `d` (which may be the
//! sink), the leader's flag in `p`.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::elect::{elect, Elected, Rule};
use ptxvec_oracle::warp::Lane;

use super::collective::{self, LaneInputs, Warp};
use super::{catalog, Draft, Execution, Family, NotComputed, Sampling};
use crate::error::Result;
use crate::record::{Bits, Expectation, Field, Inputs, Out, Outputs, Shape, WarpShape};
use crate::syntax::spelling::Spelling;

/// The one `elect.sync` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Elect;

impl Family for Elect {
    fn read(_s: &Spelling<'_>) -> std::result::Result<Elect, NotComputed> {
        Ok(Elect)
    }

    fn shape(self) -> Shape {
        Shape::Warp(WarpShape {
            p: true,
            // The membermask's and the executing set's.
            classes: 2,
            ..WarpShape::collective(None, Field::Bits(32))
        })
    }

    /// Every membermask of the catalog with its executing sets (the lanes that run
    /// it: all members, some, one), then the exit scenarios: members that exited
    /// are no candidates.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let warp = |m: u64, executing, exited| Warp {
            membermask: Some(m),
            executing,
            exited,
            a: None,
            b: None,
            c: None,
        };
        let mut out = Vec::new();
        for m in catalog::membermasks(at.seed) {
            for e in catalog::executing_sets(m.bits as u32) {
                out.push(at.draft(warp(m.bits, e.bits, 0).inputs(), vec![m.class.clone(), e.class]));
            }
        }
        for (m, e, x) in collective::exit_scenarios(at.seed) {
            out.push(at.draft(warp(m.bits, e.bits, x).inputs(), vec![m.class, e.class]));
        }
        out
    }

    /// Under the document any candidate leads (`leader`, `is_leader`); sm_90
    /// elects the lowest-numbered one.
    fn outputs(self, _negate: bool, inputs: &Inputs, profile: Profile) -> Result<Outputs<Expectation>> {
        let x = LaneInputs::of(collective::warp_of(inputs)?);
        let rule = match profile {
            Profile::PtxIsa => Rule::Document,
            Profile::Sm90 => Rule::Lowest,
        };
        let lanes = elect(rule, x.membermask, x.executing);
        let slot = |l: &Lane<Elected>, flag: bool| match l {
            Lane::Value(Elected::Exactly { d, p }) => {
                Expectation::Exact(if flag { Bits::pred(*p) } else { Bits::new(u64::from(*d), 32) })
            }
            Lane::Value(Elected::AnyOf(m)) => Expectation::Leader {
                lanes: Bits::new(u64::from(*m), 32),
                flag,
            },
            Lane::Undefined => Expectation::Undefined,
            Lane::NotExecuted => Expectation::NotExecuted,
        };
        let mut out = Outputs::one(Out::D, lanes.iter().map(|l| slot(l, false)).collect());
        out.set(Out::P, lanes.iter().map(|l| slot(l, true)).collect());
        Ok(out)
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
