//! `ptxvec bench`'s sweep stages: every sweep at every ISA level this CPU has, each
//! a whole 2^32-pair sweep with its digest, against the floor measured in the same
//! run (the same loop and digest with the operand as every result). Seconds per
//! sweep, pairs per second and the ratio to the level's floor.

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::fast::{floor_row_digest, Kernel, Level, LEVEL_VAR};
use super::{Sweep, PAIRS, ROWS};
use crate::output::write_error;

/// Times `f` `runs` times: (minimum, median).
fn time(runs: usize, mut f: impl FnMut() -> u64) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[0], times[runs / 2])
}

/// The wrapping sum of row digests: the sweep's whole digest, so nothing is elided.
fn total(rows: Vec<u64>) -> u64 {
    rows.into_iter().fold(0u64, u64::wrapping_add)
}

/// The levels the sweep stages time: every level this CPU has, or only the one
/// `PTXVEC_SWEEP_LEVEL` names (an error where it names none, or one this CPU lacks).
pub fn levels() -> crate::error::Result<Vec<Level>> {
    Ok(match std::env::var(LEVEL_VAR) {
        Ok(_) => vec![Level::from_env()?],
        Err(_) => Level::available_all(),
    })
}

/// Times every sweep at each of `levels`, `runs` times each (0: none), and writes
/// the table to `table`.
pub fn run(runs: usize, levels: &[Level], table: &mut dyn Write) -> crate::error::Result<()> {
    if runs == 0 {
        return Ok(());
    }
    let mut line = |s: String| writeln!(table, "{s}").map_err(write_error);
    line(format!(
        "\n16-bit sweeps: 2^32 pairs each with the digest, {} threads, runs={runs}; x floor = min / the level's floor min",
        rayon::current_num_threads()
    ))?;
    line(format!(
        "{:<11} {:<62} {:>8} {:>8} {:>9} {:>7}",
        "level", "sweep", "min", "median", "Gpairs/s", "x floor"
    ))?;
    let row = |level: Level, name: &str, (min, median): (Duration, Duration), floor: Duration| {
        format!(
            "{:<11} {name:<62} {:>7.3}s {:>7.3}s {:>9.2} {:>7.2}",
            level.name(),
            min.as_secs_f64(),
            median.as_secs_f64(),
            PAIRS as f64 / min.as_secs_f64() / 1e9,
            min.as_secs_f64() / floor.as_secs_f64()
        )
    };
    for &level in levels {
        let floor = time(runs, || {
            (0..ROWS)
                .into_par_iter()
                .map(|m| floor_row_digest(level, m as u16).unwrap_or(0))
                .reduce(|| 0, u64::wrapping_add)
        });
        line(row(
            level,
            "floor: the digest, result = operand",
            floor,
            floor.0,
        ))?;
        let mut sum = Duration::ZERO;
        let mut slowest = Duration::ZERO;
        for s in Sweep::ALL {
            let k = Kernel::new(s, level)?;
            let t = time(runs, || total(k.row_digests(0..ROWS)));
            sum += t.0;
            slowest = slowest.max(t.0);
            line(row(level, s.name, t, floor.0))?;
        }
        let mean = sum / Sweep::ALL.len() as u32;
        line(row(
            level,
            "mean of the 16 sweeps (min of each)",
            (mean, mean),
            floor.0,
        ))?;
        line(row(
            level,
            "slowest sweep (min)",
            (slowest, slowest),
            floor.0,
        ))?;
    }
    Ok(())
}
