//! `match.any.sync` and `match.all.sync` on `.b32` and `.b64`: which members hold
//! the same `a`.

use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::matching::{match_all, match_any};
use ptxvec_spec::Qualifier;

use super::collective::{self, LaneOutputs, Lanes};
use super::{catalog, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::Result;
use crate::record::{Expectation, Field, Inputs, Outputs, Shape, WarpShape};
use crate::syntax::spelling::Spelling;

/// One `match` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// `.all` rather than `.any`: `d` is the mask only when every member agrees,
    /// and `p` says whether they did.
    pub all: bool,
    /// `.b64` rather than `.b32`.
    pub wide: bool,
}

impl Family for Match {
    fn read(s: &Spelling<'_>) -> std::result::Result<Match, NotComputed> {
        let q = Quals::of(s);
        Ok(Match {
            all: q.has(Qualifier::All),
            wide: q.has(Qualifier::B64),
        })
    }

    fn shape(self) -> Shape {
        let a = Field::Bits(if self.wide { 64 } else { 32 });
        Shape::Warp(WarpShape {
            p: self.all,
            // The membermask's, the executing set's and the values' pattern.
            classes: 3,
            ..WarpShape::collective(Some(a), Field::Bits(32))
        })
    }

    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let lanes = if self.wide {
            // The value in both words; the patterns split the high words.
            Lanes {
                width: 64,
                read: |a| a.map(|x| x << 32 | x),
                negatable: false,
                all_equal: true,
                patterns: |_| catalog::wide_patterns(),
            }
        } else {
            // The low words alone; all equal is among the lane values already.
            Lanes {
                width: 32,
                read: |a| a,
                negatable: false,
                all_equal: true,
                patterns: |_| {
                    catalog::wide_patterns()
                        .into_iter()
                        .skip(1)
                        .map(|(c, a)| (c.replace("_high_mod_4", ""), a.map(|x| x & 0xffff_ffff)))
                        .collect()
                },
            }
        };
        let mut out = collective::crossed(at, &lanes);
        out.extend(collective::rarer(at, &lanes));
        out
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        collective::outputs(inputs, |x| {
            let (mm, ex) = (x.membermask, x.executing);
            match (self.all, self.wide) {
                (false, true) => LaneOutputs::d32(match_any(mm, ex, &x.a)),
                (false, false) => LaneOutputs::d32(match_any(mm, ex, &x.a32())),
                (true, true) => LaneOutputs::with_p(match_all(mm, ex, &x.a)),
                (true, false) => LaneOutputs::with_p(match_all(mm, ex, &x.a32())),
            }
        })
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
