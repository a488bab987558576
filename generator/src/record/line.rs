//! The record's line, written by hand: the same bytes as serde_json writes for
//! [`Record`]'s `Serialize` (the definition, which a test holds this to), without
//! serde's per-value machinery. `eval` writes a line per record and `generate`
//! tens of thousands; most of a line is bit patterns and fixed keys, which need
//! no escaping. Strings that may need it go through serde_json itself.

use super::{Bits, Entry, Expectation, Inputs, LaneMask, LaneValue, Outputs, Record, Requirement};

/// Appends the record's line (no newline) to `out`.
pub fn write<S: AsRef<str>>(rec: &Record<S>, out: &mut Vec<u8>) {
    let mut obj = Object::open(out);
    if !rec.class.is_empty() {
        obj.key("class");
        list(obj.out, &rec.class, |out, c| string(out, c.as_ref()));
    }
    if !rec.expect.is_empty() {
        obj.key("expect");
        let mut by_profile = Object::open(obj.out);
        for (p, o) in &rec.expect {
            by_profile.key(p.name());
            outputs(by_profile.out, o);
        }
        by_profile.close();
    }
    if !rec.id.as_ref().is_empty() {
        obj.key("id");
        string(obj.out, rec.id.as_ref());
    }
    obj.key("inputs");
    inputs(obj.out, &rec.inputs);
    if !rec.requires.is_empty() {
        obj.key("requires");
        list(obj.out, &rec.requires, requirement);
    }
    if let Some(seed) = rec.seed {
        obj.key("seed");
        number(obj.out, seed);
    }
    if !rec.spec.as_ref().is_empty() {
        obj.key("spec");
        string(obj.out, rec.spec.as_ref());
    }
    obj.key("text");
    string(obj.out, rec.text.as_ref());
    obj.close();
}

/// A JSON object being written: its keys are known not to need escaping.
struct Object<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl<'o> Object<'o> {
    fn open(out: &'o mut Vec<u8>) -> Object<'o> {
        out.push(b'{');
        Object { out, first: true }
    }

    /// Writes `"key":`, after a comma unless it is the first.
    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

fn list<T>(out: &mut Vec<u8>, items: &[T], item: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}

/// A string as serde_json escapes it.
fn string(out: &mut Vec<u8>, s: &str) {
    // serde_json escapes `"`, `\` and the control characters below 0x20, nothing
    // else; a string without them (the vectors' ids, texts and citations) is
    // copied as it stands.
    // Folded over every byte rather than stopping at the first: the loop then
    // has no exit to take and runs over several bytes at a time.
    let escapes = s
        .bytes()
        .fold(false, |any, b| any | (b < 0x20) | (b == b'"') | (b == b'\\'));
    if !escapes {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return;
    }
    // Writing to a Vec cannot fail, and a str always serializes.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// A number as serde_json writes it: its decimal digits.
fn number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // A digit: n % 10 < 10.
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

fn bits(out: &mut Vec<u8>, b: &Bits) {
    // The digits Display writes: `width / 4`, more where the value needs them.
    let needed = (64 - b.value.leading_zeros()).div_ceil(4).max(1);
    let digits = (b.width / 4).max(needed);
    // The usual counts as fixed-size copies, their loops unrolled: a record holds
    // up to a hundred patterns, and a copy of the pattern's own length costs a
    // call to `memmove` each.
    match (b.width <= 64, digits) {
        (true, 1) => out.extend_from_slice(&quoted::<5>(b.value)),
        (true, 2) => out.extend_from_slice(&quoted::<6>(b.value)),
        (true, 4) => out.extend_from_slice(&quoted::<8>(b.value)),
        (true, 8) => out.extend_from_slice(&quoted::<12>(b.value)),
        (true, 16) => out.extend_from_slice(&quoted::<20>(b.value)),
        // Other counts (a width that is no power of two) and widths over 64 (never
        // built by the readers): Display, as serde does.
        _ => {
            out.push(b'"');
            out.extend_from_slice(b.to_string().as_bytes());
            out.push(b'"');
        }
    }
}

/// `"0x…"` with the `N - 4` lowest hex digits of `value`, quotes included.
fn quoted<const N: usize>(value: u64) -> [u8; N] {
    let mut q = [b'"'; N];
    q[1] = b'0';
    q[2] = b'x';
    let digits = N - 4;
    // A byte's two digits at a time; an odd count starts with one nibble.
    let mut at = 3;
    if digits % 2 == 1 {
        q[at] = HEX_PAIRS[2 * ((value >> (4 * (digits - 1))) as usize & 0xf) + 1];
        at += 1;
    }
    for pair in (0..digits / 2).rev() {
        let byte = (value >> (8 * pair)) as usize & 0xff;
        q[at] = HEX_PAIRS[2 * byte];
        q[at + 1] = HEX_PAIRS[2 * byte + 1];
        at += 2;
    }
    q
}

/// The two lower-case hex digits of every byte, byte after byte.
const HEX_PAIRS: [u8; 512] = {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut t = [0u8; 512];
    let mut b = 0;
    while b < 256 {
        t[2 * b] = HEX[b >> 4];
        t[2 * b + 1] = HEX[b & 0xf];
        b += 1;
    }
    t
};

/// A thread mask: as a bit pattern up to 64 threads (the same bytes), by its
/// Display above (a CTA of more warps, a few records a variant).
fn mask(out: &mut Vec<u8>, m: &LaneMask) {
    if m.width() <= 64 {
        bits(out, &Bits::new(m.low(), m.width()));
    } else {
        out.push(b'"');
        out.extend_from_slice(m.to_string().as_bytes());
        out.push(b'"');
    }
}

fn bits_list(out: &mut Vec<u8>, v: &[Bits]) {
    list(out, v, bits);
}

fn requirement<S: AsRef<str>>(out: &mut Vec<u8>, r: &Requirement<S>) {
    let mut obj = Object::open(out);
    obj.key("ptx");
    string(obj.out, r.ptx.as_ref());
    if let Some(t) = &r.target {
        obj.key("target");
        string(obj.out, t.as_ref());
    }
    obj.close();
}

fn inputs(out: &mut Vec<u8>, i: &Inputs) {
    let mut obj = Object::open(out);
    // The keys in the files' order, as `Inputs::entries` lists them for serde too.
    for (key, v) in i.entries() {
        obj.key(&key);
        match v {
            Entry::Bits(b) => bits(obj.out, b),
            Entry::Mask(m) => mask(obj.out, m),
            Entry::Lane(LaneValue::Warp(b)) => bits(obj.out, b),
            Entry::Lane(LaneValue::PerLane(v)) => bits_list(obj.out, v),
            Entry::List(v) => bits_list(obj.out, v),
            Entry::Lists(v) => list(obj.out, v, |out, o| bits_list(out, o)),
        }
    }
    obj.close();
}

fn outputs(out: &mut Vec<u8>, o: &Outputs<Expectation>) {
    let mut obj = Object::open(out);
    for (key, slots) in [("d", &o.d), ("mem", &o.mem), ("p", &o.p)] {
        if let Some(slots) = slots {
            obj.key(key);
            list(obj.out, slots, expectation);
        }
    }
    obj.close();
}

fn expectation(out: &mut Vec<u8>, e: &Expectation) {
    match e {
        Expectation::Exact(b) => bits(out, b),
        Expectation::AnyNan => out.extend_from_slice(br#"{"accept":"nan:any"}"#),
        Expectation::Undefined => out.extend_from_slice(br#"{"accept":"undefined"}"#),
        Expectation::NotExecuted => out.extend_from_slice(b"null"),
        Expectation::OneOf { bits: list_of, nan } => {
            out.extend_from_slice(br#"{"accept":"one_of","bits":"#);
            bits_list(out, list_of);
            if *nan {
                out.extend_from_slice(br#","nan":true"#);
            }
            out.push(b'}');
        }
        Expectation::Permutation(list_of) => {
            out.extend_from_slice(br#"{"accept":"permutation","bits":"#);
            bits_list(out, list_of);
            out.push(b'}');
        }
        Expectation::Leader { lanes, flag } => {
            out.extend_from_slice(if *flag { br#"{"accept":"is_leader","lanes":"# } else { br#"{"accept":"leader","lanes":"# });
            bits(out, lanes);
            out.push(b'}');
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use ptxvec_oracle::profile::Profile;

    use super::*;
    use crate::record::WarpInputs;

    fn by_serde(rec: &Record) -> String {
        serde_json::to_string(rec).unwrap()
    }

    fn by_hand(rec: &Record) -> String {
        let mut out = Vec::new();
        write(rec, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn b(v: u64, w: u32) -> Bits {
        Bits::new(v, w)
    }

    /// Records that take every branch of the writer: each kind of inputs and of
    /// expectation, every optional field present and absent, strings that need
    /// escaping.
    fn records() -> Vec<Record> {
        let base = Record {
            class: Vec::new(),
            expect: BTreeMap::new(),
            id: String::new(),
            inputs: Inputs::one_thread(vec![b(1, 32)], [("operand", vec![b(2, 32)])]),
            requires: Vec::new(),
            seed: None,
            spec: String::new(),
            text: "red.add.u32 [%rd1], %r1;".to_owned(),
        };
        let every = vec![
            Expectation::Exact(b(0xab, 16)),
            Expectation::AnyNan,
            Expectation::Undefined,
            Expectation::NotExecuted,
            Expectation::OneOf {
                bits: vec![b(1, 32), b(2, 32)],
                nan: false,
            },
            Expectation::OneOf {
                bits: vec![b(3, 32)],
                nan: true,
            },
            Expectation::Permutation((0..32).map(|k| b(k % 3, 32)).collect()),
            Expectation::Leader { lanes: b(0xf0, 32), flag: false },
            Expectation::Leader { lanes: b(0xf0, 32), flag: true },
        ];
        let warp = WarpInputs {
            membermask: Some(b(0xffff_ffff, 32)),
            executing: LaneMask::new(0xffff, 32),
            exited: Some(LaneMask::new(0x1_0000, 32)),
            a: Some(LaneValue::PerLane(vec![b(7, 32); 32])),
            b: Some(LaneValue::PerLane(vec![b(1, 32); 32])),
            c: Some(LaneValue::Warp(b(0x1f, 32))),
        };
        let mut out = vec![base.clone()];
        out.push(Record {
            inputs: Inputs::one_thread(
                vec![b(1, 64), b(2, 64)],
                [("operand", vec![b(1, 64), b(3, 64)]), ("swap", vec![b(4, 64), b(5, 64)])],
            ),
            text: "atom.cas.b128 %q1, [%rd1], %q2, %q3;".to_owned(),
            ..base.clone()
        });
        out.push(Record {
            class: vec![
                "full".to_owned(),
                "quote \" and \\ and \u{1} é".to_owned(),
                "\u{1f}\u{20}\u{7f}\u{80}".to_owned(),
                String::new(),
            ],
            id: "id\twith\ncontrols".to_owned(),
            spec: "s/\u{7f}".to_owned(),
            seed: Some(u64::MAX),
            requires: vec![
                Requirement {
                    ptx: "6.0".to_owned(),
                    target: None,
                },
                Requirement {
                    ptx: "8.6".to_owned(),
                    target: Some("sm_90".to_owned()),
                },
            ],
            expect: [
                (Profile::PtxIsa, Outputs::one(super::super::Out::Mem, every.clone())),
                (
                    Profile::Sm90,
                    Outputs {
                        d: Some(every.clone()),
                        mem: None,
                        p: Some(vec![Expectation::Exact(Bits::pred(true))]),
                    },
                ),
            ]
            .into_iter()
            .collect(),
            ..base.clone()
        });
        out.push(Record {
            inputs: Inputs::threads(
                vec![b(0, 64), b(u64::MAX, 64)],
                [("operand", vec![vec![b(1, 64), b(2, 64)], vec![b(3, 64), b(4, 64)]])],
            ),
            ..base.clone()
        });
        out.push(Record {
            inputs: Inputs::threads(
                vec![b(0, 64), b(u64::MAX, 64)],
                [
                    ("operand", vec![vec![b(1, 64), b(2, 64)], vec![b(3, 64), b(4, 64)]]),
                    ("swap", vec![vec![b(5, 64), b(6, 64)], vec![b(7, 64), b(8, 64)]]),
                ],
            ),
            ..base.clone()
        });
        // Slots no family declares yet, one before `mem` in the files' order: the
        // codecs take any slot name, one list or one per thread.
        out.push(Record {
            inputs: Inputs::one_thread(vec![b(1, 16)], [("operand", vec![b(2, 16)]), ("addend", vec![b(3, 16)])]),
            ..base.clone()
        });
        out.push(Record {
            inputs: Inputs::threads(
                vec![b(1, 8)],
                [("operand", vec![vec![b(2, 8)], vec![b(3, 8)]]), ("addend", vec![vec![b(4, 8)], vec![b(5, 8)]])],
            ),
            ..base.clone()
        });
        out.push(Record {
            inputs: Inputs::Warp(warp.clone()),
            ..base.clone()
        });
        // bar.red's: `a` one for the warp, `c` one per lane.
        out.push(Record {
            inputs: Inputs::Warp(WarpInputs {
                membermask: None,
                a: Some(LaneValue::Warp(b(15, 32))),
                b: None,
                c: Some(LaneValue::PerLane(vec![b(1, 4); 32])),
                ..warp.clone()
            }),
            ..base.clone()
        });
        out.push(Record {
            inputs: Inputs::Warp(WarpInputs {
                membermask: None,
                exited: None,
                a: None,
                b: Some(LaneValue::Warp(b(5, 32))),
                c: None,
                ..warp
            }),
            seed: Some(0),
            ..base.clone()
        });
        // A CTA of 32 warps: masks of 1024 threads, 256 digits.
        out.push(Record {
            inputs: Inputs::Warp(WarpInputs {
                membermask: None,
                executing: LaneMask::from_fn(1024, |t| t % 3 == 0),
                exited: Some(LaneMask::from_fn(1024, |t| t % 3 != 0 && t > 900)),
                a: Some(LaneValue::Warp(b(0, 32))),
                b: Some(LaneValue::Warp(b(992, 32))),
                c: Some(LaneValue::PerLane((0..1024).map(|t| b(t % 2, 4)).collect())),
            }),
            ..base
        });
        out
    }

    #[test]
    fn equals_serde_on_every_kind_of_record() {
        for rec in records() {
            assert_eq!(by_hand(&rec), by_serde(&rec));
        }
    }

    /// A record of a CTA of 1024 threads reads back as written: its masks at
    /// 256 digits, by serde and by the hand reader alike.
    #[test]
    fn a_wide_mask_reads_back() {
        let rec = records().pop().unwrap();
        let line = rec.to_line();
        // Threads 1023 and 1020 (every third), 1017, 1014, 1011 and 1008: 0x9249.
        assert!(line.contains(r#""executing":"0x9249"#), "{line}");
        assert_eq!(Record::from_line(&line).unwrap(), rec);
        let borrowed = Record::from_line_borrowed(&line).unwrap();
        assert_eq!(borrowed.inputs, rec.inputs);
        let Inputs::Warp(w) = &rec.inputs else { panic!() };
        assert_eq!(w.executing.to_string().len(), 2 + 256);
    }

    /// Every kind of slot (the memory, one thread's inputs, each thread's, the
    /// warp sources) reads back as written, by serde and by the scanner.
    #[test]
    fn every_kind_of_slot_reads_back_as_written() {
        for rec in records() {
            let line = by_hand(&rec);
            assert_eq!(Record::from_line(&line).unwrap(), rec, "{line}");
            // A borrowed record cannot hold a string written with an escape.
            if !line.contains('\\') {
                let borrowed = Record::from_line_borrowed(&line).unwrap();
                assert_eq!(by_hand_borrowed(&borrowed), line);
                assert_eq!(super::super::scan::record(&line).as_ref(), Some(&borrowed), "{line}");
            }
        }
        // Keys in the files' order: `addend` before `mem`, `addends` too.
        let lines: Vec<String> = records().iter().map(by_hand).filter(|l| l.contains("addend")).collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains(r#""inputs":{"addend":["0x0003"],"mem":["0x0001"],"operand":["0x0002"]}"#), "{}", lines[0]);
        assert!(lines[1].contains(r#""inputs":{"addends":[["0x04"],["0x05"]],"mem":["0x01"],"operands":[["0x02"],["0x03"]]}"#), "{}", lines[1]);
    }

    fn by_hand_borrowed(rec: &Record<&str>) -> String {
        let mut out = Vec::new();
        write(rec, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn equals_serde_on_every_committed_record() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/semantic");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !crate::io::gz::is_jsonl(&path) {
                continue;
            }
            for line in crate::io::gz::read_text(&path, 1 << 30).unwrap().lines() {
                let rec = Record::from_line(line).unwrap();
                assert_eq!(by_hand(&rec), by_serde(&rec), "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen > 10_000, "{seen} records");
    }

    #[test]
    fn strings_and_numbers_as_serde_writes_them() {
        let mut texts: Vec<String> = (0u32..0x100)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        texts.extend(["", "\"", "\\", "é€😀", "red.add.u32 [%rd1], %r1;"].map(str::to_owned));
        for t in texts {
            let mut out = Vec::new();
            string(&mut out, &t);
            assert_eq!(out, serde_json::to_vec(&t).unwrap(), "{t:?}");
        }
        let mut n = 1u64;
        for v in [0, 9, 10, 99, 100, 12345, u64::MAX - 1, u64::MAX] {
            let mut out = Vec::new();
            number(&mut out, v);
            assert_eq!(out, serde_json::to_vec(&v).unwrap(), "{v}");
        }
        while let Some(next) = n.checked_mul(10) {
            for v in [n - 1, n, n + 1] {
                let mut out = Vec::new();
                number(&mut out, v);
                assert_eq!(out, serde_json::to_vec(&v).unwrap(), "{v}");
            }
            n = next;
        }
    }

    #[test]
    fn patterns_as_serde_writes_them() {
        for width in (0..=64).chain([5, 7, 68]) {
            for value in [0, 1, 0xf, 0x10, 0xff, 0x100, 0xffff, 0x1_0000, u64::from(u32::MAX), 1 << 32, u64::MAX] {
                let b = Bits { value, width };
                let mut out = Vec::new();
                bits(&mut out, &b);
                assert_eq!(out, serde_json::to_vec(&b).unwrap(), "{value:#x} at {width}");
            }
        }
    }
}
