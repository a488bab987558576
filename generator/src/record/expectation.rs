//! What one output slot (a lane, an element) must hold: exact bits, or an accept
//! class where the document leaves the bits open (docs/formats.md, "Accept
//! classes"): the type, its reading and writing. Whether a result passes one is
//! decided in one place, `crate::record::accept`.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use ptxvec_oracle::float::Expect;
use ptxvec_oracle::warp::Lane;

use super::bits::Bits;

/// The expectation of one slot, as the vector files write it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// `"0x..."`: exactly these bits.
    Exact(Bits),
    /// `{"accept": "nan:any"}`: any NaN of the slot's format.
    AnyNan,
    /// `{"accept": "one_of", "bits": [...], "nan": true}`: one of the listed
    /// patterns (one or two), or with `nan` any NaN too.
    OneOf {
        /// The accepted patterns, as listed.
        bits: Vec<Bits>,
        /// Any NaN is accepted too.
        nan: bool,
    },
    /// `{"accept": "permutation", "bits": [...]}`: in a contention record, the
    /// values that the contending threads return for this element are these, one
    /// thread each, in any order (atom's `d`: each thread finds the memory as the
    /// threads before it left it, in an order the document leaves open).
    Permutation(Vec<Bits>),
    /// `{"accept": "leader", "lanes": "0x..."}` on `d` and `{"accept":
    /// "is_leader", "lanes": "0x..."}` on `p` (elect.sync): one lane of the mask
    /// `lanes` is the leader, the document leaving which open. Every slot that
    /// holds `leader` holds its lane id, and of the slots that hold `is_leader`
    /// the leader's alone holds 1 ([`super::accept::joint`]).
    Leader {
        /// The lanes that may be elected.
        lanes: Bits,
        /// `is_leader`: the predicate slot, true in the leader's lane; else
        /// `leader`, the leader's lane id.
        flag: bool,
    },
    /// `{"accept": "undefined"}`: the lane executes, its value is undefined.
    Undefined,
    /// `null`: the lane does not execute the instruction and writes nothing.
    NotExecuted,
}

impl Expectation {
    /// An oracle result at `width` bits.
    pub fn of(e: Expect, width: u32) -> Expectation {
        let b = |x| Bits::new(x, width);
        match e {
            Expect::Bits(x) => Expectation::Exact(b(x)),
            Expect::AnyNan => Expectation::AnyNan,
            Expect::Either(x, y) => Expectation::OneOf {
                bits: vec![b(x), b(y)],
                nan: false,
            },
            Expect::BitsOrNan(x) => Expectation::OneOf {
                bits: vec![b(x)],
                nan: true,
            },
            Expect::Undefined => Expectation::Undefined,
        }
    }

    /// A warp lane's result, `bits` turning its value into a pattern.
    pub fn of_lane<T: Copy>(l: Lane<T>, bits: impl Fn(T) -> Bits) -> Expectation {
        match l {
            Lane::Value(v) => Expectation::Exact(bits(v)),
            Lane::Undefined => Expectation::Undefined,
            Lane::NotExecuted => Expectation::NotExecuted,
        }
    }

    /// Whether an executing lane writes here, so that a result is compared (or
    /// digested): not for an undefined value or a lane that does not execute.
    pub fn pinned(&self) -> bool {
        !matches!(self, Expectation::Undefined | Expectation::NotExecuted)
    }

    /// The bits when they are exact.
    pub fn exact(&self) -> Option<u64> {
        match self {
            Expectation::Exact(b) => Some(b.value),
            _ => None,
        }
    }

    /// The same expectation with its patterns as a field of `width` bits holds
    /// them (`pred`: a predicate's 0 or 1).
    pub fn fit(&self, width: u32, pred: bool) -> Result<Expectation, super::bits::BitsError> {
        let fit = |b: Bits| if pred { b.fit_pred() } else { b.fit(width) };
        Ok(match self {
            Expectation::Exact(b) => Expectation::Exact(fit(*b)?),
            Expectation::OneOf { bits, nan } => Expectation::OneOf {
                bits: bits.iter().map(|b| fit(*b)).collect::<Result<_, _>>()?,
                nan: *nan,
            },
            Expectation::Permutation(bits) => {
                Expectation::Permutation(bits.iter().map(|b| fit(*b)).collect::<Result<_, _>>()?)
            }
            e => e.clone(),
        })
    }
}

const ACCEPT_NAN_ANY: &str = "nan:any";
const ACCEPT_ONE_OF: &str = "one_of";
const ACCEPT_UNDEFINED: &str = "undefined";
const ACCEPT_PERMUTATION: &str = "permutation";
const ACCEPT_LEADER: &str = "leader";
const ACCEPT_IS_LEADER: &str = "is_leader";
/// The threads of a contention record, whose returned values a `permutation`
/// lists.
pub const CONTENDERS: usize = 32;

impl Serialize for Expectation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let class = |s: S, name: &str| {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("accept", name)?;
            m.end()
        };
        match self {
            Expectation::Exact(b) => b.serialize(s),
            Expectation::AnyNan => class(s, ACCEPT_NAN_ANY),
            Expectation::Undefined => class(s, ACCEPT_UNDEFINED),
            Expectation::NotExecuted => s.serialize_unit(),
            Expectation::OneOf { bits, nan } => {
                let mut m = s.serialize_map(Some(2 + usize::from(*nan)))?;
                m.serialize_entry("accept", ACCEPT_ONE_OF)?;
                m.serialize_entry("bits", bits)?;
                if *nan {
                    m.serialize_entry("nan", &true)?;
                }
                m.end()
            }
            Expectation::Permutation(bits) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("accept", ACCEPT_PERMUTATION)?;
                m.serialize_entry("bits", bits)?;
                m.end()
            }
            Expectation::Leader { lanes, flag } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("accept", if *flag { ACCEPT_IS_LEADER } else { ACCEPT_LEADER })?;
                m.serialize_entry("lanes", lanes)?;
                m.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Expectation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Expectation, D::Error> {
        d.deserialize_any(ExpectationVisitor)
    }
}

struct ExpectationVisitor;

impl<'de> Visitor<'de> for ExpectationVisitor {
    type Value = Expectation;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a hex bit pattern, null, or an accept class {\"accept\": \"nan:any\" | \"one_of\" | \"permutation\" | \"leader\" | \"is_leader\" | \"undefined\"}",
        )
    }

    fn visit_unit<E: de::Error>(self) -> Result<Expectation, E> {
        Ok(Expectation::NotExecuted)
    }

    fn visit_none<E: de::Error>(self) -> Result<Expectation, E> {
        Ok(Expectation::NotExecuted)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Expectation, E> {
        Bits::parse(v).map(Expectation::Exact).map_err(E::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expectation, A::Error> {
        let (mut accept, mut bits, mut nan) = (None::<String>, None::<Vec<Bits>>, None::<bool>);
        let mut lanes = None::<Bits>;
        while let Some(key) = map.next_key::<String>()? {
            let dup = || de::Error::custom(format_args!("duplicate field `{key}`"));
            match key.as_str() {
                "accept" if accept.is_none() => accept = Some(map.next_value()?),
                "bits" if bits.is_none() => bits = Some(map.next_value()?),
                "nan" if nan.is_none() => nan = Some(map.next_value()?),
                "lanes" if lanes.is_none() => lanes = Some(map.next_value()?),
                "accept" | "bits" | "nan" | "lanes" => return Err(dup()),
                other => {
                    return Err(de::Error::unknown_field(other, &["accept", "bits", "nan", "lanes"]));
                }
            }
        }
        let accept = accept.ok_or_else(|| de::Error::missing_field("accept"))?;
        let leader = [ACCEPT_LEADER, ACCEPT_IS_LEADER].contains(&accept.as_str());
        if lanes.is_some() != leader {
            return Err(de::Error::custom(format_args!(
                "\"lanes\" (a 32-bit lane mask) goes with `leader` and `is_leader` alone, not `{accept}`"
            )));
        }
        match accept.as_str() {
            ACCEPT_ONE_OF => match bits {
                Some(bits) if (1..=2).contains(&bits.len()) => Ok(Expectation::OneOf {
                    bits,
                    nan: nan.unwrap_or(false),
                }),
                _ => Err(de::Error::custom(
                    "`one_of` lists one or two patterns under \"bits\"",
                )),
            },
            ACCEPT_PERMUTATION => match bits {
                Some(bits) if bits.len() == CONTENDERS && nan.is_none() => Ok(Expectation::Permutation(bits)),
                _ => Err(de::Error::custom(format_args!(
                    "`permutation` lists {CONTENDERS} patterns under \"bits\", one per contending thread, and takes no \"nan\""
                ))),
            },
            ACCEPT_LEADER | ACCEPT_IS_LEADER => match lanes {
                Some(lanes) if lanes.width == 32 && lanes.value != 0 && bits.is_none() && nan.is_none() => {
                    Ok(Expectation::Leader {
                        lanes,
                        flag: accept == ACCEPT_IS_LEADER,
                    })
                }
                _ => Err(de::Error::custom(format_args!(
                    "`{accept}` takes \"lanes\", a non-zero 32-bit mask, and no \"bits\" or \"nan\""
                ))),
            },
            ACCEPT_NAN_ANY | ACCEPT_UNDEFINED if bits.is_some() || nan.is_some() => Err(
                de::Error::custom(format_args!("`{accept}` takes no \"bits\" and no \"nan\"")),
            ),
            ACCEPT_NAN_ANY => Ok(Expectation::AnyNan),
            ACCEPT_UNDEFINED => Ok(Expectation::Undefined),
            other => Err(de::Error::unknown_variant(
                other,
                &[ACCEPT_NAN_ANY, ACCEPT_ONE_OF, ACCEPT_PERMUTATION, ACCEPT_LEADER, ACCEPT_IS_LEADER, ACCEPT_UNDEFINED],
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Result<Expectation, serde_json::Error> {
        serde_json::from_str(s)
    }

    #[test]
    fn malformed_expectations_are_refused() {
        for text in [
            r#"{"accept":"nan:quiet"}"#,
            r#"{"accept":"one_of"}"#,
            r#"{"accept":"one_of","bits":[]}"#,
            r#"{"accept":"one_of","bits":["0x1","0x2","0x3"]}"#,
            r#"{"accept":"nan:any","bits":["0x1"]}"#,
            r#"{"accept":"undefined","accept":"undefined"}"#,
            r#"{"accept":"undefined","why":"x"}"#,
            r#"{"accept":"permutation","bits":["0x1","0x2"]}"#,
            r#"{"accept":"permutation"}"#,
            r#"{"accept":"leader"}"#,
            r#"{"accept":"leader","lanes":"0x00000000"}"#,
            r#"{"accept":"is_leader","lanes":"0x0003"}"#,
            r#"{"accept":"leader","lanes":"0x00000003","bits":["0x1"]}"#,
            r#"{"accept":"one_of","bits":["0x1"],"lanes":"0x00000003"}"#,
            r#"{"bits":["0x1"]}"#,
            "5",
            "true",
            r#""0x+5""#,
        ] {
            assert!(read(text).is_err(), "accepted: {text}");
        }
    }
}
