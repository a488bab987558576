//! The record's line, read by hand: [`Record<&str>`] from the lines that serde's
//! `Deserialize` (the definition) reads the same way, without its per-field
//! machinery. `eval` reads a record per line, and serde's typed read was a third of
//! its time.
//!
//! The reader takes a subset of JSON and answers `None` for everything else, which
//! then goes to serde, for the record or for the error that says why there is none:
//! - strings with no escape and no control character (the only strings a
//!   `Record<&str>` can borrow);
//! - keys that are field names, each at most once (among the inputs, any other
//!   key is a memory slot's, as for serde);
//! - `seed` as a plain integer (`0`, or digits without a leading zero) within u64;
//! - `expect`, whose value is handed to serde's reader alone (a consumer sending
//!   records back is rare, and the map of expectations is most of serde's format);
//! - no `null` anywhere (serde reads it as an absent field; this reader does not).
//!
//! What it takes, it reads as serde does: the same record, or `None` where serde
//! finds an error. Tests hold this on every committed record and on edits of them,
//! and the `eval_record` fuzz target compares the batch (which reads through here)
//! with the definition line by line.

use std::collections::BTreeMap;

use ptxvec_oracle::profile::Profile;

use super::{by_profile, Bits, Expectation, InputFields, Inputs, LaneMask, LaneValue, Outputs, Record, Requirement, SlotValues};

/// The record on `line`, or `None` where serde must read it.
pub fn record(line: &str) -> Option<Record<&str>> {
    let mut s = Scan { line, at: 0 };
    let rec = s.record()?;
    s.blank();
    (s.at == line.len()).then_some(rec)
}

/// Where the first quote, backslash or control character of `bytes` is: eight
/// bytes at a time, since a byte-at-a-time loop mispredicts at the end of every
/// string.
fn string_end(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // The high bit of each byte below `n` (n <= 0x80): exact in the lowest such
    // byte, which is all that is read (a borrow can only mark bytes above it).
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
    let equal = |x: u64, b: u8| below(x ^ (ONES * u64::from(b)), 1);
    let mut chunks = bytes.chunks_exact(8);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().ok()?);
        let hits = equal(x, b'"') | equal(x, b'\\') | below(x, 0x20);
        if hits != 0 {
            return Some(8 * i + hits.trailing_zeros() as usize / 8);
        }
    }
    let tail = chunks.remainder();
    let at = tail.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(bytes.len() - tail.len() + at)
}

/// A place in a line.
struct Scan<'a> {
    line: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.line.as_bytes()
    }

    /// Skips JSON's whitespace.
    fn blank(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes().get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not taken.
    fn peek(&mut self) -> Option<u8> {
        self.blank();
        self.bytes().get(self.at).copied()
    }

    /// Takes `b` after whitespace.
    fn take(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// A string without escapes or control characters, borrowed from the line.
    fn string(&mut self) -> Option<&'a str> {
        self.take(b'"')?;
        let start = self.at;
        let len = string_end(self.bytes().get(start..)?)?;
        if self.bytes()[start + len] != b'"' {
            return None;
        }
        self.at = start + len + 1;
        // Both ends are next to an ASCII quote, so they are character boundaries.
        self.line.get(start..start + len)
    }

    /// A bit pattern: [`Bits::parse`] of a [`Self::string`], in one pass (a
    /// record is mostly these).
    fn bits(&mut self) -> Option<Bits> {
        self.take(b'"')?;
        let rest = self.bytes().get(self.at..)?;
        let digits = rest.strip_prefix(b"0x")?;
        let mut value = 0u64;
        for (n, &d) in digits.iter().enumerate() {
            let nibble = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                b'"' if (1..=16).contains(&n) => {
                    self.at += 2 + n + 1;
                    return Some(Bits { value, width: 4 * n as u32 });
                }
                _ => return None,
            };
            if n == 16 {
                return None;
            }
            value = value << 4 | u64::from(nibble);
        }
        None
    }

    /// A u64 written as serde_json reads one: `0`, or digits without a leading
    /// zero; a fraction, an exponent or an overflow goes to serde.
    fn integer(&mut self) -> Option<u64> {
        self.blank();
        let digits = self.bytes()[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let text = self.line.get(self.at..self.at + digits)?;
        if digits == 0 || (digits > 1 && text.starts_with('0')) {
            return None;
        }
        self.at += digits;
        if let Some(b'.' | b'e' | b'E') = self.bytes().get(self.at) {
            return None;
        }
        text.parse().ok()
    }

    /// `[item, ...]`.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.take(b'[')?;
        let mut items = Vec::new();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }

    /// `{"key": value, ...}` with keys among `keys`, each at most once: `field`
    /// reads the value of the key at its place in `keys`.
    fn object(&mut self, keys: &[&str], mut field: impl FnMut(&mut Self, usize) -> Option<()>) -> Option<()> {
        self.object_open(keys, |s, key| field(s, key.ok()?))
    }

    /// [`Self::object`] where a key outside `keys` is handed to `field` too, by
    /// its text (`Err`): the caller decides whether it takes it, and twice.
    fn object_open(
        &mut self,
        keys: &[&str],
        mut field: impl FnMut(&mut Self, Result<usize, &'a str>) -> Option<()>,
    ) -> Option<()> {
        self.take(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        let (mut seen, mut next) = (0u32, 0);
        loop {
            let key = self.key(keys, next)?;
            if let Ok(i) = key {
                if seen & 1 << i != 0 {
                    return None;
                }
                seen |= 1 << i;
                next = i + 1;
            }
            self.take(b':')?;
            field(self, key)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The key here, by its place among `keys`, or its text where it is none of
    /// them. The keys after the one before (`next` on) are tried first as they
    /// stand, quotes included: the files write them in `keys`' order.
    fn key(&mut self, keys: &[&str], next: usize) -> Option<Result<usize, &'a str>> {
        self.blank();
        let rest = self.bytes().get(self.at..)?;
        for (i, k) in keys.iter().enumerate().skip(next) {
            let k = k.as_bytes();
            let quoted = rest.get(..k.len() + 2);
            if quoted.is_some_and(|q| q[0] == b'"' && &q[1..=k.len()] == k && q[k.len() + 1] == b'"') {
                self.at += k.len() + 2;
                return Some(Ok(i));
            }
        }
        let key = self.string()?;
        Some(keys.iter().position(|k| *k == key).ok_or(key))
    }

    /// The text of the JSON object that starts here, skipped by its brackets and
    /// strings: serde reads it, and so checks what this skips.
    fn object_text(&mut self) -> Option<&'a str> {
        if self.peek()? != b'{' {
            return None;
        }
        let start = self.at;
        let mut depth = 0usize;
        loop {
            match *self.bytes().get(self.at)? {
                b'"' => self.skip_string()?,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth = depth.checked_sub(1)?,
                _ => {}
            }
            self.at += 1;
            if depth == 0 {
                return self.line.get(start..self.at);
            }
        }
    }

    /// Moves onto the quote that closes the string opening here, past escapes.
    fn skip_string(&mut self) -> Option<()> {
        self.at += 1;
        loop {
            match *self.bytes().get(self.at)? {
                b'"' => return Some(()),
                b'\\' => self.at += 2,
                _ => self.at += 1,
            }
        }
    }

    /// `expect`, read by serde's own reader from its text alone.
    fn expect(&mut self) -> Option<BTreeMap<Profile, Outputs<Expectation>>> {
        let mut de = serde_json::Deserializer::from_str(self.object_text()?);
        let expect = by_profile::deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(expect)
    }

    fn requirement(&mut self) -> Option<Requirement<&'a str>> {
        let (mut ptx, mut target) = (None, None);
        self.object(&["ptx", "target"], |s, key| {
            match key {
                0 => ptx = Some(s.string()?),
                _ => target = Some(s.string()?),
            }
            Some(())
        })?;
        Some(Requirement { ptx: ptx?, target })
    }

    /// A thread mask: [`LaneMask::parse`] of a [`Self::string`].
    fn mask(&mut self) -> Option<LaneMask> {
        LaneMask::parse(self.string()?).ok()
    }

    fn lane_value(&mut self) -> Option<LaneValue> {
        if self.peek()? == b'[' {
            self.list(Self::bits).map(LaneValue::PerLane)
        } else {
            self.bits().map(LaneValue::Warp)
        }
    }

    fn inputs(&mut self) -> Option<Inputs> {
        // The warp keys and the memory; any other key is a memory slot's
        // (`operand`, or `operands` for one list per thread).
        const KEYS: [&str; 7] = ["a", "b", "c", "executing", "exited", "mem", "membermask"];
        let mut f = InputFields::default();
        self.object_open(&KEYS, |s, key| {
            let bits_list = |s: &mut Self| s.list(Self::bits);
            match key {
                Ok(0) => f.a = Some(s.lane_value()?),
                Ok(1) => f.b = Some(s.lane_value()?),
                Ok(2) => f.c = Some(s.lane_value()?),
                Ok(3) => f.executing = Some(s.mask()?),
                Ok(4) => f.exited = Some(s.mask()?),
                Ok(5) => f.mem = Some(bits_list(s)?),
                Ok(_) => f.membermask = Some(s.bits()?),
                // A slot given twice: serde says so.
                Err(k) if f.slots.iter().any(|(n, _)| n == k) => return None,
                Err(k) if InputFields::per_thread(k) => {
                    f.slots.push((k.to_owned(), SlotValues::PerThread(s.list(bits_list)?)));
                }
                Err(k) => f.slots.push((k.to_owned(), SlotValues::One(bits_list(s)?))),
            }
            Some(())
        })?;
        Inputs::try_from(f).ok()
    }

    fn record(&mut self) -> Option<Record<&'a str>> {
        const KEYS: [&str; 8] = ["class", "expect", "id", "inputs", "requires", "seed", "spec", "text"];
        let (mut class, mut expect, mut id, mut inputs) = (Vec::new(), BTreeMap::new(), "", None);
        let (mut requires, mut seed, mut spec, mut text) = (Vec::new(), None, "", None);
        self.object(&KEYS, |s, key| {
            match key {
                0 => class = s.list(Self::string)?,
                1 => expect = s.expect()?,
                2 => id = s.string()?,
                3 => inputs = Some(s.inputs()?),
                4 => requires = s.list(Self::requirement)?,
                5 => seed = Some(s.integer()?),
                6 => spec = s.string()?,
                _ => text = Some(s.string()?),
            }
            Some(())
        })?;
        Some(Record {
            class,
            expect,
            id,
            inputs: inputs?,
            requires,
            seed,
            spec,
            text: text?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde's reading of `line`, where it reads one.
    fn serde(line: &str) -> Option<Record<&str>> {
        serde_json::from_str(line).ok()
    }

    /// The committed semantic vector lines.
    fn committed() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/semantic");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| crate::io::gz::is_jsonl(p))
            .collect();
        files.sort();
        files
            .iter()
            .flat_map(|f| crate::io::gz::read_text(f, 1 << 30).unwrap().lines().map(str::to_owned).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn every_committed_record_is_read_as_serde_reads_it() {
        let lines = committed();
        assert!(lines.len() > 20_000, "{} lines", lines.len());
        for line in &lines {
            assert_eq!(record(line), Some(serde(line).unwrap()), "{line}");
        }
    }

    /// Every edit of some committed lines (a byte dropped; a byte, a space or a
    /// `null` put in) that this reader takes, serde reads the same; and it takes
    /// some of them, so that the test says something.
    #[test]
    fn an_edited_record_is_read_as_serde_reads_it_or_left_to_serde() {
        let lines = committed();
        let mut taken = 0;
        // A line of each kind of inputs: memory, contention, warps with per-lane and
        // per-warp `b`, and a CTA of 32 warps (a mask past 64 threads).
        // Each edited line is read whole, so a long one costs its length times its
        // places: the sample takes one record of 32 warps (about 13 KB), no more.
        let wide: Vec<&String> = lines.iter().filter(|l| l.len() > 4_000 && l.contains("\"executing\":\"0x")).take(1).collect();
        assert_eq!(wide.len(), 1, "no record of a CTA of 32 warps");
        let short = lines.iter().filter(|l| l.len() <= 4_000);
        let sample = short.step_by(997).chain(lines.iter().filter(|l| l.contains("\"operands\"")).take(2)).chain(wide.iter().copied());
        for line in sample {
            let mut edits: Vec<String> = Vec::new();
            // Within the first and the last 300 bytes of a long line are its keys,
            // its masks and the ends of its lists: every kind of place there is.
            let ends = |at: &usize| *at < 300 || line.len() - at <= 300;
            for (at, _) in line.char_indices().filter(|(at, _)| ends(at)) {
                let mut dropped = line.clone();
                dropped.remove(at);
                edits.push(dropped);
                for put in [" ", "\t", "\"", "\\", ",", "0", "x", "[", "]", "{", "}", ":", "null", "\u{1}", "é"] {
                    let mut e = line.clone();
                    e.insert_str(at, put);
                    edits.push(e);
                }
            }
            for e in &edits {
                if let Some(r) = record(e) {
                    taken += 1;
                    assert_eq!(Some(r), serde(e), "{e}");
                }
            }
        }
        assert!(taken > 1000, "only {taken} edits taken");
    }

    #[test]
    fn odd_lines_are_read_as_serde_reads_them_or_left_to_serde() {
        let ok = r#""text":"activemask.b32 %r1;","inputs":{"executing":"0x1"}"#;
        // (line, whether this reader takes it)
        let rows = [
            (format!("{{{ok}}}"), true),
            (format!(" {{ {ok} }} \t"), true),
            (format!("{{{ok},\"seed\":0}}"), true),
            (format!("{{{ok},\"seed\":18446744073709551615}}"), true),
            (format!("{{{ok},\"seed\":18446744073709551616}}"), false),
            (format!("{{{ok},\"seed\":01}}"), false),
            (format!("{{{ok},\"seed\":1.0}}"), false),
            (format!("{{{ok},\"seed\":1e2}}"), false),
            (format!("{{{ok},\"seed\":-1}}"), false),
            (format!("{{{ok},\"seed\":null}}"), false),
            (format!("{{{ok},\"requires\":[{{\"ptx\":\"6.2\",\"target\":null}}]}}"), false),
            (format!("{{{ok},\"requires\":[{{\"ptx\":\"6.2\"}}]}}"), true),
            (format!("{{{ok},\"requires\":[{{\"target\":\"sm_30\"}}]}}"), false),
            (format!("{{{ok},\"id\":\"a\\u0041\"}}"), false),
            (format!("{{{ok},\"i\\u0064\":\"a\"}}"), false),
            (format!("{{{ok},\"id\":\"a\",\"id\":\"b\"}}"), false),
            (format!("{{{ok},\"lanes\":1}}"), false),
            (format!("{{{ok}}}x"), false),
            (format!("{{{ok},}}"), false),
            (format!("{{{ok},\"expect\":{{}}}}"), true),
            (format!("{{{ok},\"expect\":{{\"ptx-isa\":{{\"d\":[\"0x1\"]}}}}}}"), true),
            (format!("{{{ok},\"expect\":{{\"ptx\\u002disa\":{{\"d\":[\"0x1\"]}}}}}}"), true),
            (format!("{{{ok},\"expect\":{{\"sm_80\":{{\"d\":[]}}}}}}"), false),
            (format!("{{{ok},\"expect\":{{\"ptx-isa\":{{\"d\":[]}}}}"), false),
            (format!("{{{ok},\"expect\":[]}}"), false),
            (format!("{{{ok},\"class\":[\"a\u{1}\"]}}"), false),
            (r#"{"text":"x","inputs":{"executing":"0x1","b":["0x1","0x2"]}}"#.to_owned(), true),
            (r#"{"text":"x","inputs":{"executing":"0x1","b":"0x12345678"}}"#.to_owned(), true),
            (r#"{"text":"x","inputs":{"executing":"0x0000000000000001"}}"#.to_owned(), true),
            (r#"{"text":"x","inputs":{"executing":"0x00000000000000001"}}"#.to_owned(), true),
            (format!(r#"{{"text":"x","inputs":{{"executing":"0x{}"}}}}"#, "f".repeat(256)), true),
            (format!(r#"{{"text":"x","inputs":{{"executing":"0x{}"}}}}"#, "0".repeat(257)), false),
            (r#"{"text":"x","inputs":{"executing":"0x"}}"#.to_owned(), false),
            (r#"{"text":"x","inputs":{"executing":"0X1"}}"#.to_owned(), false),
            (r#"{"text":"x","inputs":{"executing":"0xAbC"}}"#.to_owned(), true),
            (r#"{"text":"x","inputs":{"executing":"0x1","executing":"0x1"}}"#.to_owned(), false),
            (r#"{"text":"x","inputs":{"mem":["0x1"],"operands":[["0x1"],[]]}}"#.to_owned(), true),
            (r#"{"text":"x","inputs":{"mem":["0x1"]}}"#.to_owned(), false),
            (r#"["x",{"executing":"0x1"}]"#.to_owned(), false),
            (r#"{"inputs":{"executing":"0x1"}}"#.to_owned(), false),
        ];
        for (line, takes) in &rows {
            let got = record(line);
            assert_eq!(got.is_some(), *takes, "{line}");
            if got.is_some() {
                assert_eq!(got, serde(line), "{line}");
            }
        }
    }

    #[test]
    fn string_ends_are_found_in_and_after_whole_words() {
        for len in 0..24 {
            for stop in [b'"', b'\\', 0x00, 0x1f] {
                let mut bytes = vec![b'a'; len];
                bytes.extend([stop, b'"']);
                assert_eq!(string_end(&bytes), Some(len), "{len} then {stop:#x}");
            }
            // Bytes at or above 0x20, UTF-8's included, are no end.
            let plain: Vec<u8> = (0..len).map(|i| [0x20, 0x7f, 0x80, 0xff, b'!'][i % 5]).collect();
            assert_eq!(string_end(&plain), None, "{len}");
        }
    }
}
