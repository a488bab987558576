//! The syntax vector files: vectors/syntax/<instruction>.jsonl, one case per line,
//! legal cases first (form order), then illegal ones (form order, mutation order).

use std::path::{Path, PathBuf};

use ptxvec_spec::{Instruction, Spec};

use super::case::{Case, SourceRecord};
use super::illegal::illegal_cases;
use super::legal::{legal_cases, noncanonical_cases};

/// Every case of one instruction.
pub fn cases(spec: &Spec, instruction: &Instruction) -> Vec<Case> {
    let mut out = legal_cases(spec, instruction);
    out.extend(noncanonical_cases(spec, instruction));
    out.extend(illegal_cases(spec, instruction));
    // A case whose verdict rests on a ledger finding (spec/errata.yaml, `vectors`)
    // cites the finding's evidence: `red.and.L2::cache_hint.b32 [%rd1], %r1;` is
    // illegal because ptxas refuses the qualifier without its operand (E011), which
    // the document does not say.
    for c in &mut out {
        let finding = spec.errata.errata.iter().find(|e| e.vectors.contains(&c.id));
        if let Some((e, src)) = finding.and_then(|e| Some((e, e.cited_evidence()?))) {
            c.source = SourceRecord {
                cite: format!("{src} (errata {})", e.id),
                quote: src.quote.clone(),
            };
        }
    }
    out
}

/// The file an instruction's cases go to, under the vectors folder.
pub fn file_for(vectors: &Path, instruction: &str) -> PathBuf {
    vectors.join("syntax").join(format!("{instruction}.jsonl"))
}

/// The JSON Lines text of some cases.
pub fn to_jsonl(cases: &[Case]) -> String {
    let mut out = String::new();
    for c in cases {
        // A case holds strings, numbers, lists and options: serde_json cannot fail
        // on it.
        out.push_str(&serde_json::to_string(c).unwrap_or_default());
        out.push('\n');
    }
    out
}
