//! `ptxvec_check`'s verdicts: each output compared with each profile's
//! expectation, and the last thread's tally of the fail words into the result.

use ptxvec_oracle::profile::Profile;

use super::super::{skipped, Execution, Suite, FIRST_FAILS};
use super::data::ExpectData;
use super::{load64, store_bits, RESULT_PER_PROFILE};
use crate::device::ptx::{ins, Code, Pred};
use crate::record::Inputs;

/// Compares the 64-bit `%rd50` with slot `%rd14 + k` of the arrays at `prefix`;
/// on a mismatch sets bit `profile` of the record's fail word at `%rd18`.
pub(super) fn compare(
    c: &mut Code,
    d: &ExpectData,
    prefix: &str,
    width: u32,
    k: u32,
    inf: Option<u64>,
    profile: usize,
) {
    let sb = store_bits(width) / 8;
    let shift = sb.trailing_zeros();
    c.symbol_plus("%rd15", "%rd15", &format!("{prefix}_kind"), "%rd14");
    ins!(c, "ld.global.u8 %r50, [%rd15+{k}]");
    ins!(c, "shl.b64 %rd16, %rd14, {shift}");
    c.symbol_plus("%rd17", "%rd17", &format!("{prefix}_a"), "%rd16");
    load64(c, "%rd51", &format!("%rd17+{}", k * sb), width);
    c.symbol_plus("%rd17", "%rd17", &d.b_symbol(prefix), "%rd16");
    load64(c, "%rd52", &format!("%rd17+{}", k * sb), width);
    // Kind bit 0: a or b.
    c.ins("setp.eq.u64 %p10, %rd50, %rd51");
    c.ins("setp.eq.u64 %p11, %rd50, %rd52");
    c.ins("or.pred %p10, %p10, %p11");
    c.ins("and.b32 %r51, %r50, 1");
    c.ins("setp.ne.u32 %p11, %r51, 0");
    c.ins("and.pred %p10, %p10, %p11");
    if let Some(inf) = inf {
        // Kind bit 1: any NaN, a magnitude above infinity's.
        let magnitude = if width >= 64 {
            u64::MAX >> 1
        } else {
            (1u64 << (width - 1)) - 1
        };
        ins!(c, "and.b64 %rd53, %rd50, {magnitude:#x}");
        ins!(c, "setp.gt.u64 %p12, %rd53, {inf:#x}");
        c.ins("and.b32 %r51, %r50, 2");
        c.ins("setp.ne.u32 %p11, %r51, 0");
        c.ins("and.pred %p12, %p12, %p11");
        c.ins("or.pred %p10, %p10, %p12");
    }
    // Kind bit 2: anything.
    c.ins("and.b32 %r51, %r50, 4");
    c.ins("setp.ne.u32 %p11, %r51, 0");
    c.ins("or.pred %p10, %p10, %p11");
    c.guarded(
        Pred::not("%p10"),
        format_args!("atom.global.or.b32 %r52, [%rd18], {}", 1u32 << profile),
    );
}

/// After every thread is done: the last one to arrive tallies the fail words in
/// record order (so first_fail is the lowest failing records), writes the result,
/// and clears the fail words and the arrival count for the next launch.
pub(super) fn tally(c: &mut Code, s: &Suite) {
    let l = s.launch();
    let n = s.records.len();
    // Threads that arrive: all but the members that exit.
    let total: u64 = match s.exec {
        Execution::Memory { .. } => u64::from(l.grid) * u64::from(l.block),
        Execution::Warp => s
            .records
            .iter()
            .map(|r| match &r.inputs {
                Inputs::Warp(w) if !skipped(r) => s.threads() as u64 - u64::from(w.exits().count_ones()),
                _ => s.threads() as u64,
            })
            .sum(),
    };
    c.ins("membar.gl");
    c.ins("mov.u64 %rd20, ptxvec_done");
    c.ins("atom.global.add.u32 %r60, [%rd20], 1");
    c.branch_if("ne.u32", "%p14", "%r60", total - 1, "END");
    c.ins("membar.gl");
    c.global_param("%rd21", "%rd21", "result");
    let profiles = Profile::ALL.len();
    for p in 0..profiles {
        for i in 0..FIRST_FAILS {
            let at = p * RESULT_PER_PROFILE + 8 + 4 * i;
            ins!(c, "st.global.u32 [%rd21+{at}], 0xffffffff");
        }
    }
    // pass_p in %r(62 + 2p), fail_p in %r(63 + 2p).
    c.ins("mov.u32 %r61, 0");
    c.ins("mov.u64 %rd22, ptxvec_fails");
    for p in 0..profiles {
        ins!(c, "mov.u32 %r{}, 0", 62 + 2 * p);
        ins!(c, "mov.u32 %r{}, 0", 63 + 2 * p);
    }
    c.label("TALLY");
    c.ins("mul.wide.u32 %rd24, %r61, 4");
    if matches!(s.exec, Execution::Warp) {
        // Skipped records count neither way.
        c.symbol_plus("%rd25", "%rd23", "ptxvec_flags", "%rd24");
        c.ins("ld.global.u32 %r66, [%rd25]");
        c.ins("and.b32 %r66, %r66, 1");
        c.branch_if("ne.u32", "%p15", "%r66", 0, "NEXT");
    }
    c.ins("add.u64 %rd25, %rd22, %rd24");
    c.ins("atom.global.exch.b32 %r67, [%rd25], 0");
    for p in 0..profiles {
        let (pass, fail) = (62 + 2 * p, 63 + 2 * p);
        ins!(c, "and.b32 %r68, %r67, {}", 1u32 << p);
        c.ins("setp.ne.u32 %p16, %r68, 0");
        ins!(c, "setp.lt.u32 %p17, %r{fail}, {FIRST_FAILS}");
        c.ins("and.pred %p17, %p17, %p16");
        ins!(c, "mul.wide.u32 %rd26, %r{fail}, 4");
        c.ins("add.u64 %rd26, %rd26, %rd21");
        c.guarded(
            Pred::is("%p17"),
            format_args!("st.global.u32 [%rd26+{}], %r61", p * RESULT_PER_PROFILE + 8),
        );
        c.guarded(
            Pred::is("%p16"),
            format_args!("add.u32 %r{fail}, %r{fail}, 1"),
        );
        c.guarded(
            Pred::not("%p16"),
            format_args!("add.u32 %r{pass}, %r{pass}, 1"),
        );
    }
    c.label("NEXT");
    c.ins("add.u32 %r61, %r61, 1");
    c.branch_if("lt.u32", "%p15", "%r61", n, "TALLY");
    for p in 0..profiles {
        let at = p * RESULT_PER_PROFILE;
        ins!(c, "st.global.u32 [%rd21+{at}], %r{}", 62 + 2 * p);
        ins!(c, "st.global.u32 [%rd21+{}], %r{}", at + 4, 63 + 2 * p);
    }
    c.ins("atom.global.exch.b32 %r69, [%rd20], 0");
}
