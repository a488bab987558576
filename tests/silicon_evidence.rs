//! The committed silicon evidence as a whole: every device that wrote it is
//! listed with what it wrote, and every ledger citation of silicon names a line
//! that holds the bits it quotes, of a variant silicon matched.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::{repo_root, silicon_dir, spec};

/// Every device listed in witnesses.json wrote the same observations as the files
/// hold: the SHA-256 of each evidence file's body (after its header) is the one
/// recorded for that device, and the files' own header names one of them.
#[test]
fn every_witness_device_wrote_the_committed_observations() {
    use sha2::{Digest, Sha256};
    let dir = silicon_dir();
    let text = std::fs::read_to_string(dir.join("witnesses.json")).unwrap();
    let w: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(w["format"], "ptxvec-silicon-witnesses/2");
    // A body starts at the key of the file's list: what follows the device's header.
    let body = |name: &str| -> String {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let key: &[u8] = match name {
            "vectors.json" | "cluster-probe.json" => b"\"variants\":",
            "sweeps.json" | "wide-sweeps.json" => b"\"sweeps\":",
            "nan-probe.json" => b"\"rows\":",
            other => panic!("{other}: not an evidence file"),
        };
        let start = bytes.windows(key.len()).position(|x| x == key).unwrap();
        Sha256::digest(&bytes[start..])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let devices = w["devices"].as_array().unwrap();
    let mut witnesses: BTreeMap<String, usize> = BTreeMap::new();
    for d in devices {
        let bodies = d["bodies"].as_object().unwrap();
        for (file, want) in bodies {
            *witnesses.entry(file.clone()).or_default() += 1;
            assert_eq!(
                body(file),
                want.as_str().unwrap(),
                "{}: {file} differs from what it wrote",
                d["device"]
            );
        }
    }
    // Every file, and the sweeps and the probes on two devices.
    assert!(
        witnesses.contains_key("vectors.json"),
        "no witness of vectors.json"
    );
    for file in ["sweeps.json", "cluster-probe.json", "nan-probe.json"] {
        assert!(
            witnesses.get(file).copied().unwrap_or(0) >= 2,
            "{file}: one device is no cross-check"
        );
    }
    for file in [
        "vectors.json",
        "sweeps.json",
        "cluster-probe.json",
        "nan-probe.json",
    ] {
        let header: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(file)).unwrap()).unwrap();
        assert!(
            devices.iter().any(|d| d["device"] == header["device"]
                && d["driver"] == header["driver"]
                && d["bodies"].get(file).is_some()),
            "{file}: its header names no witness that wrote it"
        );
    }
}

/// A ledger citation of silicon (`silicon: sm_90`, section `FILE:LINE`) names a line
/// that exists and holds every bit pattern the quote gives, so evidence re-recorded
/// or moved cannot leave the ledger pointing at something else. A cited record of
/// the semantic vectors (its sm_90 expectation) must be one that silicon ran, of a
/// variant whose every run matched sm_90 in vectors.json: then the digest of what
/// silicon wrote equals that of the expectations, and the quoted bits are silicon's.
#[test]
fn ledger_silicon_citations_name_lines_that_hold_their_bits() {
    use ptxvec_spec::source::Origin;
    let spec = spec();
    let repo = repo_root();
    let evidence = ptxvec_generator::device::silicon::evidence::parse(
        &std::fs::read_to_string(repo.join("vectors/silicon/sm_90/vectors.json")).unwrap(),
    )
    .unwrap();
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
            let text = ptxvec_generator::io::gz::read_text(&repo.join(file), 1 << 30)
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
            if file.starts_with("vectors/semantic/") {
                let rec: Value = serde_json::from_str(held).unwrap();
                let variant = rec["id"].as_str().unwrap().rsplit_once('#').unwrap().0;
                let runs: Vec<_> = evidence
                    .variants
                    .iter()
                    .filter(|v| v.variant == variant && v.not_run.is_none())
                    .collect();
                assert!(!runs.is_empty(), "{}: {variant} never ran on silicon", e.id);
                for r in runs {
                    assert!(r.error.is_none(), "{}: {variant}: {r:?}", e.id);
                    assert_eq!(r.mismatched("sm_90"), 0, "{}: {variant}: {r:?}", e.id);
                }
                // Not a record silicon skips: no lane executes outside membermask.
                let ins = &rec["inputs"];
                let hex = |k: &str| {
                    ins[k]
                        .as_str()
                        .map_or(0, |h| u64::from_str_radix(&h[2..], 16).unwrap())
                };
                assert!(
                    ins.get("membermask").is_none() || hex("executing") & !hex("membermask") == 0,
                    "{}: {section}: silicon does not run this record",
                    e.id
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} citations");
}

/// Every evidence file reads its device header and its body strictly: the
/// committed file with one key added, in the header's place or the body's, is
/// refused, and the message names the key and where it stands.
#[test]
fn an_evidence_file_with_an_unknown_key_is_refused() {
    use ptxvec_generator::device::silicon::probe::{cluster, nan};
    use ptxvec_generator::device::silicon::evidence;
    use ptxvec_generator::sweep::gpu::{bits16 as sweep, wide};
    let dir = silicon_dir();
    type Reader = fn(&str) -> Result<(), String>;
    let readers: [(&str, Reader); 5] = [
        (evidence::FILE, |t| evidence::parse(t).map(drop).map_err(|e| e.to_string())),
        (cluster::FILE, |t| cluster::parse(t).map(drop).map_err(|e| e.to_string())),
        (nan::FILE, |t| nan::parse(t).map(drop).map_err(|e| e.to_string())),
        (sweep::FILE, |t| sweep::parse(t).map(drop).map_err(|e| e.to_string())),
        (wide::FILE, |t| wide::parse(t).map(drop).map_err(|e| e.to_string())),
    ];
    for (file, read) in readers {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        read(&text).unwrap_or_else(|e| panic!("{file}: the committed file: {e}"));
        // First among the header's keys, and last, after the body's list.
        let first = text.replacen('{', "{\"cpu\": \"x\",", 1);
        let end = text.trim_end().len() - 1;
        let last = format!("{}, \"cpu\": \"x\"}}\n", &text[..end].trim_end());
        for (place, bad) in [("first", first), ("last", last)] {
            let e = read(&bad).expect_err(&format!("{file}: an unknown key {place} was read"));
            assert!(
                e.contains("unknown field `cpu`") && e.contains(" at line "),
                "{file}, key {place}: {e}"
            );
        }
    }
}
