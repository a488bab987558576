//! `vectors.json`, the evidence of `ptxvec silicon`: the device, then one entry per
//! run of a variant (per window for a generic one). One type each for the file
//! and its entries, read back by the replay; format: vectors/silicon/README.md.
//!
//! Fields are declared in the order the file lists them (alphabetical), so that
//! serde writes the committed bytes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use super::header::Header;
use super::header::{render_list, Evidence};
use crate::record::Expectation;

/// The evidence format's name and version.
pub const FORMAT: &str = "ptxvec-silicon-vectors/1";
/// The evidence file's name in the output folder.
pub const FILE: &str = "vectors.json";

/// The whole file: the device, then one entry per run.
pub type VectorsFile = Evidence<Variants>;

/// The file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variants {
    /// One entry per run.
    pub variants: Vec<Run>,
}

/// One run of a variant: not run, failed, or judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Why the run failed (the driver refused the module, a launch faulted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Records each profile accepts in full.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<BTreeMap<String, usize>>,
    /// Records each profile does not accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatches: Option<BTreeMap<String, usize>>,
    /// Why the variant was not run: the device meets none of its requirements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    /// The module's `.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx: Option<String>,
    /// Up to a few slots the ptx-isa profile does not accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptx_isa_examples: Option<Vec<SlotReport>>,
    /// SHA-256 of silicon's raw outputs in the pinned slots (selfcheck::raw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_sha256: Option<String>,
    /// Records in the variant's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<usize>,
    /// Records run (not skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<usize>,
    /// `agrees` when the device's own check entry counted as the CPU did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selfcheck: Option<String>,
    /// Records not run: a lane executes outside membermask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<usize>,
    /// Every slot the sm_90 profile does not accept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_90_mismatches: Option<Vec<SlotReport>>,
    /// The module's `.target`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Silicon's bits where the sm_90 expectation does not pin them: (record id,
    /// `out[slot]`, bits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpinned: Option<Vec<(String, String, String)>>,
    /// The variant id.
    pub variant: String,
    /// The window of a variant stated with generic addressing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<String>,
}

impl Run {
    /// A run of `variant` with every result field empty.
    pub fn of(variant: &str) -> Run {
        Run {
            error: None,
            matches: None,
            mismatches: None,
            not_run: None,
            ptx: None,
            ptx_isa_examples: None,
            raw_sha256: None,
            records: None,
            run: None,
            selfcheck: None,
            skipped: None,
            sm_90_mismatches: None,
            target: None,
            unpinned: None,
            variant: variant.to_owned(),
            window: None,
        }
    }

    /// Records profile `p` (by name) accepted.
    pub fn matched(&self, p: &str) -> usize {
        self.matches
            .as_ref()
            .and_then(|m| m.get(p))
            .copied()
            .unwrap_or(0)
    }

    /// Records profile `p` (by name) did not accept.
    pub fn mismatched(&self, p: &str) -> usize {
        self.mismatches
            .as_ref()
            .and_then(|m| m.get(p))
            .copied()
            .unwrap_or(0)
    }
}

/// A slot a profile does not accept: the record, the slot, silicon's bits and the
/// expectation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlotReport {
    /// The expectation.
    pub expected: Expectation,
    /// Silicon's bits.
    pub got: String,
    /// The record id.
    pub id: String,
    /// `mem[0]`, `d[16]`.
    pub out: String,
}

/// The file's bytes: the header's keys, then `variants`, one entry per line.
pub fn render(header: &Header, runs: &[Run]) -> String {
    render_list(header, "variants", runs)
}

/// Reads the file.
pub fn parse(text: &str) -> Result<VectorsFile, serde_json::Error> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed file reads as the typed evidence and renders back byte for byte.
    #[test]
    fn the_committed_evidence_renders_back_byte_for_byte() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../vectors/silicon/sm_90/vectors.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let f = parse(&text).unwrap();
        assert_eq!(render(&f.header, &f.variants), text);
    }
}
