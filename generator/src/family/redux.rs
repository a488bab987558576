//! `redux.sync`: a reduction across the warp's members, on integers and bits or
//! on `.f32` (with `.abs` and `.NaN`).

use ptxvec_oracle::float::{Format, MinMax};
use ptxvec_oracle::int::IntType;
use ptxvec_oracle::profile::Profile;
use ptxvec_oracle::warp::redux::{redux_f32, redux_int, ReduxF32, ReduxInt};
use ptxvec_oracle::warp::WARP_SIZE;
use ptxvec_spec::{QualKind, Qualifier};

use super::collective::{self, LaneOutputs, Lanes};
use super::{catalog, int_op, Draft, Execution, Family, NotComputed, Quals, Sampling};
use crate::error::Result;
use crate::record::{Expectation, Field, Inputs, Outputs, Shape, WarpShape};
use crate::syntax::spelling::Spelling;

/// One `redux.sync` variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Redux {
    /// On integers and bits.
    Int(ReduxInt),
    /// On `.f32`.
    F32(ReduxF32),
}

impl Family for Redux {
    fn read(s: &Spelling<'_>) -> std::result::Result<Redux, NotComputed> {
        let q = Quals::of(s);
        if q.has(Qualifier::F32) {
            let op = match q.first(QualKind::Op) {
                Some(Qualifier::Min) => MinMax::Min,
                Some(Qualifier::Max) => MinMax::Max,
                _ => return Err(q.missing("f32 operation")),
            };
            return Ok(Redux::F32(ReduxF32 {
                op,
                abs: q.has(Qualifier::Abs),
                nan: q.has(Qualifier::NaN),
            }));
        }
        let op = q
            .first(QualKind::Op)
            .and_then(int_op)
            .ok_or_else(|| q.missing("operation"))?;
        let ty = q.first(QualKind::Type).ok_or_else(|| q.missing("type"))?;
        let signed = ty == Qualifier::S32;
        ReduxInt::ALL
            .iter()
            .copied()
            .find(|f| f.op_and_type() == (op, if signed { IntType::S32 } else { IntType::U32 }))
            .map(Redux::Int)
            .ok_or_else(|| q.missing("redux form"))
    }

    fn shape(self) -> Shape {
        let b32 = Field::Bits(32);
        Shape::Warp(WarpShape {
            float: match self {
                Redux::Int(_) => None,
                Redux::F32(_) => Some(Format::F32),
            },
            // The membermask's, the executing set's and the values' pattern.
            classes: 3,
            ..WarpShape::collective(Some(b32), b32)
        })
    }

    fn drafts(self, at: &Sampling<'_>) -> Vec<Draft> {
        let lanes = match self {
            Redux::Int(_) => Lanes {
                width: 32,
                read: |a| a,
                negatable: false,
                all_equal: false,
                patterns: |_| catalog::redux_patterns(),
            },
            // The f32 special at `(lane + value) mod n`, so that NaNs, both zeros
            // and subnormals meet in one reduction.
            Redux::F32(_) => Lanes {
                width: 32,
                read: |a| {
                    let f32s = catalog::float_specials(Format::F32);
                    std::array::from_fn(|i| f32s[(i + a[i] as usize) % f32s.len()].bits)
                },
                negatable: false,
                all_equal: false,
                patterns: |_| Vec::new(),
            },
        };
        let mut out = collective::crossed(at, &lanes);
        out.extend(collective::rarer(at, &lanes));
        out
    }

    fn outputs(self, _negate: bool, inputs: &Inputs, _profile: Profile) -> Result<Outputs<Expectation>> {
        collective::outputs(inputs, |x| {
            let a: [u32; WARP_SIZE] = x.a32();
            LaneOutputs::d32(match self {
                Redux::Int(form) => redux_int(form, x.membermask, x.executing, &a),
                Redux::F32(q) => redux_f32(q, x.membermask, x.executing, &a),
            })
        })
    }

    fn execution(self, _s: &Spelling<'_>) -> Execution {
        Execution::Warp
    }
}
