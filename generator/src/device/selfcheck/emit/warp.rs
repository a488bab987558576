//! The body of a warp variant: one block per record, of one warp or (`bar.red`)
//! a CTA of several. Members that exit first
//! leave, lanes that do not execute branch around, the rest run the collective,
//! written from its operand binding: no collective has a body of its own.

use ptxvec_spec::Qualifier;

use super::super::{Suite, WARP};
use super::check::compare;
use super::data::ExpectData;
use super::LANE_BYTES;
use crate::device::ptx::{ins, Code, Pred};
use crate::record::{Out, Per, Shape};
use crate::family::binding::Bound;

/// `ld.global.{ty} dst, [symbol + offset]`, through `%rd4`.
fn load(c: &mut Code, ty: &str, dst: &str, symbol: &str, offset: &str) {
    c.symbol_plus("%rd4", "%rd4", symbol, offset);
    ins!(c, "ld.global.{ty} {dst}, [%rd4]");
}

/// A register an operand of the collective reads or writes, and the moves that
/// carry it from or to the 32-bit words the records load and store.
struct Register {
    /// The operand's text (`%r30`, `%r30|%p6`).
    text: String,
    /// Before the instruction: into the register from its word.
    before: Option<&'static str>,
    /// After the instruction: from the register into its word.
    after: Option<&'static str>,
}

impl Register {
    fn plain(text: &str) -> Register {
        Register {
            text: text.to_owned(),
            before: None,
            after: None,
        }
    }
}

/// The register of a bound operand. The words: `%r20` (`%rd20` when 64 bits
/// wide) holds the lane's `a`, `%r21` its `b`, `%r22` its `c`, `%r5` the
/// membermask; a predicate source is set from its word into `%p5`, a `.f32` one
/// moved into `%f1`; the instruction leaves `d` in `%r30` and `p` in `%r31`.
fn register(b: &Bound) -> Register {
    let is = |q| b.class == Some(q);
    let wide = matches!(b.class, Some(Qualifier::B64 | Qualifier::U64 | Qualifier::S64));
    let source = |key: &str| {
        let word = word(key, false);
        if is(Qualifier::Pred) {
            Register {
                text: "%p5".to_owned(),
                before: Some(match key {
                    "b" => "setp.ne.u32 %p5, %r21, 0",
                    "c" => "setp.ne.u32 %p5, %r22, 0",
                    _ => "setp.ne.u32 %p5, %r20, 0",
                }),
                after: None,
            }
        } else if is(Qualifier::F32) && key == "a" {
            Register {
                text: "%f1".to_owned(),
                before: Some("mov.b32 %f1, %r20"),
                after: None,
            }
        } else {
            Register::plain(word)
        }
    };
    match b.binding.holds.as_str() {
        "d|p" => Register {
            text: "%r30|%p6".to_owned(),
            before: None,
            after: Some("selp.u32 %r31, 1, 0, %p6"),
        },
        "d" if is(Qualifier::Pred) => Register {
            text: "%p6".to_owned(),
            before: None,
            after: Some("selp.u32 %r30, 1, 0, %p6"),
        },
        "d" if is(Qualifier::F32) => Register {
            text: "%f2".to_owned(),
            before: None,
            after: Some("mov.b32 %r30, %f2"),
        },
        "a" if wide => Register::plain(word("a", true)),
        key @ ("a" | "b" | "c") => source(key),
        "membermask" => Register::plain("%r5"),
        "d" => Register::plain("%r30"),
        // No warp record holds another key: written as the binding writes it, so
        // that ptxas names the operand rather than the module hiding it.
        _ => Register::plain(&b.binding.operand),
    }
}

/// The word a source's value is loaded into: `%r20` (`%rd20` when 64 bits wide)
/// for `a`, `%r21` for `b`, `%r22` for `c`.
fn word(key: &str, wide: bool) -> &'static str {
    match (key, wide) {
        ("a", true) => "%rd20",
        ("a", false) => "%r20",
        ("b", _) => "%r21",
        _ => "%r22",
    }
}

/// The warp body of either entry; `check` holds the expectation symbols of
/// `ptxvec_check`. Ends by branching to, or falling into, `DONE`. What the lanes
/// load comes from the records' shape; the instruction's operands from its
/// binding, each in its register.
pub(super) fn body(c: &mut Code, s: &Suite, check: Option<&ExpectData>) {
    let Shape::Warp(shape) = s.shape else {
        return;
    };
    c.ins("mul.wide.u32 %rd2, %r1, 4");
    load(c, "u32", "%r4", "ptxvec_flags", "%rd2");
    load(c, "u32", "%r5", "ptxvec_membermask", "%rd2");
    // The masks, a 32-bit word per warp: a warp's by the record (`%rd2`, as the
    // flags); a CTA of several warps' by the thread's warp of all the records'
    // (`%r12`: `%r3 / 32`, record × warps + warp), its bit by its lane (`%r13`).
    let (index, lane) = if s.threads() > WARP {
        c.ins("shr.u32 %r12, %r3, 5");
        c.ins("mul.wide.u32 %rd6, %r12, 4");
        c.ins("and.b32 %r13, %r0, 31");
        ("%rd6", "%r13")
    } else {
        ("%rd2", "%r0")
    };
    load(c, "u32", "%r6", "ptxvec_executing", index);
    load(c, "u32", "%r11", "ptxvec_exits", index);
    c.ins("and.b32 %r7, %r4, 1");
    c.branch_if("ne.u32", "%p0", "%r7", 0, "DONE");
    ins!(c, "shl.b32 %r8, 1, {lane}");
    c.ins("and.b32 %r9, %r11, %r8");
    c.ins("and.b32 %r10, %r6, %r8");
    c.ins("setp.ne.u32 %p1, %r9, 0");
    c.ins("setp.eq.u32 %p2, %r10, 0");
    c.comment(
        "Lanes that exit first leave the warp; other lanes that do not execute branch around.",
    );
    c.guarded(Pred::is("%p1"), "exit");
    c.branch(Pred::is("%p2"), "DONE");
    // Each source into its word: a lane's own entry (`%r3`: record × 32 + lane)
    // or the record's (`%rd2`).
    for (key, source) in shape.sources() {
        let bytes = if source.field.width() == 64 { 8 } else { 4 };
        let dst = word(key, bytes == 8);
        // `a` is loaded by its bits, `b` and `c` as `.u32` (how the collectives'
        // modules have always loaded them).
        let ty = if key == "a" { format!("b{}", bytes * 8) } else { format!("u{}", bytes * 8) };
        if source.per == Per::Warp {
            load(c, &ty, dst, &format!("ptxvec_{key}"), "%rd2");
        } else {
            ins!(c, "mul.wide.u32 %rd3, %r3, {bytes}");
            load(c, &ty, dst, &format!("ptxvec_{key}"), "%rd3");
        }
    }
    c.ins("mov.u32 %r31, 0");
    let registers: Vec<Register> = s.operands.iter().map(register).collect();
    let optional: Vec<&str> = shape.sources().filter(|(_, src)| src.optional).map(|(k, _)| k).collect();
    for r in &registers {
        if let Some(m) = r.before {
            c.ins(m);
        }
    }
    // A text per flag: bit 1 negates the predicate source, bit 2 leaves out the
    // optional operands (a record without `bar.red`'s thread count).
    let text = |negated: bool, omitted: bool| {
        let texts: Vec<String> = s
            .operands
            .iter()
            .zip(&registers)
            .filter(|(b, _)| !(omitted && optional.contains(&b.binding.holds.as_str())))
            .map(|(b, r)| {
                if negated && b.negatable {
                    format!("!{}", r.text)
                } else {
                    r.text.clone()
                }
            })
            .collect();
        format!("{} {}", s.opcode, texts.join(", "))
    };
    let negatable = s.operands.iter().any(|b| b.negatable);
    let omissible = s.records.iter().any(|r| s.omits(r));
    let spellings: Vec<(bool, bool)> = [(false, false), (true, false), (false, true), (true, true)]
        .into_iter()
        .filter(|&(n, o)| (negatable || !n) && (omissible || !o))
        .collect();
    if spellings.len() == 1 {
        c.ins(text(false, false));
    } else if !omissible {
        // The record's flag bit 1 picks the spelling with a negated predicate source.
        c.ins("and.b32 %r7, %r4, 2");
        c.branch_if("ne.u32", "%p3", "%r7", 0, "NEGATED");
        c.ins(text(false, false));
        c.jump("JOINED");
        c.label("NEGATED");
        c.ins(text(true, false));
        c.label("JOINED");
    } else {
        // Flag bits 1 and 2 pick one of the spellings.
        c.ins("and.b32 %r7, %r4, 6");
        for &(n, o) in &spellings[1..] {
            let flags = u32::from(n) << 1 | u32::from(o) << 2;
            c.branch_if("eq.u32", "%p3", "%r7", u64::from(flags), &format!("SPELLING_{flags}"));
        }
        for (k, &(n, o)) in spellings.iter().enumerate() {
            if k > 0 {
                c.label(&format!("SPELLING_{}", u32::from(n) << 1 | u32::from(o) << 2));
            }
            c.ins(text(n, o));
            if k + 1 < spellings.len() {
                c.jump("JOINED");
            }
        }
        c.label("JOINED");
    }
    for r in &registers {
        if let Some(m) = r.after {
            c.ins(m);
        }
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
