//! The explorer's verdict cache: what ptxas said of each explored text, so that a
//! rerun of a committed exploration asks ptxas nothing.
//!
//! One text file, sorted, so that the same verdicts give the same bytes:
//!
//! ```text
//! # header comment lines
//! m <id> <message>                 (a message, numbered from 0)
//! @ <release> <ptx> <target>       (the verdicts below are of this ptxas and module)
//! <hash> A                         (accepted)
//! <hash> R <id>                    (rejected; its first message)
//! <hash> F <id>                    (ptxas failed: a signal, the time limit)
//! ```
//!
//! `<hash>` is the 64-bit FNV-1a of the text, in 16 hex digits: the texts come back
//! from the seed, so the file need not hold them (at 10^5 texts a collision has a
//! chance of about 3·10^-10). An unverifiable outcome (no ptxas for the module) is
//! not kept: it says nothing about ptxas.

use std::collections::BTreeMap;
use std::path::Path;

use ptxvec_spec::{PtxVersion, Target};

use crate::error::{Error, Result};
use crate::ptxas::Outcome;
use crate::syntax::context::Module;

/// What the cache keeps of an outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Accepted.
    Accepted,
    /// Rejected, with ptxas's first message.
    Rejected(String),
    /// ptxas failed on the text alone.
    Failed(String),
}

impl Kept {
    /// What the cache keeps of an outcome; `None` for one it does not keep.
    pub fn of(o: &Outcome) -> Option<Kept> {
        match o {
            Outcome::Accepted => Some(Kept::Accepted),
            Outcome::Rejected(m) => Some(Kept::Rejected(m.first().cloned().unwrap_or_default())),
            Outcome::Failed(m) => Some(Kept::Failed(m.clone())),
            Outcome::Unverifiable(_) => None,
        }
    }
}

/// A key: the ptxas release, the module, the text's hash.
pub type Key = (String, Module, u64);

/// The verdicts, keyed.
#[derive(Debug, Default, Clone)]
pub struct Cache {
    /// Every verdict.
    pub verdicts: BTreeMap<Key, Kept>,
}

/// The 64-bit FNV-1a hash of a text.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn bad(path: &Path, line: usize, column: usize, what: &str) -> Error {
    Error::Input(format!("{}:{line}:{column}: {what}", path.display()))
}

impl Cache {
    /// Reads a cache file; a missing file is an empty cache.
    pub fn read(path: &Path) -> Result<Cache> {
        let text = match std::fs::read(path) {
            Ok(b) => String::from_utf8(b).map_err(|e| {
                bad(path, 1, 1, &format!("not UTF-8 ({e})"))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cache::default()),
            Err(e) => return Err(Error::io(path, e)),
        };
        let mut messages: Vec<String> = Vec::new();
        let mut cache = Cache::default();
        let mut module: Option<(String, Module)> = None;
        for (k, line) in text.lines().enumerate() {
            let no = k + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("m ") {
                let (id, msg) = rest.split_once(' ').unwrap_or((rest, ""));
                if id.parse::<usize>().ok() != Some(messages.len()) {
                    return Err(bad(path, no, 3, &format!("expected message number {}", messages.len())));
                }
                messages.push(msg.to_owned());
                continue;
            }
            let f: Vec<&str> = line.split(' ').collect();
            let col = |i: usize| 1 + f[..i].iter().map(|s| s.len() + 1).sum::<usize>();
            if f[0] == "@" {
                if f.len() != 4 {
                    return Err(bad(path, no, 1, "expected `@ <release> <ptx> <target>`"));
                }
                let ptx: PtxVersion = f[2].parse().map_err(|_| bad(path, no, col(2), "expected a PTX ISA version"))?;
                let target: Target = f[3].parse().map_err(|_| bad(path, no, col(3), "expected a target"))?;
                module = Some((f[1].to_owned(), Module { ptx, target }));
                continue;
            }
            let Some((release, m)) = &module else {
                return Err(bad(path, no, 1, "expected `m <id> <message>` or `@ <release> <ptx> <target>` before the first verdict"));
            };
            let h = u64::from_str_radix(f[0], 16)
                .ok()
                .filter(|_| f[0].len() == 16)
                .ok_or_else(|| bad(path, no, 1, "expected 16 hex digits, `m`, `@` or `#`"))?;
            let message = |i: usize| -> Result<String> {
                f.get(i)
                    .and_then(|s| s.parse::<usize>().ok())
                    .and_then(|id| messages.get(id).cloned())
                    .ok_or_else(|| bad(path, no, col(i.min(f.len() - 1)), "expected the number of a message above"))
            };
            let kept = match (f.get(1).copied(), f.len()) {
                (Some("A"), 2) => Kept::Accepted,
                (Some("R"), 3) => Kept::Rejected(message(2)?),
                (Some("F"), 3) => Kept::Failed(message(2)?),
                _ => return Err(bad(path, no, 18, "expected `A`, `R <id>` or `F <id>`")),
            };
            cache.verdicts.insert((release.clone(), *m, h), kept);
        }
        Ok(cache)
    }

    /// The cache's text: its messages numbered in sorted order, then its verdicts.
    pub fn to_text(&self, header: &str) -> String {
        let mut messages: Vec<&str> = self
            .verdicts
            .values()
            .filter_map(|k| match k {
                Kept::Accepted => None,
                Kept::Rejected(m) | Kept::Failed(m) => Some(m.as_str()),
            })
            .collect();
        messages.sort_unstable();
        messages.dedup();
        let id = |m: &str| messages.binary_search(&m).unwrap_or(0);
        let mut out = String::new();
        for l in header.lines() {
            out.push_str("# ");
            out.push_str(l);
            out.push('\n');
        }
        for (i, m) in messages.iter().enumerate() {
            // A message is one line of ptxas's stderr: it holds no line break.
            out.push_str(&format!("m {i} {}\n", m.replace(['\n', '\r'], " ")));
        }
        let mut at: Option<(&str, Module)> = None;
        for ((release, m, h), k) in &self.verdicts {
            if at != Some((release.as_str(), *m)) {
                out.push_str(&format!("@ {release} {} {}\n", m.ptx, m.target));
                at = Some((release.as_str(), *m));
            }
            let verdict = match k {
                Kept::Accepted => "A".to_owned(),
                Kept::Rejected(msg) => format!("R {}", id(msg)),
                Kept::Failed(msg) => format!("F {}", id(msg)),
            };
            out.push_str(&format!("{h:016x} {verdict}\n"));
        }
        out
    }

    /// Writes the cache through a temporary file and a rename.
    pub fn write(&self, path: &Path, header: &str) -> Result<()> {
        crate::io::files::write_atomic(path, self.to_text(header).as_bytes()).map_err(|e| Error::io(path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_published_vectors() {
        // The FNV test suite (Fowler, Noll, Vo): FNV-1a 64 of "" and "a" and "foobar".
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_cache_reads_back_what_it_wrote_and_names_a_bad_line() {
        let m = |p: &str, t: &str| Module { ptx: p.parse().unwrap(), target: t.parse().unwrap() };
        let mut c = Cache::default();
        c.verdicts.insert(("13.5".into(), m("8.0", "sm_90"), 1), Kept::Accepted);
        c.verdicts.insert(("13.5".into(), m("8.0", "sm_90"), 2), Kept::Rejected("Unknown modifier '.x'".into()));
        c.verdicts.insert(("12.9".into(), m("6.0", "sm_50"), 3), Kept::Failed("ptxas was killed by signal 11".into()));
        let dir = std::env::temp_dir().join(format!("ptxvec-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.txt");
        c.write(&path, "test").unwrap();
        let back = Cache::read(&path).unwrap();
        assert_eq!(back.verdicts, c.verdicts);
        assert_eq!(back.to_text("test"), c.to_text("test"));
        for (text, want) in [
            ("@ 13.5 8.0 sm_90\n0000000000000001 Q\n", ":2:18:"),
            ("@ 13.5 8.x sm_90\n", ":1:8:"),
            ("m 1 x\n", ":1:3:"),
            ("@ 13.5 8.0 sm_90\n0000000000000001 R 0\n", ":2:"),
            ("0000000000000001 A\n", ":1:1:"),
            ("x\n", ":1:1:"),
        ] {
            std::fs::write(&path, text).unwrap();
            let e = Cache::read(&path).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
