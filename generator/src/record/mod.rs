//! The semantic vector record: one type, one reader and one writer for every
//! command that touches the vectors (`generate`, `eval`, the self-checking modules,
//! the silicon comparison). Format: docs/formats.md; schema: vectors/schema.json.
//!
//! Fields are declared in the order the files list them (alphabetical), so that
//! serde writes the committed bytes.

pub mod accept;
pub mod bits;
pub mod expectation;
pub mod index;
mod line;
pub mod mask;
pub mod position;
mod scan;
pub mod shape;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use ptxvec_oracle::profile::Profile;

pub use bits::{Bits, BitsError};
pub use expectation::Expectation;
pub use mask::LaneMask;
pub use shape::{Along, Dir, Field, MemoryShape, Out, OutShape, Per, Shape, Slot, SlotKind, Source, WarpShape};

pub use crate::syntax::case::NeedRecord as Requirement;

/// One record of a semantic vector file. `S`: owned strings, or slices of the
/// line it was read from (`eval`'s batch, [`Record::from_line_borrowed`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    bound(
        serialize = "S: Serialize + AsRef<str>",
        deserialize = "S: Deserialize<'de> + Default"
    )
)]
pub struct Record<S = String> {
    /// Per slot of the inputs, the catalog class it was drawn from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub class: Vec<S>,
    /// The expected outputs per profile: `ptx-isa` always, another profile only
    /// where it expects otherwise.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "by_profile"
    )]
    pub expect: BTreeMap<Profile, Outputs<Expectation>>,
    /// `<variant>#<n>`.
    #[serde(default, skip_serializing_if = "is_empty")]
    pub id: S,
    /// The inputs.
    pub inputs: Inputs,
    /// The lowest modules that take the instruction, any one suffices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Requirement<S>>,
    /// The seed of the random inputs, where some input is random.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The semantic note that defines what the record computes.
    #[serde(default, skip_serializing_if = "is_empty")]
    pub spec: S,
    /// The instruction.
    pub text: S,
}

fn is_empty<S: AsRef<str>>(s: &S) -> bool {
    s.as_ref().is_empty()
}

/// A record's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inputs {
    /// One thread on its own memory: one entry per element of the access.
    Memory {
        /// Memory before (the slot of both directions, `mem`).
        mem: Vec<Bits>,
        /// The thread's inputs (`operand`, `.cas`'s `swap`), by slot name.
        slots: Named<Vec<Bits>>,
    },
    /// Threads on one address, each with its own inputs, in any order.
    Contention {
        /// Memory before.
        mem: Vec<Bits>,
        /// Per slot, one list of elements per thread (`operands`, `swaps`).
        slots: Named<Vec<Vec<Bits>>>,
    },
    /// A warp executes the instruction.
    Warp(WarpInputs),
}

/// A memory record's thread inputs under their slots' names, in name order (the
/// files' order of keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named<T>(Vec<(String, T)>);

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named(Vec::new())
    }
}

impl<T> Named<T> {
    /// The values of `entries`, put in name order; an error names a slot given twice.
    pub fn new<N: Into<String>>(entries: impl IntoIterator<Item = (N, T)>) -> Result<Named<T>, String> {
        let mut v: Vec<(String, T)> = entries.into_iter().map(|(n, x)| (n.into(), x)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        if let Some(w) = v.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(format!("\"{}\" given twice", w[0].0));
        }
        Ok(Named(v))
    }

    /// The values of slot `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, x)| x)
    }

    /// Every slot's name and values, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(n, x)| (n.as_str(), x))
    }

    /// Whether no slot is given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Takes slot `name` out.
    fn take(&mut self, name: &str) -> Option<T> {
        let at = self.0.iter().position(|(n, _)| n == name)?;
        Some(self.0.remove(at).1)
    }
}

impl Inputs {
    /// One thread's inputs: the memory and its slots' values by name.
    pub fn one_thread(mem: Vec<Bits>, slots: impl IntoIterator<Item = (&'static str, Vec<Bits>)>) -> Inputs {
        Inputs::Memory {
            mem,
            // Names from a family's declaration are distinct.
            slots: Named::new(slots).unwrap_or_default(),
        }
    }

    /// Contending threads' inputs: the memory and per slot one list per thread.
    pub fn threads(mem: Vec<Bits>, slots: impl IntoIterator<Item = (&'static str, Vec<Vec<Bits>>)>) -> Inputs {
        Inputs::Contention {
            mem,
            slots: Named::new(slots).unwrap_or_default(),
        }
    }

    /// The threads of a contention record (every slot lists as many, once fitted).
    pub fn contenders(&self) -> Option<usize> {
        match self {
            Inputs::Contention { slots, .. } => Some(slots.iter().map(|(_, t)| t.len()).max().unwrap_or(0)),
            _ => None,
        }
    }
}

/// A warp's inputs as the files write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpInputs {
    /// The membermask operand (all but `activemask`).
    pub membermask: Option<Bits>,
    /// The lanes that execute the instruction: one bit per thread of the record
    /// (a warp's 32, or a CTA's), whose width states the record's threads.
    pub executing: LaneMask,
    /// Lanes outside the membermask that exited before the instruction. Members
    /// that do not execute have always exited; other lanes that do not execute
    /// are alive and branch around the instruction.
    pub exited: Option<LaneMask>,
    /// The source `a`: one per lane (the collectives' source), or one for the
    /// warp (`bar.red`'s barrier number), as the shape says.
    pub a: Option<LaneValue>,
    /// `b`: shfl's lane or offset (one for the warp, or one per lane).
    pub b: Option<LaneValue>,
    /// `c`: shfl's clamp and segment mask (one for the warp), `bar.red`'s
    /// predicate (one per lane).
    pub c: Option<LaneValue>,
}

impl WarpInputs {
    /// The sources by key, in the order `a`, `b`, `c` (the files' order).
    pub fn sources(&self) -> [(&'static str, &Option<LaneValue>); 3] {
        [("a", &self.a), ("b", &self.b), ("c", &self.c)]
    }

    /// Every lane that exited before the instruction: the members that do not
    /// execute, and `exited`.
    pub fn exits(&self) -> LaneMask {
        let mm = self.membermask.map_or(0, |b| b.value);
        let width = self.executing.width();
        LaneMask::from_fn(width, |t| {
            (t < 64 && mm >> t & 1 == 1 && !self.executing.get(t)) || self.exited.as_ref().is_some_and(|x| x.get(t))
        })
    }
}

/// A register operand of a warp instruction: one value for the warp (`"0x..."`),
/// or one per lane (a list of one per thread of the record: 32 for a warp).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaneValue {
    /// Every lane holds this value.
    Warp(Bits),
    /// Lane `l` holds entry `l`.
    PerLane(Vec<Bits>),
}

impl LaneValue {
    /// The value lane `l` holds.
    pub fn lane(&self, l: usize) -> u64 {
        match self {
            LaneValue::Warp(b) => b.value,
            LaneValue::PerLane(v) => v.get(l).map_or(0, |b| b.value),
        }
    }
}

impl Serialize for LaneValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LaneValue::Warp(b) => b.serialize(s),
            LaneValue::PerLane(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for LaneValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LaneValue, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LaneValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hex bit pattern, or a list of one per lane")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LaneValue, E> {
                Bits::parse(v).map(LaneValue::Warp).map_err(E::custom)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<LaneValue, A::Error> {
                Vec::<Bits>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(LaneValue::PerLane)
            }
        }
        d.deserialize_any(V)
    }
}

/// A memory slot's values as a file gives them: one list (one thread), or one
/// list per thread (a contention record, under the plural key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SlotValues {
    /// One thread's elements.
    One(Vec<Bits>),
    /// Each thread's elements.
    PerThread(Vec<Vec<Bits>>),
}

/// The inputs' keys as a file gives them, before they are known to form
/// [`Inputs`]: what serde's reader and the line scanner (`scan`) both fill.
#[derive(Debug, Clone, Default)]
pub(crate) struct InputFields {
    pub a: Option<LaneValue>,
    pub b: Option<LaneValue>,
    pub c: Option<LaneValue>,
    pub executing: Option<LaneMask>,
    pub exited: Option<LaneMask>,
    pub membermask: Option<Bits>,
    pub mem: Option<Vec<Bits>>,
    /// The memory slots, by key as written (`operand`, `swaps`).
    pub slots: Vec<(String, SlotValues)>,
}

impl InputFields {
    /// Whether `key` names a contention record's per-thread lists (`operands`):
    /// a slot's name never ends in `s`.
    pub fn per_thread(key: &str) -> bool {
        key.ends_with('s')
    }
}

impl TryFrom<InputFields> for Inputs {
    type Error = String;

    fn try_from(f: InputFields) -> Result<Inputs, String> {
        let warp_keys = f.a.is_some()
            || f.b.is_some()
            || f.c.is_some()
            || f.executing.is_some()
            || f.exited.is_some()
            || f.membermask.is_some();
        if warp_keys && (f.mem.is_some() || !f.slots.is_empty()) {
            return Err(
                "memory inputs (\"mem\", \"operand\", \"operands\", ...) and warp inputs (\"executing\", ...) in one record"
                    .to_owned(),
            );
        }
        if !warp_keys {
            let Some(mem) = f.mem else {
                return Err(match f.slots.first() {
                    Some((key, _)) => format!("\"{key}\" without \"mem\""),
                    None => "expected \"mem\" and \"operand\" (a memory instruction) or \"executing\" (a warp instruction)".to_owned(),
                });
            };
            let (mut one, mut per_thread) = (Vec::new(), Vec::new());
            for (key, v) in f.slots {
                match v {
                    SlotValues::One(v) => one.push((key, v)),
                    SlotValues::PerThread(v) => {
                        per_thread.push((key.strip_suffix('s').unwrap_or(&key).to_owned(), v));
                    }
                }
            }
            return match (one.is_empty(), per_thread.is_empty()) {
                (false, true) => Ok(Inputs::Memory { mem, slots: Named::new(one)? }),
                (true, false) => Ok(Inputs::Contention {
                    mem,
                    slots: Named::new(per_thread)?,
                }),
                (false, false) => Err(format!(
                    "\"{}\" (one thread) and \"{}s\" (one list per thread) in one record",
                    one[0].0, per_thread[0].0
                )),
                (true, true) => {
                    Err("\"mem\" without \"operand\" (one thread) or \"operands\" (one list per thread)".to_owned())
                }
            };
        }
        match f.executing {
            Some(executing) => Ok(Inputs::Warp(WarpInputs {
                membermask: f.membermask,
                executing,
                exited: f.exited,
                a: f.a,
                b: f.b,
                c: f.c,
            })),
            None => Err("warp inputs without \"executing\"".to_owned()),
        }
    }
}

/// One key of a record's inputs and its value, as the files write it.
pub(crate) enum Entry<'i> {
    /// A bit pattern.
    Bits(&'i Bits),
    /// A thread mask of any width.
    Mask(&'i LaneMask),
    /// A warp source.
    Lane(&'i LaneValue),
    /// A list of elements.
    List(&'i [Bits]),
    /// One list per thread.
    Lists(&'i [Vec<Bits>]),
}

impl Inputs {
    /// Every key and value the files write, in their order (by key).
    pub(crate) fn entries(&self) -> Vec<(std::borrow::Cow<'_, str>, Entry<'_>)> {
        use std::borrow::Cow;
        let mut out: Vec<(Cow<'_, str>, Entry<'_>)> = Vec::new();
        match self {
            Inputs::Memory { mem, slots } => {
                out.push((Cow::Borrowed("mem"), Entry::List(mem)));
                out.extend(slots.iter().map(|(n, v)| (Cow::Borrowed(n), Entry::List(v))));
            }
            Inputs::Contention { mem, slots } => {
                out.push((Cow::Borrowed("mem"), Entry::List(mem)));
                out.extend(slots.iter().map(|(n, v)| (Cow::Owned(format!("{n}s")), Entry::Lists(v))));
            }
            Inputs::Warp(w) => {
                for (key, v) in w.sources() {
                    if let Some(v) = v {
                        out.push((Cow::Borrowed(key), Entry::Lane(v)));
                    }
                }
                out.push((Cow::Borrowed("executing"), Entry::Mask(&w.executing)));
                if let Some(x) = &w.exited {
                    out.push((Cow::Borrowed("exited"), Entry::Mask(x)));
                }
                if let Some(m) = &w.membermask {
                    out.push((Cow::Borrowed("membermask"), Entry::Bits(m)));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

impl Serialize for Inputs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let entries = self.entries();
        let mut map = s.serialize_map(Some(entries.len()))?;
        for (key, v) in &entries {
            match v {
                Entry::Bits(b) => map.serialize_entry(key, b)?,
                Entry::Mask(m) => map.serialize_entry(key, m)?,
                Entry::Lane(l) => map.serialize_entry(key, l)?,
                Entry::List(l) => map.serialize_entry(key, l)?,
                Entry::Lists(l) => map.serialize_entry(key, l)?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Inputs {
    /// The keys first, then whether they form inputs: an error about the set of
    /// keys names the place after the object, as for every record field.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Inputs, D::Error> {
        Inputs::try_from(InputFields::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// A memory slot's list, read under a key no other input has: a value of
/// another type says what such a key is.
struct SlotList<T>(Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SlotList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SlotList<T>, D::Error> {
        struct List<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for List<T> {
            type Value = SlotList<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list: the values of a memory slot (every input key but a, b, c, executing, exited and membermask)")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<SlotList<T>, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = seq.next_element()? {
                    v.push(x);
                }
                Ok(SlotList(v))
            }
        }
        d.deserialize_seq(List(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for InputFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<InputFields, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = InputFields;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of inputs")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<InputFields, A::Error> {
                let mut f = InputFields::default();
                let mut seen: Vec<String> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if seen.contains(&key) {
                        return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
                    }
                    match key.as_str() {
                        "a" => f.a = Some(map.next_value()?),
                        "b" => f.b = Some(map.next_value()?),
                        "c" => f.c = Some(map.next_value()?),
                        "executing" => f.executing = Some(map.next_value()?),
                        "exited" => f.exited = Some(map.next_value()?),
                        "membermask" => f.membermask = Some(map.next_value()?),
                        "mem" => f.mem = Some(map.next_value()?),
                        k if InputFields::per_thread(k) => {
                            let SlotList(v) = map.next_value()?;
                            f.slots.push((key.clone(), SlotValues::PerThread(v)));
                        }
                        _ => {
                            let SlotList(v) = map.next_value()?;
                            f.slots.push((key.clone(), SlotValues::One(v)));
                        }
                    }
                    seen.push(key);
                }
                Ok(f)
            }
        }
        d.deserialize_map(Keys)
    }
}

/// A record's outputs, expected (`T` = [`Expectation`]) or produced: `mem` for a
/// memory reduction, `d` (and `p`) per lane for a warp collective.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outputs<T> {
    /// The destination, per lane.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub d: Option<Vec<T>>,
    /// Memory after the reduction, per element.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub mem: Option<Vec<T>>,
    /// The predicate destination, per lane.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub p: Option<Vec<T>>,
}

fn none<T>() -> Option<T> {
    None
}

impl<T> Outputs<T> {
    /// The slots of output `o`, if present.
    pub fn get(&self, o: Out) -> Option<&[T]> {
        match o {
            Out::D => self.d.as_deref(),
            Out::Mem => self.mem.as_deref(),
            Out::P => self.p.as_deref(),
        }
    }

    fn slot_mut(&mut self, o: Out) -> &mut Option<Vec<T>> {
        match o {
            Out::D => &mut self.d,
            Out::Mem => &mut self.mem,
            Out::P => &mut self.p,
        }
    }

    /// Outputs with only `o` set.
    pub fn one(o: Out, slots: Vec<T>) -> Outputs<T> {
        let mut out = Outputs {
            d: None,
            mem: None,
            p: None,
        };
        *out.slot_mut(o) = Some(slots);
        out
    }

    /// Sets output `o`.
    pub fn set(&mut self, o: Out, slots: Vec<T>) {
        *self.slot_mut(o) = Some(slots);
    }
}

/// Why a record does not fit its instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A key the instruction needs is missing.
    #[error("no \"{0}\" among the inputs")]
    Missing(&'static str),
    /// A key the instruction needs is missing (a plural one, `operands`).
    #[error("no \"{0}\" among the inputs")]
    MissingKey(String),
    /// A key the instruction does not take.
    #[error("\"{key}\": {instruction} takes no such input")]
    Extra {
        /// The key.
        key: String,
        /// What the record's text is.
        instruction: &'static str,
    },
    /// Another number of entries.
    #[error("\"{key}\": {got} entries, expected {want}")]
    Count {
        /// The key.
        key: String,
        /// Entries written.
        got: usize,
        /// Entries the instruction has.
        want: usize,
    },
    /// A source given per lane where the shape holds one for the warp, or the
    /// other way.
    #[error("\"{key}\": expected {want}")]
    Per {
        /// The key.
        key: &'static str,
        /// What the shape holds.
        want: &'static str,
    },
    /// Lanes that both execute and exited, or exited members.
    #[error("\"exited\": {0}")]
    Exited(&'static str),
    /// A value that does not fit its field.
    #[error("\"{key}\": {err}")]
    Bits {
        /// The key.
        key: String,
        /// What is wrong with it.
        err: BitsError,
    },
}

fn fit_all(key: &str, mut v: Vec<Bits>, field: Field, want: usize) -> Result<Vec<Bits>, ShapeError> {
    if v.len() != want {
        return Err(ShapeError::Count {
            key: key.to_owned(),
            got: v.len(),
            want,
        });
    }
    // In place: the list's own buffer takes the fitted values.
    for b in &mut v {
        *b = fit_one(key, *b, field)?;
    }
    Ok(v)
}

fn fit_one(key: &str, b: Bits, field: Field) -> Result<Bits, ShapeError> {
    field.fit(b).map_err(|err| ShapeError::Bits {
        key: key.to_owned(),
        err,
    })
}

impl Inputs {
    /// The same inputs at the widths of `shape`: an error names the first input
    /// that is missing, extra, of another count or too wide.
    pub fn fit(self, shape: Shape) -> Result<Inputs, ShapeError> {
        let warp_only = |what| ShapeError::Extra {
            key: "executing".to_owned(),
            instruction: what,
        };
        match (self, shape) {
            (Inputs::Memory { mem, mut slots }, Shape::Memory(m)) => {
                let mem = fit_all("mem", mem, Field::Bits(m.width()), m.elements)?;
                let mut fitted = Vec::new();
                for slot in m.inputs() {
                    let v = slots.take(slot.name).ok_or(ShapeError::Missing(slot.name))?;
                    fitted.push((slot.name, fit_all(slot.name, v, Field::Bits(slot.width), m.elements)?));
                }
                if let Some((extra, _)) = slots.iter().next() {
                    return Err(ShapeError::Extra {
                        key: extra.to_owned(),
                        instruction: "this instruction",
                    });
                }
                Ok(Inputs::one_thread(mem, fitted))
            }
            (Inputs::Contention { mem, mut slots }, Shape::Memory(m)) => {
                let mem = fit_all("mem", mem, Field::Bits(m.width()), m.elements)?;
                // The threads: as many as the first slot lists, at least one.
                let mut threads = None;
                let mut fitted = Vec::new();
                for slot in m.inputs() {
                    let key = slot.threads_key();
                    let lists = slots.take(slot.name).ok_or_else(|| ShapeError::MissingKey(key.clone()))?;
                    let want = *threads.get_or_insert(lists.len().max(1));
                    if lists.len() != want {
                        return Err(ShapeError::Count {
                            key,
                            got: lists.len(),
                            want,
                        });
                    }
                    let lists = lists
                        .into_iter()
                        .enumerate()
                        .map(|(t, o)| fit_all(&format!("{key}[{t}]"), o, Field::Bits(slot.width), m.elements))
                        .collect::<Result<Vec<_>, _>>()?;
                    fitted.push((slot.name, lists));
                }
                if let Some((extra, _)) = slots.iter().next() {
                    return Err(ShapeError::Extra {
                        key: format!("{extra}s"),
                        instruction: "this instruction",
                    });
                }
                Ok(Inputs::threads(mem, fitted))
            }
            (Inputs::Warp(_), Shape::Memory(_)) => Err(warp_only("a memory reduction")),
            (Inputs::Memory { .. } | Inputs::Contention { .. }, Shape::Warp(_)) => {
                Err(ShapeError::Extra {
                    key: "mem".to_owned(),
                    instruction: "a warp collective",
                })
            }
            (Inputs::Warp(w), Shape::Warp(ws @ shape::WarpShape { membermask, a, b, c, .. })) => {
                let lanes = ws.threads();
                let b32 = Field::Bits(32);
                // A lane mask spans the record's threads: 32 bits for a warp.
                let mask = |key: &str, m: LaneMask| {
                    m.fit(lanes as u32).map_err(|err| ShapeError::Bits {
                        key: key.to_owned(),
                        err,
                    })
                };
                let membermask = match (membermask, w.membermask) {
                    (true, Some(v)) => Some(fit_one("membermask", v, b32)?),
                    (true, None) => return Err(ShapeError::Missing("membermask")),
                    (false, Some(_)) => {
                        return Err(ShapeError::Extra {
                            key: "membermask".to_owned(),
                            instruction: "this instruction",
                        })
                    }
                    (false, None) => None,
                };
                // A source as its shape holds it: one for the warp, one per lane, or
                // either where the shape allows both (shfl's `b`).
                let source = |key: &'static str, want: Option<shape::Source>, got: Option<LaneValue>| {
                    match (want, got) {
                        (Some(s), Some(LaneValue::Warp(v))) if s.per != shape::Per::Lane => {
                            Ok(Some(LaneValue::Warp(fit_one(key, v, s.field)?)))
                        }
                        (Some(s), Some(LaneValue::PerLane(v))) if s.per != shape::Per::Warp => {
                            Ok(Some(LaneValue::PerLane(fit_all(key, v, s.field, lanes)?)))
                        }
                        (Some(s), Some(_)) => Err(ShapeError::Per {
                            key,
                            want: if s.per == shape::Per::Lane { "a list of one per lane" } else { "one bit pattern for the warp" },
                        }),
                        (Some(s), None) if s.optional => Ok(None),
                        (Some(_), None) => Err(ShapeError::Missing(key)),
                        (None, Some(_)) => Err(ShapeError::Extra {
                            key: key.to_owned(),
                            instruction: "this instruction",
                        }),
                        (None, None) => Ok(None),
                    }
                };
                let fitted = WarpInputs {
                    membermask,
                    executing: mask("executing", w.executing)?,
                    exited: w.exited.map(|x| mask("exited", x)).transpose()?,
                    a: source("a", a, w.a)?,
                    b: source("b", b, w.b)?,
                    c: source("c", c, w.c)?,
                };
                if let Some(x) = &fitted.exited {
                    if x.intersects(&fitted.executing) {
                        return Err(ShapeError::Exited("a lane both executes and exited"));
                    }
                    if x.low() & fitted.membermask.map_or(0, |m| m.value) != 0 {
                        return Err(ShapeError::Exited(
                            "lists a member (members that do not execute have exited already)",
                        ));
                    }
                }
                Ok(Inputs::Warp(fitted))
            }
        }
    }
}

impl Outputs<Expectation> {
    /// The same expectations at the widths of `shape`, every output it has present
    /// with its number of slots, no other.
    pub fn fit(&self, shape: Shape) -> Result<Outputs<Expectation>, ShapeError> {
        let outs = shape.outputs();
        for o in [Out::D, Out::Mem, Out::P] {
            if self.get(o).is_some() && !outs.iter().any(|s| s.out == o) {
                return Err(ShapeError::Extra {
                    key: o.name().to_owned(),
                    instruction: "this instruction",
                });
            }
        }
        let mut fitted = Outputs {
            d: None,
            mem: None,
            p: None,
        };
        for s in outs {
            let key = s.out.name();
            let v = self.get(s.out).ok_or(ShapeError::Missing(key))?;
            if v.len() != s.slots {
                return Err(ShapeError::Count {
                    key: key.to_owned(),
                    got: v.len(),
                    want: s.slots,
                });
            }
            let slots = v
                .iter()
                .map(|e| {
                    e.fit(s.field.width(), s.field == Field::Pred)
                        .map_err(|err| ShapeError::Bits {
                            key: key.to_owned(),
                            err,
                        })
                })
                .collect::<Result<_, _>>()?;
            fitted.set(s.out, slots);
        }
        Ok(fitted)
    }
}

impl<S: AsRef<str>> Record<S> {
    /// What the record expects under `profile`: its own entry, else `ptx-isa`'s
    /// (a profile is written only where it differs).
    pub fn expected(&self, profile: Profile) -> Option<&Outputs<Expectation>> {
        self.expect
            .get(&profile)
            .or_else(|| self.expect.get(&Profile::PtxIsa))
    }

    /// The record as one line of a vector file (no newline): what serde_json
    /// writes for it, by a faster writer (`line`).
    pub fn to_line(&self) -> String {
        // Room for most records at once.
        let mut line = Vec::with_capacity(1024);
        self.write_line(&mut line);
        // Only UTF-8 is written: strings by serde_json, the rest ASCII.
        String::from_utf8(line).unwrap_or_default()
    }

    /// [`Record::to_line`], appended to `out`.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        line::write(self, out);
    }
}

impl Record {
    /// Reads one line of JSON as a record; the error carries serde's line and column
    /// within the line.
    pub fn from_line(line: &str) -> Result<Record, serde_json::Error> {
        serde_json::from_str(line)
    }
}

impl<'a> Record<&'a str> {
    /// [`Record::from_line`] with the strings left in the line: an error also for
    /// a string written with an escape, which only an owned string can hold. Most
    /// lines are read by hand (`scan`), the rest by serde, the definition.
    pub fn from_line_borrowed(line: &'a str) -> Result<Record<&'a str>, serde_json::Error> {
        match scan::record(line) {
            Some(rec) => Ok(rec),
            None => serde_json::from_str(line),
        }
    }
}

/// Why a vector file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not a record.
    #[error("{path}:{line}:{column}: {message}")]
    Line {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was expected.
        message: String,
    },
}

/// Reads every record of a vector file, in order.
pub fn read_file(path: &Path) -> Result<Vec<Record>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReadError::Io {
        path: path.display().to_string(),
        source,
    })?;
    read_text(&path.display().to_string(), &text)
}

/// Reads every record of a vector file's text (`name` in errors), in order.
pub fn read_text(name: &str, text: &str) -> Result<Vec<Record>, ReadError> {
    text.lines()
        .enumerate()
        .map(|(n, l)| {
            Record::from_line(l).map_err(|e| ReadError::Line {
                path: name.to_owned(),
                line: n + 1,
                // serde_json counts bytes; the project's columns count characters.
                column: position::char_column(l, e.column().saturating_sub(1)),
                message: strip_position(&e),
            })
        })
        .collect()
}

/// serde_json's message without its own " at line L column C" suffix.
pub fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// The expectations map, keyed by profile name; a duplicate or unknown profile is
/// an error.
mod by_profile {
    use super::*;

    /// [`Profile::ALL`]'s names, for messages (a test holds them equal).
    pub const PROFILE_NAMES: &[&str] = &["ptx-isa", "sm_90"];

    pub fn serialize<S: Serializer>(
        m: &BTreeMap<Profile, Outputs<Expectation>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(m.iter().map(|(p, o)| (p.name(), o)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Profile, Outputs<Expectation>>, D::Error> {
        struct ByProfile;
        impl<'de> Visitor<'de> for ByProfile {
            type Value = BTreeMap<Profile, Outputs<Expectation>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object keyed by profile (ptx-isa, sm_90)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let p = Profile::ALL
                        .iter()
                        .copied()
                        .find(|p| p.name() == key)
                        .ok_or_else(|| de::Error::unknown_variant(&key, PROFILE_NAMES))?;
                    if out.insert(p, map.next_value()?).is_some() {
                        return Err(de::Error::custom(format_args!("duplicate profile `{key}`")));
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(ByProfile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_committed_line_reads_and_writes_back_byte_for_byte() {
        // As vectors/semantic/red.add.f32.jsonl writes its third record.
        let line = r#"{"class":["+zero +min_subnormal"],"expect":{"ptx-isa":{"mem":[{"accept":"one_of","bits":["0x00000000","0x00000001"]}]}},"id":"red.add.f32#2","inputs":{"mem":["0x00000000"],"operand":["0x00000001"]},"requires":[{"ptx":"2.0","target":"sm_20"}],"spec":"red#operation","text":"red.add.f32 [%rd1], %f1;"}"#;
        let r = Record::from_line(line).unwrap();
        assert_eq!(r.to_line(), line);
        assert!(matches!(r.inputs, Inputs::Memory { .. }));
    }

    #[test]
    fn profile_names_are_the_oracles() {
        let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names, by_profile::PROFILE_NAMES);
    }

    #[test]
    fn input_key_sets_that_form_no_inputs_are_refused() {
        for inputs in [
            r#"{"mem":["0x1"]}"#,
            r#"{"mem":["0x1"],"operand":["0x1"],"operands":[["0x1"]]}"#,
            r#"{"operand":["0x1"]}"#,
            r#"{"mem":["0x1"],"operand":["0x1"],"executing":"0x1"}"#,
            r#"{"membermask":"0x1"}"#,
            r#"{"executing":"0x1","lanes":"0x1"}"#,
            r#"{"executing":"0x1","executing":"0x1"}"#,
            r#"{"mem":["0x1"],"operands":[["0x1"]],"swap":["0x1"]}"#,
            r#"{"mem":["0x1"],"operand":["0x1"],"swaps":[["0x1"]]}"#,
            r#"{"swaps":[["0x1"]]}"#,
        ] {
            let line = format!(r#"{{"text":"x","inputs":{inputs}}}"#);
            assert!(Record::from_line(&line).is_err(), "accepted: {inputs}");
        }
        // A key no input has is read as a memory slot's, and a value that is no
        // list says so; beside warp keys it is refused as memory inputs among them.
        let e = Record::from_line(r#"{"text":"x","inputs":{"executing":"0x1","lanes":"0x1"}}"#).unwrap_err();
        assert!(e.to_string().contains("the values of a memory slot"), "{e}");
        let e = Record::from_line(r#"{"text":"x","inputs":{"executing":"0x1","lane":["0x1"]}}"#).unwrap_err();
        assert!(e.to_string().contains("in one record"), "{e}");
    }

    #[test]
    fn duplicate_fields_and_profiles_are_refused() {
        for line in [
            r#"{"text":"a","text":"b","inputs":{"executing":"0x1"}}"#,
            r#"{"text":"a","inputs":{"executing":"0x1"},"expect":{"ptx-isa":{"d":[]},"ptx-isa":{"d":[]}}}"#,
            r#"{"text":"a","inputs":{"executing":"0x1"},"expect":{"sm_80":{"d":[]}}}"#,
            r#"{"text":"a","inputs":{"executing":"0x1"},"expect":{"ptx-isa":{"q":[]}}}"#,
        ] {
            assert!(Record::from_line(line).is_err(), "accepted: {line}");
        }
    }

    #[test]
    fn inputs_fit_their_shape() {
        // vote.sync.all.pred: a predicate per lane, a membermask.
        let vote = Shape::Warp(shape::WarpShape::collective(Some(Field::Pred), Field::Pred));
        let lanes = |v: &str| format!("[{}]", vec![format!("\"{v}\""); 32].join(","));
        let read = |s: &str| -> Inputs { serde_json::from_str(s).unwrap() };
        let ok = read(&format!(
            r#"{{"executing":"0x1","membermask":"0xffffffff","a":{}}}"#,
            lanes("0x1")
        ));
        let fitted = ok.fit(vote).unwrap();
        let Inputs::Warp(w) = &fitted else { panic!() };
        assert_eq!(w.executing.to_string(), "0x00000001");
        // A predicate of 2, 31 lanes, a stray `b`, no membermask.
        for bad in [
            format!(
                r#"{{"executing":"0x1","membermask":"0x1","a":{}}}"#,
                lanes("0x2")
            ),
            format!(
                r#"{{"executing":"0x1","membermask":"0x1","a":{}}}"#,
                lanes("0x1").replacen("\"0x1\",", "", 1)
            ),
            format!(
                r#"{{"executing":"0x1","membermask":"0x1","b":"0x1","a":{}}}"#,
                lanes("0x1")
            ),
            format!(r#"{{"executing":"0x1","a":{}}}"#, lanes("0x1")),
        ] {
            assert!(read(&bad).fit(vote).is_err(), "accepted: {bad}");
        }
        // A source per lane given once, and one for the warp given per lane, are
        // refused with what the shape holds (vote's `a` per lane; bar.red's `a`, the
        // barrier number, once, and its `c` per lane).
        let once = read(r#"{"executing":"0x1","membermask":"0x1","a":"0x1"}"#);
        let e = once.fit(vote).unwrap_err().to_string();
        assert_eq!(e, "\"a\": expected a list of one per lane");
        let bar = Shape::Warp(shape::WarpShape {
            warps: 1,
            membermask: false,
            a: Some(shape::Source::warp(Field::Bits(32))),
            b: None,
            c: Some(shape::Source::lane(Field::Pred)),
            d: Field::Bits(32),
            p: false,
            float: None,
            classes: 1,
        });
        let per_lane_a = read(&format!(r#"{{"executing":"0x1","a":{},"c":{}}}"#, lanes("0x00000000"), lanes("0x1")));
        let e = per_lane_a.fit(bar).unwrap_err().to_string();
        assert_eq!(e, "\"a\": expected one bit pattern for the warp");
        let fine = read(&format!(r#"{{"executing":"0x1","a":"0x0000000f","c":{}}}"#, lanes("0x1")));
        assert!(fine.fit(bar).is_ok());
        // atom.cas.b32 on one address: `swaps` one list per thread, and only where
        // the instruction takes a `c`.
        use crate::family::Family;
        use ptxvec_oracle::memory::atom::Atom;
        let (cas, add) = (Atom::Cas(32).shape(), Atom::Exch(32).shape());
        let threads = |n: usize| format!("[{}]", vec![r#"["0x1"]"#; n].join(","));
        let contention = |swaps: Option<usize>| {
            let swaps = swaps.map_or(String::new(), |n| format!(r#","swaps":{}"#, threads(n)));
            read(&format!(r#"{{"mem":["0x1"],"operands":{}{swaps}}}"#, threads(2)))
        };
        let Inputs::Contention { slots, .. } = contention(Some(2)).fit(cas).unwrap() else { panic!() };
        assert_eq!(slots.get("swap").map(|s| s.len()), Some(2));
        assert!(contention(None).fit(add).is_ok());
        for (inputs, shape, why) in [
            (contention(None), cas, "\"swaps\""),
            (contention(Some(3)), cas, "\"swaps\""),
            (contention(Some(2)), add, "\"swaps\""),
        ] {
            let e = inputs.fit(shape).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    }
}
