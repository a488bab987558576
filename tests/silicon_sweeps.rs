//! The exhaustive 16-bit sweeps recorded on sm_90 (vectors/silicon/sm_90/sweeps.json),
//! replayed without a GPU. The quick test recomputes two blocks of every sweep from
//! the scalar oracle; the ignored ones (run them with
//! `cargo test -p ptxvec-generator --release --test ptxvec -- --ignored exhaustive`)
//! recompute every block of every sweep with the fast kernels (`sweep::fast`, the
//! level `PTXVEC_SWEEP_LEVEL` names or the best), and hold every level's kernels to
//! the scalar oracle on all 2^32 pairs of one sweep (`PTXVEC_EXHAUSTIVE_SHARD=K/N`:
//! the first operands `m % N == K` of them, as in the oracle's exhaustive tests).

use std::time::Instant;

use rayon::prelude::*;

use ptxvec_generator::sweep::gpu::bits16::{
    block, parse, FILE, text, SweepResult, SweepsFile,
};
use ptxvec_generator::sweep::fast::{boundary_values, Kernel, Level, Plan};
use ptxvec_generator::sweep::{blocks_from_rows, Sweep, BLOCKS, ROWS, ROWS_PER_BLOCK, ROW_PAIRS};
use ptxvec_oracle::float::{add, Format, Ftz, NanOut};
use ptxvec_oracle::shard::Shard;

use crate::support::{assert_exit, ptxvec, read_silicon, stderr};

const F16: Format = Format::F16;

fn evidence() -> SweepsFile {
    let text = read_silicon(FILE, "silicon-sweep");
    parse(&text).unwrap_or_else(|e| panic!("{FILE}: {e}"))
}

/// The oracle's digest of block `i`, against the record's; `Err` says where.
fn check_block(s: &Sweep, r: &SweepResult, i: usize) -> Result<(), String> {
    let rows = (i * ROWS_PER_BLOCK) as u32..((i + 1) * ROWS_PER_BLOCK) as u32;
    let digests = s
        .row_digests(rows)
        .map_err(|e| format!("{}: {e}", s.name))?;
    let want = blocks_from_rows(&digests)[0];
    let got = block(r, i).map_err(|e| e.to_string())?;
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "{}: block {i:#04x} (mem {:#06x}..): silicon {got:016x}, oracle {want:016x}",
            s.name,
            i * ROWS_PER_BLOCK
        ))
    }
}

fn sweep_of(r: &SweepResult) -> &'static Sweep {
    Sweep::find(&r.name).unwrap()
}

#[test]
fn every_sweep_is_recorded_with_its_kernel_text_and_no_mismatch() {
    let e = evidence();
    assert_eq!(e.header.cc, "9.0");
    let names: Vec<&str> = e.sweeps.iter().map(|r| r.name.as_str()).collect();
    let all: Vec<&str> = Sweep::ALL.iter().map(|s| s.name).collect();
    assert_eq!(names, all, "the evidence must cover Sweep::ALL, in order");
    for r in &e.sweeps {
        let s = sweep_of(r);
        assert_eq!(
            r.text,
            text(s),
            "{}: the kernel's text changed since the run",
            r.name
        );
        assert_eq!(r.layout, s.layout.name(), "{}", r.name);
        assert!(
            r.mismatched_rows.is_empty() && r.mismatches.is_empty(),
            "{}: silicon differs from the oracle: {:?}",
            r.name,
            r.mismatches
        );
    }
}

#[test]
fn sweeps_replay_two_blocks_each() {
    // Block 0 holds zeros and subnormals; the second holds infinity and the
    // signalling NaNs (f16 0x7c00..0x7cff, bf16 0x7f00..0x7fff, quiet NaNs too).
    // Computed by the scalar oracle, of the sweeps n % N == K that PTXVEC_SHARD
    // names (.ci/run's daily share; unset, every sweep).
    let e = evidence();
    let shard = crate::support::shard(e.sweeps.len() as u64);
    let mut failures = Vec::new();
    for (_, r) in e.sweeps.iter().enumerate().filter(|(n, _)| shard.contains(*n as u64)) {
        let s = sweep_of(r);
        let special = if s.format().exp_bits == 5 { 0x7c } else { 0x7f };
        for i in [0, special] {
            if let Err(m) = check_block(s, r, i) {
                failures.push(m);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn silicon_sweep_names_its_sweeps_and_emits_kernels_without_a_gpu() {
    let out = ptxvec()
        .args([
            "silicon-sweep",
            "--out",
            "unused",
            "--sweep",
            "red.global.add.f32",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("unknown sweep \"red.global.add.f32\""),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = ptxvec()
        .args([
            "silicon-sweep",
            "--out",
            "unused",
            "--sweep",
            "red.global.v2.f16.min.noftz",
            "--emit-ptx",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let ptx = std::fs::read_to_string(dir.path().join("red.global.v2.f16.min.noftz.ptx")).unwrap();
    assert!(
        ptx.contains("red.global.v2.f16.min.noftz [%rd2], {%h1, %h2};"),
        "{ptx}"
    );
}

#[test]
fn a_changed_digest_is_caught() {
    let e = evidence();
    let name = "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f16";
    let mut r = e.sweeps.iter().find(|r| r.name == name).unwrap().clone();
    let s = sweep_of(&r);
    check_block(s, &r, 1).unwrap();
    r.blocks[1] = format!("{:016x}", block(&r, 1).unwrap() ^ 1);
    let m = check_block(s, &r, 1).unwrap_err();
    assert!(m.contains("block 0x01"), "{m}");
}

#[test]
#[ignore = "exhaustive: 2^32 pairs per sweep, all 22 in about 15 s on 2 cores in release; PTXVEC_SHARD=K/N: the blocks i % N == K"]
fn sweeps_replay_exhaustive() {
    // `PTXVEC_SHARD=K/N` (.ci/run's daily share): the blocks `i % N == K` of every
    // sweep, each recomputed whole; unset, every block.
    let shard = crate::support::shard(BLOCKS as u64);
    let e = evidence();
    let level = Level::from_env().unwrap_or_else(|e| panic!("{e}"));
    let wanted: Vec<usize> = (0..BLOCKS).filter(|&i| shard.contains(i as u64)).collect();
    eprintln!(
        "replaying {} of {BLOCKS} blocks (shard {shard}) of {} sweeps at level {level}",
        wanted.len(),
        e.sweeps.len()
    );
    let mut failures = Vec::new();
    // Sweeps of one plan compute one function on the same pairs (atom's adds are
    // red's, by the oracle's sm_90 choices): their blocks are computed once.
    let mut computed: Vec<(Plan, Vec<u64>)> = Vec::new();
    for r in &e.sweeps {
        let s = sweep_of(r);
        let t = Instant::now();
        let plan = match Plan::of(s) {
            Ok(p) => p,
            Err(m) => {
                failures.push(m.to_string());
                continue;
            }
        };
        let blocks = match computed.iter().find(|(p, _)| *p == plan) {
            Some((_, blocks)) => blocks.clone(),
            None => match Kernel::new(s, level) {
                Ok(k) => {
                    let blocks: Vec<u64> = wanted
                        .iter()
                        .map(|&i| {
                            let rows = (i * ROWS_PER_BLOCK) as u32..((i + 1) * ROWS_PER_BLOCK) as u32;
                            blocks_from_rows(&k.row_digests(rows))[0]
                        })
                        .collect();
                    computed.push((plan, blocks.clone()));
                    blocks
                }
                Err(m) => {
                    failures.push(m.to_string());
                    continue;
                }
            },
        };
        let mut bad = 0;
        for (&i, &want) in wanted.iter().zip(&blocks) {
            match block(r, i) {
                Ok(got) if got == want => {}
                Ok(got) => {
                    bad += 1;
                    failures.push(format!(
                        "{}: block {i:#04x}: silicon {got:016x}, oracle {want:016x}",
                        s.name
                    ));
                }
                Err(m) => failures.push(m.to_string()),
            }
        }
        eprintln!(
            "{}: {} blocks, {bad} differ, {:.2} s",
            s.name,
            wanted.len(),
            t.elapsed().as_secs_f64()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "exhaustive: 2^32 pairs against the scalar oracle, every level this CPU has"]
fn fast_kernels_exhaustive_on_f16_add() {
    // f16 add is where the levels differ most: vaddph (AVX-512 FP16), f32 with
    // vcvtps2ph (AVX-512, AVX2), host f32 with integer rounding (portable). Every
    // result of every level against the oracle's, bit for bit: of the rows (first
    // operands) that PTXVEC_EXHAUSTIVE_SHARD names, so that CI shares the oracle's
    // daily quarter (.ci/run) and four days cover every pair.
    let var = ptxvec_oracle::shard::EXHAUSTIVE_VAR;
    let shard = Shard::from_var(var, std::env::var(var).ok().as_deref(), ROWS as u64)
        .unwrap_or_else(|e| panic!("{e}"));
    let s = Sweep::find("red.global.add.noftz.f16").unwrap();
    // The oracle's f16 addition, called with its format a constant (the sweep's own
    // `result` reaches it through the reduction's dispatch, twice as slow); it is
    // the sweep's result wherever the kernels' boundary check looks.
    let oracle = |mem: u32, o: u32| {
        add(
            F16,
            u64::from(mem),
            u64::from(o),
            Ftz::Preserve,
            NanOut::Canonical,
        ) as u32
    };
    let values = boundary_values(F16);
    for &m in &values {
        for &o in &values {
            let (m, o) = (u32::from(m), u32::from(o));
            assert_eq!(
                s.result(m << 16 | o),
                Ok(oracle(m, o)),
                "{m:#06x} + {o:#06x}"
            );
        }
    }
    let kernels: Vec<Kernel> = Level::available_all()
        .into_iter()
        .map(|l| Kernel::new(s, l).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let names: Vec<&str> = kernels.iter().map(|k| k.level().name()).collect();
    let t = Instant::now();
    let rows: Vec<u32> = (0..ROWS).filter(|&m| shard.contains(u64::from(m))).collect();
    let failures: Vec<String> = rows
        .par_iter()
        .copied()
        .flat_map_iter(|mem| {
            let want: Vec<u32> = (0..ROW_PAIRS as u32).map(|o| oracle(mem, o)).collect();
            let mut got = vec![0u32; ROW_PAIRS as usize];
            let mut out = Vec::new();
            for k in &kernels {
                k.row_results(mem as u16, &mut got);
                let wrong = (0..got.len()).filter(|&o| got[o] != want[o]);
                for o in wrong.take(2) {
                    out.push(format!(
                        "{} at {}: mem {mem:#06x} operand {o:#06x}: {:#06x}, oracle {:#06x}",
                        s.name,
                        k.level(),
                        got[o],
                        want[o]
                    ));
                }
            }
            out
        })
        .collect();
    eprintln!(
        "{}: shard {shard}, {} rows x {ROW_PAIRS} pairs at {} against the oracle, {} differ, {:.1} s",
        s.name,
        rows.len(),
        names.join(", "),
        failures.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(32)].join("\n")
    );
}
