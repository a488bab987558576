//! The semantic vector files and their rows of vectors/index.json (written by
//! `generate`, through [`crate::io::staging`]).

use sha2::{Digest, Sha256};
use rayon::prelude::*;

use ptxvec_spec::Spec;

use super::{records, variants, Variant};
use crate::error::Result;
use crate::record::index::{file_name, stem, IndexEntry, LaunchEntry};

/// The launches of a variant's records (as [`files`] writes them).
pub fn launches(spec: &Spec, id: &str, records: Vec<crate::record::Record>) -> Result<Vec<LaunchEntry>> {
    let suite = crate::device::selfcheck::Suite::parse(spec, id, records)?;
    let stem = stem(id);
    Ok(suite
        .runs()
        .iter()
        .map(|s| {
            let (ptx, target) = s.default_module();
            let l = s.launch();
            LaunchEntry {
                window: s.window().map(str::to_owned),
                ptx,
                target,
                grid: l.grid,
                block: l.block,
                cluster: s.cluster_dims(),
                raw_bytes: l.out_bytes,
                check_bytes: l.result_bytes,
                poison: format!("{:#04x}", crate::device::selfcheck::raw::POISON),
                raw_file: s.raw_file(&stem),
                skipped: crate::device::selfcheck::subset::records_list(
                    &(0..s.records.len())
                        .filter(|&r| crate::device::selfcheck::skipped(&s.records[r]))
                        .collect::<Vec<_>>(),
                ),
            }
        })
        .collect())
}

/// A variant's file, as text.
fn jsonl(recs: &[crate::record::Record]) -> String {
    let mut text = String::new();
    for r in recs {
        text.push_str(&r.to_line());
        text.push('\n');
    }
    text
}

/// Which variants to write: all, or those whose id or instruction is named.
pub fn selected<'s>(spec: &'s Spec, only: &[String]) -> Vec<Variant<'s>> {
    variants(spec)
        .into_iter()
        .filter(|v| {
            only.is_empty()
                || only
                    .iter()
                    .any(|o| *o == v.id || *o == v.spelling.instruction.instruction)
        })
        .collect()
}

/// The index row and the bytes of each of `chosen`'s files: its records as JSON
/// Lines, gzipped ([`file_name`]), made in parallel. The row's SHA-256 is the
/// file's, as written.
pub fn files(spec: &Spec, chosen: &[Variant<'_>], seed: u64, count: usize) -> Result<Vec<(IndexEntry, Vec<u8>)>> {
    chosen
        .par_iter()
        .map(|v| {
            let recs = records::records(v, seed, count)?;
            let (text, n) = (crate::io::gz::compress(jsonl(&recs).as_bytes()), recs.len());
            let launches = launches(spec, &v.id, recs)?;
            let row = IndexEntry {
                file: format!("semantic/{}", file_name(&v.id)),
                variant: v.id.clone(),
                records: n,
                spec: v.notes.clone(),
                sha256: format!("{:x}", Sha256::digest(&text)),
                operands: v.operands(),
                choices: v.choices(),
                launches,
            };
            Ok((row, text))
        })
        .collect()
}
