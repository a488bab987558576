//! The body of a memory variant: one thread per record copies the record's memory
//! where the instruction reduces, runs it, and copies the result out; contention
//! blocks run 32 threads on one address; the bulk forms run one operation per
//! block (or per CTA of a cluster).

use super::super::{Execution, MemSpace, Suite, BLOCK, WARP};
use super::check::compare;
use super::data::ExpectData;
use super::{load64, reg, ClusterLayout, OperandPath, Variation};
use crate::device::ptx::{ins, Code, Pred};
use crate::record::Shape;

/// One slot's registers: the pieces it loads or stores (`%r20`, …, one per
/// element or per packed pair, 64-bit halves of a `.b128`), and the slot as the
/// instruction takes it (`{%h20, %h21}` for a vector, `%q1` for a `.b128`).
struct Regs {
    /// The slot's name, whose arrays the pieces load from (`ptxvec_operand`).
    name: &'static str,
    /// The pieces.
    regs: Vec<String>,
    /// The register wider than 64 bits the pieces form, where they form one.
    wide: Option<String>,
    /// The operand as written.
    written: String,
}

/// A memory record's elements and the registers of its slots, as the family
/// declares them: what each memory body loads, copies and reduces.
struct Elems {
    /// Element width in bits.
    width: u32,
    /// Elements per record.
    lanes: u32,
    /// Each input slot's registers (`operand` from `%r20`, the next from `%r28`,
    /// their wide registers `%q1`, `%q2`), in the order declared.
    inputs: Vec<Regs>,
    /// Each thread output's (atom's `d`: from `%r44`, `%q3`).
    outputs: Vec<Regs>,
    /// The pieces' width in bits.
    reg_bits: u32,
}

impl Elems {
    fn new(s: &Suite) -> Option<Elems> {
        let (Execution::Memory { width, lanes, .. }, Shape::Memory(shape)) = (s.exec, s.shape) else {
            return None;
        };
        // Every slot's register is the operand's (the families so far).
        let register = shape.inputs().next().map_or(width, |x| x.register);
        // A register over 64 bits is moved from and to 64-bit halves.
        let reg_bits = register.min(64);
        let nregs = lanes * width / reg_bits;
        let set = |name: &'static str, first: u32, wide: u32| {
            let regs: Vec<String> = (0..nregs).map(|j| reg(reg_bits, first + j)).collect();
            let wide = (register > 64).then(|| format!("%q{wide}"));
            // Braced where the binding writes the slot's operand as a vector (`.vN`).
            let vector = s
                .operands
                .iter()
                .any(|b| b.binding.holds == name && b.binding.operand.starts_with('{'));
            let written = match &wide {
                Some(q) => q.clone(),
                None if vector => format!("{{{}}}", regs.join(", ")),
                None => regs.join(", "),
            };
            Regs { name, regs, wide, written }
        };
        let inputs = shape
            .inputs()
            .zip(0..)
            .map(|(x, k)| set(x.name, 20 + 8 * k, 1 + k))
            .collect();
        let outputs = shape
            .thread_outputs()
            .zip(0..)
            .map(|(x, k)| set(x.name, 44 + 8 * k, 3 + k))
            .collect();
        Some(Elems {
            width,
            lanes,
            inputs,
            outputs,
            reg_bits,
        })
    }

    /// The first input's array (`ptxvec_operand`), which the bulk forms and
    /// red.async read through their own addresses.
    fn operand_array(&self) -> String {
        format!("ptxvec_{}", self.inputs.first().map_or("", |r| r.name))
    }

    /// The instruction, its operands in the order of the variant's binding: a
    /// slot in its registers, what `places` names (the address `&mem`, the bulk
    /// forms' `&operand`, `size`, `mbar`) where the body put it, and any other as
    /// the binding writes it (so that ptxas names it rather than the module hiding
    /// it): `d, [addr], b{, c}` for atom, `[addr], b` for red.
    fn instruction(&self, c: &mut Code, s: &Suite, places: &[(&str, &str)]) {
        let operands: Vec<&str> = s
            .operands
            .iter()
            .map(|b| {
                let holds = b.binding.holds.as_str();
                let slot = self.inputs.iter().chain(&self.outputs).find(|r| r.name == holds);
                match (places.iter().find(|(h, _)| *h == holds), slot) {
                    (Some((_, at)), _) => *at,
                    (None, Some(r)) => r.written.as_str(),
                    (None, None) => b.binding.operand.as_str(),
                }
            })
            .collect();
        ins!(c, "{} {}", s.opcode, operands.join(", "));
    }

    /// Stores the thread's output (atom's returned value) to global `base` (a
    /// wide register first moved to its halves).
    fn store_d(&self, c: &mut Code, base: &str) {
        let Some(out) = self.outputs.first() else {
            return;
        };
        if let Some(q) = &out.wide {
            ins!(c, "mov.b128 {{{}}}, {q}", out.regs.join(", "));
        }
        let bits = self.reg_bits;
        for (j, r) in out.regs.iter().enumerate() {
            ins!(c, "st.global.b{bits} [{base}+{}], {r}", j as u32 * bits / 8);
        }
    }

    /// Copies every element from `(space, address)` to `(space, address)` through
    /// the scratch register of the element's width (`%h40`, `%r40`, `%rd40`). Under
    /// `guard` a thread loads only where the predicate holds and stores zero
    /// otherwise (a padding thread of a block).
    fn copy(&self, c: &mut Code, guard: Option<&str>, from: (&str, &str), to: (&str, &str)) {
        let (width, t) = (self.width, reg(self.width, 40));
        for k in 0..self.lanes {
            let off = k * width / 8;
            let load = format!("ld.{}.b{width} {t}, [{}+{off}]", from.0, from.1);
            match guard {
                Some(p) => {
                    ins!(c, "mov.b{width} {t}, 0");
                    c.guarded(Pred::is(p), load);
                }
                None => c.ins(load),
            }
            ins!(c, "st.{}.b{width} [{}+{off}], {t}", to.0, to.1);
        }
    }

    /// Loads the input registers from global memory, each input's from its
    /// base in `bases` (those past the end are not loaded), and relays them as
    /// `path` says.
    fn load_operands(&self, c: &mut Code, bases: &[&str], path: OperandPath) {
        let bits = self.reg_bits;
        let mut all: Vec<&String> = Vec::new();
        for (input, from) in self.inputs.iter().zip(bases) {
            for (j, r) in input.regs.iter().enumerate() {
                let off = j as u32 * bits / 8;
                ins!(c, "ld.global.b{bits} {r}, [{from}+{off}]");
                all.push(r);
            }
        }
        if path == OperandPath::Relaid {
            // The thread index at the registers' width: x ^ k ^ k = x.
            let key = reg(bits, 60);
            match bits {
                32 => ins!(c, "mov.b32 {key}, %r0"),
                16 => ins!(c, "cvt.u16.u32 {key}, %r0"),
                _ => ins!(c, "cvt.u64.u32 {key}, %r0"),
            }
            for r in &all {
                ins!(c, "xor.b{bits} {r}, {r}, {key}");
                ins!(c, "xor.b{bits} {r}, {r}, {key}");
            }
        }
        for input in self.inputs.iter().take(bases.len()) {
            if let Some(q) = &input.wide {
                ins!(c, "mov.b128 {q}, {{{}}}", input.regs.join(", "));
            }
        }
    }
}

/// The registers that hold where each input of a record starts: the first
/// input's, the second's (a family declaring more adds one here).
const INPUT_BASES: [&str; 2] = ["%rd5", "%rd35"];

/// In a contention block, the base and scratch registers of each input after the
/// first (the first's are `%rd5` and `%rd32`).
const CONTENTION_BASES: [(&str, &str); 1] = [("%rd37", "%rd38")];

/// The memory body of either entry; `check` holds the expectation symbols of
/// `ptxvec_check`. Ends by branching to, or falling into, `DONE`.
pub(super) fn body(c: &mut Code, s: &Suite, check: Option<&ExpectData>, v: Variation) {
    let (Execution::Memory {
        space,
        width,
        lanes,
        ..
    }, Some(e)) = (s.exec, Elems::new(s))
    else {
        return;
    };
    let n = s.records.len();
    let stride = s.stride();
    let wb = width / 8;
    let block_bytes = BLOCK as usize * stride;
    // Every thread of a block runs these, past the last record too: the bulk forms
    // (one issues for the block) and red.async (each reduces into its peer CTA).
    let bulk = matches!(space, MemSpace::BulkGlobal | MemSpace::BulkCluster | MemSpace::AsyncCluster);
    let contention = !s.contention_records().is_empty();
    if contention {
        c.branch_if("ge.u32", "%p4", "%r1", s.plain_grid(), "CONTEND");
    }
    ins!(c, "setp.lt.u32 %p0, %r3, {n}");
    if !bulk {
        c.branch(Pred::not("%p0"), "DONE");
    }
    c.element("%rd3", "%rd1", "%rd2", "%r3", stride);
    c.symbol_plus("%rd4", "%rd4", "ptxvec_mem_in", "%rd2");
    // Each input's elements of the record.
    let bases: Vec<&str> = e
        .inputs
        .iter()
        .zip(INPUT_BASES)
        .map(|(x, base)| {
            c.symbol_plus(base, base, &format!("ptxvec_{}", x.name), "%rd2");
            base
        })
        .collect();
    // atom's returned value: its own region of the output, after the memory.
    if let Some(off) = s.d_offset() {
        ins!(c, "add.u64 %rd36, %rd3, {off}");
    }
    ins!(c, "mul.wide.u32 %rd7, %r0, {stride}");
    if contention {
        // A contention record's own thread stays idle: its block runs it.
        c.ins("mov.u64 %rd30, ptxvec_contended");
        c.ins("cvt.u64.u32 %rd31, %r3");
        c.ins("add.u64 %rd30, %rd30, %rd31");
        c.ins("ld.global.u8 %r12, [%rd30]");
        c.branch_if("ne.u32", "%p5", "%r12", 0, "DONE");
    }
    // A record's elements from global `src` to `dst` in space `sp`; the bulk forms
    // run every thread of the block and store zero past the last record.
    let guard = bulk.then_some("%p0");
    let copy = |c: &mut Code, src: &str, dst: &str, sp: &str| {
        e.copy(c, guard, ("global", src), (sp, dst));
    };
    match space {
        MemSpace::Global | MemSpace::Generic => {
            copy(c, "%rd4", "%rd3", "global");
            e.load_operands(c, &bases, v.operand);
            c.ins("mov.u64 %rd6, %rd3");
            let addr = reduce_address(c, space);
            e.instruction(c, s, &[("&mem", &format!("[{addr}]"))]);
            e.store_d(c, "%rd36");
        }
        MemSpace::SharedCta | MemSpace::SharedCluster | MemSpace::GenericShared => {
            c.symbol_plus("%rd6", "%rd6", "ptxvec_sbuf", "%rd7");
            copy(c, "%rd4", "%rd6", "shared");
            e.load_operands(c, &bases, v.operand);
            let addr = reduce_address(c, space);
            e.instruction(c, s, &[("&mem", &format!("[{addr}]"))]);
            e.store_d(c, "%rd36");
            e.copy(c, None, ("shared", "%rd6"), ("global", "%rd3"));
        }
        MemSpace::BulkGlobal => {
            // The block's memory stays in global; its operands go to `sbuf`.
            c.symbol_plus("%rd6", "%rd8", "ptxvec_sbuf", "%rd7");
            copy(c, "%rd4", "%rd3", "global");
            copy(c, "%rd5", "%rd6", "shared");
            c.bulk_by_thread0(&["global", "shared::cta"], "ISSUED", |c| {
                c.element("%rd10", "%rd1", "%rd9", "%r1", block_bytes);
                ins!(c, "mov.u32 %r10, {block_bytes}");
                e.instruction(c, s, &[("&mem", "[%rd10]"), ("&operand", "[%rd8]"), ("size", "%r10")]);
            });
            // The async proxy's writes to global, before the generic proxy reads them.
            c.ins("fence.proxy.async.global");
            c.label("ISSUED");
            c.ins("bar.sync 0");
            c.branch(Pred::not("%p0"), "DONE");
        }
        MemSpace::BulkCluster => bulk_cluster(c, s, &e, block_bytes, &copy, v.cluster),
        MemSpace::AsyncCluster => async_cluster(c, s, &e, &copy, v.operand),
    }
    if contention {
        c.jump("CHECK");
        contention_body(c, s, &e, v.operand);
        c.label("CHECK");
    }
    if let Some(d) = check {
        // Slot base: record × lanes; the record's fail word.
        ins!(c, "mul.wide.u32 %rd14, %r3, {lanes}");
        c.ins("mul.wide.u32 %rd18, %r3, 4");
        c.symbol_plus("%rd18", "%rd19", "ptxvec_fails", "%rd18");
        // Each output from where the body left it: the memory at `%rd3`, a
        // thread's output (atom's returned value) at `%rd36`.
        for (o, (out, _)) in s.outputs().iter().enumerate() {
            let at = if s.thread_output() == Some(*out) { "%rd36" } else { "%rd3" };
            for k in 0..lanes {
                load64(c, "%rd50", &format!("{at}+{}", k * wb), width);
                for (pi, prefixes) in d.prefix.iter().enumerate() {
                    compare(c, d, &prefixes[o], width, k, s.inf(*out), pi);
                }
            }
        }
    }
}

/// The peer's record for this thread (`%r17`, and `%p9` where it is a record of
/// the `n`): its block is this one's with the cluster rank (`%r14`) swapped for the
/// peer's (`%r15`); laid out [`ClusterLayout::Alone`], the CTA's own.
fn peer_record(c: &mut Code, n: usize, layout: ClusterLayout) {
    c.ins("mov.u32 %r14, %cluster_ctarank");
    match layout {
        ClusterLayout::Pairs => c.ins("xor.b32 %r15, %r14, 1"),
        ClusterLayout::Alone { .. } => c.ins("mov.u32 %r15, %r14"),
    }
    c.ins("sub.u32 %r16, %r1, %r14");
    c.ins("add.u32 %r16, %r16, %r15");
    c.ins("mad.lo.u32 %r17, %r16, %r2, %r0");
    ins!(c, "setp.lt.u32 %p9, %r17, {n}");
}

/// After a reduction into the peer CTA: wait on phase 0 of this CTA's mbarrier
/// (`%rd12`; bounded, so that a lost completion cannot hang the device), a
/// cluster barrier that keeps both CTAs' shared memory alive until both are done,
/// then a record's thread copies its element (`%rd6`) out to `%rd3`.
fn await_peer(c: &mut Code, e: &Elems) {
    c.ins("mov.u32 %r11, 0");
    c.label("WAIT");
    c.ins("mbarrier.try_wait.parity.shared::cta.b64 %p2, [%rd12], 0");
    c.branch(Pred::is("%p2"), "WAITED");
    c.ins("add.u32 %r11, %r11, 1");
    c.branch_if("lt.u32", "%p3", "%r11", 1000000, "WAIT");
    c.label("WAITED");
    cluster_barrier(c);
    c.branch(Pred::not("%p0"), "DONE");
    e.copy(c, None, ("shared", "%rd6"), ("global", "%rd3"));
}

/// `barrier.cluster.arrive` and `.wait`: every thread of the cluster.
fn cluster_barrier(c: &mut Code) {
    c.ins("barrier.cluster.arrive");
    c.ins("barrier.cluster.wait");
}

/// The `.shared::cluster` bulk form. Each CTA of a cluster of two reduces into
/// its peer's shared memory: its destination (`sbuf`) holds its own records'
/// memory, its source (`sbuf2`) the operands of the peer's records. Each CTA arms
/// its own mbarrier with the bytes it will receive before a cluster barrier, thread
/// 0 then issues the reduction into the peer's `sbuf` completing on the peer's
/// mbarrier (addresses through `mapa`), everyone waits on phase 0 (bounded, so a
/// lost completion cannot hang the device), and a second cluster barrier keeps
/// both CTAs' shared memory alive until both reductions are done. Laid out
/// [`ClusterLayout::Alone`], each CTA is its own peer.
fn bulk_cluster(
    c: &mut Code,
    s: &Suite,
    e: &Elems,
    block_bytes: usize,
    copy: &dyn Fn(&mut Code, &str, &str, &str),
    layout: ClusterLayout,
) {
    let (n, stride) = (s.records.len(), s.stride());
    c.ins("mov.u64 %rd8, ptxvec_sbuf");
    c.ins("mov.u64 %rd11, ptxvec_sbuf2");
    c.ins("mov.u64 %rd12, ptxvec_mbar");
    c.ins("add.u64 %rd6, %rd8, %rd7");
    c.ins("add.u64 %rd9, %rd11, %rd7");
    peer_record(c, n, layout);
    ins!(c, "mul.wide.u32 %rd30, %r17, {stride}");
    c.symbol_plus("%rd31", "%rd31", &e.operand_array(), "%rd30");
    copy(c, "%rd4", "%rd6", "shared");
    e.copy(c, Some("%p9"), ("global", "%rd31"), ("shared", "%rd9"));
    c.ins("setp.eq.u32 %p1, %r0, 0");
    c.guarded(Pred::is("%p1"), "mbarrier.init.shared::cta.b64 [%rd12], 1");
    c.ins("fence.mbarrier_init.release.cluster");
    c.ins("fence.proxy.async.shared::cta");
    ins!(c, "mov.u32 %r10, {block_bytes}");
    c.guarded(
        Pred::is("%p1"),
        "mbarrier.arrive.expect_tx.shared::cta.b64 %rd13, [%rd12], %r10",
    );
    cluster_barrier(c);
    c.branch(Pred::not("%p1"), "ARMED");
    c.ins("mapa.shared::cluster.u64 %rd33, %rd8, %r15");
    c.ins("mapa.shared::cluster.u64 %rd34, %rd12, %r15");
    e.instruction(c, s, &[("&mem", "[%rd33]"), ("&operand", "[%rd11]"), ("size", "%r10"), ("mbar", "[%rd34]")]);
    c.label("ARMED");
    await_peer(c, e);
}

/// `red.async` into the peer CTA of a cluster of two. Each CTA's `sbuf` holds its
/// own records' memory, one element per thread (zero past the last record); thread
/// 0 arms the CTA's mbarrier with the bytes the peer's threads will store, one
/// element each. After a cluster barrier, thread t reduces the operand of the
/// peer's record t into the peer's element t, completing on the peer's mbarrier
/// (both through `mapa`: generic addresses where the text names no state space;
/// a thread past the peer's last record reduces 0 into padding). Everyone waits
/// on phase 0 (bounded), and a second cluster barrier keeps both CTAs' shared
/// memory alive until both sides are done.
fn async_cluster(c: &mut Code, s: &Suite, e: &Elems, copy: &dyn Fn(&mut Code, &str, &str, &str), path: OperandPath) {
    let (n, stride) = (s.records.len(), s.stride());
    let generic = !s.opcode.split('.').any(|w| w == "shared::cluster");
    c.ins("mov.u64 %rd8, ptxvec_sbuf");
    c.ins("mov.u64 %rd12, ptxvec_mbar");
    c.ins("add.u64 %rd6, %rd8, %rd7");
    peer_record(c, n, ClusterLayout::Pairs);
    // Record 0's operand stands in past the peer's last record.
    c.ins("selp.u32 %r18, %r17, 0, %p9");
    ins!(c, "mul.wide.u32 %rd30, %r18, {stride}");
    c.symbol_plus("%rd31", "%rd31", &e.operand_array(), "%rd30");
    copy(c, "%rd4", "%rd6", "shared");
    c.ins("setp.eq.u32 %p1, %r0, 0");
    c.guarded(Pred::is("%p1"), "mbarrier.init.shared::cta.b64 [%rd12], 1");
    c.ins("fence.mbarrier_init.release.cluster");
    // As the bulk form does: the generic stores into `sbuf`, before any proxy's
    // reduction reads them.
    c.ins("fence.proxy.async.shared::cta");
    ins!(c, "mov.u32 %r10, {}", BLOCK as usize * stride);
    c.guarded(Pred::is("%p1"), "mbarrier.arrive.expect_tx.shared::cta.b64 %rd13, [%rd12], %r10");
    cluster_barrier(c);
    e.load_operands(c, &["%rd31"], path);
    if generic {
        c.ins("cvta.shared.u64 %rd32, %rd6");
        c.ins("mapa.u64 %rd33, %rd32, %r15");
        c.ins("cvta.shared.u64 %rd32, %rd12");
        c.ins("mapa.u64 %rd34, %rd32, %r15");
    } else {
        c.ins("mapa.shared::cluster.u64 %rd33, %rd6, %r15");
        c.ins("mapa.shared::cluster.u64 %rd34, %rd12, %r15");
    }
    e.instruction(c, s, &[("&mem", "[%rd33]"), ("mbar", "[%rd34]")]);
    await_peer(c, e);
}

/// The address the reduction takes, from the destination in `%rd6` (global or
/// shared space): generic spaces convert it to a generic address in `%rd9`.
fn reduce_address(c: &mut Code, space: MemSpace) -> &'static str {
    match space {
        MemSpace::Generic => {
            c.ins("cvta.global.u64 %rd9, %rd6");
            "%rd9"
        }
        MemSpace::GenericShared => {
            c.ins("cvta.shared.u64 %rd9, %rd6");
            "%rd9"
        }
        _ => "%rd6",
    }
}

/// A contention block (`CONTEND`): thread 0 stores the record's memory, 32 threads
/// reduce their operands into that one address between two barriers (for atom
/// each storing the value it found in its own slot), thread 0 copies a shared
/// result out (and for atom its own value to the record's), and goes on to
/// `CHECK` with the record in `%r3`, its memory at `%rd3` and its value at `%rd36`.
fn contention_body(c: &mut Code, s: &Suite, e: &Elems, path: OperandPath) {
    let Execution::Memory { space, .. } = s.exec else {
        return;
    };
    let stride = s.stride();
    let shared = matches!(
        space,
        MemSpace::SharedCta | MemSpace::SharedCluster | MemSpace::GenericShared
    );
    c.label("CONTEND");
    ins!(c, "sub.u32 %r12, %r1, {}", s.plain_grid());
    c.ins("mul.wide.u32 %rd30, %r12, 4");
    c.symbol_plus("%rd31", "%rd31", "ptxvec_contention_record", "%rd30");
    c.ins("ld.global.u32 %r3, [%rd31]");
    c.element("%rd3", "%rd1", "%rd2", "%r3", stride);
    c.symbol_plus("%rd4", "%rd4", "ptxvec_mem_in", "%rd2");
    // Thread t of contention block j takes operand 32 j + t.
    c.ins("shl.b32 %r13, %r12, 5");
    c.ins("add.u32 %r13, %r13, %r0");
    ins!(c, "mul.wide.u32 %rd5, %r13, {stride}");
    c.symbol_plus("%rd5", "%rd32", &format!("ptxvec_{}s", e.inputs.first().map_or("", |x| x.name)), "%rd5");
    // The further inputs' elements of the thread, each through its own pair.
    let mut bases = vec!["%rd5"];
    for (x, (base, scratch)) in e.inputs.iter().skip(1).zip(CONTENTION_BASES) {
        ins!(c, "mul.wide.u32 {base}, %r13, {stride}");
        c.symbol_plus(base, scratch, &format!("ptxvec_{}s", x.name), base);
        bases.push(base);
    }
    c.ins("setp.eq.u32 %p7, %r0, 0");
    ins!(c, "setp.lt.u32 %p8, %r0, {WARP}");
    let sp = if shared {
        c.ins("mov.u64 %rd6, ptxvec_sbuf");
        "shared"
    } else {
        c.ins("mov.u64 %rd6, %rd3");
        "global"
    };
    c.branch(Pred::not("%p7"), "CSTORED");
    e.copy(c, None, ("global", "%rd4"), (sp, "%rd6"));
    c.label("CSTORED");
    c.ins("bar.sync 0");
    c.branch(Pred::not("%p8"), "CREDUCED");
    e.load_operands(c, &bases, path);
    let addr = reduce_address(c, space);
    e.instruction(c, s, &[("&mem", &format!("[{addr}]"))]);
    if let Some(at) = s.threads_d_offset() {
        // Thread t of block j: slot 32 j + t of the threads' region.
        ins!(c, "mul.wide.u32 %rd39, %r13, {stride}");
        c.ins("add.u64 %rd39, %rd39, %rd1");
        ins!(c, "add.u64 %rd39, %rd39, {at}");
        e.store_d(c, "%rd39");
    }
    c.label("CREDUCED");
    c.ins("bar.sync 0");
    c.branch(Pred::not("%p7"), "DONE");
    if shared {
        e.copy(c, None, ("shared", "%rd6"), ("global", "%rd3"));
    }
    if let Some(off) = s.d_offset() {
        // The record's own value: thread 0's, one of the threads'.
        ins!(c, "add.u64 %rd36, %rd3, {off}");
        e.store_d(c, "%rd36");
    }
}

#[cfg(test)]
mod tests {
    use super::{CONTENTION_BASES, INPUT_BASES};
    use crate::record::Shape;
    use crate::vectors::semantic::variants;

    /// Every input a memory variant declares has a base register in a record's
    /// body and in a contention block's: a family declaring more inputs than the
    /// tables hold fails here rather than emitting a module without them.
    #[test]
    fn every_declared_input_has_its_base_registers() {
        let spec = ptxvec_spec::Spec::load(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec"))).unwrap();
        for v in variants(&spec) {
            if let Shape::Memory(m) = v.semantics.shape() {
                let n = m.inputs().count();
                assert!((1..=INPUT_BASES.len()).contains(&n), "{}: {n} inputs", v.id);
                assert!(n <= 1 + CONTENTION_BASES.len(), "{}: {n} inputs", v.id);
            }
        }
    }
}
