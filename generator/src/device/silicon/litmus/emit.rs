//! The PTX module that runs many instances of one litmus test at once: entry
//! `litmus`, in which each thread of the launch runs one test thread of one
//! instance (or stresses memory), as a table the host writes for each launch says
//! ([`super::plan`]); and entry `collect`, which copies each instance's final memory
//! into its output row and clears the instance for the next launch.
//!
//! The calling convention, shared with `device::LitmusModule`:
//! `litmus(roles, locs, out, sync, scratch, instances, stride, lines, iters, seed)`:
//! - `roles[g]`, for thread `g` of the grid: [`STRESS`], or `instance << 3 | t`
//!   (test thread `t` of `instance`);
//! - location slot `l` of instance `i` is the word `(l * instances + i) * stride` of
//!   `locs` (a stride of 32 words puts every copy on a 128-byte line of its own);
//! - instance `i`'s output row is `out[i * width ..]`: the registers in
//!   [`Layout::regs`] order, then the locations in [`Layout::locs`] order;
//! - `sync[i]` counts the threads of instance `i` that have arrived;
//! - a stress thread stores and loads `iters` times on the 128-byte lines of
//!   `scratch` picked by `lines` (a mask of line indices) and `seed`.
//!
//! `collect(locs, out, sync, instances, stride)`: one thread per instance.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ptxvec_oracle::model::{Litmus, Loc, Op, Reg, Rmw, Val};

/// The role of a stress thread (the device's calling convention).
pub const STRESS: u32 = crate::device::silicon::device::LITMUS_STRESS;
/// Bits of a role that hold the test thread.
pub const THREAD_BITS: u32 = crate::device::silicon::device::LITMUS_THREAD_BITS;
/// The most threads a test may have.
pub const MAX_THREADS: usize = 1 << THREAD_BITS;
/// How many times an arrived thread polls its instance's arrival count before it
/// runs anyway: the threads of an instance start together when they are resident
/// together, and no launch waits forever on one that is not.
pub const SPIN_LIMIT: u32 = 4096;
/// The module's `.version`: PTX ISA 8.7 (CUDA 12.8) takes every `.sem` and
/// `.scope` of `ld`, `st`, `atom`, `red` and `fence` on sm_90, and CUDA 13.0
/// drivers load it.
pub const PTX_VERSION: &str = "8.7";
/// The module's `.target`.
pub const TARGET: &str = "sm_90";

/// What the host and the kernel agree on about one test: its threads, the
/// registers and locations an instance reports, and the cluster its CTAs need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Test threads.
    pub threads: usize,
    /// The registers an instance reports: every `(thread, register)` an `ld` or
    /// `atom` sets, sorted.
    pub regs: Vec<(usize, Reg)>,
    /// The locations the test accesses, sorted.
    pub locs: Vec<Loc>,
    /// CTAs per cluster: the most CTAs one of the test's clusters holds.
    pub cluster: u32,
}

impl Layout {
    /// The layout of `test`.
    pub fn of(test: &Litmus) -> Layout {
        let mut regs = BTreeSet::new();
        let mut locs = BTreeSet::new();
        for (t, th) in test.threads.iter().enumerate() {
            for e in &th.events {
                if let Op::Ld { reg, .. } | Op::Atom { reg, .. } = e.op {
                    regs.insert((t, reg));
                }
                locs.extend(e.loc());
            }
        }
        let mut ctas: BTreeSet<(u8, u8, u8)> = BTreeSet::new();
        for th in &test.threads {
            ctas.insert((th.place.gpu, th.place.cluster, th.place.cta));
        }
        let most = ctas
            .iter()
            .map(|&(g, c, _)| ctas.iter().filter(|&&(h, d, _)| (h, d) == (g, c)).count())
            .max()
            .unwrap_or(1);
        Layout {
            threads: test.threads.len(),
            regs: regs.into_iter().collect(),
            locs: locs.into_iter().collect(),
            cluster: u32::try_from(most).unwrap_or(u32::MAX),
        }
    }

    /// Words of an instance's output row.
    pub fn width(&self) -> usize {
        self.regs.len() + self.locs.len()
    }

    pub(super) fn loc_slot(&self, l: Loc) -> usize {
        self.locs.iter().position(|&m| m == l).unwrap_or(0)
    }
}

/// Why a test cannot be emitted.
fn bad(why: String) -> crate::error::Error {
    crate::error::Error::Input(why)
}

/// An opcode is written into the module as it is: it must be one word of PTX
/// qualifiers, so that it cannot end the statement or the entry.
fn check_opcode(op: &str) -> crate::error::Result<()> {
    let ok = !op.is_empty() && op.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':'));
    if ok {
        Ok(())
    } else {
        Err(bad(format!("opcode {op:?}: expected one word of letters, digits, '.', '_' and ':'")))
    }
}

/// The register of thread `t` that the test calls `r`.
fn reg(t: usize, r: Reg) -> String {
    format!("%t{t}r{}", r.0)
}

/// The PTX module of `test` with `opcodes[t][e]` the opcode of event `e` of thread
/// `t`; the emitter appends each event's operands by its kind (`ld`: `reg,
/// [loc]`; `st`: `[loc], value`; `atom`: `reg, [loc], operand`; `red`: `[loc],
/// operand`; `fence`: none). An error where the opcodes do not match the events
/// one for one or an opcode is not one word, or the test has more than
/// [`MAX_THREADS`] threads.
pub fn module(test: &Litmus, opcodes: &[Vec<String>]) -> crate::error::Result<String> {
    let lay = checked(test, opcodes)?;
    write_module(test, opcodes, &lay)
}

/// The layout of `test` once its thread count and opcodes are checked (see
/// [`module`]).
pub(super) fn checked(test: &Litmus, opcodes: &[Vec<String>]) -> crate::error::Result<Layout> {
    let lay = Layout::of(test);
    if lay.threads == 0 || lay.threads > MAX_THREADS {
        return Err(bad(format!("{} threads: a test runs 1 to {MAX_THREADS}", lay.threads)));
    }
    if opcodes.len() != lay.threads
        || test.threads.iter().zip(opcodes).any(|(th, ops)| th.events.len() != ops.len())
    {
        return Err(bad("the opcodes do not match the events one for one".into()));
    }
    Ok(lay)
}

/// How an instance's threads arrive at the racing start and poll its count: one
/// statement each, on the arrival word `%s` (the poll into `%v`). Silicon's module
/// spells them with `.relaxed.gpu`; the raw module with the older spellings that
/// every engine's parser knows.
#[derive(Debug, Clone, Copy)]
pub(super) struct Start {
    /// Adds 1 to `[%s]`.
    pub arrive: &'static str,
    /// Reads `[%s]` into `%v`.
    pub poll: &'static str,
}

/// Silicon's racing start.
const SILICON_START: Start = Start {
    arrive: "red.relaxed.gpu.global.add.u32 [%s], 1",
    poll: "ld.relaxed.gpu.global.u32 %v, [%s]",
};

// Every `writeln!` here writes to a String, which cannot fail.
fn write_module(test: &Litmus, opcodes: &[Vec<String>], lay: &Layout) -> crate::error::Result<String> {
    let w = lay.width();
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(t, "// Generated by `ptxvec silicon-litmus`: one litmus test, many instances a launch.");
    let _ = writeln!(t, ".version {PTX_VERSION}\n.target {TARGET}\n.address_size 64\n");
    let _ = writeln!(
        t,
        ".visible .entry litmus(.param .u64 p_roles, .param .u64 p_locs, .param .u64 p_out, .param .u64 p_sync, .param .u64 p_scratch,\n\t.param .u32 p_inst, .param .u32 p_stride, .param .u32 p_lines, .param .u32 p_iters, .param .u32 p_seed)"
    );
    write_cluster(t, lay);
    let _ = writeln!(t, "{{");
    write_decls(t, lay);
    // The thread's role.
    let _ = writeln!(t, "\tld.param.u64 %roles, [p_roles];\n\tcvta.to.global.u64 %roles, %roles;");
    write_role(t);
    let _ = writeln!(
        t,
        "\tld.param.u64 %locs, [p_locs];\n\tcvta.to.global.u64 %locs, %locs;\n\tld.param.u64 %out, [p_out];\n\tcvta.to.global.u64 %out, %out;\n\tld.param.u64 %sync, [p_sync];\n\tcvta.to.global.u64 %sync, %sync;\n\tld.param.u32 %n, [p_inst];\n\tld.param.u32 %stride, [p_stride];"
    );
    write_body(t, test, opcodes, lay, SILICON_START, "ret;")?;
    // Memory stress: store and load on a few lines of scratch, each warp walking
    // them in its own order.
    let _ = writeln!(
        t,
        "STRESS:\n\tld.param.u64 %scratch, [p_scratch];\n\tcvta.to.global.u64 %scratch, %scratch;\n\tld.param.u32 %lines, [p_lines];\n\tld.param.u32 %iters, [p_iters];\n\tld.param.u32 %seed, [p_seed];"
    );
    let _ = writeln!(t, "\tand.b32 %lane, %w, 31;\n\tshr.u32 %w, %w, 5;\n\tmov.u32 %i, 0;\n\tsetp.eq.u32 %p3, %iters, 0;\n\t@%p3 bra DONE;");
    let _ = writeln!(
        t,
        "SLOOP:\n\tmad.lo.u32 %line, %i, 13, %w;\n\txor.b32 %line, %line, %seed;\n\tand.b32 %line, %line, %lines;\n\tshl.b32 %line, %line, 5;\n\tadd.u32 %line, %line, %lane;\n\tmul.wide.u32 %a, %line, 4;\n\tadd.s64 %a, %scratch, %a;"
    );
    let _ = writeln!(
        t,
        "\tst.relaxed.gpu.global.u32 [%a], %i;\n\tld.relaxed.gpu.global.u32 %v, [%a];\n\tadd.u32 %i, %i, 1;\n\tsetp.lt.u32 %p3, %i, %iters;\n\t@%p3 bra SLOOP;\nDONE:\n\tret;\n}}\n"
    );
    // collect: one thread per instance.
    let _ = writeln!(
        t,
        ".visible .entry collect(.param .u64 p_locs, .param .u64 p_out, .param .u64 p_sync, .param .u32 p_inst, .param .u32 p_stride)\n{{"
    );
    let _ = writeln!(t, "\t.reg .pred %p<2>;\n\t.reg .b32 %i, %n, %stride, %w, %v;\n\t.reg .b64 %locs, %out, %sync, %a, %o;");
    let _ = writeln!(t, "\tmov.u32 %i, %ctaid.x;\n\tmov.u32 %w, %ntid.x;\n\tmov.u32 %v, %tid.x;\n\tmad.lo.u32 %i, %i, %w, %v;");
    let _ = writeln!(t, "\tld.param.u32 %n, [p_inst];\n\tsetp.ge.u32 %p0, %i, %n;\n\t@%p0 bra END;");
    let _ = writeln!(
        t,
        "\tld.param.u64 %locs, [p_locs];\n\tcvta.to.global.u64 %locs, %locs;\n\tld.param.u64 %out, [p_out];\n\tcvta.to.global.u64 %out, %out;\n\tld.param.u64 %sync, [p_sync];\n\tcvta.to.global.u64 %sync, %sync;\n\tld.param.u32 %stride, [p_stride];"
    );
    let _ = writeln!(t, "\tmul.wide.u32 %o, %i, {};\n\tadd.s64 %o, %out, %o;", w * 4);
    for l in 0..lay.locs.len() {
        let _ = writeln!(
            t,
            "\tmad.lo.u32 %w, %n, {l}, %i;\n\tmul.lo.u32 %w, %w, %stride;\n\tmul.wide.u32 %a, %w, 4;\n\tadd.s64 %a, %locs, %a;\n\tld.global.u32 %v, [%a];\n\tst.global.u32 [%o+{}], %v;\n\tst.global.u32 [%a], 0;",
            (lay.regs.len() + l) * 4
        );
    }
    let _ = writeln!(t, "\tmul.wide.u32 %a, %i, 4;\n\tadd.s64 %a, %sync, %a;\n\tst.global.u32 [%a], 0;\nEND:\n\tret;\n}}");
    Ok(text)
}

/// The entry's cluster size, where the test's CTAs share a cluster: fixed in the
/// entry, so that a plain launch runs it in clusters (E025's modules run the same
/// way).
pub(super) fn write_cluster(t: &mut String, lay: &Layout) {
    if lay.cluster > 1 {
        let _ = writeln!(t, ".reqnctapercluster {}, 1, 1", lay.cluster);
    }
}

/// The registers both entries use.
pub(super) fn write_decls(t: &mut String, lay: &Layout) {
    let _ = writeln!(t, "\t.reg .pred %p<4>;");
    let _ = writeln!(t, "\t.reg .b32 %role, %thr, %inst, %n, %stride, %w, %v, %spin, %i, %lines, %iters, %seed, %line, %lane;");
    let _ = writeln!(t, "\t.reg .b64 %roles, %locs, %out, %sync, %scratch, %a, %o, %s;");
    for l in 0..lay.locs.len() {
        let _ = writeln!(t, "\t.reg .b64 %m{l};");
    }
    for (th, r) in &lay.regs {
        let _ = writeln!(t, "\t.reg .b32 {};", reg(*th, *r));
    }
}

/// The thread's role from the table at `%roles`: a stress thread branches to
/// `STRESS`; a test thread gets its thread `%thr` and instance `%inst` (and `%w`,
/// its index in the grid).
pub(super) fn write_role(t: &mut String) {
    let _ = writeln!(t, "\tmov.u32 %w, %ctaid.x;\n\tmov.u32 %v, %ntid.x;\n\tmov.u32 %i, %tid.x;\n\tmad.lo.u32 %w, %w, %v, %i;");
    let _ = writeln!(t, "\tmul.wide.u32 %a, %w, 4;\n\tadd.s64 %a, %roles, %a;\n\tld.global.u32 %role, [%a];");
    let _ = writeln!(t, "\tsetp.eq.u32 %p0, %role, {STRESS};\n\t@%p0 bra STRESS;");
    let _ = writeln!(t, "\tand.b32 %thr, %role, {};\n\tshr.u32 %inst, %role, {THREAD_BITS};", MAX_THREADS - 1);
}

/// A test thread's run, once `%locs`, `%out`, `%sync`, `%n` and `%stride` are
/// set: its locations' words `%m<l>`, its output row `%o`, the racing start, then
/// its events, its registers stored into the row, and `end`.
pub(super) fn write_body(
    t: &mut String,
    test: &Litmus,
    opcodes: &[Vec<String>],
    lay: &Layout,
    start: Start,
    end: &str,
) -> crate::error::Result<()> {
    // Each location's word for this instance: (l * instances + instance) * stride.
    for l in 0..lay.locs.len() {
        let _ = writeln!(
            t,
            "\tmad.lo.u32 %v, %n, {l}, %inst;\n\tmul.lo.u32 %v, %v, %stride;\n\tmul.wide.u32 %a, %v, 4;\n\tadd.s64 %m{l}, %locs, %a;"
        );
    }
    // Arrive, then wait (boundedly) for the instance's other threads.
    let _ = writeln!(t, "\tmul.wide.u32 %a, %inst, 4;\n\tadd.s64 %s, %sync, %a;\n\t{};\n\tmov.u32 %spin, 0;", start.arrive);
    let _ = writeln!(t, "WAIT:\n\t{};\n\tsetp.ge.u32 %p1, %v, {};\n\t@%p1 bra GO;", start.poll, lay.threads);
    let _ = writeln!(t, "\tadd.u32 %spin, %spin, 1;\n\tsetp.lt.u32 %p2, %spin, {SPIN_LIMIT};\n\t@%p2 bra WAIT;");
    let _ = writeln!(t, "GO:\n\tmul.wide.u32 %o, %inst, {};\n\tadd.s64 %o, %out, %o;", lay.width() * 4);
    for th in 0..lay.threads {
        let _ = writeln!(t, "\tsetp.eq.u32 %p0, %thr, {th};\n\t@%p0 bra THREAD{th};");
    }
    let _ = writeln!(t, "\tret;");
    for (th, (thread, ops)) in test.threads.iter().zip(opcodes).enumerate() {
        let _ = writeln!(t, "THREAD{th}:");
        for (e, op) in thread.events.iter().zip(ops) {
            check_opcode(op)?;
            let operands = match e.op {
                Op::Ld { loc, reg: r } => format!(" {}, [%m{}]", reg(th, r), lay.loc_slot(loc)),
                Op::St { loc, val } => {
                    let v = match val {
                        Val::Const(c) => c.to_string(),
                        Val::Reg(r) => reg(th, r),
                    };
                    format!(" [%m{}], {v}", lay.loc_slot(loc))
                }
                Op::Atom { loc, reg: r, rmw } => format!(" {}, [%m{}], {}", reg(th, r), lay.loc_slot(loc), operand(rmw)),
                Op::Red { loc, rmw } => format!(" [%m{}], {}", lay.loc_slot(loc), operand(rmw)),
                Op::Fence | Op::AliasFence => String::new(),
            };
            let _ = writeln!(t, "\t{op}{operands};");
        }
        for (slot, (rt, r)) in lay.regs.iter().enumerate().filter(|(_, (rt, _))| *rt == th) {
            let _ = writeln!(t, "\tst.global.u32 [%o+{}], {};", slot * 4, reg(*rt, *r));
        }
        let _ = writeln!(t, "\t{end}");
    }
    Ok(())
}

/// The operand of an `atom` or `red`: the added constant, or the exchanged one.
fn operand(rmw: Rmw) -> u32 {
    match rmw {
        Rmw::Add(k) | Rmw::Exch(k) => k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::spelling::opcode;
    use ptxvec_oracle::model::{Event, Place, Scope, Sem, Thread};

    /// Every event's opcode as the litmus vectors spell it.
    fn spelled(test: &Litmus) -> Vec<Vec<String>> {
        test.threads.iter().map(|t| t.events.iter().map(|e| opcode(e).unwrap()).collect()).collect()
    }

    fn mp(places: [Place; 2]) -> Litmus {
        let t0 = vec![Event::st_weak(Loc(2), Val::Const(1)), Event::st(Sem::Release, Scope::Gpu, Loc(3), Val::Const(1))];
        let t1 = vec![Event::ld(Sem::Acquire, Scope::Gpu, Loc(3), Reg(0)), Event::ld_weak(Loc(2), Reg(1))];
        Litmus { threads: vec![Thread { place: places[0], events: t0 }, Thread { place: places[1], events: t1 }] }
    }

    #[test]
    fn layout_reports_registers_then_locations_and_sizes_the_cluster() {
        let l = Layout::of(&mp([Place::cta(0, 0), Place::cta(0, 1)]));
        assert_eq!(l.regs, vec![(1, Reg(0)), (1, Reg(1))]);
        assert_eq!(l.locs, vec![Loc(2), Loc(3)]);
        assert_eq!((l.cluster, l.width(), l.threads), (2, 4, 2));
        assert_eq!(Layout::of(&mp([Place::cta(0, 0), Place::cta(1, 0)])).cluster, 1);
        assert_eq!(Layout::of(&mp([Place::cta(0, 0), Place::cta(0, 0)])).cluster, 1);
    }

    #[test]
    fn each_event_is_its_opcode_and_operands() {
        let test = mp([Place::cta(0, 0), Place::cta(0, 1)]);
        let text = module(&test, &spelled(&test)).unwrap();
        for line in [
            "\tst.global.u32 [%m0], 1;",
            "\tst.release.gpu.global.u32 [%m1], 1;",
            "\tld.acquire.gpu.global.u32 %t1r0, [%m1];",
            "\tld.global.u32 %t1r1, [%m0];",
            "\tst.global.u32 [%o+4], %t1r1;",
            ".reqnctapercluster 2, 1, 1",
        ] {
            assert!(text.lines().any(|l| l == line), "{line:?} missing:\n{text}");
        }
    }

    #[test]
    fn opcodes_that_do_not_fit_are_refused() {
        let test = mp([Place::cta(0, 0), Place::cta(0, 0)]);
        let mut ops = spelled(&test);
        ops[1].pop();
        assert!(module(&test, &ops).unwrap_err().to_string().contains("one for one"));
        let mut ops = spelled(&test);
        ops[0][0] = "st.global.u32 [%m0], 1; trap".into();
        assert!(module(&test, &ops).unwrap_err().to_string().contains("one word"));
    }
}
