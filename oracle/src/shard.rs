//! A run's share of a long, exhaustive loop: `K/N` takes the items `i` with
//! `i % N == K`, so that N runs with K = 0 … N − 1 cover every item once. CI splits
//! its long replays this way: `PTXVEC_EXHAUSTIVE_SHARD` the first operands of this
//! crate's exhaustive tests, `PTXVEC_SHARD` the blocks of the generator's wide-sweep
//! replay (docs/bench.md, `.ci/run`).
//!
//! The rule lives here, the lowest crate both use (the generator depends on this
//! one, never the reverse), and stays pure: the caller reads the variable and hands
//! its value in.

use std::fmt;

/// The variable that splits the exhaustive 16-bit checks by their first operand:
/// this crate's (add, min and max against the reference) and the generator's f16
/// kernels against this crate's add, so that one CI run takes the same quarter of
/// both.
pub const EXHAUSTIVE_VAR: &str = "PTXVEC_EXHAUSTIVE_SHARD";

/// Shard `k` of `n`: the items `i` with `i % n == k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which share, `0 <= k < n`.
    pub k: u64,
    /// How many shares.
    pub n: u64,
}

/// A value that is not `K/N` with `0 <= K < N <= max`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardError {
    /// The variable it came from.
    pub var: String,
    /// Its text.
    pub text: String,
    /// The largest N the loop can split into.
    pub max: u64,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?}: expected K/N with 0 <= K < N <= {}, e.g. 1/4",
            self.var, self.text, self.max
        )
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Every item: the one share of one.
    pub const ALL: Shard = Shard { k: 0, n: 1 };

    /// The shard variable `var`'s value (`None`: unset, every item), for a loop of
    /// at most `max` shares.
    pub fn from_var(var: &str, value: Option<&str>, max: u64) -> Result<Shard, ShardError> {
        let Some(text) = value else {
            return Ok(Shard::ALL);
        };
        let bad = || ShardError {
            var: var.to_owned(),
            text: text.to_owned(),
            max,
        };
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || n > max || k >= n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether item `i` is in this shard.
    pub fn contains(&self, i: u64) -> bool {
        i % self.n == self.k
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_read_k_of_n_and_refuse_the_rest() {
        let read = |t| Shard::from_var("V", Some(t), 65536);
        assert_eq!(read("1/4"), Ok(Shard { k: 1, n: 4 }));
        assert_eq!(read(" 0 / 1 "), Ok(Shard::ALL));
        assert_eq!(read("65535/65536"), Ok(Shard { k: 65535, n: 65536 }));
        assert_eq!(Shard::from_var("V", None, 4), Ok(Shard::ALL));
        for bad in ["4/4", "1", "a/4", "0/0", "0/65537", "-1/4", ""] {
            let e = read(bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("V={bad:?}: expected K/N with 0 <= K < N <= 65536, e.g. 1/4"),
                "case: {bad}"
            );
        }
        assert!(Shard::from_var("V", Some("3/8"), 4).is_err(), "N above the loop's max");
    }

    #[test]
    fn the_shards_of_n_partition_the_items() {
        // Every item in exactly one shard of three, and in the only shard of one.
        let mut seen = vec![0u8; 1000];
        for k in 0..3 {
            let s = Shard { k, n: 3 };
            for i in (0..1000).filter(|&i| s.contains(i)) {
                seen[i as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1));
        assert!((0..1000).all(|i| Shard::ALL.contains(i)));
        assert_eq!(Shard { k: 2, n: 7 }.to_string(), "2/7");
    }
}
