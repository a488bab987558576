//! `ptxvec bench`'s sweep stages: every sweep at every ISA level this CPU has, each a
//! whole 2^32-pair sweep with its digest, against the floor measured in the same
//! run (the same loop and digest with the operand as every result). Seconds per
//! sweep, pairs per second and the ratio to the level's floor; beside the wall time,
//! the process's CPU time per worker thread, which is what the wall time would be on
//! idle cores (on a shared machine the wall time also counts the others' work).

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::fast::{floor_row_digest, FastError, Kernel, Level, LEVEL_VAR};
use super::{Sweep, PAIRS, ROWS};
use crate::io::output::write_error;

/// The CPU time this process has used, all threads.
#[cfg(unix)]
#[allow(unsafe_code)]
fn process_cpu() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer, which points to
    // the local above; CLOCK_PROCESS_CPUTIME_ID exists on every supported Unix.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

#[cfg(not(unix))]
fn process_cpu() -> Option<Duration> {
    None
}

/// One stage's times: wall minimum and median, CPU time per thread (minimum).
struct Times {
    min: Duration,
    median: Duration,
    cpu: Option<Duration>,
}

/// Times `f` `runs` times.
fn time(runs: usize, mut f: impl FnMut() -> u64) -> Times {
    let threads = rayon::current_num_threads() as u32;
    let mut wall = Vec::with_capacity(runs);
    let mut cpu: Option<Duration> = None;
    for _ in 0..runs {
        let (c, t) = (process_cpu(), Instant::now());
        black_box(f());
        wall.push(t.elapsed());
        if let (Some(before), Some(after)) = (c, process_cpu()) {
            let per_thread = after.saturating_sub(before) / threads;
            cpu = Some(cpu.map_or(per_thread, |c| c.min(per_thread)));
        }
    }
    wall.sort();
    Times {
        min: wall[0],
        median: wall[runs / 2],
        cpu,
    }
}

/// The levels the sweep stages time: every level this CPU has, or only the one
/// `PTXVEC_SWEEP_LEVEL` names (an error where it names none, or one this CPU lacks).
pub fn levels() -> crate::error::Result<Vec<Level>> {
    Ok(match std::env::var(LEVEL_VAR) {
        Ok(_) => vec![Level::from_env().map_err(FastError::from)?],
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
        "\n16-bit sweeps: 2^32 pairs each with the digest, {} threads, runs={runs}; \
         cpu/thr = the process's CPU time per thread; x floor = against the level's floor",
        rayon::current_num_threads()
    ))?;
    line(format!(
        "{:<11} {:<62} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7}",
        "level", "sweep", "min", "median", "cpu/thr", "Gpairs/s", "x floor", "x (cpu)"
    ))?;
    let secs = |d: Duration| d.as_secs_f64();
    let row = |level: Level, name: &str, t: &Times, floor: &Times| {
        let cpu = |t: &Times| t.cpu.map(secs);
        let cpu_ratio = match (cpu(t), cpu(floor)) {
            (Some(a), Some(b)) => format!("{:.2}", a / b),
            _ => "-".to_owned(),
        };
        format!(
            "{:<11} {name:<62} {:>7.3}s {:>7.3}s {:>8} {:>8.2} {:>7.2} {cpu_ratio:>7}",
            level.name(),
            secs(t.min),
            secs(t.median),
            cpu(t).map_or("-".to_owned(), |c| format!("{c:.3}s")),
            PAIRS as f64 / secs(t.min) / 1e9,
            secs(t.min) / secs(floor.min),
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
            &floor,
            &floor,
        ))?;
        let mut all = Vec::new();
        for s in Sweep::ALL {
            let k = Kernel::new(s, level)?;
            let t = time(runs, || {
                k.row_digests(0..ROWS)
                    .into_iter()
                    .fold(0u64, u64::wrapping_add)
            });
            line(row(level, s.name, &t, &floor))?;
            all.push(t);
        }
        let n = all.len() as u32;
        let mean = Times {
            min: all.iter().map(|t| t.min).sum::<Duration>() / n,
            median: all.iter().map(|t| t.median).sum::<Duration>() / n,
            cpu: all
                .iter()
                .map(|t| t.cpu)
                .sum::<Option<Duration>>()
                .map(|c| c / n),
        };
        line(row(level, "mean of the 16 sweeps", &mean, &floor))?;
        if let Some(slowest) = all.iter().max_by_key(|t| t.min) {
            line(row(level, "slowest sweep (by min)", slowest, &floor))?;
        }
    }
    Ok(())
}
