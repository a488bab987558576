//! The probe catalog: which instruction texts go to silicon, with which inputs, and
//! the PTX kernel that runs each one.
//!
//! Every probe is one kernel around one instruction text. Memory probes run one
//! thread per (memory, operand) input pair, each thread on its own address; warp
//! probes run one warp per test. Inputs come from fixed tables (no RNG), so the
//! catalog is the same on every run. Nothing here computes an expected result.

use super::catalog::{specials, Format, BF16, F16, F32, F64};

/// The `.version` of every probe module. PTX ISA 8.1 introduced vector `red`, 8.0
/// `cp.reduce.async.bulk`; the CUDA 13.0 driver JIT takes up to 9.0.
pub const PTX_VERSION: &str = "8.4";
/// The `.target` of every probe module.
pub const TARGET: &str = "sm_90";
/// Threads per block for memory probes (the bulk probe reduces one block's worth at once).
pub const BLOCK: u32 = 128;
/// The kernel entry name.
pub const ENTRY: &str = "probe";

/// A probe family: one evidence file each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Scalar and packed `red` on float types, global and shared.
    Red,
    /// Vector `red` (`.v2`) on float types.
    RedVector,
    /// `cp.reduce.async.bulk` from shared::cta to global.
    Bulk,
    /// `shfl.sync`.
    Shfl,
    /// `vote.sync`.
    Vote,
    /// `match.sync`.
    Match,
    /// `redux.sync` (integer forms).
    Redux,
    /// `activemask`.
    Activemask,
}

impl Family {
    /// Every family, in the order they run (the bulk copy engine last: an error there
    /// must not cost the others).
    pub const ALL: [Family; 8] = [
        Family::Red,
        Family::RedVector,
        Family::Shfl,
        Family::Vote,
        Family::Match,
        Family::Redux,
        Family::Activemask,
        Family::Bulk,
    ];

    /// The name in records and the evidence file's stem.
    pub fn name(self) -> &'static str {
        match self {
            Family::Red => "red",
            Family::RedVector => "red.vector",
            Family::Bulk => "cp.reduce.async.bulk",
            Family::Shfl => "shfl.sync",
            Family::Vote => "vote.sync",
            Family::Match => "match.sync",
            Family::Redux => "redux.sync",
            Family::Activemask => "activemask",
        }
    }

    /// The family with this name.
    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One instruction text, its kernel, and its inputs.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Which file it goes to.
    pub family: Family,
    /// The instruction exactly as it stands in the kernel.
    pub text: String,
    /// The whole PTX module.
    pub module: String,
    /// Inputs and launch shape.
    pub plan: Plan,
}

/// How a probe is fed.
#[derive(Debug, Clone)]
pub enum Plan {
    /// One thread per item; buffer 0 holds memory words, buffer 1 operands.
    Memory(MemPlan),
    /// One warp per test; buffer 0 holds per-lane inputs, buffer 1 per-lane outputs.
    Warp(WarpPlan),
}

/// A memory probe's items.
#[derive(Debug, Clone)]
pub struct MemPlan {
    /// Width of one register (one memory word) in bits.
    pub reg_bits: u32,
    /// Registers per item (1 scalar, 2 for `.v2`).
    pub vec: u32,
    /// Per item: the memory words before, and the operand registers.
    pub items: Vec<(Vec<u64>, Vec<u64>)>,
    /// Items launched, padding included (a multiple of [`BLOCK`] for the bulk probe).
    pub launched: usize,
}

impl MemPlan {
    /// Bytes per item.
    pub fn stride(&self) -> usize {
        (self.reg_bits / 8 * self.vec) as usize
    }
}

/// What a warp probe reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// No source operand (`activemask`).
    None,
    /// A predicate, from the lane's `a` being non-zero.
    Pred,
    /// A 32-bit register.
    B32,
    /// A 64-bit register.
    B64,
}

/// A warp probe's tests.
#[derive(Debug, Clone)]
pub struct WarpPlan {
    /// The source operand's kind.
    pub source: Source,
    /// Whether `b` and `c` (shfl) are inputs.
    pub has_bc: bool,
    /// Whether `membermask` is an input.
    pub has_mask: bool,
    /// Whether `d` is a predicate (written as 0x0/0x1).
    pub d_pred: bool,
    /// Whether there is a second, predicate destination `p`.
    pub has_p: bool,
    /// The tests, one warp each.
    pub tests: Vec<WarpTest>,
}

/// One warp's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpTest {
    /// The membermask operand (for `activemask`, unused and 0).
    pub membermask: u32,
    /// Lanes that exit before the instruction.
    pub exited: u32,
    /// Lanes that execute the instruction; the rest branch around it.
    pub executing: u32,
    /// Per lane `a`.
    pub a: [u64; 32],
    /// Per lane `b`.
    pub b: [u32; 32],
    /// Per lane `c`.
    pub c: [u32; 32],
}

/// Bytes of one lane's input record: a u64, b, c, membermask, flags (bit 0 exit, bit 1 execute).
pub const WARP_IN: usize = 32;
/// Bytes of one lane's output record: d, p as u32.
pub const WARP_OUT: usize = 8;

/// Every probe, in a fixed order.
pub fn all() -> Vec<Probe> {
    let mut out = red_probes();
    out.extend(bulk_probes());
    out.extend(warp_probes());
    out
}

/// The probes of one family.
pub fn of(family: Family) -> Vec<Probe> {
    all().into_iter().filter(|p| p.family == family).collect()
}

// ---------------------------------------------------------------- memory probes

/// Where a memory probe's instruction reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Space {
    Global,
    Shared,
    Bulk,
}

/// Items from the full cross product of a format's specials. A register holding
/// several elements (packed x2, or `.v2`) gets the pair (a_i, a_j) in even
/// elements and (a_j, a_i) in odd ones, so each element position sees both orders.
fn items(f: Format, reg_bits: u32, vec: u32) -> Vec<(Vec<u64>, Vec<u64>)> {
    let s: Vec<u64> = specials(f).into_iter().map(|(_, v)| v).collect();
    let per_reg = reg_bits / f.width();
    let mut out = Vec::new();
    for &x in &s {
        for &y in &s {
            let mut mem = Vec::new();
            let mut op = Vec::new();
            for r in 0..vec {
                let (mut m, mut o) = (0u64, 0u64);
                for e in 0..per_reg {
                    let odd = (r * per_reg + e) % 2 == 1;
                    let (mx, oy) = if odd { (y, x) } else { (x, y) };
                    m |= mx << (e * f.width());
                    o |= oy << (e * f.width());
                }
                mem.push(m);
                op.push(o);
            }
            out.push((mem, op));
        }
    }
    out
}

fn reg_names(bits: u32) -> (&'static str, [&'static str; 2], &'static str) {
    match bits {
        16 => (".b16", ["%h0", "%h1"], "%h2"),
        32 => (".b32", ["%r8", "%r9"], "%r10"),
        _ => (".b64", ["%rd8", "%rd9"], "%rd10"),
    }
}

/// One memory probe: `op` is the instruction up to its operands
/// ("red.global.add.f32"), `fmt` the element format, `reg_bits` the register width.
fn mem_probe(
    family: Family,
    space: Space,
    op: &str,
    fmt: Format,
    reg_bits: u32,
    vec: u32,
) -> Probe {
    let items = items(fmt, reg_bits, vec);
    let stride = reg_bits / 8 * vec;
    let (ty, regs, tmp) = reg_names(reg_bits);
    let operand = if vec == 1 {
        regs[0].to_owned()
    } else {
        format!("{{{}, {}}}", regs[0], regs[1])
    };
    let vq = if vec == 1 {
        String::new()
    } else {
        format!(".v{vec}")
    };
    let mut shared = String::new();
    let mut body = String::new();
    let text;
    let launched;
    match space {
        Space::Global => {
            text = format!("{op} [%rd3], {operand};");
            body += &format!("    ld.global{vq}{ty} {operand}, [%rd4];\n    {text}\n");
            launched = items.len();
        }
        Space::Shared => {
            // Copy the word into shared memory, reduce there, copy it back out.
            text = format!("{op} [%rd5], {operand};");
            shared = format!("    .shared .align 16 .b8 sbuf[{}];\n", BLOCK * stride);
            body += &format!(
                "    mov.u64 %rd5, sbuf;\n    mul.wide.u32 %rd6, %r0, {stride};\n    add.u64 %rd5, %rd5, %rd6;\n\
                 \x20   ld.global{ty} {tmp}, [%rd3];\n    st.shared{ty} [%rd5], {tmp};\n\
                 \x20   ld.global{ty} {operand}, [%rd4];\n    {text}\n\
                 \x20   ld.shared{ty} {tmp}, [%rd5];\n    st.global{ty} [%rd3], {tmp};\n"
            );
            launched = items.len();
        }
        Space::Bulk => {
            // PTX ISA 9.7.9.25.4.2: size a multiple of 16, both addresses 16-byte
            // aligned; generic-proxy writes to shared need fence.proxy.async before
            // the async proxy reads them.
            let bytes = BLOCK * stride;
            text = format!("{op} [%rd6], [%r5], %r7;");
            shared = format!("    .shared .align 16 .b8 sbuf[{bytes}];\n");
            body += &format!(
                "    mov.u32 %r5, sbuf;\n    mad.lo.u32 %r6, %r0, {stride}, %r5;\n\
                 \x20   ld.global{ty} {tmp}, [%rd4];\n    st.shared{ty} [%r6], {tmp};\n\
                 \x20   fence.proxy.async.shared::cta;\n    bar.sync 0;\n\
                 \x20   setp.ne.u32 %p1, %r0, 0;\n    @%p1 bra DONE;\n\
                 \x20   mul.wide.u32 %rd5, %r1, {bytes};\n    add.u64 %rd6, %rd0, %rd5;\n    mov.u32 %r7, {bytes};\n\
                 \x20   {text}\n    cp.async.bulk.commit_group;\n    cp.async.bulk.wait_group 0;\n"
            );
            launched = items.len().div_ceil(BLOCK as usize) * BLOCK as usize;
        }
    }
    // The bulk probe has no bounds check: bar.sync needs the whole block, so the
    // launch is padded to whole blocks instead.
    let guard = if space == Space::Bulk {
        ""
    } else {
        "    ld.param.u32 %r4, [p_n];\n    setp.ge.u32 %p0, %r3, %r4;\n    @%p0 bra DONE;\n"
    };
    let module = format!(
        "// Generated by ptxvec silicon-probe; do not edit.\n\
         .version {PTX_VERSION}\n.target {TARGET}\n.address_size 64\n\n\
         .visible .entry {ENTRY}(.param .u64 p_mem, .param .u64 p_op, .param .u32 p_n)\n{{\n\
         \x20   .reg .pred %p<4>;\n    .reg .b16 %h<4>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<16>;\n\
         {shared}\
         \x20   mov.u32 %r0, %tid.x;\n    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mad.lo.u32 %r3, %r1, %r2, %r0;\n\
         {guard}\
         \x20   ld.param.u64 %rd0, [p_mem];\n    ld.param.u64 %rd1, [p_op];\n\
         \x20   cvta.to.global.u64 %rd0, %rd0;\n    cvta.to.global.u64 %rd1, %rd1;\n\
         \x20   mul.wide.u32 %rd2, %r3, {stride};\n    add.u64 %rd3, %rd0, %rd2;\n    add.u64 %rd4, %rd1, %rd2;\n\
         {body}\
         DONE:\n    ret;\n}}\n"
    );
    Probe {
        family,
        text,
        module,
        plan: Plan::Memory(MemPlan {
            reg_bits,
            vec,
            items,
            launched,
        }),
    }
}

fn red_probes() -> Vec<Probe> {
    use Family::{Red, RedVector};
    use Space::{Global, Shared};
    let scalar: [(Space, &str, Format, u32); 12] = [
        (Global, "red.global.add.f32", F32, 32),
        (Shared, "red.shared.add.f32", F32, 32),
        (Global, "red.global.add.f64", F64, 64),
        (Shared, "red.shared.add.f64", F64, 64),
        (Global, "red.global.add.noftz.f16", F16, 16),
        (Shared, "red.shared.add.noftz.f16", F16, 16),
        (Global, "red.global.add.noftz.bf16", BF16, 16),
        (Shared, "red.shared.add.noftz.bf16", BF16, 16),
        (Global, "red.global.add.noftz.f16x2", F16, 32),
        (Shared, "red.shared.add.noftz.f16x2", F16, 32),
        (Global, "red.global.add.noftz.bf16x2", BF16, 32),
        (Shared, "red.shared.add.noftz.bf16x2", BF16, 32),
    ];
    let mut out: Vec<Probe> = scalar
        .iter()
        .map(|&(space, op, f, bits)| mem_probe(Red, space, op, f, bits, 1))
        .collect();
    // PTX ISA 9.7.13.6 (red), vector table: .f16/.bf16 and .f16x2/.bf16x2 take add,
    // min, max; .f32 takes add only. ptxas 13.5 takes the qualifiers in any order.
    let mut vector: Vec<(String, Format, u32)> = Vec::new();
    for f in [F16, BF16] {
        for op in ["add", "min", "max"] {
            vector.push((format!("red.global.v2.{}.{op}.noftz", f.name), f, 16));
        }
        for op in ["add", "min", "max"] {
            vector.push((format!("red.global.v2.{}x2.{op}.noftz", f.name), f, 32));
        }
    }
    vector.push(("red.global.v2.f32.add".to_owned(), F32, 32));
    out.extend(
        vector
            .into_iter()
            .map(|(op, f, bits)| mem_probe(RedVector, Global, &op, f, bits, 2)),
    );
    out
}

fn bulk_probes() -> Vec<Probe> {
    // ptxas 13.5: ".noftz" is required for f16/bf16 add and illegal with min/max;
    // f32/f64 take add only ("Incorrect type '.f32' for operation '.min'").
    let base = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
    let mut ops: Vec<(String, Format)> = Vec::new();
    for f in [F16, BF16] {
        ops.push((format!("{base}.add.noftz.{}", f.name), f));
        ops.push((format!("{base}.min.{}", f.name), f));
        ops.push((format!("{base}.max.{}", f.name), f));
    }
    ops.push((format!("{base}.add.f32"), F32));
    ops.push((format!("{base}.add.f64"), F64));
    ops.into_iter()
        .map(|(op, f)| mem_probe(Family::Bulk, Space::Bulk, &op, f, f.width(), 1))
        .collect()
}

// ------------------------------------------------------------------ warp probes

const FULL: u32 = 0xffff_ffff;

/// Member masks: full, halves, alternating, the two ends, sparse and irregular.
const MASKS: [u32; 11] = [
    FULL,
    0x0000_ffff,
    0xffff_0000,
    0x5555_5555,
    0xaaaa_aaaa,
    0x8000_0001,
    0x0000_0001,
    0x0f0f_0f0f,
    0x1234_5678,
    0xffff_fffe,
    0x7fff_ffff,
];

/// (membermask, exited) scenarios: every mask with no lane exited; with every
/// fourth member exited (when a member is left); with some non-members exited.
fn scenarios() -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for m in MASKS {
        out.push((m, 0));
        let x = m & 0x1111_1111;
        if x != 0 && m & !x != 0 {
            out.push((m, x));
        }
        let y = !m & 0x00ff_00ff;
        if y != 0 {
            out.push((m, y));
        }
    }
    out
}

fn test(
    membermask: u32,
    exited: u32,
    a: impl Fn(u32) -> u64,
    b: impl Fn(u32) -> u32,
    c: u32,
) -> WarpTest {
    WarpTest {
        membermask,
        exited,
        executing: membermask & !exited,
        a: std::array::from_fn(|l| a(l as u32)),
        b: std::array::from_fn(|l| b(l as u32)),
        c: [c; 32],
    }
}

/// A lane's `a` for shfl: recognizable by its low byte (the source lane).
fn shfl_a(lane: u32) -> u64 {
    u64::from(0xa500_0000 | (lane << 8) | lane)
}

fn shfl_tests(mode: &str) -> Vec<WarpTest> {
    let mut out = Vec::new();
    // Uniform b across the whole range (0..33) and clamp/segment values, full mask.
    for b in [0u32, 1, 2, 5, 16, 31, 32, 33] {
        for c in [0x1f, 0x0, 0x1c07, 0x1807, 0x181f] {
            out.push(test(FULL, 0, shfl_a, |_| b, c));
        }
    }
    // Partial masks and exited lanes: a uniform b, and a per-lane b (a reversal).
    let c = if mode == "up" { 0 } else { 0x1f };
    for (m, x) in scenarios() {
        out.push(test(m, x, shfl_a, |_| 1, c));
        out.push(test(m, x, shfl_a, |l| 31 - l, c));
    }
    out
}

/// Predicate patterns: none, all, alternating, one lane at each end, all but lane 0.
const PRED_PATTERNS: [u32; 6] = [0, FULL, 0x5555_5555, 0x0000_0001, 0x8000_0000, 0xffff_fffe];

fn vote_tests() -> Vec<WarpTest> {
    let mut out = Vec::new();
    for (m, x) in scenarios() {
        for pat in PRED_PATTERNS.into_iter().chain([m, !m]) {
            out.push(test(m, x, |l| u64::from(pat >> l & 1), |_| 0, 0));
        }
    }
    out
}

fn match_tests(b64: bool) -> Vec<WarpTest> {
    // Collisions: all equal, lane%2, lane%3, lane/8, all distinct; for .b64 the high
    // word also differs in a pattern that splits the low word's classes.
    let patterns: [fn(u32) -> u64; 5] = [
        |_| 0x1234_5678_9abc_def0,
        |l| u64::from(l % 2),
        |l| u64::from(l % 3) | 0xffff_ffff_0000_0000,
        |l| u64::from(l / 8) << 16,
        |l| u64::from(l) * 0x0101_0101,
    ];
    let mut out = Vec::new();
    for (m, x) in scenarios() {
        for p in patterns {
            if b64 {
                out.push(test(m, x, |l| p(l) ^ (u64::from(l % 4) << 40), |_| 0, 0));
            } else {
                out.push(test(m, x, |l| p(l) & 0xffff_ffff, |_| 0, 0));
            }
        }
    }
    out
}

fn redux_tests() -> Vec<WarpTest> {
    // Lane ids; sign boundaries; all ones (sum wraps); mixed magnitudes.
    let patterns: [fn(u32) -> u64; 4] = [
        u64::from,
        |l| if l % 2 == 0 { 0x8000_0000 } else { 0x7fff_ffff },
        |_| 0xffff_ffff,
        |l| u64::from(l.wrapping_mul(0x1111_1111) ^ (l << 27)),
    ];
    let mut out = Vec::new();
    for (m, x) in scenarios() {
        for p in patterns {
            out.push(test(m, x, p, |_| 0, 0));
        }
    }
    out
}

fn activemask_tests() -> Vec<WarpTest> {
    // The "mask" here is the set of lanes that take the branch holding activemask.
    scenarios()
        .into_iter()
        .map(|(m, x)| test(m, x, |_| 0, |_| 0, 0))
        .collect()
}

fn warp_probes() -> Vec<Probe> {
    use Family::{Activemask, Match, Redux, Shfl, Vote};
    let mut out = Vec::new();
    for mode in ["up", "down", "bfly", "idx"] {
        let text = format!("shfl.sync.{mode}.b32 %r9|%p3, %r7, %r3, %r4, %r5;");
        let plan = WarpPlan {
            source: Source::B32,
            has_bc: true,
            has_mask: true,
            d_pred: false,
            has_p: true,
            tests: shfl_tests(mode),
        };
        out.push(warp_probe(Shfl, text, plan));
    }
    for neg in ["", "!"] {
        for mode in ["all", "any", "uni"] {
            let text = format!("vote.sync.{mode}.pred %p2, {neg}%p1, %r5;");
            out.push(warp_probe(
                Vote,
                text,
                pred_plan(Source::Pred, true, false, vote_tests()),
            ));
        }
        let text = format!("vote.sync.ballot.b32 %r9, {neg}%p1, %r5;");
        out.push(warp_probe(
            Vote,
            text,
            pred_plan(Source::Pred, false, false, vote_tests()),
        ));
    }
    for (ty, src, reg) in [("b32", Source::B32, "%r7"), ("b64", Source::B64, "%rd6")] {
        let b64 = src == Source::B64;
        out.push(warp_probe(
            Match,
            format!("match.any.sync.{ty} %r9, {reg}, %r5;"),
            pred_plan(src, false, false, match_tests(b64)),
        ));
        out.push(warp_probe(
            Match,
            format!("match.all.sync.{ty} %r9|%p3, {reg}, %r5;"),
            pred_plan(src, false, true, match_tests(b64)),
        ));
    }
    let redux_ops = [
        "add.u32", "add.s32", "min.u32", "min.s32", "max.u32", "max.s32", "and.b32", "or.b32",
        "xor.b32",
    ];
    for op in redux_ops {
        let text = format!("redux.sync.{op} %r9, %r7, %r5;");
        out.push(warp_probe(
            Redux,
            text,
            pred_plan(Source::B32, false, false, redux_tests()),
        ));
    }
    let plan = WarpPlan {
        source: Source::None,
        has_bc: false,
        has_mask: false,
        d_pred: false,
        has_p: false,
        tests: activemask_tests(),
    };
    out.push(warp_probe(
        Activemask,
        "activemask.b32 %r9;".to_owned(),
        plan,
    ));
    out
}

fn pred_plan(source: Source, d_pred: bool, has_p: bool, tests: Vec<WarpTest>) -> WarpPlan {
    WarpPlan {
        source,
        has_bc: false,
        has_mask: true,
        d_pred,
        has_p,
        tests,
    }
}

/// The warp kernel: one block of 32 per test. Registers: a = %rd6 (low half %r7,
/// as a predicate %p1), b = %r3, c = %r4, membermask = %r5; d = %r9 or %p2, p = %p3.
fn warp_probe(family: Family, text: String, plan: WarpPlan) -> Probe {
    let d = if plan.d_pred {
        "    selp.u32 %r9, 1, 0, %p2;\n"
    } else {
        ""
    };
    let p = if plan.has_p {
        "    selp.u32 %r10, 1, 0, %p3;\n"
    } else {
        "    mov.u32 %r10, 0;\n"
    };
    let module = format!(
        "// Generated by ptxvec silicon-probe; do not edit.\n\
         .version {PTX_VERSION}\n.target {TARGET}\n.address_size 64\n\n\
         .visible .entry {ENTRY}(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)\n{{\n\
         \x20   .reg .pred %p<4>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<16>;\n\
         \x20   mov.u32 %r0, %tid.x;\n    mov.u32 %r1, %ctaid.x;\n    mad.lo.u32 %r2, %r1, 32, %r0;\n\
         \x20   ld.param.u64 %rd0, [p_in];\n    ld.param.u64 %rd1, [p_out];\n\
         \x20   cvta.to.global.u64 %rd0, %rd0;\n    cvta.to.global.u64 %rd1, %rd1;\n\
         \x20   mul.wide.u32 %rd2, %r2, {WARP_IN};\n    add.u64 %rd3, %rd0, %rd2;\n\
         \x20   mul.wide.u32 %rd4, %r2, {WARP_OUT};\n    add.u64 %rd5, %rd1, %rd4;\n\
         \x20   ld.global.u64 %rd6, [%rd3];\n    ld.global.u32 %r3, [%rd3+8];\n    ld.global.u32 %r4, [%rd3+12];\n\
         \x20   ld.global.u32 %r5, [%rd3+16];\n    ld.global.u32 %r6, [%rd3+20];\n\
         \x20   cvt.u32.u64 %r7, %rd6;\n    setp.ne.u32 %p1, %r7, 0;\n\
         \x20   and.b32 %r8, %r6, 1;\n    setp.ne.u32 %p0, %r8, 0;\n    @%p0 exit;\n\
         \x20   and.b32 %r8, %r6, 2;\n    setp.eq.u32 %p0, %r8, 0;\n    @%p0 bra DONE;\n\
         \x20   {text}\n\
         {d}{p}\
         \x20   st.global.v2.u32 [%rd5], {{%r9, %r10}};\n\
         DONE:\n    ret;\n}}\n"
    );
    Probe {
        family,
        text,
        module,
        plan: Plan::Warp(plan),
    }
}

/// A probe's two buffers and launch shape, ready for the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// Buffer 0 and buffer 1, as the kernel reads them.
    pub bufs: [Vec<u8>; 2],
    /// The kernel's `n` parameter (items that count, padding excluded).
    pub n: u32,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Which buffer holds the result afterwards.
    pub result: usize,
}

fn put(buf: &mut Vec<u8>, v: u64, bytes: usize) {
    buf.extend_from_slice(&v.to_le_bytes()[..bytes]);
}

impl Probe {
    /// Encodes the inputs little-endian, one item (or lane) after another.
    pub fn launch(&self) -> Launch {
        match &self.plan {
            Plan::Memory(m) => {
                let bytes = (m.reg_bits / 8) as usize;
                let (mut mem, mut op) = (Vec::new(), Vec::new());
                for (ms, os) in &m.items {
                    ms.iter().for_each(|v| put(&mut mem, *v, bytes));
                    os.iter().for_each(|v| put(&mut op, *v, bytes));
                }
                mem.resize(m.launched * m.stride(), 0);
                op.resize(m.launched * m.stride(), 0);
                Launch {
                    bufs: [mem, op],
                    n: m.items.len() as u32,
                    grid: m.launched.div_ceil(BLOCK as usize) as u32,
                    block: BLOCK,
                    result: 0,
                }
            }
            Plan::Warp(w) => {
                let mut input = Vec::new();
                for t in &w.tests {
                    for l in 0..32 {
                        let flags =
                            u64::from(t.exited >> l & 1) | u64::from(t.executing >> l & 1) << 1;
                        put(&mut input, t.a[l], 8);
                        put(&mut input, t.b[l].into(), 4);
                        put(&mut input, t.c[l].into(), 4);
                        put(&mut input, t.membermask.into(), 4);
                        put(&mut input, flags, 4);
                        put(&mut input, 0, 8);
                    }
                }
                Launch {
                    bufs: [input, vec![0; w.tests.len() * 32 * WARP_OUT]],
                    n: w.tests.len() as u32,
                    grid: w.tests.len() as u32,
                    block: 32,
                    result: 1,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_probes_and_texts_are_unique_within_it() {
        let all = all();
        for f in Family::ALL {
            let mut texts: Vec<&str> = all
                .iter()
                .filter(|p| p.family == f)
                .map(|p| p.text.as_str())
                .collect();
            assert!(!texts.is_empty(), "{}: no probes", f.name());
            let n = texts.len();
            texts.sort_unstable();
            texts.dedup();
            // The shared and global texts differ by their address register.
            assert_eq!(texts.len(), n, "{}: duplicate text", f.name());
            assert_eq!(Family::parse(f.name()), Some(f));
        }
    }

    #[test]
    fn every_text_is_in_its_module() {
        for p in all() {
            assert!(
                p.module.contains(&format!("    {}\n", p.text)),
                "{}",
                p.text
            );
        }
    }

    #[test]
    fn executing_lanes_are_members_and_not_exited() {
        for p in all() {
            if let Plan::Warp(w) = &p.plan {
                for t in &w.tests {
                    assert_eq!(t.executing & t.exited, 0, "{}: {t:?}", p.text);
                    assert_eq!(t.executing & !t.membermask, 0, "{}: {t:?}", p.text);
                    assert_ne!(t.executing, 0, "{}: {t:?}", p.text);
                }
            }
        }
    }

    #[test]
    fn packed_items_put_both_orders() {
        let it = items(F16, 32, 1);
        let n = specials(F16).len();
        assert_eq!(it.len(), n * n);
        // Item (i=one, j=zero): low half (one, zero), high half (zero, one).
        let one = 0x3c00u64;
        let found = it.iter().any(|(m, o)| m[0] == one && o[0] == one << 16);
        assert!(found);
    }
}
