//! One variant's records: inputs from its family's catalogs, and the expected
//! outputs under each profile, computed from the record's own inputs (as `eval`
//! computes them, so that a vector file is self-contained).

use ptxvec_oracle::profile::Profile;

use super::Variant;
use crate::family::{self, Draft, Sampling};
use crate::record::Record;

/// Every record of a variant, in a fixed order: its family's drafts, then the
/// expected outputs of each. An error names a record the oracle cannot compute:
/// generate fails rather than export it.
pub fn records(v: &Variant<'_>, seed: u64, count: usize) -> crate::error::Result<Vec<Record>> {
    use crate::error::Context;
    drafts(v, seed, count)
        .into_iter()
        .enumerate()
        .map(|(n, d)| {
            let id = format!("{}#{n}", v.id);
            let expect = family::expectations(v.semantics, (d.negate, v.pair), &d.inputs, Profile::ALL).context(&id)?;
            let random = d.class.iter().any(|c| c.contains("random"));
            Ok(Record {
                id,
                // The note that defines what the record computes; index.json lists
                // every note of the variant.
                spec: v.notes.first().cloned().unwrap_or_default(),
                requires: v.requires.clone(),
                seed: random.then_some(seed),
                class: d.class,
                inputs: d.inputs,
                expect,
                text: d.text,
            })
        })
        .collect()
}

/// A variant's records before their expectations, in their order: its family's
/// drafts, sampled for a twin that writes `d` alone.
fn drafts(v: &Variant<'_>, seed: u64, count: usize) -> Vec<Draft> {
    let (text, negated) = (v.text(), v.negated_text());
    let [optional, optional_negated] = v.optional_texts();
    let at = Sampling {
        id: &v.id,
        text: &text,
        negated: &negated,
        optional: [&optional, &optional_negated],
        seed,
        count,
    };
    let drafts = v.semantics.drafts(&at);
    if v.writes_d_alone() {
        d_only_sample(drafts)
    } else {
        drafts
    }
}

/// Every [`D_ONLY_STRIDE`]-th record of a variant's twin that writes `d` alone,
/// and the first of each input class (the word that opens its class: `full`,
/// `single_highest`, ...): what tells a shuffle that is right from a `|p` that is
/// not, at a sixth of the size (vectors/ stays under its cap).
fn d_only_sample(drafts: Vec<Draft>) -> Vec<Draft> {
    let mut seen = std::collections::BTreeSet::new();
    drafts
        .into_iter()
        .enumerate()
        .filter(|(n, d)| {
            let first = d.class.first().and_then(|c| c.split_whitespace().next()).unwrap_or("");
            let new_class = seen.insert(first.to_owned());
            new_class || n % D_ONLY_STRIDE == 0
        })
        .map(|(_, d)| d)
        .collect()
}

/// One record in this many of the `|p` variant goes to its twin that writes `d`
/// alone (besides the first of each class).
pub const D_ONLY_STRIDE: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Shape;

    /// Every record of a warp variant names as many input classes as its shape
    /// declares (vectors/schema.json holds the records to that number).
    #[test]
    fn a_warp_record_names_the_classes_its_shape_declares() {
        let spec = crate::repo_spec();
        let mut warp = 0;
        for v in super::super::variants(&spec) {
            let Shape::Warp(shape) = v.semantics.shape() else { continue };
            warp += 1;
            let drafts = drafts(&v, super::super::DEFAULT_SEED, super::super::DEFAULT_COUNT);
            assert!(!drafts.is_empty(), "{}", v.id);
            for d in drafts {
                assert_eq!(d.class.len(), shape.classes, "{}: {:?}", v.id, d.class);
            }
        }
        assert!(warp > 10, "{warp} warp variants");
    }
}
