//! Self-checking PTX for the semantic vectors: one complete module per variant that
//! carries its vectors as `.global` data, runs every one, and either checks the
//! results against each profile's expectation on the device (`ptxvec_check`) or
//! writes the raw outputs for a comparison elsewhere (`ptxvec_raw`). The calling
//! convention is in vectors/silicon/README.md; any PTX consumer can run these.
//!
//! Everything here works from the vector files alone (no spec): a record's opcode,
//! inputs and expectations say what to run and what to accept.

pub mod ptx;
pub mod raw;

use serde_json::{Map, Value};

use crate::hexbits::{hex_list, parse_hex};

use ptxvec_oracle::profile::Profile;

/// Lanes in a warp.
pub const WARP: usize = 32;
/// Threads per block for memory variants (one thread per record).
pub const BLOCK: u32 = 128;
/// Record indices kept per profile in `ptxvec_check`'s result.
pub const FIRST_FAILS: usize = 16;

/// Where a memory variant's instruction reduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemSpace {
    /// `red.global`: global memory through a global address.
    Global,
    /// `red` without a space: global memory through a generic address.
    Generic,
    /// `red` without a space, run with the generic address of the CTA's shared
    /// memory (`Window::Shared` of a generic variant, [`Suite::in_window`]).
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
}

/// How a variant stated with generic addressing (`red` without a state space) runs:
/// its generic address into either memory, or spelled with a state space instead.
/// A vector form takes only the global ones: PTX ISA 9.7.13.6, "`red` with vector
/// type may be used only with `.global` space and with generic addressing where the
/// address points to `.global` space".
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Window {
    /// The generic address points into global memory (the default).
    Global,
    /// The generic address points into the CTA's shared memory.
    Shared,
    /// Spelled `red.global…`: a global address.
    #[value(name = "global-space")]
    GlobalSpace,
    /// Spelled `red.shared…`: a shared address.
    #[value(name = "shared-space")]
    SharedSpace,
}

impl Window {
    /// Every window, in the order the runner takes them.
    pub const ALL: [Window; 4] = [
        Window::Global,
        Window::Shared,
        Window::GlobalSpace,
        Window::SharedSpace,
    ];

    /// Its name on the command line and in the evidence.
    pub fn name(self) -> &'static str {
        match self {
            Window::Global => "global",
            Window::Shared => "shared",
            Window::GlobalSpace => "global-space",
            Window::SharedSpace => "shared-space",
        }
    }

    /// Where the reduction lands, and the state space the opcode then names.
    fn space(self) -> (MemSpace, Option<&'static str>) {
        match self {
            Window::Global => (MemSpace::Generic, None),
            Window::Shared => (MemSpace::GenericShared, None),
            Window::GlobalSpace => (MemSpace::Global, Some("global")),
            Window::SharedSpace => (MemSpace::SharedCta, Some("shared")),
        }
    }
}

/// A warp collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpOp {
    /// `shfl.sync`: d and p.
    Shfl,
    /// `vote.sync.{all,any,uni}.pred`.
    Vote,
    /// `vote.sync.ballot.b32`.
    Ballot,
    /// `match.any.sync`.
    MatchAny,
    /// `match.all.sync`: d and p.
    MatchAll,
    /// `redux.sync` on integers.
    ReduxInt,
    /// `redux.sync` on `.f32`.
    ReduxF32,
    /// `activemask.b32`: no membermask.
    Activemask,
}

/// What a variant runs, read from its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One thread per record, each on its own memory.
    Memory {
        /// Where it reduces.
        space: MemSpace,
        /// Element width in bits.
        width: u32,
        /// Elements per record (vector length × 2 for packed).
        lanes: u32,
        /// Two elements per 32-bit register (`.f16x2`).
        packed: bool,
        /// A `.vN` form (operand in braces).
        vector: bool,
        /// The element's +infinity bits when it is a float (NaN checks).
        inf: Option<u64>,
    },
    /// One warp per record.
    Warp {
        /// Which collective.
        op: WarpOp,
        /// `a` is 64 bits (`match.*.b64`).
        wide: bool,
    },
}

/// An output's expected value in one slot (a lane, an element).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// These bits.
    Exact(u64),
    /// Any NaN.
    AnyNan,
    /// `a` or `b` (equal when one is listed), or any NaN when `nan`.
    OneOf {
        /// First accepted pattern.
        a: u64,
        /// Second accepted pattern.
        b: u64,
        /// Any NaN too.
        nan: bool,
    },
    /// Anything (the document leaves it undefined).
    Undefined,
    /// The lane does not execute: no output.
    NotExecuted,
}

impl Slot {
    /// Whether `got` keeps the expectation; `inf` is the +infinity bits of a float
    /// output (a NaN is anything above it once the sign is cleared).
    pub fn accepts(self, got: u64, width: u32, inf: Option<u64>) -> bool {
        let nan = inf.is_some_and(|i| got & !(1u64 << (width - 1)) > i);
        match self {
            Slot::Exact(x) => got == x,
            Slot::AnyNan => nan,
            Slot::OneOf { a, b, nan: n } => got == a || got == b || (n && nan),
            Slot::Undefined | Slot::NotExecuted => true,
        }
    }

    /// Whether silicon writes a value here that is compared or digested.
    pub fn defined(self) -> bool {
        !matches!(self, Slot::Undefined | Slot::NotExecuted)
    }

    /// The device encoding: (kind bits, a, b). Kind bit 0: `a` or `b` is accepted;
    /// bit 1: any NaN is; bit 2: anything is.
    pub fn code(self) -> (u8, u64, u64) {
        match self {
            Slot::Exact(x) => (1, x, x),
            Slot::AnyNan => (2, 0, 0),
            Slot::OneOf { a, b, nan } => (if nan { 3 } else { 1 }, a, b),
            Slot::Undefined | Slot::NotExecuted => (4, 0, 0),
        }
    }

    /// As the vector files write it.
    pub fn to_json(self, width: u32) -> Value {
        let h = |x| Value::String(crate::semvec::expect::hex(x, width));
        match self {
            Slot::Exact(x) => h(x),
            Slot::AnyNan => serde_json::json!({"accept": "nan:any"}),
            Slot::OneOf { a, b, nan } => {
                let bits = if a == b { vec![h(a)] } else { vec![h(a), h(b)] };
                let mut m = serde_json::json!({"accept": "one_of", "bits": bits});
                if nan {
                    m["nan"] = Value::Bool(true);
                }
                m
            }
            Slot::Undefined => serde_json::json!({"accept": "undefined"}),
            Slot::NotExecuted => Value::Null,
        }
    }
}

/// An output of a record: `mem`, `d` or `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Out {
    /// Memory elements after the reduction.
    Mem,
    /// The destination, per lane.
    D,
    /// The predicate destination, per lane.
    P,
}

impl Out {
    /// The key in the vector files.
    pub fn name(self) -> &'static str {
        match self {
            Out::Mem => "mem",
            Out::D => "d",
            Out::P => "p",
        }
    }
}

/// A record's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inputs {
    /// Memory before, and the operand, one entry per element.
    Memory {
        /// Memory before.
        mem: Vec<u64>,
        /// The operand (of a contention record: the first thread's).
        operand: Vec<u64>,
        /// A contention record: per thread (32, one warp), its operand; all of them
        /// reduce into one address.
        operands: Option<Vec<Vec<u64>>>,
    },
    /// A warp's inputs.
    Warp {
        /// The membermask operand (0 for activemask).
        membermask: u32,
        /// Lanes that execute the instruction.
        executing: u32,
        /// Per lane `a` (predicates as 0/1).
        a: Box<[u64; WARP]>,
        /// shfl's `b`.
        b: u32,
        /// shfl's `c`.
        c: u32,
    },
}

/// One record, typed.
#[derive(Debug, Clone)]
pub struct Record {
    /// `red.add.f32#12`.
    pub id: String,
    /// vote's `!` on the predicate source.
    pub negate: bool,
    /// The inputs.
    pub inputs: Inputs,
    /// Per profile (in [`Profile::ALL`] order), per output, the expected slots.
    pub expect: Vec<Vec<(Out, Vec<Slot>)>>,
}

impl Record {
    /// A lane executes outside the membermask: undefined behaviour that may hang
    /// silicon, so such records are not run.
    pub fn skipped(&self) -> bool {
        match self.inputs {
            Inputs::Warp {
                membermask,
                executing,
                ..
            } => membermask != 0 && executing & !membermask != 0,
            Inputs::Memory { .. } => false,
        }
    }

    /// Per thread operands when this is a contention record.
    pub fn contention(&self) -> Option<&[Vec<u64>]> {
        match &self.inputs {
            Inputs::Memory {
                operands: Some(o), ..
            } => Some(o),
            _ => None,
        }
    }
}

/// One variant's vectors, ready to emit.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The variant id (`red.global.add.f32`).
    pub id: String,
    /// The opcode with every qualifier, from the records' text.
    pub opcode: String,
    /// What it runs.
    pub kind: Kind,
    /// Alternatives `(ptx, target)`, any one suffices.
    pub requires: Vec<(String, String)>,
    /// The records, in file order.
    pub records: Vec<Record>,
    /// How a variant stated with generic addressing runs (`Some(Window::Global)` as
    /// read); `None` for every other variant.
    pub window: Option<Window>,
}

/// Element width, float infinity and packing of a type qualifier.
fn type_info(ty: &str) -> Option<(u32, Option<u64>, bool)> {
    Some(match ty {
        "b32" | "u32" | "s32" => (32, None, false),
        "b64" | "u64" | "s64" => (64, None, false),
        "f16" => (16, Some(0x7c00), false),
        "bf16" => (16, Some(0x7f80), false),
        "f16x2" => (16, Some(0x7c00), true),
        "bf16x2" => (16, Some(0x7f80), true),
        "f32" => (32, Some(0x7f80_0000), false),
        "f64" => (64, Some(0x7ff0_0000_0000_0000), false),
        _ => return None,
    })
}

fn kind_of(opcode: &str, lanes: usize) -> Result<Kind, String> {
    let q: Vec<&str> = opcode.split('.').collect();
    let has = |x: &str| q.contains(&x);
    let last = q.last().copied().unwrap_or_default();
    let warp = |op, wide| Ok(Kind::Warp { op, wide });
    if opcode.starts_with("red.") || opcode.starts_with("cp.reduce.async.bulk.") {
        let (width, inf, packed) =
            type_info(last).ok_or_else(|| format!("`{opcode}`: unknown element type"))?;
        let space = if let Some(rest) = opcode.strip_prefix("cp.reduce.async.bulk.") {
            if rest.starts_with("global.") {
                MemSpace::BulkGlobal
            } else if rest.starts_with("shared::cluster.") {
                MemSpace::BulkCluster
            } else {
                return Err(format!("`{opcode}`: unknown bulk destination"));
            }
        } else if has("global") {
            MemSpace::Global
        } else if has("shared::cluster") {
            MemSpace::SharedCluster
        } else if has("shared") || has("shared::cta") {
            MemSpace::SharedCta
        } else {
            MemSpace::Generic
        };
        let vector = q.iter().any(|x| matches!(*x, "v2" | "v4" | "v8"));
        return Ok(Kind::Memory {
            space,
            width,
            lanes: lanes as u32,
            packed,
            vector,
            inf,
        });
    }
    match q.first().copied() {
        Some("shfl") => warp(WarpOp::Shfl, false),
        Some("vote") if has("ballot") => warp(WarpOp::Ballot, false),
        Some("vote") => warp(WarpOp::Vote, false),
        Some("match") if has("all") => warp(WarpOp::MatchAll, last == "b64"),
        Some("match") => warp(WarpOp::MatchAny, last == "b64"),
        Some("redux") if last == "f32" => warp(WarpOp::ReduxF32, false),
        Some("redux") => warp(WarpOp::ReduxInt, false),
        Some("activemask") => warp(WarpOp::Activemask, false),
        _ => Err(format!("`{opcode}`: not an instruction the vectors cover")),
    }
}

/// The hex string under `key`, as the 32-bit value every warp input is.
fn hex_one(m: &Map<String, Value>, key: &str) -> Result<u32, String> {
    crate::hexbits::hex_one(m, key, 32).map(|x| x as u32)
}

/// Parses one expectation slot.
pub fn parse_slot(v: &Value, width: u32) -> Result<Slot, String> {
    match v {
        Value::Null => Ok(Slot::NotExecuted),
        Value::String(_) => parse_hex(v, "expect", width).map(Slot::Exact),
        Value::Object(o) => match o.get("accept").and_then(Value::as_str) {
            Some("nan:any") => Ok(Slot::AnyNan),
            Some("undefined") => Ok(Slot::Undefined),
            Some("one_of") => {
                let bits: Vec<u64> = match o.get("bits") {
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|x| parse_hex(x, "bits", width))
                        .collect::<Result<_, _>>()?,
                    _ => return Err(format!("one_of without bits: {v}")),
                };
                let (a, b) = match bits.as_slice() {
                    [a] => (*a, *a),
                    [a, b] => (*a, *b),
                    _ => return Err(format!("one_of takes one or two patterns: {v}")),
                };
                let nan = o.get("nan").and_then(Value::as_bool).unwrap_or(false);
                Ok(Slot::OneOf { a, b, nan })
            }
            _ => Err(format!("unknown accept class: {v}")),
        },
        _ => Err(format!("not an expectation: {v}")),
    }
}

impl Kind {
    /// The outputs of a record, with their widths in bits: `mem`, or `d` (and `p`).
    pub fn outputs(self) -> Vec<(Out, u32)> {
        match self {
            Kind::Memory { width, .. } => vec![(Out::Mem, width)],
            Kind::Warp { op, .. } => match op {
                WarpOp::Shfl | WarpOp::MatchAll => vec![(Out::D, 32), (Out::P, 4)],
                WarpOp::Vote => vec![(Out::D, 4)],
                _ => vec![(Out::D, 32)],
            },
        }
    }

    /// The +infinity bits of output `o` when it holds a float.
    pub fn inf(self, o: Out) -> Option<u64> {
        match (self, o) {
            (Kind::Memory { inf, .. }, Out::Mem) => inf,
            (
                Kind::Warp {
                    op: WarpOp::ReduxF32,
                    ..
                },
                Out::D,
            ) => Some(0x7f80_0000),
            _ => None,
        }
    }
}

impl Suite {
    /// Reads a variant's records (the lines of its vector file). Errors name the
    /// record's line.
    pub fn parse(id: &str, lines: &[Value]) -> Result<Suite, String> {
        let first = lines.first().ok_or_else(|| format!("{id}: no records"))?;
        let text = first["text"].as_str().unwrap_or_default();
        let opcode = text
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let lanes = first["inputs"]["mem"].as_array().map_or(1, Vec::len);
        let kind = kind_of(&opcode, lanes).map_err(|e| format!("{id}: line 1: {e}"))?;
        let requires = first["requires"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|r| {
                        (
                            r["ptx"].as_str().unwrap_or_default().to_owned(),
                            r["target"].as_str().unwrap_or_default().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let records = lines
            .iter()
            .enumerate()
            .map(|(n, v)| record(kind, v).map_err(|e| format!("{id}: line {}: {e}", n + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        let bulk = matches!(
            kind,
            Kind::Memory {
                space: MemSpace::BulkGlobal | MemSpace::BulkCluster,
                ..
            }
        );
        if let Some(n) = records
            .iter()
            .position(|r| bulk && r.contention().is_some())
        {
            return Err(format!(
                "{id}: line {}: a contention record for a bulk reduction (one thread issues it)",
                n + 1
            ));
        }
        let window = matches!(
            kind,
            Kind::Memory {
                space: MemSpace::Generic,
                ..
            }
        )
        .then_some(Window::Global);
        Ok(Suite {
            id: id.to_owned(),
            opcode,
            kind,
            requires,
            records,
            window,
        })
    }

    /// The lowest `(ptx, target)` an sm_90 module of this suite needs: the record's
    /// requirement the device meets, raised to what sm_90 itself needs (PTX 7.8).
    /// `None` when no requirement is met by a device of compute capability `cc`.
    pub fn module_for(&self, cc: (i32, i32)) -> Option<(String, String)> {
        let dev = cc.0 * 10 + cc.1;
        self.requires
            .iter()
            .filter(|(_, t)| target_runs_on(t, dev))
            .map(|(p, t)| {
                let target = if t.ends_with('a') {
                    t.clone()
                } else {
                    format!("sm_{dev}")
                };
                (max_version(p, "7.8"), target)
            })
            .min()
    }

    /// The module to emit where no device is given: sm_90 when it runs there, else
    /// the first requirement as stated (raised to sm_90's PTX 7.8).
    pub fn default_module(&self) -> (String, String) {
        self.module_for((9, 0)).unwrap_or_else(|| {
            let (p, t) = self.requires.first().cloned().unwrap_or_default();
            (max_version(&p, "7.8"), t)
        })
    }

    /// The windows this suite runs in: every [`Window`] for a scalar variant stated
    /// with generic addressing, the global ones for a generic vector form, none for
    /// a variant that names its state space.
    pub fn windows(&self) -> Vec<Window> {
        match (self.window, self.kind) {
            (Some(Window::Global), Kind::Memory { vector, .. }) => Window::ALL
                .into_iter()
                .filter(|w| !vector || matches!(w, Window::Global | Window::GlobalSpace))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The suite as silicon runs it: once, or once in each of its windows.
    pub fn runs(&self) -> Vec<Suite> {
        match self.windows() {
            w if w.is_empty() => vec![self.clone()],
            w => w.into_iter().filter_map(|w| self.in_window(w).ok()).collect(),
        }
    }

    /// The suite run through `window` (the same records and expectations): an error
    /// for a window the variant does not have.
    pub fn in_window(&self, window: Window) -> Result<Suite, String> {
        if self.window.is_none() && window == Window::Global {
            return Ok(self.clone());
        }
        if !self.windows().contains(&window) {
            return Err(format!(
                "{}: --window {} needs a variant stated with generic addressing (`red` without a state space), and a scalar one unless global",
                self.id,
                window.name()
            ));
        }
        let mut s = self.clone();
        let (to, named) = window.space();
        if let Kind::Memory { space, .. } = &mut s.kind {
            *space = to;
        }
        if let (Some(name), Some(rest)) = (named, self.opcode.strip_prefix("red.")) {
            s.opcode = format!("red.{name}.{rest}");
        }
        s.window = Some(window);
        Ok(s)
    }

    /// The window's name for a variant stated with generic addressing, `None` for
    /// every other variant.
    pub fn window(&self) -> Option<&'static str> {
        self.window.map(Window::name)
    }

    /// Records run on silicon (not skipped).
    pub fn run_count(&self) -> usize {
        self.records.iter().filter(|r| !r.skipped()).count()
    }
}

/// Whether code for `target` (`sm_70`, `sm_90a`, `sm_100f`) runs on a device of
/// compute capability `dev` (90 for 9.0): plain targets run on that architecture
/// and later, `a` targets only on theirs, `f` targets on their family from there on.
pub fn target_runs_on(target: &str, dev: i32) -> bool {
    let Some(rest) = target.strip_prefix("sm_") else {
        return false;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(n) = digits.parse::<i32>() else {
        return false;
    };
    match &rest[digits.len()..] {
        "" => n <= dev,
        "a" => n == dev,
        "f" => n <= dev && n / 10 == dev / 10,
        _ => false,
    }
}

fn max_version(a: &str, b: &str) -> String {
    let key = |s: &str| -> (u32, u32) {
        let (x, y) = s.split_once('.').unwrap_or((s, "0"));
        (x.parse().unwrap_or(0), y.parse().unwrap_or(0))
    };
    if key(a) >= key(b) {
        a.to_owned()
    } else {
        b.to_owned()
    }
}

fn record(kind: Kind, v: &Value) -> Result<Record, String> {
    let id = v["id"].as_str().ok_or("record without \"id\"")?.to_owned();
    let negate = v["text"].as_str().unwrap_or_default().contains('!');
    let ins = v["inputs"].as_object().ok_or("record without \"inputs\"")?;
    let inputs = match kind {
        Kind::Memory { width, lanes, .. } => {
            let mem = hex_list(ins, "mem", width)?;
            let operands = match ins.get("operands") {
                None => None,
                Some(Value::Array(threads)) if threads.len() == WARP => Some(
                    threads
                        .iter()
                        .map(|t| {
                            let mut one = Map::new();
                            one.insert("operand".to_owned(), t.clone());
                            hex_list(&one, "operand", width)
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| format!("\"operands\": {e}"))?,
                ),
                Some(_) => return Err(format!("\"operands\": expected a list of {WARP} threads")),
            };
            let operand = match &operands {
                Some(o) => o[0].clone(),
                None => hex_list(ins, "operand", width)?,
            };
            let all = std::iter::once(&operand).chain(operands.iter().flatten());
            if mem.len() != lanes as usize || all.into_iter().any(|o| o.len() != lanes as usize) {
                return Err(format!(
                    "expected {lanes} elements in \"mem\" and each operand"
                ));
            }
            Inputs::Memory {
                mem,
                operand,
                operands,
            }
        }
        Kind::Warp { op, wide } => {
            let executing = hex_one(ins, "executing")?;
            let (membermask, a) = if op == WarpOp::Activemask {
                (0, Box::new([0; WARP]))
            } else {
                let width = match op {
                    WarpOp::Vote | WarpOp::Ballot => 4,
                    _ if wide => 64,
                    _ => 32,
                };
                let a = hex_list(ins, "a", width)?;
                let a: Box<[u64; WARP]> = a
                    .into_boxed_slice()
                    .try_into()
                    .map_err(|_| "\"a\": expected 32 lanes".to_owned())?;
                (hex_one(ins, "membermask")?, a)
            };
            let (b, c) = if op == WarpOp::Shfl {
                (hex_one(ins, "b")?, hex_one(ins, "c")?)
            } else {
                (0, 0)
            };
            Inputs::Warp {
                membermask,
                executing,
                a,
                b,
                c,
            }
        }
    };
    let expect_of = |p: Profile| -> Result<Vec<(Out, Vec<Slot>)>, String> {
        let e = v["expect"]
            .get(p.name())
            .or_else(|| v["expect"].get(Profile::PtxIsa.name()))
            .ok_or("record without a ptx-isa expectation")?;
        kind.outputs()
            .into_iter()
            .map(|(o, w)| {
                let slots = match e.get(o.name()) {
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|s| parse_slot(s, w))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| format!("expect.{}.{}: {e}", p.name(), o.name()))?,
                    _ => return Err(format!("expect.{} has no \"{}\"", p.name(), o.name())),
                };
                let want = match kind {
                    Kind::Memory { lanes, .. } => lanes as usize,
                    Kind::Warp { .. } => WARP,
                };
                if slots.len() != want {
                    return Err(format!(
                        "expect.{}.{}: {} slots, expected {want}",
                        p.name(),
                        o.name(),
                        slots.len()
                    ));
                }
                Ok((o, slots))
            })
            .collect()
    };
    let expect = Profile::ALL
        .iter()
        .map(|&p| expect_of(p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Record {
        id,
        negate,
        inputs,
        expect,
    })
}

/// Reads a variant's vector file (`vectors/semantic/<stem>.jsonl`).
pub fn load(id: &str, path: &std::path::Path) -> Result<Suite, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let lines = text
        .lines()
        .enumerate()
        .map(|(n, l)| {
            serde_json::from_str::<Value>(l)
                .map_err(|e| format!("{}: line {}: {e}", path.display(), n + 1))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Suite::parse(id, &lines)
}

/// The variants of `vectors/index.json`, in its order: (variant id, file path).
pub fn index(vectors: &std::path::Path) -> Result<Vec<(String, std::path::PathBuf)>, String> {
    let path = vectors.join("index.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let files = v["files"]
        .as_array()
        .ok_or_else(|| format!("{}: no \"files\" list", path.display()))?;
    files
        .iter()
        .map(|f| match (f["variant"].as_str(), f["file"].as_str()) {
            (Some(id), Some(file)) => Ok((id.to_owned(), vectors.join(file))),
            _ => Err(format!(
                "{}: an entry without variant or file",
                path.display()
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_on_sm_90() {
        let table = [
            ("sm_30", true),
            ("sm_90", true),
            ("sm_90a", true),
            ("sm_100a", false),
            ("sm_100f", false),
            ("sm_100", false),
            ("compute_90", false),
        ];
        for (t, want) in table {
            assert_eq!(target_runs_on(t, 90), want, "case: {t}");
        }
    }

    #[test]
    fn slots_accept() {
        let f32_inf = Some(0x7f80_0000);
        let table = [
            (Slot::Exact(5), 5, None, true),
            (Slot::Exact(5), 6, None, false),
            (Slot::AnyNan, 0x7fc0_0000, f32_inf, true),
            (Slot::AnyNan, 0xffc0_0001, f32_inf, true),
            (Slot::AnyNan, 0xff80_0000, f32_inf, false),
            (
                Slot::OneOf {
                    a: 1,
                    b: 2,
                    nan: false,
                },
                2,
                f32_inf,
                true,
            ),
            (
                Slot::OneOf {
                    a: 1,
                    b: 2,
                    nan: false,
                },
                0x7fc0_0000,
                f32_inf,
                false,
            ),
            (
                Slot::OneOf {
                    a: 1,
                    b: 1,
                    nan: true,
                },
                0x7fc0_0000,
                f32_inf,
                true,
            ),
            (Slot::Undefined, 77, None, true),
        ];
        for (s, got, inf, want) in table {
            assert_eq!(s.accepts(got, 32, inf), want, "case: {s:?} {got:#x}");
        }
    }
}
