//! The fast oracle held to the scalar one: pair by pair on the boundary values at
//! every level this CPU has, on whole rows of every class, and on a seeded sample
//! of 2^24 pairs; and the digest's own properties.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::sweep::wide::{boundary_values, NanRule};

/// Every compilation of the row loop this CPU runs, once each.
fn levels() -> Vec<Level> {
    let mut v: Vec<Level> = Level::available_all()
        .into_iter()
        .map(|l| l.compiled_as(COMPILED))
        .collect();
    v.dedup();
    v
}

#[test]
fn term_is_splitmix64_of_the_key() {
    // term(p, 0) = mix(p·γ), and `mix` adds γ before it finalizes: these are
    // splitmix64's first four outputs from seed 0 (Vigna's splitmix64.c).
    let table: [(u64, u64); 4] = [
        (0, 0xe220_a839_7b1d_cdaf),
        (1, 0x6e78_9e6a_a1b9_65f4),
        (2, 0x06c4_5d18_8009_454f),
        (3, 0xf88b_b8a8_724c_81ec),
    ];
    for (p, want) in table {
        assert_eq!(term(p, 0), want, "term({p}, 0)");
    }
}

#[test]
fn one_changed_result_changes_its_term() {
    // For a fixed pair the term is a bijection of the result (module docs).
    for p in [0u64, 1, 0xf_ffff_ffff, 0x3_f800_0001] {
        for r in [0u64, 1, 0x7fff_ffff, 0x8000_0000, u64::MAX] {
            for r2 in [r ^ 1, r ^ 1 << 31, r ^ 1 << 63, r.wrapping_add(1 << 32)] {
                assert_ne!(term(p, r), term(p, r2), "pair {p:#x}: {r:#x} vs {r2:#x}");
            }
        }
    }
}

#[test]
fn plans_follow_the_sm_90_profile() {
    // red.global.add.f32 flushes (PTX ISA 9.7.13.6, and silicon); shared and the bulk
    // reduce keep subnormals (E021); f32 NaNs are canonical, f64 keep payloads by
    // space, ∞ − ∞ is 0xfff8… (E022).
    let want: [(&str, bool, NanRule, u64); 6] = [
        ("red.global.add.f32", true, NanRule::Default, 0x7fff_ffff),
        ("red.shared.add.f32", false, NanRule::Default, 0x7fff_ffff),
        (
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32",
            false,
            NanRule::Default,
            0x7fff_ffff,
        ),
        (
            "red.global.add.f64",
            false,
            NanRule::OperandFirst,
            0xfff8_0000_0000_0000,
        ),
        (
            "red.shared.add.f64",
            false,
            NanRule::MemoryFirstQuieted,
            0xfff8_0000_0000_0000,
        ),
        (
            "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64",
            false,
            NanRule::OperandFirst,
            0xfff8_0000_0000_0000,
        ),
    ];
    assert_eq!(want.len(), WideSweep::ALL.len());
    for (name, flush, nan, default_nan) in want {
        let s = WideSweep::find(name).unwrap();
        let plan = Plan::of(s.name, &s.reduction).unwrap();
        assert_eq!(
            (plan.flush, plan.nan, plan.default_nan),
            (flush, nan, default_nan),
            "{name}"
        );
    }
}

#[test]
fn no_plan_for_what_the_fast_oracle_cannot_compute() {
    // A 16-bit add has no f32/f64 lanes; the error names the sweep.
    let s = crate::sweep::Sweep::ALL[0];
    let e = Plan::of(s.name, &s.reduction).unwrap_err();
    assert!(matches!(e, WideError::NoPlan { .. }), "{e}");
    assert!(e.to_string().starts_with(s.name), "{e}");
}

/// The boundary values, repeated so that the vector loop, not its remainder,
/// computes nearly every pair.
fn boundary_ops(s: &WideSweep) -> Vec<u64> {
    let v = boundary_values(s.format());
    v.iter().cycle().take(v.len() * 17).copied().collect()
}

#[test]
fn every_boundary_pair_matches_the_scalar_oracle_at_every_level() {
    for s in WideSweep::ALL {
        let plan = Plan::of(s.name, &s.reduction).unwrap();
        let values = boundary_values(s.format());
        // Pair by pair, through the plan's one-pair path.
        for &m in &values {
            for &o in &values {
                let (got, want) = (plan.result(m, o), s.oracle(m, o).unwrap());
                assert_eq!(
                    got, want,
                    "{}: {m:#x} + {o:#x}: fast {got:#x}, oracle {want:#x}",
                    s.name
                );
            }
        }
        // Through the row loop of each level, a row per memory value.
        let ops = boundary_ops(s);
        for level in levels() {
            let rows_f32;
            let rows_f64;
            let digest: &dyn Fn(u64, u64) -> u64 = if s.format() == Format::F32 {
                rows_f32 = Rows::<u32>::new(plan, &ops);
                &|m, k| rows_f32.digest(level, m, k)
            } else {
                rows_f64 = Rows::<u64>::new(plan, &ops);
                &|m, k| rows_f64.digest(level, m, k)
            };
            for (i, &m) in values.iter().enumerate() {
                let key0 = (i as u64).wrapping_mul(0x1234_5678_9abc_def1);
                let mut want = 0u64;
                for (j, &o) in ops.iter().enumerate() {
                    let key = key0.wrapping_add((j as u64).wrapping_mul(GAMMA));
                    want = want.wrapping_add(mix(key ^ s.oracle(m, o).unwrap()));
                }
                assert_eq!(
                    digest(m, key0),
                    want,
                    "{} at {}: memory {m:#x}",
                    s.name,
                    level.name()
                );
            }
        }
    }
}

#[test]
fn spot_rows_match_the_scalar_oracle_at_every_level() {
    for s in WideSweep::ALL {
        let rows = s.spot_rows();
        assert_eq!(rows.len(), 24);
        let scalar: Vec<u64> = rows
            .par_iter()
            .map(|&r| s.scalar_row_digest(r).unwrap())
            .collect();
        for level in levels() {
            let replay = Replay::at(s, level).unwrap();
            for (&r, &want) in rows.iter().zip(&scalar) {
                assert_eq!(
                    replay.row_digest(r),
                    want,
                    "{} at {}: row {r:#x}",
                    s.name,
                    level.name()
                );
            }
        }
    }
}

#[test]
fn check_rows_reports_a_fast_oracle_that_differs() {
    let s = WideSweep::find("red.shared.add.f64").unwrap();
    let mut replay = Replay::new(s).unwrap();
    replay.check_rows(&[0, 0x3f80]).unwrap();
    // The same loop under another rule is a wrong fast oracle: row 0xff80 holds
    // NaN memory (exponent index 255), whose payload the rules treat differently.
    replay.plan.nan = NanRule::OperandFirst;
    replay.rows = Typed::F64(Rows::new(replay.plan, &s.set().values()));
    let e = replay.check_rows(&[0xff81]).unwrap_err();
    assert!(
        matches!(e, WideError::FastDiffers { row: 0xff81, .. }),
        "{e}"
    );
}

#[test]
fn a_seeded_sample_of_2_24_pairs_matches_the_scalar_oracle() {
    // 2^24 pairs over the four distinct plans (the shared and bulk f32 adds share
    // one, and so do the global and bulk f64 adds): 64 memory values × 2^16
    // operands each, both drawn half from the set and half as any bits. Seed
    // recorded here: 0x3224_2026.
    let mut rng = ChaCha8Rng::seed_from_u64(0x3224_2026);
    let mut plans: Vec<Plan> = Vec::new();
    for s in WideSweep::ALL {
        let replay = Replay::new(s).unwrap();
        if plans.contains(&replay.plan()) {
            continue;
        }
        plans.push(replay.plan());
        let set = s.set();
        let fmt = s.format();
        let draw = |rng: &mut ChaCha8Rng| {
            let x = rng.next_u64();
            if x & 1 == 0 {
                set.value(x >> 1)
            } else {
                rng.next_u64() & fmt.mask()
            }
        };
        let mems: Vec<u64> = (0..64).map(|_| draw(&mut rng)).collect();
        let ops: Vec<u64> = (0..1 << 16).map(|_| draw(&mut rng)).collect();
        let key0 = rng.next_u64();
        let rows_f32;
        let rows_f64;
        let level = replay.level();
        let digest: &(dyn Fn(u64) -> u64 + Sync) = if fmt == Format::F32 {
            rows_f32 = Rows::<u32>::new(replay.plan(), &ops);
            &|m| rows_f32.digest(level, m, key0)
        } else {
            rows_f64 = Rows::<u64>::new(replay.plan(), &ops);
            &|m| rows_f64.digest(level, m, key0)
        };
        mems.par_iter().for_each(|&m| {
            let mut want = 0u64;
            let mut key = key0;
            for &o in &ops {
                want = want.wrapping_add(mix(key ^ s.oracle(m, o).unwrap()));
                key = key.wrapping_add(GAMMA);
            }
            if digest(m) != want {
                // Name the first differing pair.
                let bad = ops
                    .iter()
                    .find(|&&o| replay.plan().result(m, o) != s.oracle(m, o).unwrap());
                panic!(
                    "{}: memory {m:#x}: digest differs; first differing operand {bad:#x?}",
                    s.name
                );
            }
        });
    }
    assert_eq!(plans.len(), 4);
}

#[test]
fn digests_compose_and_threads_change_nothing() {
    let s = WideSweep::find("red.global.add.f64").unwrap();
    let replay = Replay::new(s).unwrap();
    let n = s.rows_per_block();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| replay.row_digests(3 * n..4 * n))
    };
    let rows = on(1);
    assert_eq!(rows, on(2));
    let sum = rows.iter().fold(0u64, |a, &d| a.wrapping_add(d));
    assert_eq!(replay.block_digest(3), sum);
    let blocks = blocks_from_rows(&vec![1u64; s.rows() as usize]);
    assert_eq!(blocks.len(), BLOCKS);
    assert!(blocks.iter().all(|&b| b == n));
    assert_eq!(s.block_pairs() * BLOCKS as u64, s.pairs());
    assert_eq!(WideSweep::ALL[0].block_pairs(), 1 << 28);
}

#[test]
fn pair_layout() {
    let s = WideSweep::find("red.global.add.f32").unwrap();
    // Pair (1.0, −1.0): mem index 127 << 9, operand index 1 << 17 | 127 << 9.
    let p = (127u64 << 9) << 18 | (1 << 17 | 127 << 9);
    assert_eq!(s.operands(p), (0x3f80_0000, 0xbf80_0000));
    assert_eq!(s.result(p).unwrap(), 0);
}
