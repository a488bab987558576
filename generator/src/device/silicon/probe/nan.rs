//! The E026 probe: which NaN an f32 or f64 add gives when memory, operand or both
//! are NaN, for `red.shared`, `red.global` and the bulk reduce to global memory.
//! The pairs separate the rules a NaN choice could follow: every ordered pair of
//! 16 NaNs (quiet and signalling, both signs, payloads equal, smaller and larger:
//! zero, one, two, the top bit below the quiet bit, all ones), each NaN with six
//! numbers in both orders, and ∞ − ∞ in both orders. Each `red` runs in two
//! modules that differ only in the registers the operand passes through
//! ([`OperandPath`](crate::device::selfcheck::emit::OperandPath)); the bulk reduce reads its
//! operand from shared memory and runs once.
//!
//! The records are the pairs, one thread each, in the variant's self-checking
//! module. Evidence: `nan-probe.json`, one row per (variant, module, memory value)
//! with silicon's result for every operand, replayed without a GPU against the
//! oracle's sm_90 profile (`tests/silicon_nan_probe.rs`).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use ptxvec_oracle::float::{Expect, Format};
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;
use serde::{Deserialize, Serialize};

use super::{attempt, unhex, Args, Attempt, Shape};
use crate::error::{Error, Result};
use crate::io::output::note;
use crate::record::{Bits, Inputs, Out, Record};
use crate::device::selfcheck::{raw, Suite};
use crate::family::{self, Semantics};
use crate::device::silicon::device::DeviceInfo;
use crate::device::silicon::header::{render_list, Evidence, Header};

/// The evidence file's name.
pub const FILE: &str = "nan-probe.json";
/// Its `format`.
pub const FORMAT: &str = "ptxvec-silicon-nan-probe/1";
/// The variants probed, f64 then f32, each with the modules it runs in: `red`
/// with its operand as loaded and relaid; the bulk reduce, whose operand never
/// sits in a register, as loaded.
const PLAN: [(&str, &[Shape]); 6] = [
    ("red.shared.add.f64", &[Shape::NanLoaded, Shape::NanRelaid]),
    ("red.global.add.f64", &[Shape::NanLoaded, Shape::NanRelaid]),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64", &[Shape::NanLoaded]),
    ("red.shared.add.f32", &[Shape::NanLoaded, Shape::NanRelaid]),
    ("red.global.add.f32", &[Shape::NanLoaded, Shape::NanRelaid]),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32", &[Shape::NanLoaded]),
];

/// The variants probed, in the probe's order.
pub const VARIANTS: [&str; 6] = [PLAN[0].0, PLAN[1].0, PLAN[2].0, PLAN[3].0, PLAN[4].0, PLAN[5].0];

/// Each variant with the modules it runs in ([`PLAN`]).
pub fn plan() -> Vec<(&'static str, Vec<Shape>)> {
    PLAN.iter().map(|(id, shapes)| (*id, shapes.to_vec())).collect()
}

/// The 16 NaNs of `fmt`: quiet with payload zero, one, the top bit and all ones;
/// signalling with payload one, two, the top bit and all ones (the quiet bit's
/// neighbours); then the same with the sign set.
pub fn nans(fmt: Format) -> Vec<u64> {
    let exp = fmt.inf(false);
    let q = fmt.quiet_bit();
    let (top, all) = (q >> 1, q - 1);
    let positive = [
        exp | q,
        exp | q | 1,
        exp | q | top,
        exp | q | all,
        exp | 1,
        exp | 2,
        exp | top,
        exp | all,
    ];
    let negative = positive.map(|x| x | fmt.sign_bit());
    positive.into_iter().chain(negative).collect()
}

/// The numbers each NaN meets: ±0, ±1, ±∞.
pub fn numbers(fmt: Format) -> Vec<u64> {
    let one = (fmt.bias() as u64) << fmt.frac_bits;
    vec![
        fmt.zero(false),
        fmt.zero(true),
        one,
        one | fmt.sign_bit(),
        fmt.inf(false),
        fmt.inf(true),
    ]
}

/// The probe's (memory, operand) pairs: memory-major over the NaNs then the
/// numbers, every pair with a NaN in it, and ∞ − ∞ both ways.
pub fn pairs(fmt: Format) -> Vec<(u64, u64)> {
    let nan = |x: u64| fmt.is_nan(x);
    let values: Vec<u64> = nans(fmt).into_iter().chain(numbers(fmt)).collect();
    let infinities = |m: u64, o: u64| {
        m == fmt.inf(false) && o == fmt.inf(true) || m == fmt.inf(true) && o == fmt.inf(false)
    };
    let mut v = Vec::new();
    for &m in &values {
        for &o in &values {
            if nan(m) || nan(o) || infinities(m, o) {
                v.push((m, o));
            }
        }
    }
    v
}

/// The float format of a memory variant's element.
fn format_of(s: &Suite) -> Result<Format> {
    s.float(Out::Mem)
        .ok_or_else(|| Error::Usage(format!("{}: not a float reduction", s.id)))
}

/// `s` with the probe's pairs as its records (one element each), in the text and
/// requirements of its first record.
pub fn suite(s: Suite) -> Result<Suite> {
    let fmt = format_of(&s)?;
    let first = s
        .records
        .first()
        .cloned()
        .ok_or_else(|| Error::Input(format!("{}: no records", s.id)))?;
    let width = fmt.width();
    let records = pairs(fmt)
        .into_iter()
        .enumerate()
        .map(|(n, (m, o))| Record {
            class: Vec::new(),
            expect: BTreeMap::new(),
            id: format!("{}#nan{n}", s.id),
            inputs: Inputs::one_thread(vec![Bits::new(m, width)], [("operand", vec![Bits::new(o, width)])]),
            requires: first.requires.clone(),
            seed: None,
            spec: first.spec.clone(),
            text: first.text.clone(),
        })
        .collect();
    Ok(Suite { records, ..s })
}

/// Silicon's results for one memory value, in one module of one variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The memory word before.
    pub mem: String,
    /// Per operand, in the probe's order: (operand, silicon's memory word after).
    pub results: Vec<(String, String)>,
    /// The module: `nan-loaded` or `nan-relaid`.
    pub shape: String,
    /// The variant id.
    pub variant: String,
}

/// The whole file: the device, then its rows.
pub type NanFile = Evidence<NanRows>;

/// The file's body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NanRows {
    /// Variant after variant ([`VARIANTS`]), module after module, memory value
    /// after memory value in the probe's order.
    pub rows: Vec<Row>,
}

/// Reads the file.
pub fn parse(text: &str) -> std::result::Result<NanFile, serde_json::Error> {
    serde_json::from_str(text)
}

/// What the sm_90 profile gives for `mem + operand` of the variant `text` spells.
pub fn sm90(spec: &Spec, text: &str, mem: u64, operand: u64) -> Result<u64> {
    let reading = family::read(spec, text)?;
    let Semantics::Memory(r) = reading.semantics else {
        return Err(Error::Usage(format!("`{text}`: not a memory reduction")));
    };
    match r.element(Profile::Sm90, mem, operand) {
        Expect::Bits(b) => Ok(b),
        other => Err(Error::Input(format!(
            "`{text}`: the sm_90 profile pins no bits for {mem:#x} + {operand:#x}: {other:?}"
        ))),
    }
}

/// Runs the probe and writes `nan-probe.json`; `true` where silicon differs from
/// the sm_90 profile.
pub fn run(
    args: &Args,
    spec: &Spec,
    spec_dir: Option<&Path>,
    info: &DeviceInfo,
    out: &mut dyn Write,
) -> Result<bool> {
    let mut rows = Vec::new();
    let mut findings = false;
    for (id, shapes) in plan() {
        for shape in shapes {
            let s = shape.suite(spec, &args.vectors()?, id)?;
            let fmt = format_of(&s)?;
            let label = format!("{id} ({})", shape.name());
            let bytes = match attempt(args, spec_dir, id, shape) {
                Ok(Attempt::Ran { raw, .. }) => unhex(&raw)?,
                Ok(Attempt::Faulted(f)) => {
                    return Err(Error::Run(format!(
                        "{label}: {} at {} of {}",
                        f.error, f.step, f.entry
                    )));
                }
                Err(why) => return Err(Error::Run(format!("{label}: {why}"))),
            };
            let values = raw::decode(&s, &bytes);
            let text = &s.records[0].text;
            let mut differ = Vec::new();
            let mut by_mem: Vec<(u64, Vec<(String, String)>)> = Vec::new();
            for (rec, got) in s.records.iter().zip(&values) {
                let Inputs::Memory { mem, slots } = &rec.inputs else {
                    continue;
                };
                let Some(operand) = slots.get("operand") else {
                    continue;
                };
                let (m, o) = (mem[0].value, operand[0].value);
                let g = got
                    .as_ref()
                    .and_then(|v| v[0].first().copied())
                    .unwrap_or(0);
                let want = sm90(spec, text, m, o)?;
                if g != want {
                    differ.push((m, o, g, want));
                }
                let cell = (
                    Bits::new(o, fmt.width()).to_string(),
                    Bits::new(g, fmt.width()).to_string(),
                );
                match by_mem.last_mut() {
                    Some((x, v)) if *x == m => v.push(cell),
                    _ => by_mem.push((m, vec![cell])),
                }
            }
            writeln!(
                out,
                "{label:<80} {} pairs, {} differ from the sm_90 profile",
                s.records.len(),
                differ.len()
            )
            .map_err(Error::Stdout)?;
            for (m, o, g, want) in differ.iter().take(4) {
                writeln!(out, "  {m:#x} + {o:#x}: silicon {g:#x}, sm_90 {want:#x}")
                    .map_err(Error::Stdout)?;
            }
            findings |= !differ.is_empty();
            rows.extend(by_mem.into_iter().map(|(m, results)| Row {
                mem: Bits::new(m, fmt.width()).to_string(),
                results,
                shape: shape.name().to_owned(),
                variant: id.to_owned(),
            }));
        }
    }
    let text = render_list(&Header::of(info, FORMAT), "rows", &rows);
    let path = args.runner.out.join(FILE);
    crate::io::files::write_atomic(&path, text.as_bytes()).map_err(|e| Error::io(&path, e))?;
    note(format_args!(
        "silicon-probe: {} rows -> {}",
        rows.len(),
        path.display()
    ));
    Ok(findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pairs_hold_the_nans_the_probe_must_separate() {
        // The pairs E026 needs, from IEEE 754's encoding of binary64 and binary32.
        let table: [(Format, u64, u64); 6] = [
            (Format::F64, 0x7ff0_0000_0000_0001, 0x7fff_ffff_ffff_ffff),
            (Format::F64, 0x7ff8_0000_0000_0000, 0x7ff8_0000_0000_0001),
            (Format::F64, 0xfff8_0000_0000_0001, 0x7ff0_0000_0000_0002),
            (Format::F64, 0xfff0_0000_0000_0000, 0x7ff0_0000_0000_0000),
            (Format::F32, 0x7f80_0001, 0x7fff_ffff),
            (Format::F32, 0xffc0_0000, 0x3f80_0000),
        ];
        for (fmt, a, b) in table {
            let p = pairs(fmt);
            assert!(
                p.contains(&(a, b)) && p.contains(&(b, a)),
                "case: {fmt:?} {a:#x} {b:#x}"
            );
        }
        for fmt in [Format::F32, Format::F64] {
            // 16 × 16 NaN pairs, 16 × 6 × 2 with a number, ∞ − ∞ both ways.
            assert_eq!(pairs(fmt).len(), 256 + 192 + 2, "{fmt:?}");
            assert!(nans(fmt).iter().all(|&x| fmt.is_nan(x)), "{fmt:?}");
        }
    }
}
