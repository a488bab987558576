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
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 8,
        "evidence files missing under {}",
        dir.display()
    );
    let mut replay = Replay::default();
    for f in &files {
        replay_file(&spec, f, &mut replay).unwrap();
    }
    assert!(replay.records > 20_000, "only {} records", replay.records);
    let mut by: BTreeMap<(Profile, String), (usize, String)> = BTreeMap::new();
    for m in &replay.mismatches {
        let e = by
            .entry((m.profile, m.chain.clone()))
            .or_insert((0, format!("{}: {}", m.at, m.detail)));
        e.0 += 1;
    }
    let sm90: Vec<String> = by
        .iter()
        .filter(|((p, _), _)| *p == Profile::Sm90)
        .map(|((_, c), (n, first))| format!("{c}: {n} outputs, first {first}"))
        .collect();
    assert!(
        sm90.is_empty(),
        "the sm_90 profile disagrees with silicon ({} outputs compared):\n{}",
        replay.outputs,
        sm90.join("\n")
    );
    let ledgered: BTreeSet<String> = spec
        .errata
        .errata
        .iter()
        .flat_map(|e| e.disagreements.iter().cloned())
        .filter(|d| d.starts_with("silicon:"))
        .collect();
    let found: BTreeSet<String> = by
        .keys()
        .filter(|(p, _)| *p == Profile::PtxIsa)
        .map(|(_, c)| format!("silicon:sm_90:{c}"))
        .collect();
    let unexplained: Vec<String> = by
        .iter()
        .filter(|((p, c), _)| {
            *p == Profile::PtxIsa && !ledgered.contains(&format!("silicon:sm_90:{c}"))
        })
        .map(|((_, c), (n, first))| format!("{c}: {n} outputs, first {first}"))
        .collect();
    assert!(
        unexplained.is_empty(),
        "the document disagrees with silicon outside the ledger:\n{}",
        unexplained.join("\n")
    );
    let stale: Vec<&String> = ledgered.difference(&found).collect();
    assert!(
        stale.is_empty(),
        "ledgered silicon differences that no longer show: {stale:?}"
    );
    println!(
        "silicon replay: {} records, {} outputs, sm_90 profile 100%, {} doc differences ledgered",
        replay.records,
        replay.outputs,
        found.len()
    );
}

/// Every device listed in witnesses.json wrote the same observations as the files
/// hold: the SHA-256 of each evidence file's body (after its header) is the one
/// recorded for that device, and the files' own header names one of them.
#[test]
fn every_witness_device_wrote_the_committed_observations() {
    use sha2::{Digest, Sha256};
    let dir = spec_root().join("../vectors/silicon/sm_90");
    let text = std::fs::read_to_string(dir.join("witnesses.json")).unwrap();
    let w: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(w["format"], "ptxvec-silicon-witnesses/1");
    let body = |name: &str| -> String {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let start = if name.ends_with(".jsonl") {
            bytes.iter().position(|b| *b == b'\n').unwrap() + 1
        } else {
            let key = b"\"sweeps\":";
            bytes.windows(key.len()).position(|x| x == key).unwrap()
        };
        Sha256::digest(&bytes[start..])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let devices = w["devices"].as_array().unwrap();
    assert!(devices.len() >= 2, "one device is no cross-check");
    for d in devices {
        let bodies = d["bodies"].as_object().unwrap();
        assert_eq!(
            bodies.len(),
            9,
            "{}: eight probe families and the sweeps",
            d["device"]
        );
        for (file, want) in bodies {
            assert_eq!(
                body(file),
                want.as_str().unwrap(),
                "{}: {file} differs from what it wrote",
                d["device"]
            );
        }
    }
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.join("red.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert!(devices
        .iter()
        .any(|d| d["device"] == header["device"] && d["driver"] == header["driver"]));
}

/// A ledger citation of silicon (`silicon: sm_90`, section `vectors/silicon/...:LINE`)
/// names a line that exists and holds every bit pattern the quote gives, so evidence
/// re-recorded or moved cannot leave the ledger pointing at something else.
#[test]
fn ledger_silicon_citations_name_lines_that_hold_their_bits() {
    use ptxvec_spec::source::Origin;
    let spec = Spec::load(&spec_root()).unwrap();
    let repo = spec_root().join("..");
    let mut checked = 0;
    for e in &spec.errata.errata {
        for src in &e.evidence {
            let (Origin::Silicon(_), Some(section), Some(quote)) =
                (&src.origin, &src.section, &src.quote)
            else {
                continue;
            };
            let Some((file, line)) = section.rsplit_once(':') else {
                continue;
            };
            let Ok(line) = line.parse::<usize>() else {
                continue;
            };
            let text = std::fs::read_to_string(repo.join(file))
                .unwrap_or_else(|err| panic!("{}: {file}: {err}", e.id));
            let held = text
                .lines()
                .nth(line - 1)
                .unwrap_or_else(|| panic!("{}: {file} has no line {line}", e.id));
            for bits in quote
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| w.starts_with("0x"))
            {
                assert!(
                    held.contains(bits),
                    "{}: {section} does not hold {bits}: {held}",
                    e.id
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} citations");
}
