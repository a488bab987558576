//! The judge on texts the generator never made (issue 22), and the explorer that
//! keeps it so. Every expected verdict and prediction below is what ptxas 13.5 said
//! of the text (probed 2026-11-25, the messages quoted), never our own output.

use std::path::PathBuf;
use std::process::Command;

use ptxvec_generator::syntax::context::Module;
use ptxvec_generator::syntax::departure::predict;
use ptxvec_generator::syntax::judge::Order;
use ptxvec_generator::syntax::definition::judge;
use ptxvec_spec::Spec;

use crate::spec_root;

/// What ptxas did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ptxas {
    /// Assembled.
    Accepts,
    /// Gave an error.
    Rejects,
    /// Died by a signal.
    Fails,
}

/// (text, ptx, target, what ptxas 13.5 did, the ledger entry that predicts a
/// departure from our verdict, if any). Where no entry is named, our verdict must
/// be ptxas's.
const CASES: &[(&str, &str, &str, Ptxas, Option<&str>)] = &[
    // Qualifier order: every permutation of every legal chain (22,147 texts), the
    // two state spaces of cp.reduce.async.bulk aside ("State space incorrect").
    ("redux.sync.min.NaN.abs.f32 %f1, %f2, 0xffffffff;", "8.8", "sm_100f", Ptxas::Accepts, None),
    ("redux.sync.f32.NaN.min.abs %f1, %f2, 0xffffffff;", "8.8", "sm_100f", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.and.b32.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%rd1], [%rd2], %r1, [%rd3];", "8.0", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.shared::cta.and.mbarrier::complete_tx::bytes.b32.shared::cluster [%rd1], [%rd2], %r1, [%rd3];", "8.0", "sm_90", Ptxas::Rejects, None),
    // `.sync` anywhere; nowhere: ".sync modifier required for instruction 'redux'".
    ("redux.add.sync.u32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("redux.u32.sync.add %r1, %r2, %r3;", "7.0", "sm_80", Ptxas::Accepts, None),
    ("shfl.up.b32.sync %r1, %r2, %r3, %r4, %r5;", "6.3", "sm_75", Ptxas::Accepts, None),
    ("vote.pred.sync.all %p1, %p2, %r1;", "6.3", "sm_75", Ptxas::Accepts, None),
    ("match.sync.b32.any %r1, %r2, %r3;", "6.3", "sm_75", Ptxas::Accepts, None),
    ("redux.add.u32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("match.any.b32 %r1, %r2, %r3;", "8.0", "sm_90", Ptxas::Rejects, None),
    // The cache-policy operand: a 64-bit integer register or an integer
    // ("Arguments mismatch for instruction 'red'" otherwise).
    ("red.global.and.L2::cache_hint.b32 [%rd1], 1, %fd3;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.global.and.L2::cache_hint.b32 [%rd1], 1, %r3;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.global.and.L2::cache_hint.b32 [%rd1], 1, 5;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.and.L2::cache_hint.b32 [%rd1], 1, %rd3;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.and.b32 [%rd1], [%rd2], 16, %fd1;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.and.b32 [%rd1], [%rd2], 16, 7;", "8.0", "sm_90", Ptxas::Accepts, None),
    // Comments and whitespace (PTX ISA 4.2); a dot starts its word.
    ("redux.sync.add.u32 %r1, %r2, 0xffffffff; // 4.", "8.0", "sm_90", Ptxas::Accepts, None),
    ("redux.sync.add.u32 %r1, /* x */ %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("redux/*x*/.sync.add.u32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("redux.sync .add.u32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("redux.sync. add.u32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.u32 [ %rd1 + 4 ] , 1 ;", "8.0", "sm_90", Ptxas::Accepts, None),
    // Integer constant expressions (PTX ISA 4.6); no unary operator on a float.
    ("red.global.add.u32 [%rd1], !1;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.u32 [%rd1], (1 << 4) - 1;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.f32 [%rd1], !0f3F800000;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.u32 [%rd1], !1.5;", "8.0", "sm_90", Ptxas::Rejects, None),
    // A minus before a .f32 bit pattern is a parse error, not before a .f64 one; a
    // decimal float may start with its point.
    ("red.global.add.f32 [%rd1], -0f3F800000;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.f64 [%rd1], -0d3FF0000000000000;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.f32 [%rd1], -1.5;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.f32 [%rd1], .5;", "8.0", "sm_90", Ptxas::Accepts, None),
    // cp.reduce.async.bulk's size: "out of range, expected to be in range [0..1048560]".
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1], [%rd2], 1048560;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1], [%rd2], 1048576;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.max.s64 [%rd1], [%rd2], -16;", "8.0", "sm_90", Ptxas::Rejects, None),
    // A 16-bit register address: accepted with a warning; a 32-bit one is fatal
    // outside .shared.
    ("red.global.add.u32 [%h1], 1;", "8.0", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.u32 [%r1], 1;", "8.0", "sm_90", Ptxas::Rejects, None),
    ("red.shared.add.u32 [%r1], 1;", "8.0", "sm_90", Ptxas::Accepts, None),
    // Ledgered departures: a repeated `.sync`, `.uni` or `.NaN` (E019), other
    // repeats refused ("Multiple .abs modifiers specified").
    ("vote.sync.uni.uni.pred %p1, %p2, 1;", "8.0", "sm_90", Ptxas::Accepts, Some("E019")),
    ("redux.sync.min.NaN.NaN.f32 %f1, %f2, 1;", "8.8", "sm_100f", Ptxas::Accepts, Some("E019")),
    ("match.any.sync.sync.b32 %r1, %r2, 0xffffffff;", "8.0", "sm_90", Ptxas::Accepts, Some("E019")),
    ("redux.sync.min.abs.abs.f32 %f1, %f2, 1;", "8.8", "sm_100f", Ptxas::Rejects, None),
    ("vote.sync.all.all.pred %p1, %p2, 1;", "8.0", "sm_90", Ptxas::Rejects, None),
    // Immediates in vectors (E027), and the fault on an integer past the first (E028).
    ("red.global.add.noftz.v2.f16 [%rd1], {%h1, 1.5};", "8.1", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.v2.f32 [%rd1], {0f3F800000, %f2};", "8.1", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.noftz.v2.f16 [%rd1], {1, %h2};", "8.1", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.noftz.v2.bf16 [%rd1], {0f3F800000, %h2};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {%f1, 1};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v4.bf16x2 [%rd1], {%r1, %r2, 1, %r4};", "8.1", "sm_90", Ptxas::Fails, Some("E028")),
    // A literal first types the vector, and registers of other widths may follow
    // it (E027, E045); an integer literal past it, or past a `.b32` register first
    // in a `.f32` vector, is a fault (E028, E044). ptxas 13.5 at 8.6, sm_90.
    ("red.global.add.v2.f32 [%rd1], {0, %h1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.sys.global.add.v2.f32 [%rd1], {0, %h1};", "9.1", "sm_110f", Ptxas::Accepts, Some("E027")),
    ("red.global.add.v4.f32 [%rd1], {0, %h1, %r1, %rd1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.v2.f32 [%rd1], {0f3F800000, %rd1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.v2.f32 [%rd1], {1.5, %h1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.v4.f32 [%rd1], {0, %h1, 0f3F800000, %r1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.noftz.v2.f16 [%rd1], {0, %r1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("red.global.add.noftz.v4.f16 [%rd1], {0, %h1, %r1, %rd1};", "8.6", "sm_90", Ptxas::Accepts, Some("E027")),
    ("atom.global.add.v2.f32 {%f1, %f2}, [%rd1], {0, %h1};", "8.6", "sm_90", Ptxas::Accepts, Some("E045")),
    ("red.global.add.v2.f32 [%rd1], {0, %f1};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {0, %p1};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {0, 1.5};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {0, _};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {%h1, 0};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v2.bf16 [%rd1], {0, %h1};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v2.f16x2 [%rd1], {0, %h1};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v2.f16 [%rd1], {0f3F800000, %h1};", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v2.f32 [%rd1], {%r1, 0};", "8.6", "sm_90", Ptxas::Fails, Some("E028")),
    ("red.global.add.v4.f32 [%rd1], {%r1, %r2, %r3, 7};", "8.6", "sm_90", Ptxas::Fails, Some("E028")),
    ("red.global.add.v4.f32 [%rd1], {0, %h1, 1, %r1};", "8.6", "sm_90", Ptxas::Fails, Some("E028+E027")),
    ("red.global.add.v4.f32 [%rd1], {%r1, %f1, 0, %r2};", "8.6", "sm_90", Ptxas::Rejects, None),
    // An integer literal next to a float literal: "Vector with elements of
    // different types", before either reading (explorer, seed 2026112906); apart,
    // each literal is read as alone. ptxas 13.5 at 8.1, sm_90.
    ("red.release.cta.min.noftz.L2::cache_hint.v4.bf16 [%rd1], {%h1, 1.5, 16, %h4}, %rd2;", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.min.noftz.v4.bf16 [%rd1], {%h1, 16, 1.5, %h4};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v4.f16 [%rd1], {%h1, 1, 1.5, %h4};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v4.f32 [%rd1], {%r1, 0f3F800000, 0, %r2};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.v4.f32 [%rd1], {0, %h1, 0f3F800000, 1};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v4.bf16x2 [%rd1], {%r1, 1.5, 1, %r2};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.min.noftz.v4.bf16 [%rd1], {%h1, 16, %h3, 1.5};", "8.1", "sm_90", Ptxas::Fails, Some("E027+E028")),
    ("red.global.add.v4.f32 [%rd1], {0f3F800000, %r1, 0, %r2};", "8.1", "sm_90", Ptxas::Fails, Some("E027+E028")),
    ("red.global.add.noftz.v4.f16 [%rd1], {1, %h2, 1.5, %h4};", "8.1", "sm_90", Ptxas::Accepts, Some("E027")),
    ("atom.global.add.v2.f32 {%f1, %f2}, [%rd1], {%r1, 0};", "8.6", "sm_90", Ptxas::Fails, Some("E044")),
    // A size written as a constant expression is checked by its value.
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16|0xffffffff;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16+1;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 0-16;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], (0-1)>>60;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16*0x100000000+16;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 32-16;", "8.6", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 2>1?16:17;", "8.6", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 0x8000000000000000/-1;", "8.6", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16<<65;", "8.6", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 1<<64;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 33 % 17;", "8.6", "sm_90", Ptxas::Accepts, None),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 32 %17;", "8.6", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.u32 [%rd1], 0/0+16;", "8.6", "sm_90", Ptxas::Rejects, None),
    // A packed vector's element takes any 32-bit register; the scalar takes .b32.
    ("red.global.add.noftz.v2.bf16x2 [%rd1], {%r1, %f3};", "8.1", "sm_90", Ptxas::Accepts, None),
    ("red.global.add.noftz.bf16x2 [%rd1], %f1;", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v2.f16 [%rd1], {%h1, %r3};", "8.1", "sm_90", Ptxas::Rejects, None),
    // The sink as red's address: accepted in .shared (E029), a fault elsewhere (E030);
    // refused by every other instruction ("Result discard mode is not allowed").
    ("red.shared.add.u32 _, 1;", "8.0", "sm_90", Ptxas::Accepts, Some("E029")),
    ("red.global.add.u32 _, 1;", "8.0", "sm_90", Ptxas::Fails, Some("E030")),
    ("redux.sync.add.u32 _, %r1, 1;", "8.0", "sm_90", Ptxas::Rejects, None),
    // `.noftz` on an .f32 add: from PTX ISA 9.4 (E034); below it, "Feature 'red
    // with .noftz and .f32' requires PTX ISA .version 9.4 or later".
    ("@!%p2 red.release.add.noftz.L2::cache_hint.v2.f32 [%rd1], {%r1, %r2}, %rd2;", "9.5", "sm_121", Ptxas::Accepts, Some("E034")),
    ("red.global.add.noftz.v2.f32 [%rd1], {%f1, %f2};", "8.1", "sm_90", Ptxas::Rejects, None),
    // E018 and E020 as before.
    ("red.and.pred.b32 [%rd1], %r1;", "6.3", "sm_75", Ptxas::Accepts, Some("E018")),
    ("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.and.b32 [%rd1], [%rd2], %r1, %rd9;", "8.0", "sm_90", Ptxas::Accepts, Some("E020")),
    // A fourth operand of atom's bit-size ops (E042, probed 2026-11-26): of the
    // type's width, read as nothing; an integer or `%rd` is read as a cache-policy
    // (".L2::cache_hint modifier required for instruction 'atom' with 4 arguments");
    // to `.shared` on sm_90 and later, "(C7907) Internal compiler error." (E051).
    ("atom.global.and.b32 %r1, [%rd1], %r2, %r3;", "9.0", "sm_90", Ptxas::Accepts, Some("E042")),
    ("atom.relaxed.gpu.global.xor.b32 %r1, [%rd1], %f7, %r2;", "6.3", "sm_75", Ptxas::Accepts, Some("E042")),
    ("atom.shared::cluster.cluster.release.exch.b64 %rd1, [%rd2], %rd3, 1.5;", "7.8", "sm_90", Ptxas::Accepts, Some("E042")),
    ("atom.global.exch.b128 %q1, [%rd1], %q2, %q3;", "9.0", "sm_90", Ptxas::Accepts, Some("E042")),
    ("atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", "9.0", "sm_89", Ptxas::Accepts, Some("E042")),
    ("atom.global.and.b64 %rd1, [%rd1], %rd2, %rd3;", "9.0", "sm_90", Ptxas::Rejects, None),
    ("atom.global.exch.b32 %r1, [%rd1], %r2, 1;", "9.0", "sm_90", Ptxas::Rejects, None),
    ("atom.global.and.b32 %r1, [%rd1], %r2, 1.5;", "9.0", "sm_90", Ptxas::Rejects, None),
    ("atom.global.add.u32 %r1, [%rd1], %r2, %r3;", "9.0", "sm_90", Ptxas::Rejects, None),
    ("atom.global.and.L2::cache_hint.b32 %r1, [%rd1], %r2, %r3, %rd4;", "9.0", "sm_90", Ptxas::Rejects, None),
    ("atom.shared.and.b32 %r1, [%rd1], %r2, %r3;", "9.0", "sm_90", Ptxas::Fails, Some("E051")),
    ("atom.shared::cta.exch.b64 %rd1, [%rd1], %rd2, %fd3;", "9.0", "sm_100a", Ptxas::Fails, Some("E051")),
    // A `.pred` element of a vector beside a `.b32` one and no `.f32`: taken in
    // atom's `d` (E052), an internal compiler error in `b` (E053); beside `%f`,
    // "Vector with elements of different types are not allowed in atom instruction".
    ("atom.global.min.noftz.v2.f16x2 {%p5, %r2}, [%rd1], {%r3, %r4};", "9.5", "sm_90", Ptxas::Accepts, Some("E052")),
    ("atom.global.add.v2.f32 {%p1, %r2}, [%rd1], {%f11, %f12};", "9.5", "sm_90", Ptxas::Accepts, Some("E052")),
    ("atom.global.max.noftz.v2.bf16x2 {%p1, %f2}, [%rd1], {%r11, %r12};", "9.5", "sm_90", Ptxas::Rejects, None),
    ("atom.global.add.noftz.v2.f16 {%p1, %h2}, [%rd1], {%h11, %h12};", "9.5", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v2.f16x2 [%rd1], {%r11, %p9};", "8.1", "sm_90", Ptxas::Fails, Some("E053")),
    ("atom.global.min.noftz.v2.f16x2 {%r1, %r2}, [%rd1], {%p11, %r12};", "9.5", "sm_90", Ptxas::Fails, Some("E053")),
    ("red.global.add.v2.f32 [%rd1], {%p9, %f12};", "8.1", "sm_90", Ptxas::Rejects, None),
    // The `.f32` that draws the error is a neighbour of the `.pred`; elsewhere in
    // the vector it leaves the reading (explorer, seed 2026112908).
    ("red.sys.global.add.noftz.v4.f16x2 [%rd1], {%r1, %f4, %r3, %p3};", "8.1", "sm_90", Ptxas::Fails, Some("E053")),
    ("red.global.add.v4.f32 [%rd1], {%r1, %f4, %r3, %p3};", "8.1", "sm_90", Ptxas::Fails, Some("E053")),
    ("red.global.add.noftz.v4.f16x2 [%rd1], {%r1, %f4, %p3, %r3};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("red.global.add.noftz.v4.f16x2 [%rd1], {%r1, %p3, %f4, %r3};", "8.1", "sm_90", Ptxas::Rejects, None),
    ("atom.global.min.noftz.v4.f16x2 {%r5, %f6, %r7, %p8}, [%rd1], {%r1, %r2, %r3, %r4};", "8.1", "sm_90", Ptxas::Accepts, Some("E052")),
    // `.shared::cta` below sm_30 (ptxas 12.9 at -arch=sm_50: E036, E046), alone and
    // with E018's `.pred`; below PTX ISA 7.8 "Feature '::cta' requires PTX ISA
    // .version 7.8 or later".
    ("atom.u32.shared::cta.inc %r1, [%rd1], 1;", "8.1", "sm_20", Ptxas::Accepts, Some("E046")),
    ("red.shared::cta.and.b32 [%rd1], 1;", "7.8", "sm_12", Ptxas::Accepts, Some("E036")),
    ("red.pred.b32.and.shared::cta [%rd1], 1;", "7.8", "sm_20", Ptxas::Accepts, Some("E018+E036")),
    ("red.shared::cta.and.b32 [%rd1], 1;", "7.7", "sm_20", Ptxas::Rejects, None),
    ("atom.shared::cta.inc.u32 %r1, [%rd1], 1;", "7.8", "sm_11", Ptxas::Rejects, None),
];

/// ptxas 12.9's fault on a `.bf16` atom whose `d` is the sink (E054), which ptxas
/// 13.5 answers (probed 2026-11-26).
#[test]
fn ptxas_12_9_fails_on_a_sink_bf16_atom() {
    let spec = Spec::load(&spec_root()).unwrap();
    for (text, ptx, target, fails) in [
        ("atom.acq_rel.cluster.add.shared::cta.noftz.bf16 _, [%rd1], %h2;", "7.1", "sm_60", true),
        ("atom.add.noftz.bf16x2 _, [%rd1], %r2;", "6.3", "sm_50", true),
        // A guard of another register class: "Predicate expression expected", then
        // the fault (the explorer's seed 2026112908, then probes at 7.8, sm_90);
        // with a register `d`, the error alone.
        ("@%r1 atom.relaxed.cta.global.add.noftz.bf16x2.L2::cache_hint /* operands */ _, [%rd1], %r2, %rd2;", "2.0", "sm_20", true),
        ("@!%r1 atom.global.add.noftz.bf16 _, [%rd1], %h2;", "7.8", "sm_90", true),
        ("@%rd1 atom.global.add.noftz.bf16x2 _, [%rd1], %r2;", "7.8", "sm_90", true),
        ("@%r1 atom.global.add.noftz.bf16 %h1, [%rd1], %h2;", "7.8", "sm_90", false),
        ("atom.add.noftz.bf16 _, [%rd1], %r2;", "7.8", "sm_60", false),
        ("atom.add.noftz.f16 _, [%rd1], %h2;", "7.8", "sm_60", false),
        // The vector forms' `_`, and an address ptxas refuses: the fault comes
        // first (ptxas 12.9, killed by signal 11; the explorer's seed 2026112613).
        ("atom.max.noftz.v2.bf16x2 _, [1], {%r3, %r4};", "7.0", "sm_52", true),
        ("atom.global.add.noftz.bf16 _, [1], %h1;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.v2.bf16 _, [%r1], {%h1, %h2};", "8.6", "sm_90", true),
        ("atom.global.add.noftz.v2.f16 _, [1], {%h1, %h2};", "8.6", "sm_90", false),
        // A repeated qualifier draws its error, then the fault (the explorer's seed
        // 2026112801, then probes); a repeated type does not, nor a register `d`
        // (exit status 255 after the error).
        ("atom.noftz.add.v4.v4.bf16 _, [%h2], {%h5, %h6, %h7, %h8};", "6.3", "sm_61", true),
        ("atom.global.add.noftz.v2.v2.bf16x2 _, [%rd1], {%r1, %r2};", "8.6", "sm_90", true),
        ("atom.global.global.add.noftz.bf16 _, [%rd1], %h1;", "8.6", "sm_90", true),
        ("atom.relaxed.gpu.gpu.global.add.noftz.bf16 _, [%rd1], %h1;", "8.6", "sm_90", true),
        ("atom.add.noftz.noftz.bf16 _, [1], %h3;", "7.0", "sm_52", true),
        ("atom.global.add.noftz.bf16.bf16 _, [%rd1], %h1;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.v2.v2.bf16 {%h3, %h4}, [%rd1], {%h1, %h2};", "8.6", "sm_90", false),
        // Whatever error it draws, unless that error stops it first (the explorer's
        // seed 2026112901, then probes, 2026-11-26): a vector whose first element
        // has the type, a vector on a scalar type, a missing or foreign qualifier,
        // an integer or a bracketed register `b`, a cache-policy without
        // `.L2::cache_hint`, a sink pair.
        ("atom.min.noftz.v4.bf16 _, [%rd1], {%h5, %fd7, %h7, %h8};", "7.3", "sm_20", true),
        ("atom.max.noftz.bf16 _, [%rd1], {%h5, %h6, %h7, %h8};", "4.3", "sm_52", true),
        ("atom.global.add.noftz.bf16 _, [%rd1], {%h5, %r6};", "8.6", "sm_90", true),
        ("atom.global.add.noftz.v2.bf16 _, [%rd1], %h2;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.v4.bf16 _, [%rd1], {%h5, %h6};", "8.6", "sm_90", true),
        ("atom.global.noftz.bf16 _, [%rd1], %h2;", "8.6", "sm_90", true),
        ("atom.global.inc.bf16 _, [%rd1], %h2;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.up.bf16 _, [%rd1], %h2;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.bf16 _, [%rd1], [%h2+4];", "8.6", "sm_90", true),
        ("atom.global.add.noftz.bf16x2 _, [%rd1], %f2;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.bf16x2 _, [%rd1], {%r5, %r6};", "8.6", "sm_90", true),
        ("atom.global.add.noftz.bf16 _, [%rd1], %h2, %rd3;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.bf16 _|%p1, [%rd1], %h2;", "8.6", "sm_90", true),
        ("atom.global.add.noftz.v2.bf16 _, [%rd1], {%h5, _};", "8.6", "sm_90", true),
        // Errors that stop it first (exit status 255): "Arguments mismatch",
        // "Unexpected instruction types", "Illegal modifier '.sync'", "Incompatible
        // elements" where the first element is of another class, "Unable to infer
        // type of vector elements".
        ("atom.global.add.noftz.bf16 _, [%rd1], %fd2;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.bf16x2 _, [%rd1], %h2;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.v2.bf16 _, [%rd1], {%r5, %h6};", "8.6", "sm_90", false),
        ("atom.global.add.noftz.v2.bf16 _, [%rd1], {_, _};", "8.6", "sm_90", false),
        ("atom.global.add.noftz.bf16 _, [%rd1], [%rd2];", "8.6", "sm_90", false),
        ("atom.global.add.noftz.bf16 _, [%rd1], 1.5;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.bf16 _, [%rd1], %h2, %h3;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.L2::cache_hint.bf16 _, [%rd1], %h2;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.bf16 _, %rd1, %h2;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.sync.bf16 _, [%rd1], %h2;", "8.6", "sm_90", false),
        ("atom.global.cas.bf16 _, [%rd1], %h2, %h3;", "8.6", "sm_90", false),
        ("atom.global.add.noftz.b32.bf16 _, [%rd1], %h2;", "8.6", "sm_90", false),
    ] {
        let module = Module { ptx: ptx.parse().unwrap(), target: target.parse().unwrap() };
        let j = judge(&spec, text, module.ptx, module.target, Order::Lenient);
        assert!(!j.legal(), "{text}");
        let p = predict(&spec, text, module, "12.9", &j);
        assert_eq!(p.as_ref().map(|p| (p.fails, p.erratum.as_str())), fails.then_some((true, "E054")), "{text} at {ptx} {target}");
        assert!(predict(&spec, text, module, "13.5", &j).is_none(), "{text}: ptxas 13.5 answers");
    }
    // A legal text: ptxas 13.5 takes it, ptxas 12.9 is killed by signal 11.
    let text = "atom.global.add.noftz.v4.bf16x2 _, [%rd1], {%r1, %r2, %r3, %r4};";
    let module = Module { ptx: "8.6".parse().unwrap(), target: "sm_90".parse().unwrap() };
    let j = judge(&spec, text, module.ptx, module.target, Order::Lenient);
    assert!(j.legal(), "{text}: {:?}", j.defect);
    let p = predict(&spec, text, module, "12.9", &j);
    assert_eq!(p.as_ref().map(|p| (p.fails, p.erratum.as_str())), Some((true, "E054")), "{text}");
    assert!(predict(&spec, text, module, "13.5", &j).is_none(), "{text}: ptxas 13.5 answers");
}

#[test]
fn the_judge_and_the_ledger_say_what_ptxas_does() {
    let spec = Spec::load(&spec_root()).unwrap();
    let mut wrong = Vec::new();
    for &(text, ptx, target, ptxas, erratum) in CASES {
        let module = Module { ptx: ptx.parse().unwrap(), target: target.parse().unwrap() };
        let j = judge(&spec, text, module.ptx, module.target, Order::Lenient);
        let p = predict(&spec, text, module, "13.5", &j);
        let said = match &p {
            Some(p) if p.fails => Ptxas::Fails,
            Some(p) if p.accepts => Ptxas::Accepts,
            Some(_) => Ptxas::Rejects,
            None if j.legal() => Ptxas::Accepts,
            None => Ptxas::Rejects,
        };
        let named = p.as_ref().map(|p| p.erratum.as_str());
        if said != ptxas || named != erratum {
            wrong.push(format!("{text} at {ptx} {target}: ptxas {ptxas:?} ({erratum:?}); we say {said:?} ({named:?}), {:?}", j.defect));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn ptxvec(args: &[&str], stdin: Option<&str>) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn check_syntax_reports_each_ledgered_departure() {
    let out = ptxvec(&["check-syntax", "--ptx", "8.0", "--target", "sm_90", "redux.sync.add.sync.u32 %r1, %r2, 0xffffffff;"], None);
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.trim_end().ends_with("(ptxas 13.5 accepts this: E019)"), "{line}");
    let out = ptxvec(&["check-syntax", "--ptx", "8.0", "--target", "sm_90", "red.global.add.u32 _, 1;"], None);
    assert!(String::from_utf8(out.stdout).unwrap().trim_end().ends_with("(ptxas 13.5 fails on this: E030)"));
    // Batch: the JSON answer carries the prediction; the fast path and the
    // definition (an escaped string goes to the definition) answer alike.
    let input = "{\"text\":\"red.shared.add.u32 _, 1;\",\"ptx\":\"8.0\",\"target\":\"sm_90\"}\n\
                 {\"text\":\"red.shared.add.u32 _,\\u0020 1;\",\"ptx\":\"8.0\",\"target\":\"sm_90\"}\n\
                 {\"text\":\"red.shared.add.u32 [%rd1], 1;\",\"ptx\":\"8.0\",\"target\":\"sm_90\"}\n";
    let out = ptxvec(&["check-syntax", "-"], Some(input));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want = serde_json::json!({"accepts": true, "erratum": "E029"});
    assert_eq!(lines[0]["ptxas"], want);
    assert_eq!(lines[1]["ptxas"], want);
    assert!(lines[2].get("ptxas").is_none());
}

/// The committed explorations, replayed from their verdict cache without ptxas:
/// every text judged today must agree with what ptxas said, or with the ledger's
/// prediction. The seeds and counts are explore/README.md's.
#[test]
fn the_recorded_exploration_has_no_unexplained_disagreement() {
    let spec = crate::support::spec();
    for r in ptxvec_generator::ptxas::explore::RECORDED {
        assert!(spec.instruction(r.as_of).is_some(), "{:?}: no such instruction in the spec", r.as_of);
        let (n, seed, as_of) = (r.n, r.seed, r.as_of);
        let out = ptxvec(&["audit-syntax", "--explore", &n.to_string(), "--seed", &seed.to_string(), "--as-of", as_of, "--offline"], None);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            text.contains(&format!("explore agreement: {n} of {n} verifiable texts agree")),
            "{text}"
        );
    }
}

/// A trailing comment, as libcu++'s inline assembly writes one, is whitespace: the
/// text is legal, and emit-ptx wraps it; an open `/*` could swallow the entry's end,
/// so it is refused even with `--force`.
#[test]
fn comments_are_whitespace_in_check_syntax_and_emit_ptx() {
    let text = "red.global.add.u32 [%rd1], 1; // 4.";
    let out = ptxvec(&["check-syntax", "--ptx", "8.0", "--target", "sm_90", text], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let out = ptxvec(&["emit-ptx", text, "--ptx", "8.0", "--target", "sm_90"], None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains(text));
    let open = "red.global.add.u32 [%rd1], 1; /* 4.";
    let out = ptxvec(&["emit-ptx", open, "--ptx", "8.0", "--target", "sm_90", "--force"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("comment left open"));
}

/// ptxas dying on one text of a module is pinned to that text by halving, and
/// recorded as a failure, never as a verdict; the others keep theirs. The stand-in
/// assembler is a script that dies by SIGSEGV on a module holding `red.shared.add.u32 _`
/// (as ptxas 13.5 does on `red.global.add.u32 _, 1;`, E030) and accepts any other.
#[cfg(unix)]
#[test]
fn a_ptxas_that_dies_on_one_text_fails_that_text_alone() {
    use std::os::unix::fs::PermissionsExt;
    use ptxvec_generator::ptxas::{self, Outcome, Ptxas};
    let spec = Spec::load(&spec_root()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("ptxas");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) if grep -q 'red.global.add.u32 _' \"$a\"; then kill -SEGV $$; fi;; esac; done\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tool = Ptxas::new(&spec, fake, "13.5").unwrap();
    let module = Module { ptx: "8.0".parse().unwrap(), target: "sm_90".parse().unwrap() };
    let texts = [
        "red.global.add.u32 [%rd1], 1;",
        "red.global.add.u32 [%rd2], 2;",
        "red.global.add.u32 _, 1;",
        "red.global.add.u32 [%rd3], 3;",
        "red.global.add.u32 [%rd4], 4;",
    ];
    let out = ptxas::run(&tool, &spec, module, &texts, dir.path());
    assert_eq!(out.len(), texts.len());
    for (k, o) in out.iter().enumerate() {
        match (k, o) {
            (2, Outcome::Failed(why)) => assert!(why.contains("signal 11"), "{why}"),
            (2, other) => panic!("the dying text got {other:?}"),
            (_, Outcome::Accepted) => {}
            (_, other) => panic!("text {k} got {other:?}"),
        }
    }
}

/// `--as-of` walks the instructions up to the one it names, in the order they were
/// added: a recorded exploration keeps its texts when an instruction comes after it.
/// An instruction the spec does not have is a usage error (exit 2), naming those it
/// has.
#[test]
fn as_of_walks_only_the_instructions_up_to_the_one_named() {
    let walk = |extra: &[&str]| {
        let mut args = vec!["audit-syntax", "--explore", "2000", "--seed", "5", "--requests"];
        args.extend_from_slice(extra);
        let out = ptxvec(&args, None);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let elect = |text: &str| text.lines().filter(|l| l.contains("\"text\":\"elect.sync")).count();
    assert!(elect(&walk(&[])) > 0, "2000 walks over every instruction start from elect.sync somewhere");
    assert_eq!(elect(&walk(&["--as-of", "atom"])), 0);
    let out = ptxvec(&["audit-syntax", "--explore", "10", "--as-of", "nosuch", "--offline"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--as-of nosuch: no such instruction") && err.contains("elect.sync"), "{err}");
}
