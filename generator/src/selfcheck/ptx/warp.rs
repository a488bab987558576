//! The body of a warp variant: one warp per record. Members that exit first
//! leave, lanes that do not execute branch around, the rest run the collective.

use super::super::{Execution, Suite, WarpOp};
use super::check::compare;
use super::data::ExpectData;
use super::LANE_BYTES;
use crate::ptx::{ins, Code, Pred};
use crate::record::Out;

/// `ld.global.{ty} dst, [symbol + offset]`, through `%rd4`.
fn load(c: &mut Code, ty: &str, dst: &str, symbol: &str, offset: &str) {
    c.symbol_plus("%rd4", "%rd4", symbol, offset);
    ins!(c, "ld.global.{ty} {dst}, [%rd4]");
}

/// The warp body of either entry; `check` holds the expectation symbols of
/// `ptxvec_check`. Ends by branching to, or falling into, `DONE`.
pub(super) fn body(c: &mut Code, s: &Suite, check: Option<&ExpectData>) {
    let Execution::Warp { op, wide } = s.exec else {
        return;
    };
    let op_text = &s.opcode;
    // The membermask operand, where the instruction has one (the non-sync `vote`
    // and `shfl` take the warp's active threads instead).
    let mm = match s.shape {
        crate::record::Shape::Warp(w) if w.membermask => ", %r5",
        _ => "",
    };
    c.ins("mul.wide.u32 %rd2, %r1, 4");
    load(c, "u32", "%r4", "ptxvec_flags", "%rd2");
    load(c, "u32", "%r5", "ptxvec_membermask", "%rd2");
    load(c, "u32", "%r6", "ptxvec_executing", "%rd2");
    load(c, "u32", "%r11", "ptxvec_exits", "%rd2");
    c.ins("and.b32 %r7, %r4, 1");
    c.branch_if("ne.u32", "%p0", "%r7", 0, "DONE");
    c.ins("shl.b32 %r8, 1, %r0");
    c.ins("and.b32 %r9, %r11, %r8");
    c.ins("and.b32 %r10, %r6, %r8");
    c.ins("setp.ne.u32 %p1, %r9, 0");
    c.ins("setp.eq.u32 %p2, %r10, 0");
    c.comment(
        "Lanes that exit first leave the warp; other lanes that do not execute branch around.",
    );
    c.guarded(Pred::is("%p1"), "exit");
    c.branch(Pred::is("%p2"), "DONE");
    let a = if wide { "%rd20" } else { "%r20" };
    if op != WarpOp::Activemask {
        let bytes = if wide { 8 } else { 4 };
        ins!(c, "mul.wide.u32 %rd3, %r3, {bytes}");
        load(c, &format!("b{}", bytes * 8), a, "ptxvec_a", "%rd3");
    }
    if op == WarpOp::Shfl {
        c.ins("mul.wide.u32 %rd3, %r3, 4");
        load(c, "u32", "%r21", "ptxvec_b", "%rd3");
        load(c, "u32", "%r22", "ptxvec_c", "%rd2");
    }
    c.ins("mov.u32 %r31, 0");
    // The record's flag bit 1 picks the spelling with a negated predicate source.
    let negatable = |c: &mut Code, dst: &str| {
        c.ins("setp.ne.u32 %p5, %r20, 0");
        c.ins("and.b32 %r7, %r4, 2");
        c.branch_if("ne.u32", "%p3", "%r7", 0, "NEGATED");
        ins!(c, "{op_text} {dst}, %p5{mm}");
        c.jump("JOINED");
        c.label("NEGATED");
        ins!(c, "{op_text} {dst}, !%p5{mm}");
        c.label("JOINED");
    };
    // A variant that writes `d` alone leaves p's word 0.
    let writes_p = s.outputs().iter().any(|(o, _)| *o == Out::P);
    match op {
        WarpOp::Shfl if !writes_p => ins!(c, "{op_text} %r30, %r20, %r21, %r22{mm}"),
        WarpOp::Shfl => {
            ins!(c, "{op_text} %r30|%p6, %r20, %r21, %r22{mm}");
            c.ins("selp.u32 %r31, 1, 0, %p6");
        }
        WarpOp::Vote => {
            negatable(c, "%p6");
            c.ins("selp.u32 %r30, 1, 0, %p6");
        }
        WarpOp::Ballot => negatable(c, "%r30"),
        WarpOp::MatchAny => ins!(c, "{op_text} %r30, {a}, %r5"),
        WarpOp::MatchAll if !writes_p => ins!(c, "{op_text} %r30, {a}, %r5"),
        WarpOp::MatchAll => {
            ins!(c, "{op_text} %r30|%p6, {a}, %r5");
            c.ins("selp.u32 %r31, 1, 0, %p6");
        }
        WarpOp::ReduxInt => ins!(c, "{op_text} %r30, %r20, %r5"),
        WarpOp::ReduxF32 => {
            c.ins("mov.b32 %f1, %r20");
            ins!(c, "{op_text} %f2, %f1, %r5");
            c.ins("mov.b32 %r30, %f2");
        }
        WarpOp::Activemask => ins!(c, "{op_text} %r30"),
    }
    match check {
        None => {
            c.element("%rd5", "%rd1", "%rd5", "%r3", LANE_BYTES);
            c.ins("st.global.v2.u32 [%rd5], {%r30, %r31}");
        }
        Some(d) => {
            c.ins("cvt.u64.u32 %rd14, %r3");
            c.symbol_plus("%rd18", "%rd19", "ptxvec_fails", "%rd2");
            for (oi, (o, width)) in s.outputs().into_iter().enumerate() {
                let src = if o == Out::P { "%r31" } else { "%r30" };
                ins!(c, "cvt.u64.u32 %rd50, {src}");
                for (pi, prefixes) in d.prefix.iter().enumerate() {
                    compare(c, d, &prefixes[oi], width, 0, s.inf(o), pi);
                }
            }
        }
    }
}
