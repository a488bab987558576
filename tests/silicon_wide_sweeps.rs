//! The wide f32/f64 sweeps recorded on sm_90 (vectors/silicon/sm_90/wide-sweeps.json),
//! replayed with the fast CPU oracle without a GPU. The quick test recomputes two
//! blocks of every sweep; the ignored one recomputes the blocks of a shard, all of
//! them by default (`PTXVEC_SHARD=K/N` replays blocks `i` with `i % N == K`;
//! vectors/silicon/README.md, "Wide sweeps", has the commands and times).

use std::time::Instant;

use ptxvec_generator::sweep::gpu::wide::{
    block, parse, FILE, text, SetRecord, WideFile, WideResult,
};
use ptxvec_generator::sweep::wide::{Plan, Replay, Set, WideSweep, BLOCKS};

use crate::support::{assert_exit, ptxvec, read_silicon, spec, stderr};

fn evidence() -> WideFile {
    let text = read_silicon(FILE, "silicon-sweep-wide");
    let e = parse(&text).unwrap_or_else(|e| panic!("{FILE}: {e}"));
    assert_eq!(
        e.sets,
        vec![SetRecord::of(Set::f32()), SetRecord::of(Set::f64())],
        "{FILE}: recorded over other operand sets than today's: record it again"
    );
    e
}

fn sweep_of(r: &WideResult) -> &'static WideSweep {
    WideSweep::find(&r.name).unwrap()
}

/// The recorded sweeps grouped by the fast oracle's plan: sweeps with equal plans
/// have equal results on every pair, so one replay serves each group.
fn by_plan(e: &WideFile) -> Vec<(Replay, Vec<&WideResult>)> {
    let mut groups: Vec<(Replay, Vec<&WideResult>)> = Vec::new();
    for r in &e.sweeps {
        let replay = Replay::new(sweep_of(r)).unwrap_or_else(|m| panic!("{m}"));
        let plan: Plan = replay.plan();
        match groups.iter_mut().find(|(g, _)| g.plan() == plan) {
            Some((_, rs)) => rs.push(r),
            None => groups.push((replay, vec![r])),
        }
    }
    groups
}

/// The sweeps whose difference from the oracle the errata ledger explains: a
/// `disagreements` key `silicon:sm_90:wide:<sweep>`.
fn ledgered() -> Vec<String> {
    let spec = spec();
    spec.errata
        .errata
        .iter()
        .flat_map(|e| e.disagreements.iter())
        .filter_map(|d| d.strip_prefix("silicon:sm_90:wide:"))
        .map(str::to_owned)
        .collect()
}

/// What silicon's digest of block `i` must be: the oracle's, moved by exactly the
/// recorded rows of that block that differ (silicon's row digest for the oracle's).
/// Each recorded row's oracle digest must be today's, so that the difference stands
/// where it was recorded and nowhere else.
fn expected_block(replay: &Replay, r: &WideResult, i: usize, failures: &mut Vec<String>) -> u64 {
    let mut want = replay.block_digest(i);
    let per = replay.sweep().rows_per_block();
    for m in &r.mismatched_rows {
        let (Some(row), Some(silicon), Some(oracle)) = (
            hex(&m.row),
            u64::from_str_radix(&m.silicon, 16).ok(),
            u64::from_str_radix(&m.oracle, 16).ok(),
        ) else {
            failures.push(format!("{}: unreadable row record {m:?}", r.name));
            continue;
        };
        if row / per != i as u64 {
            continue;
        }
        let today = replay.row_digest(row);
        if today != oracle {
            failures.push(format!(
                "{}: row {row:#x}: the oracle gives {today:016x}, recorded {oracle:016x}",
                r.name
            ));
        }
        want = want.wrapping_sub(oracle).wrapping_add(silicon);
    }
    want
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

/// Replays `blocks` of every recorded sweep; the differences, one line each.
fn replay_blocks(e: &WideFile, blocks: &[usize], log: bool) -> Vec<String> {
    let mut failures = Vec::new();
    for (replay, records) in by_plan(e) {
        let t = Instant::now();
        for &i in blocks {
            for r in &records {
                let want = expected_block(&replay, r, i, &mut failures);
                match block(r, i) {
                    Ok(got) if got == want => {}
                    Ok(got) => failures.push(format!(
                        "{}: block {i:#04x}: silicon {got:016x}, oracle {want:016x}",
                        r.name
                    )),
                    Err(m) => failures.push(m.to_string()),
                }
            }
        }
        if log {
            let names: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
            eprintln!(
                "{}: {} blocks of {} pairs, {:.1} s ({}, {} threads)",
                names.join(" + "),
                blocks.len(),
                replay.sweep().block_pairs(),
                t.elapsed().as_secs_f64(),
                replay.level().name(),
                rayon::current_num_threads()
            );
        }
    }
    failures
}

#[test]
fn every_wide_sweep_is_recorded_over_todays_sets_with_its_kernel_text_and_no_unledgered_mismatch() {
    let e = evidence();
    let ledger = ledgered();
    assert_eq!(e.header.cc, "9.0");
    let names: Vec<&str> = e.sweeps.iter().map(|r| r.name.as_str()).collect();
    let all: Vec<&str> = WideSweep::ALL.iter().map(|s| s.name).collect();
    assert_eq!(
        names, all,
        "the evidence must cover WideSweep::ALL, in order"
    );
    for r in &e.sweeps {
        assert_eq!(
            r.text,
            text(sweep_of(r)),
            "{}: the kernel's text changed since the run",
            r.name
        );
        if ledger.contains(&r.name) {
            // A ledgered difference: every differing row is listed, so that the
            // replay accounts for each block exactly.
            assert!(
                r.differing_rows > 0 && r.differing_rows == r.mismatched_rows.len() as u64,
                "{}: ledgered, but {} rows differ and {} are listed (a stale ledger entry, or rows left out)",
                r.name,
                r.differing_rows,
                r.mismatched_rows.len()
            );
        } else {
            assert!(
                r.differing_rows == 0 && r.mismatched_rows.is_empty() && r.mismatches.is_empty(),
                "{}: silicon differs from the oracle and the ledger does not say why: {:?}",
                r.name,
                r.mismatches
            );
        }
    }
}

#[test]
fn the_ledgered_shared_f64_difference_is_two_nans_only() {
    // E026: on every recorded pair where silicon and the sm_90 profile differ,
    // both operands are NaN and silicon's result is the operand's NaN, quieted: the
    // wide sweep's kernel makes the operand the second source of the add ptxas
    // expands the instruction into, where the self-checking modules make it the
    // memory (tests/silicon_probes.rs holds the probe of both to it).
    let e = evidence();
    let r = e
        .sweeps
        .iter()
        .find(|r| r.name == "red.shared.add.f64")
        .unwrap();
    assert!(!r.mismatches.is_empty());
    let nan = |x: u64| x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000;
    for m in &r.mismatches {
        let [mem, op, got] = [&m.mem, &m.operand, &m.silicon].map(|s| hex(s).unwrap());
        assert!(nan(mem) && nan(op), "{m:?}");
        assert_eq!(got, op | 0x0008_0000_0000_0000, "{m:?}");
    }
}

#[test]
fn wide_sweeps_replay_two_blocks_each() {
    // Block 0: memory +0 and the positive subnormals and smallest normals (exponent
    // indices 0 and 1); block 127: the largest positive normals, +∞ and the NaNs
    // (indices 254 and 255).
    let failures = replay_blocks(&evidence(), &[0, 127], false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_changed_wide_digest_is_caught() {
    let mut e = evidence();
    e.sweeps.retain(|r| r.name == "red.shared.add.f64");
    assert!(replay_blocks(&e, &[200], false).is_empty());
    let d = block(&e.sweeps[0], 200).unwrap();
    e.sweeps[0].blocks[200] = format!("{:016x}", d ^ 1 << 40);
    let failures = replay_blocks(&e, &[200], false);
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0].starts_with("red.shared.add.f64: block 0xc8:"),
        "{}",
        failures[0]
    );
}

#[test]
fn silicon_sweep_wide_names_its_sweeps_and_emits_every_kernel_without_a_gpu() {
    let out = ptxvec()
        .args([
            "silicon-sweep-wide",
            "--out",
            "unused",
            "--sweep",
            "red.global.add.f16",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("unknown wide sweep \"red.global.add.f16\""),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = ptxvec()
        .args(["silicon-sweep-wide", "--out", "unused", "--emit-ptx"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_exit(&out, 0);
    for s in WideSweep::ALL {
        let path = dir
            .path()
            .join(format!("{}.ptx", s.name.replace("::", "_")));
        let ptx = std::fs::read_to_string(&path).unwrap();
        assert!(ptx.contains(&text(s)), "{}", path.display());
    }
}

#[test]
#[ignore = "2^36 pairs per f32 sweep: all blocks, or PTXVEC_SHARD=K/N of them (vectors/silicon/README.md)"]
fn wide_sweeps_replay_blocks_of_the_shard() {
    // `PTXVEC_SHARD=K/N`: the blocks `i % N == K`; unset, every block.
    let shard = crate::support::shard(BLOCKS as u64);
    let blocks: Vec<usize> = (0..BLOCKS).filter(|&i| shard.contains(i as u64)).collect();
    let (k, n) = (shard.k, shard.n);
    eprintln!(
        "wide sweeps: shard {shard}, {} of {BLOCKS} blocks of every sweep (blocks i with i % {n} == {k})",
        blocks.len()
    );
    let t = Instant::now();
    let failures = replay_blocks(&evidence(), &blocks, true);
    eprintln!("wide sweeps: {:.1} s", t.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
