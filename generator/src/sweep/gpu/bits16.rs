//! `ptxvec silicon-sweep`: every (memory, operand) pair of the 16-bit memory
//! reductions, 2^32 per instruction, run on a GPU and condensed into block digests
//! (`crate::sweep` plans the sweeps, defines the digests and computes the oracle's).
//! A block whose
//! digest differs from the oracle's is narrowed down on the device: first to rows
//! (each row's digest is already at hand), then each differing row is re-run with
//! its raw results copied back, which names the pairs.
//!
//! The kernels are one module per sweep with three entries, each launched over a
//! chunk of [`CHUNK`] pairs starting at pair `base`: `init` writes the memory
//! words, `reduce` runs the instruction, `digest` adds each pair's term into its
//! row's digest. Kernel boundaries order the three: no fence is needed between the
//! generic writes of `init`, the reductions, and the loads of `digest`.

use std::fmt::Write as _;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::device::silicon::device::{Device, DeviceError, SweepEntry, SweepModule, SweepShape};
use crate::device::silicon::header::{expect_format, quote as q, Evidence, Header};
use super::{MAX_PAIRS, MAX_RAW_ROWS, THREADS};
use crate::error::{Error, Result};
use crate::io::output::note;
use crate::device::ptx::{ins, Code, Entry, Module, Space};
use crate::sweep::{
    blocks_from_rows, term, Layout, Sweep, BLOCKS, BLOCK_PAIRS, PAIRS, ROWS, ROW_PAIRS,
};
use crate::syntax::text::RegClass;

/// The modules' `.version`. PTX ISA 8.1 introduced vector `red`, 8.0
/// `cp.reduce.async.bulk`; the CUDA 13.0 driver JIT takes up to 9.0.
pub const PTX_VERSION: &str = "8.4";
/// The modules' `.target`.
pub const TARGET: &str = "sm_90";

/// The evidence file's `format`.
pub const FORMAT: &str = "ptxvec-sweeps/1";
/// The evidence file's name.
pub const FILE: &str = "sweeps.json";
/// Pairs per launch: a chunk's memory words fit one 256 MiB buffer.
pub const CHUNK: u32 = 1 << 26;
/// How the digest is defined, as the evidence file states it.
pub const DIGEST: &str = "block digest = sum mod 2^64, over the block's pairs p = mem << 16 | operand, of splitmix64_finalizer(p << 32 | result)";

/// How long one sweep's child may run: the device takes a tenth of a second, the
/// oracle's replay of its 2^32 pairs tens of seconds on a few cores.
pub const CHILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

/// The evidence file: the device ([`FORMAT`]), then the sweeps.
pub type SweepsFile = Evidence<SweepsBody>;

/// The evidence file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepsBody {
    /// The modules' `.version`.
    pub ptx: String,
    /// The modules' `.target`.
    pub target: String,
    /// [`DIGEST`].
    pub digest: String,
    /// Pairs per block ([`BLOCK_PAIRS`]).
    pub block_pairs: u64,
    /// One entry per sweep run.
    pub sweeps: Vec<SweepResult>,
}

/// One sweep's evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepResult {
    /// The instruction name (`Sweep::name`).
    pub name: String,
    /// The instruction exactly as it stands in the kernel.
    pub text: String,
    /// `scalar` or `swapped` (`Layout::name`).
    pub layout: String,
    /// Block digests as silicon computed them, 16 hex digits each.
    pub blocks: Vec<String>,
    /// Rows whose digest differs from the oracle's.
    pub mismatched_rows: Vec<RowMismatch>,
    /// Pairs whose result differs from the oracle's (at most [`MAX_PAIRS`]).
    pub mismatches: Vec<PairMismatch>,
}

/// A row whose silicon digest differs from the oracle's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowMismatch {
    /// The memory value, `0x` and 4 digits.
    pub mem: String,
    /// The silicon's digest.
    pub silicon: String,
    /// The oracle's digest.
    pub oracle: String,
    /// Differing pairs in the raw re-run (`null`: the row was not re-run).
    pub pairs: Option<u32>,
}

/// One pair whose silicon result differs from the oracle's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairMismatch {
    /// Memory before, `0x` and 4 digits.
    pub mem: String,
    /// The operand.
    pub operand: String,
    /// The result silicon gave (`0x`, 4 or 8 digits: see the layout).
    pub silicon: String,
    /// The sm_90 oracle's result.
    pub oracle: String,
}

// ------------------------------------------------------------------ kernels

/// Bytes of one pair's memory word.
fn stride(s: &Sweep) -> u32 {
    match s.layout {
        Layout::Scalar => 2,
        Layout::Swapped => 4,
    }
}

/// The instruction as it stands in the kernel: `atom` returns the memory it found
/// into `%h3` (scalar), `%r13` (packed) or `{%h3, %h4}` (a vector).
pub fn text(s: &Sweep) -> String {
    let d = match (s.returns(), s.layout, s.is_packed()) {
        (false, _, _) => "",
        (true, Layout::Scalar, _) => "%h3, ",
        (true, Layout::Swapped, true) => "%r13, ",
        (true, Layout::Swapped, false) => "{%h3, %h4}, ",
    };
    if s.is_bulk() {
        format!("{} [%rd2], [%r10], %r12;", s.name)
    } else if s.layout == Layout::Scalar {
        format!("{} {d}[%rd2], %h1;", s.name)
    } else if s.is_packed() {
        format!("{} {d}[%rd2], %r9;", s.name)
    } else {
        format!("{} {d}[%rd2], {{%h1, %h2}};", s.name)
    }
}

/// After an `atom`, the value it returned held to the memory word `init` wrote
/// (`%r6`, or `%r7 << 16 | %r6` for two elements): where they differ, the result is
/// spoiled (bits `0x5a5a` of each element flipped), so that a wrong `d` shows as
/// mismatched results, named pair by pair like any other. Using `d` also keeps
/// ptxas from making the instruction a RED, which returns nothing.
fn hold_returned(s: &Sweep, c: &mut Code) {
    match s.layout {
        Layout::Scalar => {
            c.ins("cvt.u32.u16 %r14, %h3");
            c.ins("mov.u32 %r15, %r6");
        }
        Layout::Swapped => {
            if !s.is_packed() {
                c.ins("mov.b32 %r13, {%h3, %h4}");
            }
            c.ins("mov.u32 %r14, %r13");
            c.ins("shl.b32 %r15, %r7, 16");
            c.ins("or.b32 %r15, %r15, %r6");
        }
    }
    c.branch_if("eq.u32", "%p2", "%r14", "%r15", "DONE");
    match s.layout {
        Layout::Scalar => {
            c.ins("ld.global.b16 %h5, [%rd2]");
            c.ins("xor.b16 %h5, %h5, 0x5a5a");
            c.ins("st.global.b16 [%rd2], %h5");
        }
        Layout::Swapped => {
            c.ins("ld.global.b32 %r16, [%rd2]");
            c.ins("xor.b32 %r16, %r16, 0x5a5a5a5a");
            c.ins("st.global.b32 [%rd2], %r16");
        }
    }
}

/// One entry with the common prologue; its body follows, and ends at `DONE`.
/// After the prologue, %r0 is the thread, %r5 the pair, %r6 its memory value, %r7
/// its operand and %rd2 the address of its memory word.
fn entry(name: &str) -> Entry {
    let mut e = Entry::new(name)
        .param(".u64", "p_buf")
        .param(".u64", "p_rows")
        .param(".u32", "p_base");
    e.registers(RegClass::Pred, 4);
    e.registers(RegClass::B16, 6);
    e.registers(RegClass::B32, 32);
    e.registers(RegClass::B64, 16);
    e
}

/// The prologue (see [`entry`]), after the entry's declarations.
fn prologue(c: &mut Code, stride: u32) {
    c.thread_index();
    c.ins("ld.param.u32 %r4, [p_base]");
    c.ins("add.u32 %r5, %r4, %r3");
    c.ins("shr.u32 %r6, %r5, 16");
    c.ins("and.b32 %r7, %r5, 65535");
    c.global_param("%rd0", "%rd0", "p_buf");
    c.element("%rd2", "%rd0", "%rd1", "%r3", stride);
}

/// `init`: writes each pair's memory word.
fn init(s: &Sweep, c: &mut Code) {
    match s.layout {
        Layout::Scalar => {
            c.ins("cvt.u16.u32 %h0, %r6");
            c.ins("st.global.b16 [%rd2], %h0");
        }
        // Element 0 (low half, first register) holds mem, element 1 the operand.
        Layout::Swapped => {
            c.ins("shl.b32 %r8, %r7, 16");
            c.ins("or.b32 %r8, %r8, %r6");
            c.ins("st.global.b32 [%rd2], %r8");
        }
    }
}

/// `reduce`: runs the instruction on each pair. The bulk form stages the block's
/// operands in `sbuf` and reduces the block's words at once from thread 0.
fn reduce(s: &Sweep, e: &mut Entry, stride: u32) {
    let text = text(s);
    if s.is_bulk() {
        // The block's first element: 2 KiB per block, 16-byte aligned.
        let bytes = THREADS * stride;
        e.variable(Space::Shared, 16, ".b8", "sbuf", Some(bytes as usize));
        let c = &mut e.body;
        prologue(c, stride);
        c.ins("mov.u32 %r10, sbuf");
        ins!(c, "mad.lo.u32 %r11, %r0, {stride}, %r10");
        c.ins("cvt.u16.u32 %h1, %r7");
        c.ins("st.shared.b16 [%r11], %h1");
        c.bulk_by_thread0(&["shared::cta"], "DONE", |c| {
            ins!(c, "mov.u32 %r12, {bytes}");
            c.verbatim(&text);
        });
    } else {
        let c = &mut e.body;
        prologue(c, stride);
        match s.layout {
            Layout::Scalar => c.ins("cvt.u16.u32 %h1, %r7"),
            // Packed: low half the operand, high half mem; .v2: the same in registers.
            Layout::Swapped if s.is_packed() => {
                c.ins("shl.b32 %r9, %r6, 16");
                c.ins("or.b32 %r9, %r9, %r7");
            }
            Layout::Swapped => {
                c.ins("cvt.u16.u32 %h1, %r7");
                c.ins("cvt.u16.u32 %h2, %r6");
            }
        }
        c.verbatim(&text);
        if s.returns() {
            hold_returned(s, c);
        }
    }
}

/// `digest`: adds each pair's term into its row's digest.
fn digest(s: &Sweep, c: &mut Code) {
    match s.layout {
        Layout::Scalar => {
            c.ins("ld.global.b16 %h0, [%rd2]");
            c.ins("cvt.u32.u16 %r8, %h0");
        }
        Layout::Swapped => c.ins("ld.global.b32 %r8, [%rd2]"),
    }
    // crate::sweep::term: splitmix64's finalizer of p << 32 | result; then a
    // warp sum by shuffles (a warp's 32 pairs share a row) and one atomic add per
    // warp into the row's digest. Wrapping sums: the order does not matter.
    c.ins("cvt.u64.u32 %rd3, %r5");
    c.ins("shl.b64 %rd3, %rd3, 32");
    c.ins("cvt.u64.u32 %rd4, %r8");
    c.ins("or.b64 %rd3, %rd3, %rd4");
    c.splitmix64("%rd3", "%rd4");
    c.warp_sum_u64("%rd3", ["%r20", "%r21", "%r22", "%r23"], "%rd5");
    c.ins("and.b32 %r24, %r0, 31");
    c.branch_if("ne.u32", "%p1", "%r24", 0, "DONE");
    c.global_param("%rd6", "%rd6", "p_rows");
    c.element("%rd6", "%rd6", "%rd7", "%r6", 8);
    c.ins("red.global.add.u64 [%rd6], %rd3");
}

/// The whole PTX module of a sweep: entries `init`, `reduce`, `digest`.
pub fn module(s: &Sweep) -> String {
    let st = stride(s);
    let mut m = Module::new();
    m.comment(&format!(
        "Generated by ptxvec silicon-sweep ({}); do not edit.",
        s.name
    ));
    m.header(PTX_VERSION, TARGET);
    let mut kernels = [entry("init"), entry("reduce"), entry("digest")];
    let [i, r, d] = &mut kernels;
    prologue(&mut i.body, st);
    init(s, &mut i.body);
    reduce(s, r, st);
    prologue(&mut d.body, st);
    digest(s, &mut d.body);
    for (n, mut k) in kernels.into_iter().enumerate() {
        if n > 0 {
            m.blank();
        }
        k.body.label("DONE");
        m.entry(&k);
    }
    m.into_text()
}

// ------------------------------------------------------------------ the device

/// One sweep's module on the device.
struct Runner {
    m: SweepModule,
    stride: u32,
}

impl Runner {
    fn new(dev: &Device, s: &Sweep) -> Result<Runner, DeviceError> {
        let stride = stride(s);
        let shape = SweepShape {
            chunk_pairs: CHUNK,
            stride,
            threads: THREADS,
            row_shift: 16,
            rows: ROWS as usize,
            base_bits: 32,
        };
        let entries = [SweepEntry::Init, SweepEntry::Reduce, SweepEntry::Digest];
        let m = dev.sweep_module(&module(s), &entries, shape)?;
        Ok(Runner { m, stride })
    }

    /// Initializes and reduces `pairs` pairs from `base` into the chunk buffer.
    fn reduce(&mut self, base: u32, pairs: u32) -> Result<(), DeviceError> {
        self.m.launch(SweepEntry::Init, u64::from(base), pairs)?;
        self.m.launch(SweepEntry::Reduce, u64::from(base), pairs)
    }

    /// Every pair, chunk by chunk: the row digests.
    fn sweep(&mut self) -> Result<Vec<u64>, DeviceError> {
        self.m.zero_rows()?;
        for c in 0..(PAIRS / u64::from(CHUNK)) {
            let base = (c * u64::from(CHUNK)) as u32;
            self.reduce(base, CHUNK)?;
            self.m.launch(SweepEntry::Digest, u64::from(base), CHUNK)?;
        }
        self.m.synchronize()?;
        self.m.rows()
    }

    /// One row re-run, its raw results copied back (one per pair, operand order).
    fn raw_row(&mut self, mem: u32) -> Result<Vec<u32>, DeviceError> {
        let n = ROW_PAIRS as u32;
        self.reduce(mem << 16, n)?;
        self.m.synchronize()?;
        let bytes = self.m.chunk((n * self.stride) as usize)?;
        Ok(match self.stride {
            2 => bytes
                .chunks_exact(2)
                .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            _ => bytes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        })
    }
}

// ------------------------------------------------------------------ the run

/// `ptxvec silicon-sweep`'s part of the sweep subcommands' loop
/// ([`super::run`]): the 16-bit sweeps, `sweeps.json`.
pub struct Command;

impl super::Kind for Command {
    type Catalog = crate::sweep::Bits16;
    type Result = SweepResult;
    const COMMAND: &'static str = "silicon-sweep";
    const FILE: &'static str = FILE;
    const FORMAT: &'static str = FORMAT;
    const CHILD_TIMEOUT: std::time::Duration = CHILD_TIMEOUT;

    fn module(s: &Sweep) -> String {
        module(s)
    }
    fn one(s: &'static Sweep) -> Result<SweepResult> {
        one(s)
    }
    fn differs(r: &SweepResult) -> bool {
        !r.mismatched_rows.is_empty()
    }
    fn render(header: &Header, records: &[SweepResult]) -> String {
        render(header, records)
    }
}

/// Runs one sweep, compares with the oracle, and narrows down any difference.
fn one(s: &Sweep) -> Result<SweepResult> {
    let dev = Device::open()?;
    let mut r = Runner::new(&dev, s)?;
    let t = Instant::now();
    let silicon = r.sweep()?;
    let gpu_s = t.elapsed().as_secs_f64();
    // The digest kernel itself, checked on real data: row 0's raw results, digested
    // here, must give the row digest the device computed.
    let raw = r.raw_row(0)?;
    let here = raw_digest(0, &raw);
    if here != silicon[0] {
        return Err(Error::Run(format!(
            "the device's digest of row 0 ({:016x}) is not its raw results' ({here:016x}): the digest kernel is wrong",
            silicon[0]
        )));
    }
    let t = Instant::now();
    let oracle = s.row_digests(0..ROWS)?;
    let cpu_s = t.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    let mut pairs = Vec::new();
    for mem in 0..ROWS {
        let (a, b) = (silicon[mem as usize], oracle[mem as usize]);
        if a == b {
            continue;
        }
        let mut n = None;
        if rows.len() < MAX_RAW_ROWS {
            let raw = r.raw_row(mem)?;
            let mut count = 0;
            for (o, &got) in raw.iter().enumerate() {
                let p = mem << 16 | o as u32;
                let want = s.result(p)?;
                if got != want {
                    count += 1;
                    if pairs.len() < MAX_PAIRS {
                        pairs.push(pair_mismatch(s, p, got, want));
                    }
                }
            }
            n = Some(count);
        }
        rows.push(RowMismatch {
            mem: format!("0x{mem:04x}"),
            silicon: format!("{a:016x}"),
            oracle: format!("{b:016x}"),
            pairs: n,
        });
    }
    note(format_args!(
        "{}: gpu {gpu_s:.3} s, oracle {cpu_s:.1} s on {} threads, {} rows differ",
        s.name,
        rayon::current_num_threads(),
        rows.len()
    ));
    Ok(SweepResult {
        name: s.name.to_owned(),
        text: text(s),
        layout: s.layout.name().to_owned(),
        blocks: blocks_from_rows(&silicon)
            .iter()
            .map(|d| format!("{d:016x}"))
            .collect(),
        mismatched_rows: rows,
        mismatches: pairs,
    })
}

/// The digest of one row's raw results.
fn raw_digest(mem: u32, raw: &[u32]) -> u64 {
    raw.iter().enumerate().fold(0u64, |a, (o, &x)| {
        a.wrapping_add(term(mem << 16 | o as u32, x))
    })
}

fn pair_mismatch(s: &Sweep, p: u32, got: u32, want: u32) -> PairMismatch {
    let hex = |x: u32| match s.layout {
        Layout::Scalar => format!("0x{x:04x}"),
        Layout::Swapped => format!("0x{x:08x}"),
    };
    PairMismatch {
        mem: format!("0x{:04x}", p >> 16),
        operand: format!("0x{:04x}", p & 0xffff),
        silicon: hex(got),
        oracle: hex(want),
    }
}

// ------------------------------------------------------------------ the file

/// The evidence file's bytes: fixed key order, eight digests a line.
pub fn render(header: &Header, records: &[SweepResult]) -> String {
    let mut o = format!("{{\n{}", header.pretty());
    let _ = write!(
        o,
        "  \"ptx\": {},\n  \"target\": {},\n  \"digest\": {},\n  \"block_pairs\": {BLOCK_PAIRS},\n  \"sweeps\": [",
        q(PTX_VERSION),
        q(TARGET),
        q(DIGEST),
    );
    for (i, r) in records.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(
            o,
            "{sep}\n    {{\n      \"name\": {},\n      \"text\": {},\n      \"layout\": {},\n      \"blocks\": [",
            q(&r.name),
            q(&r.text),
            q(&r.layout)
        );
        for (j, chunk) in r.blocks.chunks(8).enumerate() {
            let sep = if j == 0 { "" } else { "," };
            let line: Vec<String> = chunk.iter().map(|d| q(d)).collect();
            let _ = write!(o, "{sep}\n        {}", line.join(", "));
        }
        o += "\n      ],\n      \"mismatched_rows\": [";
        for (j, m) in r.mismatched_rows.iter().enumerate() {
            let sep = if j == 0 { "" } else { "," };
            let pairs = m.pairs.map_or("null".to_owned(), |n| n.to_string());
            let _ = write!(
                o,
                "{sep}\n        {{\"mem\": {}, \"silicon\": {}, \"oracle\": {}, \"pairs\": {pairs}}}",
                q(&m.mem),
                q(&m.silicon),
                q(&m.oracle)
            );
        }
        o += if r.mismatched_rows.is_empty() {
            "],\n"
        } else {
            "\n      ],\n"
        };
        o += "      \"mismatches\": [";
        for (j, m) in r.mismatches.iter().enumerate() {
            let sep = if j == 0 { "" } else { "," };
            let _ = write!(
                o,
                "{sep}\n        {{\"mem\": {}, \"operand\": {}, \"silicon\": {}, \"oracle\": {}}}",
                q(&m.mem),
                q(&m.operand),
                q(&m.silicon),
                q(&m.oracle)
            );
        }
        o += if r.mismatches.is_empty() {
            "]\n    }"
        } else {
            "\n      ]\n    }"
        };
    }
    o += "\n  ]\n}\n";
    o
}

/// Reads an evidence file's text.
pub fn parse(text: &str) -> Result<SweepsFile> {
    let bad = |m: String| Err(Error::Input(m));
    let e: SweepsFile = serde_json::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    expect_format(&e.header, FORMAT).map_err(Error::Input)?;
    if e.block_pairs != BLOCK_PAIRS {
        return bad(format!(
            "block_pairs {}, expected {BLOCK_PAIRS}",
            e.block_pairs
        ));
    }
    for r in &e.sweeps {
        if Sweep::find(&r.name).is_none() {
            return bad(format!("{}: no such sweep", r.name));
        }
        if r.blocks.len() != BLOCKS {
            return bad(format!(
                "{}: {} blocks, expected {BLOCKS}",
                r.name,
                r.blocks.len()
            ));
        }
    }
    Ok(e)
}

/// A recorded block digest as a number.
pub fn block(r: &SweepResult, i: usize) -> Result<u64> {
    let h = r
        .blocks
        .get(i)
        .ok_or_else(|| Error::Input(format!("{}: no block {i}", r.name)))?;
    u64::from_str_radix(h, 16)
        .map_err(|e| Error::Input(format!("{}: block {i}: {h:?}: {e}", r.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        crate::device::silicon::header::h100(FORMAT)
    }

    fn record(s: &Sweep, mismatch: bool) -> SweepResult {
        let mismatched_rows = if mismatch {
            vec![RowMismatch {
                mem: "0x7c01".into(),
                silicon: "0000000000000001".into(),
                oracle: "0000000000000002".into(),
                pairs: Some(1),
            }]
        } else {
            Vec::new()
        };
        let mismatches = if mismatch {
            vec![PairMismatch {
                mem: "0x7c01".into(),
                operand: "0x3c00".into(),
                silicon: "0x7e01".into(),
                oracle: "0x7fff".into(),
            }]
        } else {
            Vec::new()
        };
        SweepResult {
            name: s.name.into(),
            text: text(s),
            layout: s.layout.name().into(),
            blocks: (0..BLOCKS as u64)
                .map(|i| format!("{:016x}", i * 0x0101))
                .collect(),
            mismatched_rows,
            mismatches,
        }
    }

    #[test]
    fn rendered_evidence_parses_back_whole() {
        let records = vec![record(&Sweep::ALL[0], false), record(&Sweep::ALL[10], true)];
        let text = render(&header(), &records);
        let e = parse(&text).unwrap();
        assert_eq!(e.sweeps, records);
        assert_eq!(e.header, header());
        assert_eq!(block(&e.sweeps[1], 3).unwrap(), 0x0303);
        // Deterministic: the same inputs, the same bytes.
        assert_eq!(text, render(&header(), &records));
    }

    #[test]
    fn raw_digest_is_the_oracle_digest_of_the_same_results() {
        let s = &Sweep::ALL[0];
        let mem = 0x3c00;
        let raw: Vec<u32> = (0..ROW_PAIRS as u32)
            .map(|o| s.result(mem << 16 | o).unwrap())
            .collect();
        let row = u64::from(mem) * ROW_PAIRS;
        assert_eq!(
            raw_digest(mem, &raw),
            s.digest(row..row + ROW_PAIRS).unwrap()
        );
    }

    #[test]
    #[cfg_attr(
        not(ptxas),
        ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
    )]
    fn every_sweep_kernel_assembles_with_ptxas() {
        let ptxas = crate::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap();
        let mut failures = Vec::new();
        for (i, s) in Sweep::ALL.iter().enumerate() {
            if let Err(e) = crate::ptxas::assemble_module(
                &ptxas,
                TARGET,
                &module(s),
                dir.path(),
                &i.to_string(),
            ) {
                failures.push(format!("{}: {e}", s.name));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
