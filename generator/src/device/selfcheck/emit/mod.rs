//! The PTX text of a self-checking module. Layout and calling convention:
//! vectors/silicon/README.md ("Self-checking modules").
//!
//! Every idiom is written through `crate::device::ptx`. Shared forms copy the word into
//! shared memory and back; the bulk reduction is issued by thread 0 for its block
//! after `fence.proxy.async` and `bar.sync`; warp lanes that are members but do not
//! execute `exit` first, other lanes that do not execute branch around the
//! instruction.

mod check;
mod data;
mod memory;
mod warp;

use std::fmt::Write as _;

use ptxvec_oracle::profile::Profile;

use super::{
    contention as contention_of, Execution, MemSpace, Suite, Window, BLOCK, FIRST_FAILS, WARP,
};
use crate::device::ptx::{ins, Code, Entry, Module, Space};
use crate::record::{Out, Shape};
use crate::syntax::text::RegClass;
use data::ExpectData;

/// Which entries a module has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entries {
    /// `ptxvec_check` and `ptxvec_raw`, with the expectations as data.
    Both,
    /// `ptxvec_raw` alone, without expectations: what `ptxvec silicon` loads.
    Raw,
}

/// The check entry's name.
pub const CHECK: &str = "ptxvec_check";
/// The raw entry's name.
pub const RAW: &str = "ptxvec_raw";
/// Bytes of one profile's result: pass, fail, first_fail[16], as u32.
pub const RESULT_PER_PROFILE: usize = 4 * (2 + FIRST_FAILS);
/// Bytes per lane in a warp variant's raw output: d, p as u32.
pub const LANE_BYTES: usize = 8;
/// CTAs per cluster of the `.shared::cluster` bulk form: each CTA reduces into
/// its peer's shared memory.
pub const CLUSTER: u32 = 2;

/// How a module departs from the self-checking one: the variations the silicon
/// probes run (`crate::device::silicon::probe`). The default is the self-checking module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Variation {
    /// Where the `.shared::cluster` bulk form reduces.
    pub cluster: ClusterLayout,
    /// How a `red`'s operand reaches the instruction.
    pub operand: OperandPath,
}

/// The layout of the `.shared::cluster` bulk form's CTAs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClusterLayout {
    /// Clusters of [`CLUSTER`] CTAs (`.reqnctapercluster 2, 1, 1`), each CTA
    /// reducing into its peer's shared memory.
    #[default]
    Pairs,
    /// Each CTA reduces into its own shared memory (the peer `mapa` names is
    /// itself): with `dims`, the entry declares a cluster of one
    /// (`.reqnctapercluster 1, 1, 1`); without, it has no cluster dimensions.
    Alone {
        /// Whether the entry carries `.reqnctapercluster 1, 1, 1`.
        dims: bool,
    },
}

/// How a `red`'s operand reaches the instruction (the bulk forms read theirs from
/// shared memory, and take no register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OperandPath {
    /// Loaded from global memory into the register the instruction takes.
    #[default]
    Loaded,
    /// Loaded, then passed through two `xor`s with the thread index: the same
    /// bits, in a register ptxas allocates otherwise. Where ptxas expands the
    /// instruction into a loop around an add (`red.shared.add.f64` on sm_90), the
    /// order of that add's sources follows its registers (errata E026).
    Relaid,
}

/// How to launch both entries, and how big their buffers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Blocks (x).
    pub grid: u32,
    /// Threads per block (x).
    pub block: u32,
    /// Bytes `ptxvec_raw` writes from its `out` pointer.
    pub out_bytes: usize,
    /// Bytes `ptxvec_check` writes from its `result` pointer.
    pub result_bytes: usize,
}

impl Suite {
    /// The cluster shape the self-checking module states (`.reqnctapercluster`):
    /// pairs of CTAs for the `.shared::cluster` bulk form and `red.async`; `None`
    /// for every other.
    pub fn cluster_dims(&self) -> Option<[u32; 3]> {
        matches!(
            self.exec,
            Execution::Memory {
                space: MemSpace::BulkCluster | MemSpace::AsyncCluster,
                ..
            }
        )
        .then_some([CLUSTER, 1, 1])
    }

    /// Bytes of one memory record (elements × width).
    pub fn stride(&self) -> usize {
        match self.exec {
            Execution::Memory { width, lanes, .. } => (width / 8 * lanes) as usize,
            Execution::Warp => self.threads() * LANE_BYTES,
        }
    }

    /// Where the returned values (`d`, atom's) start in the output buffer: after
    /// every thread's memory; `None` for a variant that returns none.
    pub fn d_offset(&self) -> Option<usize> {
        self.thread_output()
            .map(|_| self.plain_grid() as usize * BLOCK as usize * self.stride())
    }

    /// A memory variant's thread output (atom's `d`, the value each thread
    /// found), the one its slots declare; `None` for a warp variant.
    pub fn thread_output(&self) -> Option<Out> {
        match self.shape {
            Shape::Memory(m) => m.thread_outputs().find_map(|x| x.out()),
            Shape::Warp(_) => None,
        }
    }

    /// Where the values that each contending thread returns start (atom's `d` in
    /// contention blocks): after the records' own returned values, 32 per
    /// contention record (block `j`'s thread `t` at slot `32 j + t`, a record's
    /// stride each); `None` for a variant that returns none.
    pub fn threads_d_offset(&self) -> Option<usize> {
        self.d_offset().map(|d| 2 * d)
    }

    /// Blocks of one thread per record for a memory variant: the records' own
    /// threads (contention records among them sit idle), rounded up to whole
    /// clusters of two for the `.shared::cluster` bulk form.
    pub fn plain_grid(&self) -> u32 {
        let g = self.records.len().div_ceil(BLOCK as usize) as u32;
        match self.exec {
            Execution::Memory {
                space: MemSpace::BulkCluster | MemSpace::AsyncCluster,
                ..
            } => g.next_multiple_of(CLUSTER),
            _ => g,
        }
    }

    /// The indices of the contention records, in file order: contention block `j`
    /// (block `plain_grid() + j`) runs record `contention_records()[j]`.
    pub fn contention_records(&self) -> Vec<usize> {
        (0..self.records.len())
            .filter(|&r| contention_of(&self.records[r]).is_some())
            .collect()
    }

    /// The launch shape: memory variants one thread per record in blocks of
    /// [`BLOCK`] (the last block padded), then one block per contention record
    /// whose first 32 threads reduce into one address; warp variants one block per
    /// record, of its threads (32, or a CTA of several warps).
    pub fn launch(&self) -> Launch {
        let n = self.records.len();
        let result_bytes = RESULT_PER_PROFILE * Profile::ALL.len();
        match self.exec {
            Execution::Memory { .. } => {
                let plain = self.plain_grid();
                Launch {
                    grid: plain + self.contention_records().len() as u32,
                    block: BLOCK,
                    // Memory, then the returned values where there are any: the
                    // records', then each contending thread's.
                    out_bytes: match self.threads_d_offset() {
                        Some(at) => at + self.contention_records().len() * WARP * self.stride(),
                        None => plain as usize * BLOCK as usize * self.stride(),
                    },
                    result_bytes,
                }
            }
            Execution::Warp => Launch {
                grid: n as u32,
                block: self.threads() as u32,
                out_bytes: n * self.threads() * LANE_BYTES,
                result_bytes,
            },
        }
    }
}

/// The register of `bits` (8 and 16: `%h`, 32: `%r`, 64: `%rd`) numbered `n`.
fn reg(bits: u32, n: u32) -> String {
    let class = match bits {
        8 | 16 => RegClass::B16,
        32 => RegClass::B32,
        _ => RegClass::B64,
    };
    format!("{}{n}", class.prefix())
}

/// Storage bits of a value of `width` bits (predicates, 4 in the files, take a byte).
fn store_bits(width: u32) -> u32 {
    match width {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// `ld` of a `width`-bit value at `addr` into the 64-bit register `dst`, through
/// `%r41` or `%h41` where it is narrower.
fn load64(c: &mut Code, dst: &str, addr: &str, width: u32) {
    let (narrow, via) = match store_bits(width) {
        8 => ("u8", "%r41"),
        16 => ("u16", "%h41"),
        32 => ("u32", "%r41"),
        _ => return ins!(c, "ld.global.u64 {dst}, [{addr}]"),
    };
    ins!(c, "ld.global.{narrow} {via}, [{addr}]");
    // A `u8` load widens into a 32-bit register (PTX has no 8-bit registers).
    let from = if narrow == "u16" { "u16" } else { "u32" };
    ins!(c, "cvt.u64.{from} {dst}, {via}");
}

/// The whole module for `s` with `.version ptx` and `.target target`.
pub fn module(s: &Suite, ptx: &str, target: &str, entries: Entries) -> String {
    module_varied(s, ptx, target, entries, Variation::default())
}

/// [`module`] with a [`Variation`].
pub fn module_varied(s: &Suite, ptx: &str, target: &str, entries: Entries, v: Variation) -> String {
    let l = s.launch();
    let n = s.records.len();
    let mut m = Module::new();
    m.comment(&header(s, entries, &l, v));
    m.blank();
    m.header(ptx, target);
    data::inputs(&mut m, s);
    let expectations = (entries == Entries::Both).then(|| {
        let d = data::expectations(&mut m, s);
        m.array("ptxvec_fails", 32, &vec![0; n]);
        m.variable(Space::Global, 4, ".u32", "ptxvec_done", None);
        if matches!(s.exec, Execution::Memory { .. }) {
            m.variable(
                Space::Global,
                16,
                ".b8",
                "ptxvec_scratch",
                Some(l.out_bytes),
            );
        }
        d
    });
    if let Execution::Memory { space, .. } = s.exec {
        let bytes = Some(BLOCK as usize * s.stride());
        match space {
            MemSpace::SharedCta
            | MemSpace::SharedCluster
            | MemSpace::GenericShared
            | MemSpace::BulkGlobal => {
                m.variable(Space::Shared, 16, ".b8", "ptxvec_sbuf", bytes);
            }
            MemSpace::BulkCluster => {
                m.variable(Space::Shared, 16, ".b8", "ptxvec_sbuf", bytes);
                m.variable(Space::Shared, 16, ".b8", "ptxvec_sbuf2", bytes);
                m.variable(Space::Shared, 8, ".b64", "ptxvec_mbar", None);
            }
            MemSpace::AsyncCluster => {
                m.variable(Space::Shared, 16, ".b8", "ptxvec_sbuf", bytes);
                m.variable(Space::Shared, 8, ".b64", "ptxvec_mbar", None);
            }
            MemSpace::Global | MemSpace::Generic => {}
        }
    }
    m.blank();
    if let Some(d) = &expectations {
        m.entry(&entry(s, Some(d), v));
        m.blank();
    }
    m.entry(&entry(s, None, v));
    m.into_text()
}

/// The module's opening comment: what generated it, the variant, the launch and
/// the entries' buffers.
fn header(s: &Suite, entries: Entries, l: &Launch, v: Variation) -> String {
    let n = s.records.len();
    let mut t = String::new();
    let window = match s.window {
        Some(w) if w != Window::Global => format!(" --window {}", w.name()),
        _ => String::new(),
    };
    let raw = if entries == Entries::Raw {
        " --raw"
    } else {
        ""
    };
    let picked = match &s.picked {
        Some(p) => format!(" --records {}", super::subset::records_list(p)),
        None => String::new(),
    };
    if v == Variation::default() {
        let _ = writeln!(
            t,
            "Generated by `ptxvec emit-ptx --variant {}{window}{raw}{picked}`; do not edit.",
            s.id
        );
        t += "Self-checking semantic vectors (vectors/silicon/README.md).\n";
    } else {
        t += "Generated by `ptxvec silicon-probe`; do not edit.\n";
        t += "A variation of a self-checking module (vectors/silicon/README.md, Probes).\n";
    }
    let _ = writeln!(t, "variant: {}", s.id);
    if let Some(p) = &s.picked {
        let _ = writeln!(
            t,
            "records picked: {} (the k-th picked sits where record k of the variant would)",
            super::subset::records_list(p)
        );
    }
    let _ = writeln!(
        t,
        "records: {n} (run {}, skipped {}: a lane executes outside the membermask)",
        s.run_count(),
        n - s.run_count()
    );
    window_note(&mut t, s, v);
    let _ = writeln!(
        t,
        "launch: grid ({}, 1, 1), block ({}, 1, 1), no dynamic shared memory, one launch at a time",
        l.grid, l.block
    );
    let _ = writeln!(
        t,
        "{RAW}(.param .u64 out): writes {} bytes at out",
        l.out_bytes
    );
    if entries == Entries::Both {
        let _ = writeln!(
            t,
            "{CHECK}(.param .u64 result): writes {} bytes at result: per profile ({}) u32 pass, fail, first_fail[{FIRST_FAILS}]",
            l.result_bytes,
            Profile::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
        );
    }
    t
}

/// The header's words on contention blocks, the window, clusters and the operand.
fn window_note(t: &mut String, s: &Suite, v: Variation) {
    let c = s.contention_records().len();
    if c > 0 {
        let _ = writeln!(
            t,
            "blocks {}..{}: one contention record each, its first 32 threads on one address",
            s.plain_grid(),
            s.plain_grid() as usize + c
        );
    }
    let _ = match s.window {
        Some(Window::Global) => {
            writeln!(t, "window: the generic address points into global memory")
        }
        Some(Window::Shared) => writeln!(
            t,
            "window: the generic address points into the CTA's shared memory"
        ),
        Some(Window::GlobalSpace | Window::SharedSpace) => writeln!(
            t,
            "window: spelled `{}` (the variant is stated with generic addressing)",
            s.opcode
        ),
        None => Ok(()),
    };
    if let Execution::Memory {
        space: MemSpace::BulkCluster | MemSpace::AsyncCluster,
        ..
    } = s.exec
    {
        let _ = match v.cluster {
            ClusterLayout::Pairs => writeln!(
                t,
                "clusters of {CLUSTER} CTAs (.reqnctapercluster): each CTA reduces into its peer's shared memory"
            ),
            ClusterLayout::Alone { dims: true } => writeln!(
                t,
                "clusters of one CTA (.reqnctapercluster 1, 1, 1): each CTA reduces into its own shared memory"
            ),
            ClusterLayout::Alone { dims: false } => writeln!(
                t,
                "no cluster dimensions: each CTA reduces into its own shared memory"
            ),
        };
    }
    if v.operand == OperandPath::Relaid {
        *t += "operand: passed through two xor with the thread index before the instruction (the same bits)\n";
    }
}

/// One entry: `ptxvec_check` when `check` holds the expectation symbols, else
/// `ptxvec_raw`. Both run the variant's body to `DONE`; the check entry then
/// tallies, and both end at `END`.
fn entry(s: &Suite, check: Option<&ExpectData>, v: Variation) -> Entry {
    let (name, param) = if check.is_some() {
        (CHECK, "result")
    } else {
        (RAW, "out")
    };
    let mut e = Entry::new(name).param(".u64", param);
    // The bulk reduction into shared::cluster reaches the peer CTA of a cluster.
    // A compile-time cluster size keeps a plain launch (silicon: without cluster
    // dimensions the instruction faults even on the CTA's own memory, E025).
    if let Execution::Memory {
        space: MemSpace::BulkCluster | MemSpace::AsyncCluster,
        ..
    } = s.exec
    {
        match v.cluster {
            ClusterLayout::Pairs => e.directive(&format!(".reqnctapercluster {CLUSTER}, 1, 1")),
            ClusterLayout::Alone { dims: true } => e.directive(".reqnctapercluster 1, 1, 1"),
            ClusterLayout::Alone { dims: false } => {}
        }
    }
    e.registers(RegClass::Pred, 20);
    e.registers(RegClass::B16, 64);
    e.registers(RegClass::B32, 80);
    e.registers(RegClass::B64, 80);
    e.registers(RegClass::F32, 4);
    // Registers wider than 64 bits (`.b128`) where a slot's elements go in one.
    if matches!(s.shape, Shape::Memory(m) if m.slots().any(|x| x.register > 64)) {
        e.registers(RegClass::B128, 4);
    }
    let c = &mut e.body;
    c.blank();
    c.thread_index();
    // `%rd1`: where the records' outputs go.
    if check.is_some() {
        if matches!(s.exec, Execution::Memory { .. }) {
            c.ins("mov.u64 %rd1, ptxvec_scratch");
        }
    } else {
        c.global_param("%rd1", "%rd0", param);
    }
    match s.exec {
        Execution::Memory { .. } => memory::body(c, s, check, v),
        Execution::Warp => warp::body(c, s, check),
    }
    c.label("DONE");
    if check.is_some() {
        check::tally(c, s);
    }
    c.label("END");
    e
}
