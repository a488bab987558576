//! `ptxvec silicon-sweep-wide`: the f32 and f64 memory reductions over their
//! structured pair sets (`crate::sweep::wide`: 2^36 pairs per f32 instruction, 2^32
//! per f64), run on a GPU and condensed into block digests, compared on the device
//! machine with the fast CPU oracle, and narrowed down as the 16-bit sweeps are:
//! rows whose digest differs are re-run with their raw results copied back, which
//! names the pairs, judged by the scalar oracle.
//!
//! The kernels are one module per sweep with four entries, each launched over a
//! chunk of [`CHUNK`] pairs from the 64-bit pair `base`: `values` writes each
//! pair's operand (the runner compares the first row's with the CPU's set), `init`
//! the memory words, `reduce` runs the instruction, `digest` adds each pair's term
//! into its row's digest. The module carries the set's two tables as `.global`
//! arrays and builds a value from its index as [`Set::value`] does. Kernel
//! boundaries order the entries.
//!
//! Before its digests count, the runner checks on real data that the device
//! builds the CPU's operand set, that its digest of row 0 equals the digest of row
//! 0's raw results, and that the fast oracle equals the scalar one on the sweep's
//! rows of every class ([`WideSweep::spot_rows`]) on this CPU.

use std::fmt::Write as _;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::device::silicon::device::{Device, DeviceError, SweepEntry, SweepModule, SweepShape};
use crate::device::silicon::header::{expect_format, quote as q, Evidence, Header};
use super::bits16::{PTX_VERSION, TARGET};
use super::{MAX_PAIRS, MAX_RAW_ROWS, THREADS};
use crate::error::{Error, Result};
use crate::io::output::note;
use crate::device::ptx::{ins, Code, Entry, Module, Space};
use crate::sweep::wide::{blocks_from_rows, term, Replay, Set, WideError, WideSweep, BLOCKS};
use crate::syntax::text::RegClass;

/// The evidence file's `format`.
pub const FORMAT: &str = "ptxvec-wide-sweeps/1";
/// The evidence file's name.
pub const FILE: &str = "wide-sweeps.json";
/// Pairs per launch: 256 MiB of f32 words, 512 MiB of f64.
pub const CHUNK: u32 = 1 << 26;
/// Differing rows listed per sweep (all are counted): an f32 sweep has 2^18 rows,
/// and the file must stay small.
pub const MAX_LISTED_ROWS: usize = 1024;
/// How the digest is defined, as the evidence file states it.
pub const DIGEST: &str = "block digest = sum mod 2^64, over the block's pairs p = mem_index << index_bits | operand_index, of splitmix64_finalizer((p * 0x9e3779b97f4a7c15 mod 2^64) ^ result)";
/// How long one sweep's child may run: the device takes seconds, and so does the
/// fast oracle's 2^36 pairs on a GPU machine's cores (a minute on 2).
pub const CHILD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// The evidence file: the device ([`FORMAT`]), then the sets and the sweeps.
pub type WideFile = Evidence<WideBody>;

/// The evidence file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WideBody {
    /// The modules' `.version`.
    pub ptx: String,
    /// The modules' `.target`.
    pub target: String,
    /// [`DIGEST`].
    pub digest: String,
    /// The operand sets the sweeps ran over.
    pub sets: Vec<SetRecord>,
    /// One entry per sweep run.
    pub sweeps: Vec<WideResult>,
}

/// An operand set, as the evidence names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetRecord {
    /// `f32` or `f64`.
    pub format: String,
    /// Values in the set.
    pub values: u64,
    /// Significand patterns.
    pub patterns: u64,
    /// [`Set::sha256`].
    pub sha256: String,
}

impl SetRecord {
    /// The record of `set`.
    pub fn of(set: &Set) -> SetRecord {
        SetRecord {
            format: set.format().name.to_owned(),
            values: set.len() as u64,
            patterns: set.patterns.len() as u64,
            sha256: set.sha256(),
        }
    }
}

/// One sweep's evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WideResult {
    /// The instruction name (`WideSweep::name`).
    pub name: String,
    /// The instruction exactly as it stands in the kernel.
    pub text: String,
    /// Pairs in a block.
    pub block_pairs: u64,
    /// Block digests as silicon computed them, 16 hex digits each.
    pub blocks: Vec<String>,
    /// How many rows' digests differ from the oracle's.
    pub differing_rows: u64,
    /// The first of them (at most [`MAX_LISTED_ROWS`]).
    pub mismatched_rows: Vec<RowMismatch>,
    /// Pairs whose result differs from the oracle's (at most [`MAX_PAIRS`]).
    pub mismatches: Vec<PairMismatch>,
}

/// A row whose silicon digest differs from the oracle's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowMismatch {
    /// The memory index.
    pub row: String,
    /// The memory value's bits.
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
    /// Memory before.
    pub mem: String,
    /// The operand.
    pub operand: String,
    /// The result silicon gave.
    pub silicon: String,
    /// The sm_90 oracle's result.
    pub oracle: String,
}

// ------------------------------------------------------------------ kernels

/// The instruction as it stands in the kernel.
pub fn text(s: &WideSweep) -> String {
    let reg = if s.stride() == 4 { "%f1" } else { "%fd1" };
    if s.is_bulk() {
        format!("{} [%rd2], [%r10], %r12;", s.name)
    } else if s.is_shared() {
        format!("{} [%r11], {reg};", s.name)
    } else {
        format!("{} [%rd2], {reg};", s.name)
    }
}

/// `.b32` or `.b64`: a memory word.
fn word(s: &WideSweep) -> &'static str {
    if s.stride() == 4 {
        "b32"
    } else {
        "b64"
    }
}

/// One entry with its parameters and registers; its body follows the prologue and
/// ends at `DONE`.
fn entry(name: &str) -> Entry {
    let mut e = Entry::new(name)
        .param(".u64", "p_buf")
        .param(".u64", "p_rows")
        .param(".u64", "p_base");
    e.registers(RegClass::Pred, 4);
    e.registers(RegClass::B32, 32);
    e.registers(RegClass::B64, 40);
    e.registers(RegClass::F32, 4);
    e.registers(RegClass::F64, 4);
    e
}

/// The prologue: %r0 the thread in its block, %r3 in the grid, %rd22 the pair,
/// %r6 its memory index, %r7 its operand index, %rd2 the address of its word.
fn prologue(c: &mut Code, s: &WideSweep) {
    let set = s.set();
    c.thread_index();
    c.ins("ld.param.u64 %rd20, [p_base]");
    c.ins("cvt.u64.u32 %rd21, %r3");
    c.ins("add.u64 %rd22, %rd20, %rd21");
    ins!(c, "shr.u64 %rd23, %rd22, {}", set.index_bits());
    ins!(c, "and.b64 %rd24, %rd22, {}", set.len() - 1);
    c.ins("cvt.u32.u64 %r6, %rd23");
    c.ins("cvt.u32.u64 %r7, %rd24");
    c.global_param("%rd0", "%rd0", "p_buf");
    c.element("%rd2", "%rd0", "%rd1", "%r3", s.stride());
}

/// Value `index` of the set into `out` (a `%r` for f32, a `%rd` for f64), as
/// [`Set::value`]: sign, the exponent table at the exponent index, the pattern
/// table at the pattern index. Uses %r13–%r17 and %rd25–%rd31.
fn value(c: &mut Code, s: &WideSweep, index: &str, out: &str) {
    let set = s.set();
    let p = set.recipe.pattern_bits;
    let fmt = s.format();
    ins!(c, "shr.u32 %r13, {index}, {}", 8 + p);
    ins!(c, "shr.u32 %r14, {index}, {p}");
    c.ins("and.b32 %r14, %r14, 255");
    ins!(c, "and.b32 %r15, {index}, {}", (1u32 << p) - 1);
    c.ins("mul.wide.u32 %rd25, %r14, 4");
    c.symbol_plus("%rd25", "%rd26", "ptxvec_exponents", "%rd25");
    c.ins("ld.global.u32 %r16, [%rd25]");
    ins!(c, "mul.wide.u32 %rd27, %r15, {}", s.stride());
    c.symbol_plus("%rd27", "%rd28", "ptxvec_patterns", "%rd27");
    if s.stride() == 4 {
        c.ins("ld.global.u32 %r17, [%rd27]");
        ins!(c, "shl.b32 %r13, %r13, {}", fmt.width() - 1);
        ins!(c, "shl.b32 %r16, %r16, {}", fmt.frac_bits);
        c.ins("or.b32 %r13, %r13, %r16");
        ins!(c, "or.b32 {out}, %r13, %r17");
    } else {
        c.ins("ld.global.u64 %rd29, [%rd27]");
        c.ins("cvt.u64.u32 %rd30, %r13");
        ins!(c, "shl.b64 %rd30, %rd30, {}", fmt.width() - 1);
        c.ins("cvt.u64.u32 %rd31, %r16");
        ins!(c, "shl.b64 %rd31, %rd31, {}", fmt.frac_bits);
        c.ins("or.b64 %rd30, %rd30, %rd31");
        ins!(c, "or.b64 {out}, %rd30, %rd29");
    }
}

/// The register a value of the format travels in as bits: %r18 or %rd32.
fn bits_reg(s: &WideSweep) -> &'static str {
    if s.stride() == 4 {
        "%r18"
    } else {
        "%rd32"
    }
}

/// `values`: each pair's operand value into its word.
fn values(s: &WideSweep, c: &mut Code) {
    let v = bits_reg(s);
    value(c, s, "%r7", v);
    ins!(c, "st.global.{} [%rd2], {v}", word(s));
}

/// `init`: each pair's memory value into its word.
fn init(s: &WideSweep, c: &mut Code) {
    let v = bits_reg(s);
    value(c, s, "%r6", v);
    ins!(c, "st.global.{} [%rd2], {v}", word(s));
}

/// `reduce`: the instruction on each pair. The shared form copies the word into
/// the CTA's shared memory, reduces there and copies it back; the bulk form stages
/// the block's operands in `sbuf` and reduces the block's words at once from
/// thread 0.
fn reduce(s: &WideSweep, e: &mut Entry) {
    let stride = s.stride();
    let (w, v) = (word(s), bits_reg(s));
    let freg = if stride == 4 { "%f1" } else { "%fd1" };
    if s.is_bulk() || s.is_shared() {
        e.variable(
            Space::Shared,
            16,
            ".b8",
            "sbuf",
            Some((THREADS * stride) as usize),
        );
    }
    let c = &mut e.body;
    prologue(c, s);
    value(c, s, "%r7", v);
    if !s.is_bulk() {
        ins!(c, "mov.{w} {freg}, {v}");
    }
    if s.is_bulk() || s.is_shared() {
        c.ins("mov.u32 %r10, sbuf");
        ins!(c, "mad.lo.u32 %r11, %r0, {stride}, %r10");
    }
    let t = text(s);
    if s.is_bulk() {
        ins!(c, "st.shared.{w} [%r11], {v}");
        c.bulk_by_thread0(&["shared::cta"], "DONE", |c| {
            ins!(c, "mov.u32 %r12, {}", THREADS * stride);
            c.verbatim(&t);
        });
    } else if s.is_shared() {
        let m = if stride == 4 { "%r19" } else { "%rd33" };
        ins!(c, "ld.global.{w} {m}, [%rd2]");
        ins!(c, "st.shared.{w} [%r11], {m}");
        c.verbatim(&t);
        ins!(c, "ld.shared.{w} {m}, [%r11]");
        ins!(c, "st.global.{w} [%rd2], {m}");
    } else {
        c.verbatim(&t);
    }
}

/// `digest`: adds each pair's term into its row's digest.
fn digest(s: &WideSweep, c: &mut Code) {
    if s.stride() == 4 {
        c.ins("ld.global.b32 %r8, [%rd2]");
        c.ins("cvt.u64.u32 %rd4, %r8");
    } else {
        c.ins("ld.global.b64 %rd4, [%rd2]");
    }
    // crate::sweep::wide::term: splitmix64's finalizer of (p·γ) ^ result; then a
    // warp sum (a warp's 32 pairs share a row) and one atomic add per warp into
    // the row's digest. Wrapping sums: the order does not matter.
    c.ins("mul.lo.u64 %rd3, %rd22, 0x9E3779B97F4A7C15");
    c.ins("xor.b64 %rd3, %rd3, %rd4");
    c.splitmix64("%rd3", "%rd4");
    c.warp_sum_u64("%rd3", ["%r20", "%r21", "%r22", "%r23"], "%rd5");
    c.ins("and.b32 %r24, %r0, 31");
    c.branch_if("ne.u32", "%p1", "%r24", 0, "DONE");
    c.global_param("%rd6", "%rd6", "p_rows");
    c.element("%rd6", "%rd6", "%rd7", "%r6", 8);
    c.ins("red.global.add.u64 [%rd6], %rd3");
}

/// The whole PTX module of a wide sweep: the set's tables, entries `values`,
/// `init`, `reduce`, `digest`.
pub fn module(s: &WideSweep) -> String {
    let set = s.set();
    let mut m = Module::new();
    m.comment(&format!(
        "Generated by ptxvec silicon-sweep-wide ({}); do not edit.",
        s.name
    ));
    m.header(PTX_VERSION, TARGET);
    m.array("ptxvec_exponents", 32, &set.exponents);
    m.array("ptxvec_patterns", s.stride() * 8, &set.patterns);
    let mut kernels = [
        entry("values"),
        entry("init"),
        entry("reduce"),
        entry("digest"),
    ];
    let [v, i, r, d] = &mut kernels;
    prologue(&mut v.body, s);
    values(s, &mut v.body);
    prologue(&mut i.body, s);
    init(s, &mut i.body);
    reduce(s, r);
    prologue(&mut d.body, s);
    digest(s, &mut d.body);
    for mut k in kernels {
        m.blank();
        k.body.label("DONE");
        m.entry(&k);
    }
    m.into_text()
}

// ------------------------------------------------------------------ the device

/// One sweep's module on the device.
struct Runner {
    m: SweepModule,
    s: &'static WideSweep,
}

impl Runner {
    fn new(dev: &Device, s: &'static WideSweep) -> Result<Runner, DeviceError> {
        let set = s.set();
        let shape = SweepShape {
            chunk_pairs: CHUNK,
            stride: s.stride(),
            threads: THREADS,
            row_shift: set.index_bits(),
            rows: set.len(),
            base_bits: 64,
        };
        let entries = [
            SweepEntry::Values,
            SweepEntry::Init,
            SweepEntry::Reduce,
            SweepEntry::Digest,
        ];
        let m = dev.sweep_module(&module(s), &entries, shape)?;
        Ok(Runner { m, s })
    }

    /// The chunk's first `n` words, little-endian.
    fn words(&self, n: usize) -> Result<Vec<u64>, DeviceError> {
        let stride = self.s.stride() as usize;
        let bytes = self.m.chunk(n * stride)?;
        Ok(bytes
            .chunks_exact(stride)
            .map(|b| {
                let mut w = [0u8; 8];
                w[..stride].copy_from_slice(b);
                u64::from_le_bytes(w)
            })
            .collect())
    }

    /// The operand of each pair of row 0: every value of the set, in index order.
    fn values(&mut self) -> Result<Vec<u64>, DeviceError> {
        let n = self.s.rows() as u32;
        self.m.launch(SweepEntry::Values, 0, n)?;
        self.m.synchronize()?;
        self.words(n as usize)
    }

    /// Initializes and reduces `pairs` pairs from `base` into the chunk buffer.
    fn reduce(&mut self, base: u64, pairs: u32) -> Result<(), DeviceError> {
        self.m.launch(SweepEntry::Init, base, pairs)?;
        self.m.launch(SweepEntry::Reduce, base, pairs)
    }

    /// Every pair, chunk by chunk: the row digests.
    fn sweep(&mut self) -> Result<Vec<u64>, DeviceError> {
        self.m.zero_rows()?;
        for c in 0..self.s.pairs() / u64::from(CHUNK) {
            let base = c * u64::from(CHUNK);
            self.reduce(base, CHUNK)?;
            self.m.launch(SweepEntry::Digest, base, CHUNK)?;
        }
        self.m.synchronize()?;
        self.m.rows()
    }

    /// One row re-run, its raw results copied back (one per pair, operand order).
    fn raw_row(&mut self, row: u64) -> Result<Vec<u64>, DeviceError> {
        let n = self.s.rows();
        self.reduce(row * n, n as u32)?;
        self.m.synchronize()?;
        self.words(n as usize)
    }
}

// ------------------------------------------------------------------ the run

/// `ptxvec silicon-sweep-wide`'s part of the sweep subcommands' loop
/// ([`super::run`]): the f32 and f64 sweeps, `wide-sweeps.json`.
pub struct Command;

impl super::Kind for Command {
    type Catalog = crate::sweep::wide::Wide;
    type Result = WideResult;
    const COMMAND: &'static str = "silicon-sweep-wide";
    const FILE: &'static str = FILE;
    const FORMAT: &'static str = FORMAT;
    const CHILD_TIMEOUT: std::time::Duration = CHILD_TIMEOUT;

    fn module(s: &WideSweep) -> String {
        module(s)
    }
    fn one(s: &'static WideSweep) -> Result<WideResult> {
        one(s)
    }
    fn differs(r: &WideResult) -> bool {
        r.differing_rows > 0
    }
    fn render(header: &Header, records: &[WideResult]) -> String {
        render(header, records)
    }
}

/// The digest of one row's raw results.
fn raw_digest(s: &WideSweep, row: u64, raw: &[u64]) -> u64 {
    let base = row * s.rows();
    raw.iter()
        .zip(base..)
        .fold(0u64, |a, (&r, p)| a.wrapping_add(term(p, r)))
}

/// Runs one sweep, compares with the oracle, and narrows down any difference.
fn one(s: &'static WideSweep) -> Result<WideResult> {
    let set = s.set();
    let dev = Device::open()?;
    let mut r = Runner::new(&dev, s)?;
    let device_values = r.values()?;
    if let Some(i) = (0..set.len()).find(|&i| device_values[i] != set.value(i as u64)) {
        return Err(Error::Run(format!(
            "{}: the device's operand {i:#x} is {:#x}, the CPU's set says {:#x}: the value kernel is wrong",
            s.name,
            device_values[i],
            set.value(i as u64)
        )));
    }
    let t = Instant::now();
    let silicon = r.sweep()?;
    let gpu_s = t.elapsed().as_secs_f64();
    // The digest kernel itself, checked on real data.
    let here = raw_digest(s, 0, &r.raw_row(0)?);
    if here != silicon[0] {
        return Err(Error::Run(format!(
            "{}: the device's digest of row 0 ({:016x}) is not its raw results' ({here:016x}): the digest kernel is wrong",
            s.name, silicon[0]
        )));
    }
    // The fast oracle, held to the scalar one on this CPU, then every row.
    let replay = Replay::new(s)?;
    replay.check_rows(&s.spot_rows())?;
    let t = Instant::now();
    let oracle = replay.row_digests(0..s.rows());
    let cpu_s = t.elapsed().as_secs_f64();
    let mut rows = Vec::new();
    let mut differing = 0u64;
    let mut pairs = Vec::new();
    let hex = |x: u64| format!("0x{x:0w$x}", w = (s.stride() * 2) as usize);
    for row in 0..s.rows() {
        let (got, mut want) = (silicon[row as usize], oracle[row as usize]);
        if got == want {
            continue;
        }
        differing += 1;
        if rows.len() >= MAX_LISTED_ROWS {
            continue;
        }
        let mut n = None;
        if rows.len() < MAX_RAW_ROWS {
            // The scalar oracle decides: a fast oracle that differs from it is a
            // fault here, not a finding.
            let scalar = s.scalar_row_digest(row)?;
            if scalar != want {
                return Err(WideError::FastDiffers {
                    sweep: s.name.to_owned(),
                    row,
                    fast: want,
                    scalar,
                    level: replay.level().name(),
                }
                .into());
            }
            want = scalar;
            let raw = r.raw_row(row)?;
            let mut count = 0;
            for (o, &bits) in raw.iter().enumerate() {
                let p = row * s.rows() + o as u64;
                let expected = s.result(p)?;
                if bits != expected {
                    count += 1;
                    if pairs.len() < MAX_PAIRS {
                        let (m, op) = s.operands(p);
                        pairs.push(PairMismatch {
                            mem: hex(m),
                            operand: hex(op),
                            silicon: hex(bits),
                            oracle: hex(expected),
                        });
                    }
                }
            }
            n = Some(count);
        }
        rows.push(RowMismatch {
            row: format!("{row:#x}"),
            mem: hex(set.value(row)),
            silicon: format!("{got:016x}"),
            oracle: format!("{want:016x}"),
            pairs: n,
        });
    }
    note(format_args!(
        "{}: gpu {gpu_s:.3} s, oracle {cpu_s:.1} s ({}, {} threads), {differing} rows differ",
        s.name,
        replay.level().name(),
        rayon::current_num_threads(),
    ));
    Ok(WideResult {
        name: s.name.to_owned(),
        text: text(s),
        block_pairs: s.block_pairs(),
        blocks: blocks_from_rows(&silicon)
            .iter()
            .map(|d| format!("{d:016x}"))
            .collect(),
        differing_rows: differing,
        mismatched_rows: rows,
        mismatches: pairs,
    })
}

// ------------------------------------------------------------------ the file

/// One JSON object on a line, from its fields already rendered.
fn object(fields: &[(&str, String)]) -> String {
    let inner: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}: {v}", q(k)))
        .collect();
    format!("{{{}}}", inner.join(", "))
}

/// `"key": [` … `]` with one rendered item a line at `indent`, or `[]`.
fn list(o: &mut String, key: &str, items: &[String], indent: &str, last: bool) {
    let _ = write!(o, "{indent}{}: [", q(key));
    for (j, item) in items.iter().enumerate() {
        let sep = if j == 0 { "" } else { "," };
        let _ = write!(o, "{sep}\n{indent}  {item}");
    }
    if !items.is_empty() {
        let _ = write!(o, "\n{indent}");
    }
    o.push(']');
    if !last {
        o.push(',');
    }
    o.push('\n');
}

/// The evidence file's bytes: fixed key order, eight digests a line, the sets of
/// both formats in the header.
pub fn render(header: &Header, records: &[WideResult]) -> String {
    let mut o = format!("{{\n{}", header.pretty());
    let _ = write!(
        o,
        "  \"ptx\": {},\n  \"target\": {},\n  \"digest\": {},\n",
        q(PTX_VERSION),
        q(TARGET),
        q(DIGEST),
    );
    let sets: Vec<String> = [Set::f32(), Set::f64()]
        .iter()
        .map(|s| {
            let r = SetRecord::of(s);
            object(&[
                ("format", q(&r.format)),
                ("values", r.values.to_string()),
                ("patterns", r.patterns.to_string()),
                ("sha256", q(&r.sha256)),
            ])
        })
        .collect();
    list(&mut o, "sets", &sets, "  ", false);
    o += "  \"sweeps\": [";
    for (i, r) in records.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(
            o,
            "{sep}\n    {{\n      \"name\": {},\n      \"text\": {},\n      \"block_pairs\": {},\n",
            q(&r.name),
            q(&r.text),
            r.block_pairs
        );
        let blocks: Vec<String> = r
            .blocks
            .chunks(8)
            .map(|c| c.iter().map(|d| q(d)).collect::<Vec<_>>().join(", "))
            .collect();
        list(&mut o, "blocks", &blocks, "      ", false);
        let _ = writeln!(o, "      \"differing_rows\": {},", r.differing_rows);
        let rows: Vec<String> = r
            .mismatched_rows
            .iter()
            .map(|m| {
                object(&[
                    ("row", q(&m.row)),
                    ("mem", q(&m.mem)),
                    ("silicon", q(&m.silicon)),
                    ("oracle", q(&m.oracle)),
                    (
                        "pairs",
                        m.pairs.map_or("null".to_owned(), |n| n.to_string()),
                    ),
                ])
            })
            .collect();
        list(&mut o, "mismatched_rows", &rows, "      ", false);
        let pairs: Vec<String> = r
            .mismatches
            .iter()
            .map(|m| {
                object(&[
                    ("mem", q(&m.mem)),
                    ("operand", q(&m.operand)),
                    ("silicon", q(&m.silicon)),
                    ("oracle", q(&m.oracle)),
                ])
            })
            .collect();
        list(&mut o, "mismatches", &pairs, "      ", true);
        o += "    }";
    }
    o += "\n  ]\n}\n";
    o
}

/// Reads an evidence file's text: the format, the sweeps known, each with
/// [`BLOCKS`] blocks of its own block size.
pub fn parse(text: &str) -> Result<WideFile> {
    let bad = |m: String| Err(Error::Input(m));
    let e: WideFile = serde_json::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    expect_format(&e.header, FORMAT).map_err(Error::Input)?;
    for r in &e.sweeps {
        let Some(s) = WideSweep::find(&r.name) else {
            return bad(format!("{}: no such wide sweep", r.name));
        };
        if r.blocks.len() != BLOCKS {
            return bad(format!(
                "{}: {} blocks, expected {BLOCKS}",
                r.name,
                r.blocks.len()
            ));
        }
        if (r.differing_rows as usize) < r.mismatched_rows.len() {
            return bad(format!(
                "{}: {} rows listed as differing, {} counted",
                r.name,
                r.mismatched_rows.len(),
                r.differing_rows
            ));
        }
        if r.block_pairs != s.block_pairs() {
            return bad(format!(
                "{}: block_pairs {}, expected {}",
                r.name,
                r.block_pairs,
                s.block_pairs()
            ));
        }
    }
    Ok(e)
}

/// A recorded block digest as a number.
pub fn block(r: &WideResult, i: usize) -> Result<u64> {
    let h = r
        .blocks
        .get(i)
        .ok_or_else(|| Error::Input(format!("{}: no block {i}", r.name)))?;
    u64::from_str_radix(h, 16)
        .map_err(|e| Error::Input(format!("{}: block {i}: {h:?}: {e}", r.name)))
}

#[cfg(test)]
mod tests;
