//! `ptxvec bench`: how long the main job's stages take, run several times in this
//! process, minimum and median reported. The speed bounds of the project (syntax
//! cases under 2 s, a full `generate` under 10 s on 2 cores, a 16-bit sweep at the
//! digest's floor: `crate::sweep::bench`) are shown here, not by timed tests. The
//! batch commands' stages are in `bench::batch`, lint's in `bench::lint`; `--record`
//! writes the tables into a bench record (`bench::record`).

pub mod batch;
pub mod lint;
pub mod record;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use ptxvec_spec::Spec;

use crate::vectors::semantic;
use crate::syntax::vectors;

/// One stage: runs once and returns how many items it made.
type Stage<'a> = dyn Fn() -> crate::error::Result<usize> + 'a;

/// Times each stage `runs` times and prints a table; `scratch` receives the files of
/// the full `generate` stage; the table goes to `table`.
pub fn run(
    spec: &Spec,
    runs: usize,
    sweep_runs: usize,
    scratch: &Path,
    table: &mut dyn Write,
) -> crate::error::Result<()> {
    let runs = runs.max(1);
    let sweep_levels = crate::sweep::bench::levels()?;
    let stages: [(&str, &Stage); 3] = [
        ("syntax cases (all instructions, in memory)", &|| {
            Ok(spec
                .instructions
                .iter()
                .map(|f| vectors::cases(spec, &f.instruction).len())
                .sum())
        }),
        ("semantic records (all variants, in memory)", &|| {
            semantic::variants(spec).iter().try_fold(0, |n, v| {
                semantic::records::records(v, semantic::DEFAULT_SEED, semantic::DEFAULT_COUNT)
                    .map(|r| n + r.len())
            })
        }),
        ("generate: syntax and semantic files to disk", &|| {
            let w = crate::vectors::generate::generate(spec, scratch, &crate::vectors::generate::Request::all())?;
            let cases: usize = w.syntax.iter().map(|f| f.legal + f.illegal).sum();
            Ok(cases + w.semantic.iter().map(|r| r.records).sum::<usize>())
        }),
    ];
    writeln!(
        table,
        "{:<46} {:>8} {:>10} {:>10}  runs={runs}",
        "stage", "items", "min", "median"
    )
    .map_err(crate::io::output::write_error)?;
    for (name, stage) in stages {
        let mut times: Vec<Duration> = Vec::with_capacity(runs);
        let mut items = 0;
        for _ in 0..runs {
            let t = Instant::now();
            items = stage()?;
            times.push(t.elapsed());
        }
        times.sort();
        writeln!(
            table,
            "{name:<46} {items:>8} {:>9.3}s {:>9.3}s",
            times[0].as_secs_f64(),
            times[runs / 2].as_secs_f64()
        )
        .map_err(crate::io::output::write_error)?;
    }
    crate::cmd::bench::batch::run(spec, runs, table)?;
    crate::cmd::bench::lint::run(spec, runs, table)?;
    crate::sweep::bench::run(sweep_runs, &sweep_levels, table)
}
