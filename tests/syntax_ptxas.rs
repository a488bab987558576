//! The ptxas differential over every syntax case and doc example. Under CI a missing
//! ptxas is a failure, never a skip; the agreement line is printed for CI's log.

use ptxvec_generator::audit::{audit, tools, Args};
use ptxvec_spec::Spec;

use crate::spec_root;

#[test]
fn every_verdict_agrees_with_ptxas_or_is_in_the_ledger() {
    let spec = Spec::load(&spec_root()).unwrap();
    let args = Args {
        ptxas: std::env::var_os("PTXVEC_PTXAS").map(Into::into),
        ptxas_cu12: std::env::var_os("PTXVEC_PTXAS_CU12").map(Into::into),
        jobs: 2,
    };
    let tools = match tools(&spec, &args) {
        Ok(t) => t,
        Err(e) => {
            assert!(std::env::var_os("CI").is_none(), "CI needs ptxas: {e}");
            eprintln!("SKIPPED: {e}");
            return;
        }
    };
    let a = audit(&spec, &tools, 2).unwrap();
    println!("{}", a.report);
    assert!(a.unexplained.is_empty() && a.stale.is_empty(), "{}", a.report);
    let agreeing = a.findings.iter().filter(|f| f.agrees() == Some(true)).count();
    assert!(agreeing > 20_000, "only {agreeing} checks agree");
}
