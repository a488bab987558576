//! The ptxas differential over every syntax case and doc example; the agreement line
//! is printed for CI's log. It runs under `cfg(ptxas)` (generator/build.rs), where a
//! missing ptxas is a failure; elsewhere it is listed as ignored.

use ptxvec_generator::ptxas::audit::{audit, results, tools, Args};
use ptxvec_generator::ptxas;
use ptxvec_spec::Spec;

use crate::spec_root;

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS and PTXVEC_PTXAS_CU12 (bash .ci/run does)"
)]
fn every_verdict_agrees_with_ptxas_or_is_in_the_ledger() {
    let spec = Spec::load(&spec_root()).unwrap();
    let args = Args {
        ptxas: Some(ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"))),
        ptxas_cu12: Some(ptxas::from_env("PTXVEC_PTXAS_CU12").unwrap_or_else(|e| panic!("{e}"))),
        jobs: 2,
        results: None,
        instructions: Vec::new(),
        explore: Default::default(),
    };
    let tools = tools(&spec, &args).unwrap_or_else(|e| panic!("{e}"));
    let a = audit(&spec, &tools, 2, &[]).unwrap();
    println!("{}", a.report);
    assert!(
        a.unexplained.is_empty() && a.stale.is_empty(),
        "{}",
        a.report
    );
    let agreeing = a
        .findings
        .iter()
        .filter(|f| f.agrees() == Some(true))
        .count();
    assert!(agreeing > 20_000, "only {agreeing} checks agree");
    // The recorded observations (vectors/clients/ptxas-13.5-12.9) are what these
    // releases say now, case for case.
    let rows = results(&spec, &a.findings);
    let path = spec_root()
        .join("../vectors/clients")
        .join(ptxvec_generator::ptxas::audit::RESULTS_DIR)
        .join("syntax.jsonl.gz");
    let committed = String::from_utf8(ptxvec_generator::grade::results::read_input(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap();
    let now: String = rows.iter().map(|r| r.to_line() + "\n").collect();
    assert!(
        committed == now,
        "{} is stale: `ptxvec audit-syntax --results vectors/clients` rewrites it",
        path.display()
    );
}
