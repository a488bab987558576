//! `activemask.b32`: the lanes that execute it, with no operand but `d`.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::activemask::activemask;

use super::collective::{self, LaneOutputs, Warp};
use super::{catalog, Draft, Execution, Family, NotComputed, Sampling};
use crate::error::Result;
use crate::record::{Expectation, Field, Inputs, Outputs, Shape, WarpShape};
use crate::syntax::spelling::Spelling;

/// The one `activemask` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Activemask;

impl Family for Activemask {
    fn read(_s: &Spelling<'_>) -> std::result::Result<Activemask, NotComputed> {
        Ok(Activemask)
    }

    fn shape(self) -> Shape {
        Shape::Warp(WarpShape {
            membermask: false,
            ..WarpShape::collective(None, Field::Bits(32))
        })
    }

    /// The lanes that take the branch holding it, as the membermask catalog gives
    /// them; then the same with lanes exited (every fourth of them, or lanes
    /// outside), and the irregular masks.
    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let warp = |executing, exited| Warp {
            membermask: None,
            executing,
            exited,
            a: None,
            b: None,
            c: None,
        };
        let mut out: Vec<Draft> = catalog::membermasks(at.seed)
            .into_iter()
            .map(|m| at.draft(warp(m.bits, 0).inputs(), vec![m.class]))
            .collect();
        for (m, e, x) in collective::exit_scenarios(at.seed) {
            // No membermask: every lane that exited is listed.
            let exited = (m.bits & !e.bits) | x;
            out.push(at.draft(
                warp(e.bits, exited).inputs(),
                vec![format!("{} {}", m.class, e.class)],
            ));
        }
        out
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        collective::outputs(inputs, |x| LaneOutputs::d32(activemask(x.executing)))
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
