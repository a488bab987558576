//! The PTX text of a self-checking module. Layout and calling convention:
//! vectors/silicon/README.md ("Self-checking modules").
//!
//! Idioms follow the probe kernels (`crate::silicon::probes`), which silicon ran:
//! shared forms copy the word into shared memory and back; the bulk reduction is
//! issued by thread 0 for its block after `fence.proxy.async` and `bar.sync`;
//! warp lanes that are members but do not execute `exit` first, other lanes that do
//! not execute branch around the instruction.

use std::fmt::Write;

use ptxvec_oracle::profile::Profile;

use super::{
    code, contention as contention_of, skipped, Kind, MemSpace, Suite, WarpOp, Window, BLOCK,
    FIRST_FAILS, WARP,
};
use crate::record::{Expectation, Inputs, Out};

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
    /// Bytes of one memory record (elements × width).
    pub fn stride(&self) -> usize {
        match self.kind {
            Kind::Memory { width, lanes, .. } => (width / 8 * lanes) as usize,
            Kind::Warp { .. } => WARP * LANE_BYTES,
        }
    }

    /// Blocks of one thread per record for a memory variant: the records' own
    /// threads (contention records among them sit idle), rounded up to whole
    /// clusters of two for the `.shared::cluster` bulk form.
    pub fn plain_grid(&self) -> u32 {
        let g = self.records.len().div_ceil(BLOCK as usize) as u32;
        match self.kind {
            Kind::Memory {
                space: MemSpace::BulkCluster,
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
    /// whose first 32 threads reduce into one address; warp variants one block of
    /// 32 per record.
    pub fn launch(&self) -> Launch {
        let n = self.records.len();
        let result_bytes = RESULT_PER_PROFILE * Profile::ALL.len();
        match self.kind {
            Kind::Memory { .. } => {
                let plain = self.plain_grid();
                Launch {
                    grid: plain + self.contention_records().len() as u32,
                    block: BLOCK,
                    out_bytes: plain as usize * BLOCK as usize * self.stride(),
                    result_bytes,
                }
            }
            Kind::Warp { .. } => Launch {
                grid: n as u32,
                block: WARP as u32,
                out_bytes: n * WARP * LANE_BYTES,
                result_bytes,
            },
        }
    }
}

fn reg(bits: u32, n: u32) -> String {
    match bits {
        8 | 16 => format!("%h{n}"),
        32 => format!("%r{n}"),
        _ => format!("%rd{n}"),
    }
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

fn array(m: &mut String, name: &str, bits: u32, vals: &[u64]) {
    let digits = (bits / 4) as usize;
    let _ = writeln!(
        m,
        ".global .align {} .b{bits} {name}[{}] = {{",
        (bits / 8).max(4),
        vals.len()
    );
    for (i, chunk) in vals.chunks(8).enumerate() {
        let line: Vec<String> = chunk.iter().map(|v| format!("0x{v:0digits$x}")).collect();
        let sep = if (i + 1) * 8 < vals.len() { "," } else { "" };
        let _ = writeln!(m, "    {}{sep}", line.join(", "));
    }
    m.push_str("};\n");
}

/// `ld` of a `width`-bit value at `addr` into the 64-bit register `dst`.
fn load64(b: &mut String, dst: &str, addr: &str, width: u32) {
    let _ = match store_bits(width) {
        8 => writeln!(
            b,
            "    ld.global.u8 %r41, [{addr}];\n    cvt.u64.u32 {dst}, %r41;"
        ),
        16 => writeln!(
            b,
            "    ld.global.u16 %h41, [{addr}];\n    cvt.u64.u16 {dst}, %h41;"
        ),
        32 => writeln!(
            b,
            "    ld.global.u32 %r41, [{addr}];\n    cvt.u64.u32 {dst}, %r41;"
        ),
        _ => writeln!(b, "    ld.global.u64 {dst}, [{addr}];"),
    };
}

/// Per profile, per output: the symbol prefix of its expectation arrays (profiles
/// whose arrays equal an earlier profile's share them).
struct ExpectData {
    text: String,
    prefix: Vec<Vec<String>>,
}

fn expect_data(s: &Suite) -> ExpectData {
    let mut text = String::new();
    let outs = s.outputs();
    let mut prefix = vec![Vec::new(); Profile::ALL.len()];
    let mut emitted: Vec<(Vec<&Expectation>, String)> = Vec::new();
    for (pi, p) in Profile::ALL.iter().enumerate() {
        for (o, width) in &outs {
            let slots: Vec<&Expectation> =
                s.records.iter().flat_map(|r| s.slots(r, *p, *o)).collect();
            if let Some((_, name)) = emitted.iter().find(|(e, _)| *e == slots) {
                prefix[pi].push(name.clone());
                continue;
            }
            let name = format!("ptxvec_expect_{}_{}", p.name().replace('-', "_"), o.name());
            let codes: Vec<(u8, u64, u64)> = slots.iter().map(|x| code(x)).collect();
            let bits = store_bits(*width);
            let kinds: Vec<u64> = codes.iter().map(|c| u64::from(c.0)).collect();
            let a: Vec<u64> = codes.iter().map(|c| c.1).collect();
            let bb: Vec<u64> = codes.iter().map(|c| c.2).collect();
            let _ = writeln!(
                text,
                "// {} expectations of `{}`: kind (bit 0: a or b, bit 1: any NaN, bit 2: anything), a, b.",
                p.name(),
                o.name()
            );
            array(&mut text, &format!("{name}_kind"), 8, &kinds);
            array(&mut text, &format!("{name}_a"), bits, &a);
            if bb == a {
                let _ = writeln!(text, "// {name}_b: the same as {name}_a");
            } else {
                array(&mut text, &format!("{name}_b"), bits, &bb);
            }
            emitted.push((slots, name.clone()));
            prefix[pi].push(name);
        }
    }
    ExpectData { text, prefix }
}

/// Whether the `_b` array of `prefix` was emitted.
fn has_b(data: &str, prefix: &str) -> bool {
    data.contains(&format!(" {prefix}_b["))
}

/// The whole module for `s` with `.version ptx` and `.target target`.
pub fn module(s: &Suite, ptx: &str, target: &str, entries: Entries) -> String {
    let l = s.launch();
    let n = s.records.len();
    let skipped = n - s.run_count();
    let mut m = String::new();
    let _ = writeln!(
        m,
        "// Generated by `ptxvec emit-ptx --variant {}{}{}`; do not edit.\n\
         // Self-checking semantic vectors (vectors/silicon/README.md).\n\
         // variant: {}\n// records: {n} (run {}, skipped {skipped}: a lane executes outside the membermask){}\n\
         // launch: grid ({}, 1, 1), block ({}, 1, 1), no dynamic shared memory, one launch at a time\n\
         // {RAW}(.param .u64 out): writes {} bytes at out\n{}",
        s.id,
        match s.window {
            Some(w) if w != Window::Global => format!(" --window {}", w.name()),
            _ => String::new(),
        },
        if entries == Entries::Raw { " --raw" } else { "" },
        s.id,
        s.run_count(),
        window_note(s),
        l.grid,
        l.block,
        l.out_bytes,
        if entries == Entries::Both {
            format!(
                "// {CHECK}(.param .u64 result): writes {} bytes at result: per profile ({}) u32 pass, fail, first_fail[{FIRST_FAILS}]\n",
                l.result_bytes,
                Profile::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(m, ".version {ptx}\n.target {target}\n.address_size 64\n");
    m += &inputs_data(s);
    let data = if entries == Entries::Both {
        let d = expect_data(s);
        m += &d.text;
        let fail_words: Vec<u64> = vec![0; n];
        array(&mut m, "ptxvec_fails", 32, &fail_words);
        m += ".global .align 4 .u32 ptxvec_done;\n";
        if matches!(s.kind, Kind::Memory { .. }) {
            let _ = writeln!(m, ".global .align 16 .b8 ptxvec_scratch[{}];", l.out_bytes);
        }
        Some(d)
    } else {
        None
    };
    if let Kind::Memory { space, .. } = s.kind {
        let bytes = BLOCK as usize * s.stride();
        match space {
            MemSpace::SharedCta
            | MemSpace::SharedCluster
            | MemSpace::GenericShared
            | MemSpace::BulkGlobal => {
                let _ = writeln!(m, ".shared .align 16 .b8 ptxvec_sbuf[{bytes}];");
            }
            MemSpace::BulkCluster => {
                let _ = writeln!(
                    m,
                    ".shared .align 16 .b8 ptxvec_sbuf[{bytes}];\n.shared .align 16 .b8 ptxvec_sbuf2[{bytes}];\n.shared .align 8 .b64 ptxvec_mbar;"
                );
            }
            MemSpace::Global | MemSpace::Generic => {}
        }
    }
    m.push('\n');
    if let Some(d) = &data {
        m += &entry(s, Some(d));
        m.push('\n');
    }
    m += &entry(s, None);
    m
}

/// The header's words on contention blocks, the window and clusters.
fn window_note(s: &Suite) -> String {
    let mut note = String::new();
    let c = s.contention_records().len();
    if c > 0 {
        let _ = write!(
            note,
            "\n// blocks {}..{}: one contention record each, its first 32 threads on one address",
            s.plain_grid(),
            s.plain_grid() as usize + c
        );
    }
    let _ = match s.window {
        Some(Window::Global) => write!(
            note,
            "\n// window: the generic address points into global memory"
        ),
        Some(Window::Shared) => write!(
            note,
            "\n// window: the generic address points into the CTA's shared memory"
        ),
        Some(Window::GlobalSpace | Window::SharedSpace) => write!(
            note,
            "\n// window: spelled `{}` (the variant is stated with generic addressing)",
            s.opcode
        ),
        None => Ok(()),
    };
    if let Kind::Memory {
        space: MemSpace::BulkCluster,
        ..
    } = s.kind
    {
        let _ = write!(
            note,
            "\n// clusters of {CLUSTER} CTAs (.reqnctapercluster): each CTA reduces into its peer's shared memory"
        );
    }
    note
}

fn inputs_data(s: &Suite) -> String {
    let mut m = String::new();
    match s.kind {
        Kind::Memory { width, .. } => {
            let (mut mem, mut op) = (Vec::new(), Vec::new());
            for r in &s.records {
                // A contention record's own thread carries the first thread's operand.
                let (a, b) = match &r.inputs {
                    Inputs::Memory { mem, operand } => (mem, Some(operand)),
                    Inputs::Contention { mem, operands } => (mem, operands.first()),
                    Inputs::Warp(_) => continue,
                };
                mem.extend(a.iter().map(|x| x.value));
                op.extend(b.into_iter().flatten().map(|x| x.value));
            }
            m += "// Inputs: memory before, operand; element after element, record after record.\n";
            array(&mut m, "ptxvec_mem_in", width, &mem);
            array(&mut m, "ptxvec_operand", width, &op);
            let contention = s.contention_records();
            if !contention.is_empty() {
                let flags: Vec<u64> = s
                    .records
                    .iter()
                    .map(|r| u64::from(contention_of(r).is_some()))
                    .collect();
                let idx: Vec<u64> = contention.iter().map(|&r| r as u64).collect();
                let ops: Vec<u64> = contention
                    .iter()
                    .flat_map(|&r| {
                        contention_of(&s.records[r])
                            .unwrap_or_default()
                            .iter()
                            .flatten()
                            .map(|x| x.value)
                    })
                    .collect();
                m += "// Per record: 1 for a contention record (its own thread stays idle).\n";
                array(&mut m, "ptxvec_contended", 8, &flags);
                m += "// Per contention block: its record.\n";
                array(&mut m, "ptxvec_contention_record", 32, &idx);
                m += "// Per contention block, per thread (32): its operand.\n";
                array(&mut m, "ptxvec_operands", width, &ops);
            }
        }
        Kind::Warp { op, wide } => {
            let (mut flags, mut mm, mut ex, mut exits, mut a, mut b, mut c) =
                (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
            for r in &s.records {
                if let Inputs::Warp(w) = &r.inputs {
                    let value = |x: Option<crate::record::Bits>| x.map_or(0, |x| x.value);
                    flags.push(u64::from(skipped(r)) | u64::from(s.negates(r)) << 1);
                    mm.push(value(w.membermask));
                    ex.push(w.executing.value);
                    exits.push(w.exits());
                    match &w.a {
                        Some(la) => a.extend(la.iter().map(|x| x.value)),
                        None => a.extend([0; WARP]),
                    }
                    b.extend((0..WARP).map(|l| w.b.as_ref().map_or(0, |b| b.lane(l))));
                    c.push(value(w.c));
                }
            }
            m += "// Per record: flags (bit 0 skip, bit 1 negate the predicate source), membermask,\n\
                  // executing lanes, lanes that exit first (the others branch around).\n";
            array(&mut m, "ptxvec_flags", 32, &flags);
            array(&mut m, "ptxvec_membermask", 32, &mm);
            array(&mut m, "ptxvec_executing", 32, &ex);
            array(&mut m, "ptxvec_exits", 32, &exits);
            if op != WarpOp::Activemask {
                m += "// Per record and lane: a.\n";
                array(&mut m, "ptxvec_a", if wide { 64 } else { 32 }, &a);
            }
            if op == WarpOp::Shfl {
                m += "// Per record and lane: b. Per record: c.\n";
                array(&mut m, "ptxvec_b", 32, &b);
                array(&mut m, "ptxvec_c", 32, &c);
            }
        }
    }
    m
}

const DECLS: &str = "    .reg .pred %p<20>;\n    .reg .b16 %h<64>;\n    .reg .b32 %r<80>;\n    .reg .b64 %rd<80>;\n    .reg .f32 %f<4>;\n";

/// One entry: `ptxvec_check` when `check` holds the expectation symbols, else `ptxvec_raw`.
fn entry(s: &Suite, check: Option<&ExpectData>) -> String {
    let (name, param) = if check.is_some() {
        (CHECK, "result")
    } else {
        (RAW, "out")
    };
    let mut b = String::new();
    // The bulk reduction into shared::cluster reaches the peer CTA of a cluster.
    // A compile-time cluster size keeps a plain launch (silicon, H200: without
    // cluster dimensions the instruction faults even on the CTA's own memory, E025).
    let cluster = if matches!(
        s.kind,
        Kind::Memory {
            space: MemSpace::BulkCluster,
            ..
        }
    ) {
        format!(".reqnctapercluster {CLUSTER}, 1, 1\n")
    } else {
        String::new()
    };
    let _ = writeln!(
        b,
        ".visible .entry {name}(.param .u64 {param})\n{cluster}{{\n{DECLS}"
    );
    b += "    mov.u32 %r0, %tid.x;\n    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mad.lo.u32 %r3, %r1, %r2, %r0;\n";
    if check.is_some() {
        if matches!(s.kind, Kind::Memory { .. }) {
            b += "    mov.u64 %rd1, ptxvec_scratch;\n";
        }
    } else {
        let _ = writeln!(
            b,
            "    ld.param.u64 %rd0, [{param}];\n    cvta.to.global.u64 %rd1, %rd0;"
        );
    }
    match s.kind {
        Kind::Memory { .. } => memory_body(&mut b, s, check),
        Kind::Warp { .. } => warp_body(&mut b, s, check),
    }
    b += "DONE:\n";
    if let Some(_d) = check {
        tally(&mut b, s);
    }
    b += "END:\n    ret;\n}\n";
    b
}

/// A memory record's elements and operand registers: what each memory body loads,
/// copies and reduces.
struct Elems {
    /// Element width in bits.
    width: u32,
    /// Elements per record.
    lanes: u32,
    /// The operand registers (`%r20`, …), one per element or per packed pair.
    regs: Vec<String>,
    /// Their width in bits.
    reg_bits: u32,
    /// The operand as the instruction takes it (`{%h20, %h21}` for a vector).
    operand: String,
}

impl Elems {
    fn new(width: u32, lanes: u32, packed: bool, vector: bool) -> Elems {
        let reg_bits = if packed { 32 } else { width };
        let nregs = if packed { lanes / 2 } else { lanes };
        let regs: Vec<String> = (0..nregs).map(|j| reg(reg_bits, 20 + j)).collect();
        let operand = if vector {
            format!("{{{}}}", regs.join(", "))
        } else {
            regs.join(", ")
        };
        Elems {
            width,
            lanes,
            regs,
            reg_bits,
            operand,
        }
    }

    /// Copies every element from `(space, address)` to `(space, address)` through
    /// the scratch register of the element's width (`%h40`, `%r40`, `%rd40`). Under
    /// `guard` a thread loads only where the predicate holds and stores zero
    /// otherwise (a padding thread of a block).
    fn copy(&self, b: &mut String, guard: Option<&str>, from: (&str, &str), to: (&str, &str)) {
        let (width, ty, t) = (self.width, format!(".b{}", self.width), reg(self.width, 40));
        for k in 0..self.lanes {
            let off = k * width / 8;
            let _ = match guard {
                Some(p) => writeln!(
                    b,
                    "    mov.b{width} {t}, 0;\n    @{p} ld.{}{ty} {t}, [{}+{off}];\n    st.{}{ty} [{}+{off}], {t};",
                    from.0, from.1, to.0, to.1
                ),
                None => writeln!(
                    b,
                    "    ld.{}{ty} {t}, [{}+{off}];\n    st.{}{ty} [{}+{off}], {t};",
                    from.0, from.1, to.0, to.1
                ),
            };
        }
    }

    /// Loads the operand registers from global memory at `base`.
    fn load_operands(&self, b: &mut String, base: &str) {
        for (j, r) in self.regs.iter().enumerate() {
            let _ = writeln!(
                b,
                "    ld.global.b{} {r}, [{base}+{}];",
                self.reg_bits,
                j as u32 * self.reg_bits / 8
            );
        }
    }
}

fn memory_body(b: &mut String, s: &Suite, check: Option<&ExpectData>) {
    let Kind::Memory {
        space,
        width,
        lanes,
        packed,
        vector,
        ..
    } = s.kind
    else {
        return;
    };
    let n = s.records.len();
    let stride = s.stride();
    let wb = width / 8;
    let block_bytes = BLOCK as usize * stride;
    let e = Elems::new(width, lanes, packed, vector);
    let operand = &e.operand;
    let bulk = matches!(space, MemSpace::BulkGlobal | MemSpace::BulkCluster);
    let contention = !s.contention_records().is_empty();
    if contention {
        let _ = writeln!(
            b,
            "    setp.ge.u32 %p4, %r1, {};\n    @%p4 bra CONTEND;",
            s.plain_grid()
        );
    }
    let _ = writeln!(b, "    setp.lt.u32 %p0, %r3, {n};");
    if !bulk {
        *b += "    @!%p0 bra DONE;\n";
    }
    let _ = writeln!(
        b,
        "    mul.wide.u32 %rd2, %r3, {stride};\n    add.u64 %rd3, %rd1, %rd2;\n\
         \x20   mov.u64 %rd4, ptxvec_mem_in;\n    add.u64 %rd4, %rd4, %rd2;\n\
         \x20   mov.u64 %rd5, ptxvec_operand;\n    add.u64 %rd5, %rd5, %rd2;\n\
         \x20   mul.wide.u32 %rd7, %r0, {stride};"
    );
    if contention {
        // A contention record's own thread stays idle: its block runs it.
        *b += "    mov.u64 %rd30, ptxvec_contended;\n    cvt.u64.u32 %rd31, %r3;\n    add.u64 %rd30, %rd30, %rd31;\n\
              \x20   ld.global.u8 %r12, [%rd30];\n    setp.ne.u32 %p5, %r12, 0;\n    @%p5 bra DONE;\n";
    }
    // A record's elements from global `src` to `dst` in space `sp`; the bulk forms
    // run every thread of the block and store zero past the last record.
    let guard = bulk.then_some("%p0");
    let copy = |b: &mut String, src: &str, dst: &str, sp: &str| {
        e.copy(b, guard, ("global", src), (sp, dst));
    };
    match space {
        MemSpace::Global | MemSpace::Generic => {
            copy(b, "%rd4", "%rd3", "global");
            e.load_operands(b, "%rd5");
            *b += "    mov.u64 %rd6, %rd3;\n";
            let addr = reduce_address(b, space);
            let _ = writeln!(b, "    {} [{addr}], {operand};", s.opcode);
        }
        MemSpace::SharedCta | MemSpace::SharedCluster | MemSpace::GenericShared => {
            *b += "    mov.u64 %rd6, ptxvec_sbuf;\n    add.u64 %rd6, %rd6, %rd7;\n";
            copy(b, "%rd4", "%rd6", "shared");
            e.load_operands(b, "%rd5");
            let addr = reduce_address(b, space);
            let _ = writeln!(b, "    {} [{addr}], {operand};", s.opcode);
            e.copy(b, None, ("shared", "%rd6"), ("global", "%rd3"));
        }
        MemSpace::BulkGlobal => {
            // PTX ISA (cp.reduce.async.bulk): size a multiple of 16, addresses
            // 16-byte aligned; generic-proxy writes need fence.proxy.async before
            // the async proxy reads them.
            *b += "    mov.u64 %rd8, ptxvec_sbuf;\n    add.u64 %rd6, %rd8, %rd7;\n";
            copy(b, "%rd4", "%rd3", "global");
            copy(b, "%rd5", "%rd6", "shared");
            let _ = writeln!(
                b,
                "    fence.proxy.async.global;\n    fence.proxy.async.shared::cta;\n    bar.sync 0;\n\
                 \x20   setp.ne.u32 %p1, %r0, 0;\n    @%p1 bra ISSUED;\n\
                 \x20   mul.wide.u32 %rd9, %r1, {block_bytes};\n    add.u64 %rd10, %rd1, %rd9;\n    mov.u32 %r10, {block_bytes};\n\
                 \x20   {} [%rd10], [%rd8], %r10;\n\
                 \x20   cp.async.bulk.commit_group;\n    cp.async.bulk.wait_group 0;\n    fence.proxy.async.global;\n\
                 ISSUED:\n    bar.sync 0;\n    @!%p0 bra DONE;",
                s.opcode
            );
        }
        MemSpace::BulkCluster => {
            // Each CTA of a cluster of two reduces into its peer's shared memory:
            // its destination (`sbuf`) holds its own records' memory, its source
            // (`sbuf2`) the operands of the peer's records. Each CTA arms its own
            // mbarrier with the bytes it will receive before a cluster barrier, thread
            // 0 then issues the reduction into the peer's `sbuf` completing on the
            // peer's mbarrier (addresses through `mapa`), everyone waits on phase 0
            // (bounded, so a lost completion cannot hang the device), and a second
            // cluster barrier keeps both CTAs' shared memory alive until both
            // reductions are done.
            *b += "    mov.u64 %rd8, ptxvec_sbuf;\n    mov.u64 %rd11, ptxvec_sbuf2;\n    mov.u64 %rd12, ptxvec_mbar;\n\
                  \x20   add.u64 %rd6, %rd8, %rd7;\n    add.u64 %rd9, %rd11, %rd7;\n\
                  \x20   mov.u32 %r14, %cluster_ctarank;\n    xor.b32 %r15, %r14, 1;\n\
                  \x20   sub.u32 %r16, %r1, %r14;\n    add.u32 %r16, %r16, %r15;\n    mad.lo.u32 %r17, %r16, %r2, %r0;\n";
            let _ = writeln!(
                b,
                "    setp.lt.u32 %p9, %r17, {n};\n    mul.wide.u32 %rd30, %r17, {stride};\n\
                 \x20   mov.u64 %rd31, ptxvec_operand;\n    add.u64 %rd31, %rd31, %rd30;"
            );
            copy(b, "%rd4", "%rd6", "shared");
            e.copy(b, Some("%p9"), ("global", "%rd31"), ("shared", "%rd9"));
            let _ = writeln!(
                b,
                "    setp.eq.u32 %p1, %r0, 0;\n    @%p1 mbarrier.init.shared::cta.b64 [%rd12], 1;\n\
                 \x20   fence.mbarrier_init.release.cluster;\n    fence.proxy.async.shared::cta;\n    mov.u32 %r10, {block_bytes};\n\
                 \x20   @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd13, [%rd12], %r10;\n\
                 \x20   barrier.cluster.arrive;\n    barrier.cluster.wait;\n\
                 \x20   @!%p1 bra ARMED;\n\
                 \x20   mapa.shared::cluster.u64 %rd33, %rd8, %r15;\n    mapa.shared::cluster.u64 %rd34, %rd12, %r15;\n\
                 \x20   {} [%rd33], [%rd11], %r10, [%rd34];\n\
                 ARMED:\n    mov.u32 %r11, 0;\nWAIT:\n\
                 \x20   mbarrier.try_wait.parity.shared::cta.b64 %p2, [%rd12], 0;\n    @%p2 bra WAITED;\n\
                 \x20   add.u32 %r11, %r11, 1;\n    setp.lt.u32 %p3, %r11, 1000000;\n    @%p3 bra WAIT;\n\
                 WAITED:\n    barrier.cluster.arrive;\n    barrier.cluster.wait;\n    @!%p0 bra DONE;",
                s.opcode
            );
            e.copy(b, None, ("shared", "%rd6"), ("global", "%rd3"));
        }
    }
    if contention {
        *b += "    bra CHECK;\n";
        contention_body(b, s, &e);
        *b += "CHECK:\n";
    }
    if let Some(d) = check {
        // Slot base: record × lanes; the record's fail word.
        let _ = writeln!(
            b,
            "    mul.wide.u32 %rd14, %r3, {lanes};\n    mul.wide.u32 %rd18, %r3, 4;\n    mov.u64 %rd19, ptxvec_fails;\n    add.u64 %rd18, %rd19, %rd18;"
        );
        for k in 0..lanes {
            load64(b, "%rd50", &format!("%rd3+{}", k * wb), width);
            for (pi, prefixes) in d.prefix.iter().enumerate() {
                compare(b, d, &prefixes[0], width, k, s.inf(Out::Mem), pi);
            }
        }
    }
}

/// The address the reduction takes, from the destination in `%rd6` (global or
/// shared space): generic spaces convert it to a generic address in `%rd9`.
fn reduce_address(b: &mut String, space: MemSpace) -> &'static str {
    match space {
        MemSpace::Generic => {
            *b += "    cvta.global.u64 %rd9, %rd6;\n";
            "%rd9"
        }
        MemSpace::GenericShared => {
            *b += "    cvta.shared.u64 %rd9, %rd6;\n";
            "%rd9"
        }
        _ => "%rd6",
    }
}

/// A contention block (`CONTEND`): thread 0 stores the record's memory, 32 threads
/// reduce their operands into that one address between two barriers, thread 0
/// copies a shared result out, and goes on to `CHECK` with the record in `%r3` and
/// its output in `%rd3`.
fn contention_body(b: &mut String, s: &Suite, e: &Elems) {
    let Kind::Memory { space, .. } = s.kind else {
        return;
    };
    let stride = s.stride();
    let shared = matches!(
        space,
        MemSpace::SharedCta | MemSpace::SharedCluster | MemSpace::GenericShared
    );
    let _ = writeln!(
        b,
        "CONTEND:\n    sub.u32 %r12, %r1, {};\n    mul.wide.u32 %rd30, %r12, 4;\n\
         \x20   mov.u64 %rd31, ptxvec_contention_record;\n    add.u64 %rd31, %rd31, %rd30;\n    ld.global.u32 %r3, [%rd31];\n\
         \x20   mul.wide.u32 %rd2, %r3, {stride};\n    add.u64 %rd3, %rd1, %rd2;\n\
         \x20   mov.u64 %rd4, ptxvec_mem_in;\n    add.u64 %rd4, %rd4, %rd2;\n\
         \x20   shl.b32 %r13, %r12, 5;\n    add.u32 %r13, %r13, %r0;\n    mul.wide.u32 %rd5, %r13, {stride};\n\
         \x20   mov.u64 %rd32, ptxvec_operands;\n    add.u64 %rd5, %rd32, %rd5;\n\
         \x20   setp.eq.u32 %p7, %r0, 0;\n    setp.lt.u32 %p8, %r0, {WARP};",
        s.plain_grid()
    );
    let sp = if shared {
        *b += "    mov.u64 %rd6, ptxvec_sbuf;\n";
        "shared"
    } else {
        *b += "    mov.u64 %rd6, %rd3;\n";
        "global"
    };
    *b += "    @!%p7 bra CSTORED;\n";
    e.copy(b, None, ("global", "%rd4"), (sp, "%rd6"));
    *b += "CSTORED:\n    bar.sync 0;\n    @!%p8 bra CREDUCED;\n";
    e.load_operands(b, "%rd5");
    let addr = reduce_address(b, space);
    let _ = writeln!(
        b,
        "    {} [{addr}], {};\nCREDUCED:\n    bar.sync 0;\n    @!%p7 bra DONE;",
        s.opcode, e.operand
    );
    if shared {
        e.copy(b, None, ("shared", "%rd6"), ("global", "%rd3"));
    }
}

/// Compares the 64-bit `%rd50` with slot `%rd14 + k` of the arrays at `prefix`;
/// on a mismatch sets bit `profile` of the record's fail word at `%rd18`.
fn compare(
    b: &mut String,
    d: &ExpectData,
    prefix: &str,
    width: u32,
    k: u32,
    inf: Option<u64>,
    profile: usize,
) {
    let sb = store_bits(width) / 8;
    let shift = sb.trailing_zeros();
    let bsym = if has_b(&d.text, prefix) {
        format!("{prefix}_b")
    } else {
        format!("{prefix}_a")
    };
    let _ = writeln!(
        b,
        "    mov.u64 %rd15, {prefix}_kind;\n    add.u64 %rd15, %rd15, %rd14;\n    ld.global.u8 %r50, [%rd15+{k}];\n\
         \x20   shl.b64 %rd16, %rd14, {shift};\n    mov.u64 %rd17, {prefix}_a;\n    add.u64 %rd17, %rd17, %rd16;"
    );
    load64(b, "%rd51", &format!("%rd17+{}", k * sb), width);
    let _ = writeln!(
        b,
        "    mov.u64 %rd17, {bsym};\n    add.u64 %rd17, %rd17, %rd16;"
    );
    load64(b, "%rd52", &format!("%rd17+{}", k * sb), width);
    *b += "    setp.eq.u64 %p10, %rd50, %rd51;\n    setp.eq.u64 %p11, %rd50, %rd52;\n    or.pred %p10, %p10, %p11;\n\
          \x20   and.b32 %r51, %r50, 1;\n    setp.ne.u32 %p11, %r51, 0;\n    and.pred %p10, %p10, %p11;\n";
    if let Some(inf) = inf {
        let magnitude = if width >= 64 {
            u64::MAX >> 1
        } else {
            (1u64 << (width - 1)) - 1
        };
        let _ = writeln!(
            b,
            "    and.b64 %rd53, %rd50, {magnitude:#x};\n    setp.gt.u64 %p12, %rd53, {inf:#x};\n\
             \x20   and.b32 %r51, %r50, 2;\n    setp.ne.u32 %p11, %r51, 0;\n    and.pred %p12, %p12, %p11;\n    or.pred %p10, %p10, %p12;"
        );
    }
    let _ = writeln!(
        b,
        "    and.b32 %r51, %r50, 4;\n    setp.ne.u32 %p11, %r51, 0;\n    or.pred %p10, %p10, %p11;\n\
         \x20   @!%p10 atom.global.or.b32 %r52, [%rd18], {};",
        1u32 << profile
    );
}

fn warp_body(b: &mut String, s: &Suite, check: Option<&ExpectData>) {
    let Kind::Warp { op, wide } = s.kind else {
        return;
    };
    let op_text = &s.opcode;
    *b += "    mul.wide.u32 %rd2, %r1, 4;\n\
          \x20   mov.u64 %rd4, ptxvec_flags;\n    add.u64 %rd4, %rd4, %rd2;\n    ld.global.u32 %r4, [%rd4];\n\
          \x20   mov.u64 %rd4, ptxvec_membermask;\n    add.u64 %rd4, %rd4, %rd2;\n    ld.global.u32 %r5, [%rd4];\n\
          \x20   mov.u64 %rd4, ptxvec_executing;\n    add.u64 %rd4, %rd4, %rd2;\n    ld.global.u32 %r6, [%rd4];\n\
          \x20   mov.u64 %rd4, ptxvec_exits;\n    add.u64 %rd4, %rd4, %rd2;\n    ld.global.u32 %r11, [%rd4];\n\
          \x20   and.b32 %r7, %r4, 1;\n    setp.ne.u32 %p0, %r7, 0;\n    @%p0 bra DONE;\n\
          \x20   shl.b32 %r8, 1, %r0;\n    and.b32 %r9, %r11, %r8;\n    and.b32 %r10, %r6, %r8;\n\
          \x20   setp.ne.u32 %p1, %r9, 0;\n    setp.eq.u32 %p2, %r10, 0;\n\
          \x20   // Lanes that exit first leave the warp; other lanes that do not execute branch around.\n\
          \x20   @%p1 exit;\n    @%p2 bra DONE;\n";
    let a = if wide { "%rd20" } else { "%r20" };
    if op != WarpOp::Activemask {
        let bytes = if wide { 8 } else { 4 };
        let _ = writeln!(
            b,
            "    mul.wide.u32 %rd3, %r3, {bytes};\n    mov.u64 %rd4, ptxvec_a;\n    add.u64 %rd4, %rd4, %rd3;\n    ld.global.b{} {a}, [%rd4];",
            bytes * 8
        );
    }
    if op == WarpOp::Shfl {
        *b += "    mul.wide.u32 %rd3, %r3, 4;\n    mov.u64 %rd4, ptxvec_b;\n    add.u64 %rd4, %rd4, %rd3;\n    ld.global.u32 %r21, [%rd4];\n\
              \x20   mov.u64 %rd4, ptxvec_c;\n    add.u64 %rd4, %rd4, %rd2;\n    ld.global.u32 %r22, [%rd4];\n";
    }
    *b += "    mov.u32 %r31, 0;\n";
    let negatable = |b: &mut String, dst: &str| {
        let _ = writeln!(
            b,
            "    setp.ne.u32 %p5, %r20, 0;\n    and.b32 %r7, %r4, 2;\n    setp.ne.u32 %p3, %r7, 0;\n    @%p3 bra NEGATED;\n\
             \x20   {op_text} {dst}, %p5, %r5;\n    bra JOINED;\nNEGATED:\n    {op_text} {dst}, !%p5, %r5;\nJOINED:"
        );
    };
    match op {
        WarpOp::Shfl => {
            let _ = writeln!(
                b,
                "    {op_text} %r30|%p6, %r20, %r21, %r22, %r5;\n    selp.u32 %r31, 1, 0, %p6;"
            );
        }
        WarpOp::Vote => {
            negatable(b, "%p6");
            *b += "    selp.u32 %r30, 1, 0, %p6;\n";
        }
        WarpOp::Ballot => negatable(b, "%r30"),
        WarpOp::MatchAny => {
            let _ = writeln!(b, "    {op_text} %r30, {a}, %r5;");
        }
        WarpOp::MatchAll => {
            let _ = writeln!(
                b,
                "    {op_text} %r30|%p6, {a}, %r5;\n    selp.u32 %r31, 1, 0, %p6;"
            );
        }
        WarpOp::ReduxInt => {
            let _ = writeln!(b, "    {op_text} %r30, %r20, %r5;");
        }
        WarpOp::ReduxF32 => {
            let _ = writeln!(
                b,
                "    mov.b32 %f1, %r20;\n    {op_text} %f2, %f1, %r5;\n    mov.b32 %r30, %f2;"
            );
        }
        WarpOp::Activemask => {
            let _ = writeln!(b, "    {op_text} %r30;");
        }
    }
    match check {
        None => {
            let _ = writeln!(
                b,
                "    mul.wide.u32 %rd5, %r3, {LANE_BYTES};\n    add.u64 %rd5, %rd1, %rd5;\n    st.global.v2.u32 [%rd5], {{%r30, %r31}};"
            );
        }
        Some(d) => {
            *b += "    cvt.u64.u32 %rd14, %r3;\n    mov.u64 %rd19, ptxvec_fails;\n    add.u64 %rd18, %rd19, %rd2;\n";
            for (oi, (o, width)) in s.outputs().into_iter().enumerate() {
                let src = if o == Out::P { "%r31" } else { "%r30" };
                let _ = writeln!(b, "    cvt.u64.u32 %rd50, {src};");
                for (pi, prefixes) in d.prefix.iter().enumerate() {
                    compare(b, d, &prefixes[oi], width, 0, s.inf(o), pi);
                }
            }
        }
    }
}

/// After every thread is done: the last one to arrive tallies the fail words in
/// record order (so first_fail is the lowest failing records), writes the result,
/// and clears the fail words and the arrival count for the next launch.
fn tally(b: &mut String, s: &Suite) {
    let l = s.launch();
    let n = s.records.len();
    // Threads that arrive: all but the members that exit.
    let total: u64 = match s.kind {
        Kind::Memory { .. } => u64::from(l.grid) * u64::from(l.block),
        Kind::Warp { .. } => s
            .records
            .iter()
            .map(|r| match &r.inputs {
                Inputs::Warp(w) if !skipped(r) => 32 - u64::from(w.exits().count_ones()),
                _ => 32,
            })
            .sum(),
    };
    let _ = writeln!(
        b,
        "    membar.gl;\n    mov.u64 %rd20, ptxvec_done;\n    atom.global.add.u32 %r60, [%rd20], 1;\n\
         \x20   setp.ne.u32 %p14, %r60, {};\n    @%p14 bra END;\n    membar.gl;\n\
         \x20   ld.param.u64 %rd21, [result];\n    cvta.to.global.u64 %rd21, %rd21;",
        total - 1
    );
    let profiles = Profile::ALL.len();
    for p in 0..profiles {
        for i in 0..FIRST_FAILS {
            let _ = writeln!(
                b,
                "    st.global.u32 [%rd21+{}], 0xffffffff;",
                p * RESULT_PER_PROFILE + 8 + 4 * i
            );
        }
    }
    // pass_p in %r(62 + 2p), fail_p in %r(63 + 2p).
    *b += "    mov.u32 %r61, 0;\n    mov.u64 %rd22, ptxvec_fails;\n";
    for p in 0..profiles {
        let _ = writeln!(
            b,
            "    mov.u32 %r{}, 0;\n    mov.u32 %r{}, 0;",
            62 + 2 * p,
            63 + 2 * p
        );
    }
    *b += "TALLY:\n    mul.wide.u32 %rd24, %r61, 4;\n";
    if matches!(s.kind, Kind::Warp { .. }) {
        *b += "    mov.u64 %rd23, ptxvec_flags;\n    add.u64 %rd25, %rd23, %rd24;\n    ld.global.u32 %r66, [%rd25];\n\
              \x20   and.b32 %r66, %r66, 1;\n    setp.ne.u32 %p15, %r66, 0;\n    @%p15 bra NEXT;\n";
    }
    *b += "    add.u64 %rd25, %rd22, %rd24;\n    atom.global.exch.b32 %r67, [%rd25], 0;\n";
    for p in 0..profiles {
        let (pass, fail) = (62 + 2 * p, 63 + 2 * p);
        let _ = writeln!(
            b,
            "    and.b32 %r68, %r67, {};\n    setp.ne.u32 %p16, %r68, 0;\n\
             \x20   setp.lt.u32 %p17, %r{fail}, {FIRST_FAILS};\n    and.pred %p17, %p17, %p16;\n\
             \x20   mul.wide.u32 %rd26, %r{fail}, 4;\n    add.u64 %rd26, %rd26, %rd21;\n\
             \x20   @%p17 st.global.u32 [%rd26+{}], %r61;\n\
             \x20   @%p16 add.u32 %r{fail}, %r{fail}, 1;\n    @!%p16 add.u32 %r{pass}, %r{pass}, 1;",
            1u32 << p,
            p * RESULT_PER_PROFILE + 8
        );
    }
    let _ = writeln!(
        b,
        "NEXT:\n    add.u32 %r61, %r61, 1;\n    setp.lt.u32 %p15, %r61, {n};\n    @%p15 bra TALLY;"
    );
    for p in 0..profiles {
        let _ = writeln!(
            b,
            "    st.global.u32 [%rd21+{}], %r{};\n    st.global.u32 [%rd21+{}], %r{};",
            p * RESULT_PER_PROFILE,
            62 + 2 * p,
            p * RESULT_PER_PROFILE + 4,
            63 + 2 * p
        );
    }
    *b += "    atom.global.exch.b32 %r69, [%rd20], 0;\n";
}
