//! `ptxvec bench`'s lint stage: one in-memory module of at least [`LINT_BYTES`],
//! the bodies of nvcc 13.5's modules (tests/fixtures/lint/nvcc/, copied from
//! vectors/clients/nvcc-13.5.37: atomics, scoped atomics, bulk reductions, redux,
//! warp intrinsics) repeated under one header, linted whole, as megabytes (10^6
//! bytes) per second. About one instruction in seven is covered, more than in
//! real modules, where covered instructions are rarer than there.

use std::io::Write;
use std::time::Instant;

use ptxvec_spec::Spec;

use crate::error::{Error, Result};
use crate::lint::Linter;
use crate::io::output::write_error;
use crate::syntax::judge::Order;

/// The least size of the linted module.
pub const LINT_BYTES: usize = 100_000_000;

/// nvcc 13.5's modules for sm_90 and sm_90a, as emitted.
const MODULES: [&str; 5] = [
    include_str!("../../../../tests/fixtures/lint/nvcc/atomics.sm_90.ptx95.ptx"),
    include_str!("../../../../tests/fixtures/lint/nvcc/atomics_scoped.sm_90.ptx95.ptx"),
    include_str!("../../../../tests/fixtures/lint/nvcc/ptx_bulk.sm_90a.ptx95.ptx"),
    include_str!("../../../../tests/fixtures/lint/nvcc/redux.sm_90.ptx95.ptx"),
    include_str!("../../../../tests/fixtures/lint/nvcc/warp.sm_90.ptx95.ptx"),
];

/// One module of at least `bytes`: a header for sm_90a (every body is legal
/// there), then each module's text after its `.address_size` line, in turn.
pub fn module(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 64 * 1024);
    out.push_str(".version 9.5\n.target sm_90a\n.address_size 64\n");
    let bodies: Vec<&str> = MODULES
        .iter()
        .map(|m| m.split_once(".address_size 64\n").map_or(*m, |(_, body)| body))
        .collect();
    while out.len() < bytes {
        for b in &bodies {
            out.push_str(b);
        }
    }
    out
}

/// Times the lint stage `runs` times and prints its table to `table`.
pub fn run(spec: &Spec, runs: usize, table: &mut dyn Write) -> Result<()> {
    let runs = runs.max(1);
    let text = module(LINT_BYTES);
    writeln!(
        table,
        "\n{:<46} {:>8} {:>10} {:>10} {:>12} {:>8}",
        "lint stage (one module, in memory)", "MB", "min", "median", "MB/s", "illegal"
    )
    .map_err(write_error)?;
    let mut times = Vec::with_capacity(runs);
    let mut report = None;
    for _ in 0..runs {
        let t = Instant::now();
        // A fresh linter each run, as a new process has.
        let r = Linter::new(spec, Order::Lenient).lint("<bench>", &text)?;
        times.push(t.elapsed());
        report = Some(r);
    }
    let report = report.ok_or_else(|| Error::Input("bench: lint ran no time".to_owned()))?;
    times.sort();
    let mb = text.len() as f64 / 1e6;
    let c = report.counts;
    writeln!(
        table,
        "{:<46} {mb:>8.1} {:>9.3}s {:>9.3}s {:>12.0} {:>8}",
        format!("lint ({} instructions, {} covered)", c.instructions, c.covered),
        times[0].as_secs_f64(),
        times[runs / 2].as_secs_f64(),
        mb / times[runs / 2].as_secs_f64().max(1e-9),
        c.illegal
    )
    .map_err(write_error)?;
    Ok(())
}
