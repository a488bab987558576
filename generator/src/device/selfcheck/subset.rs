//! A self-checking module of some of a variant's records: what reproduces one
//! failing record without the whole variant (`emit-ptx --variant ID --records 5`),
//! and what an engine runner bisects with when a record crashes the engine
//! (`crate::device::engine`).
//!
//! A subset module lays its records out as a whole variant of those records does:
//! the `k`-th record picked sits where record `k` would. [`Suite::record_bytes`]
//! names each record's bytes in the `ptxvec_raw` buffer, so that a runner can put
//! the pieces of several subset runs back where the whole variant's buffer has them.

use std::ops::Range;

use super::Suite;
use crate::error::{Error, Result};

/// The most records a `--records` list may name (a variant has a few hundred).
pub const MAX_PICKED: usize = 1 << 16;

/// Reads a record list (`5`, `3,5-9`): record numbers as in the ids
/// `<variant>#<n>`, of a variant of `count` records. Returns them ascending, each
/// once.
pub fn parse_records(list: &str, count: usize) -> Result<Vec<usize>> {
    let usage = |m: String| Error::Usage(format!("--records {list:?}: {m}"));
    let number = |s: &str| -> Result<usize> {
        let n: usize = s
            .trim()
            .parse()
            .map_err(|_| usage(format!("`{s}` is not a record number (expected e.g. `5` or `3,5-9`)")))?;
        if n >= count {
            return Err(usage(format!(
                "record {n} is past the variant's last, {} ({count} records)",
                count.saturating_sub(1)
            )));
        }
        Ok(n)
    };
    let mut picked = Vec::new();
    for piece in list.split(',') {
        let (a, b) = match piece.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(piece)?;
                (n, n)
            }
        };
        if a > b {
            return Err(usage(format!("range `{piece}` runs backwards")));
        }
        if picked.len() + (b - a + 1) > MAX_PICKED {
            return Err(usage(format!("more than {MAX_PICKED} records")));
        }
        picked.extend(a..=b);
    }
    picked.sort_unstable();
    picked.dedup();
    Ok(picked)
}

/// A record list as [`parse_records`] reads it, runs written as ranges: `3,5-7`.
pub fn records_list(picked: &[usize]) -> String {
    let mut out = Vec::new();
    let mut k = 0;
    while k < picked.len() {
        let mut end = k;
        while end + 1 < picked.len() && picked[end + 1] == picked[end] + 1 {
            end += 1;
        }
        out.push(if end == k {
            picked[k].to_string()
        } else {
            format!("{}-{}", picked[k], picked[end])
        });
        k = end + 1;
    }
    out.join(",")
}

impl Suite {
    /// The suite of the records numbered `picked` (ascending, each in range, as
    /// [`parse_records`] gives them), in that order.
    pub fn subset(&self, picked: &[usize]) -> Result<Suite> {
        let mut records = Vec::with_capacity(picked.len());
        for &n in picked {
            let r = self.records.get(n).ok_or_else(|| {
                Error::Usage(format!("{}: no record {n} ({} records)", self.id, self.records.len()))
            })?;
            // The numbers are the ids' own: a file whose ids are not in order would
            // make `#n` name another record than the n-th.
            if !r.id.ends_with(&format!("#{n}")) {
                return Err(Error::Input(format!(
                    "{}: the record at position {n} has id {:?}, not `{}#{n}`",
                    self.id, r.id, self.id
                )));
            }
            records.push(r.clone());
        }
        if records.is_empty() {
            return Err(Error::Usage(format!("{}: no records picked", self.id)));
        }
        // A subset of a subset picks among the first's numbers.
        let numbers = match &self.picked {
            Some(outer) => picked.iter().map(|&k| outer[k]).collect(),
            None => picked.to_vec(),
        };
        Ok(Suite {
            records,
            picked: Some(numbers),
            ..self.clone()
        })
    }

    /// The bytes record `k` (its position in this suite) owns in the `ptxvec_raw`
    /// buffer: its elements for a memory variant, its warp's lanes for a warp one.
    pub fn record_bytes(&self, k: usize) -> Range<usize> {
        let stride = self.stride();
        k * stride..(k + 1) * stride
    }

    /// The variant's number of record `k` of this suite (`<variant>#<n>`).
    pub fn number(&self, k: usize) -> usize {
        self.picked.as_ref().map_or(k, |p| p[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_lists_write_as_read() {
        for (picked, list) in [(&[5][..], "5"), (&[3, 5, 6, 7], "3,5-7"), (&[0, 1, 3, 4, 9], "0-1,3-4,9")] {
            assert_eq!(records_list(picked), list);
            assert_eq!(parse_records(list, 10).unwrap(), picked);
        }
    }

    #[test]
    fn record_lists_read_as_written() {
        assert_eq!(parse_records("5", 10).unwrap(), [5]);
        assert_eq!(parse_records("3,5-7", 10).unwrap(), [3, 5, 6, 7]);
        assert_eq!(parse_records("7-7, 2,2", 10).unwrap(), [2, 7]);
        assert_eq!(parse_records("0-9", 10).unwrap().len(), 10);
        for (bad, says) in [
            ("10", "past the variant's last, 9"),
            ("x", "`x` is not a record number"),
            ("", "`` is not a record number"),
            ("5-3", "runs backwards"),
            ("1,", "is not a record number"),
            ("-1", "is not a record number"),
        ] {
            let e = parse_records(bad, 10).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        assert!(parse_records("0-99999999", 100_000_000)
            .unwrap_err()
            .to_string()
            .contains("more than"));
    }
}
