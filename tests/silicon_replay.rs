//! The recorded sm_90 evidence, replayed against the oracle without a GPU: the sm_90
//! profile must accept every output bit for bit, and every output the ptx-isa
//! profile does not accept must be a doc-versus-silicon difference in the errata
//! ledger (listed as `silicon:sm_90:<chain>`).

use std::collections::{BTreeMap, BTreeSet};

use ptxvec_generator::silicon::replay::{replay_file, Replay};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::spec_root;

#[test]
fn sm_90_evidence_replays_bit_for_bit_and_doc_differences_are_ledgered() {
    let spec = Spec::load(&spec_root()).unwrap();
    let dir = spec_root().join("../vectors/silicon/sm_90");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    files.sort();
    assert!(files.len() >= 8, "evidence files missing under {}", dir.display());
    let mut replay = Replay::default();
    for f in &files {
        replay_file(&spec, f, &mut replay).unwrap();
    }
    assert!(replay.records > 20_000, "only {} records", replay.records);
    let mut by: BTreeMap<(Profile, String), (usize, String)> = BTreeMap::new();
    for m in &replay.mismatches {
        let e = by.entry((m.profile, m.chain.clone())).or_insert((0, format!("{}: {}", m.at, m.detail)));
        e.0 += 1;
    }
    let sm90: Vec<String> = by.iter().filter(|((p, _), _)| *p == Profile::Sm90).map(|((_, c), (n, first))| format!("{c}: {n} outputs, first {first}")).collect();
    assert!(sm90.is_empty(), "the sm_90 profile disagrees with silicon ({} outputs compared):\n{}", replay.outputs, sm90.join("\n"));
    let ledgered: BTreeSet<String> = spec.errata.errata.iter().flat_map(|e| e.disagreements.iter().cloned()).filter(|d| d.starts_with("silicon:")).collect();
    let found: BTreeSet<String> = by.keys().filter(|(p, _)| *p == Profile::PtxIsa).map(|(_, c)| format!("silicon:sm_90:{c}")).collect();
    let unexplained: Vec<String> = by
        .iter()
        .filter(|((p, c), _)| *p == Profile::PtxIsa && !ledgered.contains(&format!("silicon:sm_90:{c}")))
        .map(|((_, c), (n, first))| format!("{c}: {n} outputs, first {first}"))
        .collect();
    assert!(unexplained.is_empty(), "the document disagrees with silicon outside the ledger:\n{}", unexplained.join("\n"));
    let stale: Vec<&String> = ledgered.difference(&found).collect();
    assert!(stale.is_empty(), "ledgered silicon differences that no longer show: {stale:?}");
    println!("silicon replay: {} records, {} outputs, sm_90 profile 100%, {} doc differences ledgered", replay.records, replay.outputs, found.len());
}
