//! The evidence record format and its writer.
//!
//! One JSON Lines file per family: a header line naming the silicon, then one
//! record per (instruction text, input) in catalog order. Every value is a hex bit
//! pattern; nothing depends on the time, the host or the output path, so the same
//! silicon results give the same bytes. Files are written under a temporary name
//! in the same folder and renamed, so a reader never sees half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::probes::{MemPlan, Plan, Probe, Source, WarpPlan, PTX_VERSION, TARGET, WARP_OUT};

/// The record format's name and version, in every header.
/// Version 2 states the family, `.version` and `.target` once, in the header.
pub const FORMAT: &str = "ptxvec-silicon/2";

/// The first line of every evidence file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Header {
    /// `cuDeviceGetName`.
    pub device: String,
    /// Compute capability, "9.0".
    pub cc: String,
    /// The kernel driver's version ("580.65.06"), when the host says.
    pub driver: Option<String>,
    /// `cuDriverGetVersion`: 13000 for CUDA 13.0.
    pub cuda_driver_api: i32,
    /// The probe family of this file.
    pub family: String,
    /// [`FORMAT`].
    pub format: String,
    /// Every module's `.version`.
    pub ptx: String,
    /// Every module's `.target`.
    pub target: String,
}

/// One observation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// The family (in the header; not written per record).
    #[serde(skip_serializing)]
    pub probe: String,
    /// The instruction text, exactly as in the kernel.
    pub text: String,
    /// The module's `.version` (in the header).
    #[serde(skip_serializing)]
    pub ptx: String,
    /// The module's `.target` (in the header).
    #[serde(skip_serializing)]
    pub target: String,
    /// Inputs, as hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Map<String, Value>>,
    /// What silicon left, as hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Map<String, Value>>,
    /// Why there is no output (the driver refused the module, the launch failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A bit pattern at `width` bits, as every evidence file writes it.
pub fn hex(value: u64, width: u32) -> String {
    crate::record::Bits::new(value, width).to_string()
}

fn base(probe: &Probe) -> Record {
    Record {
        probe: probe.family.name().to_owned(),
        text: probe.text.clone(),
        ptx: PTX_VERSION.to_owned(),
        target: TARGET.to_owned(),
        inputs: None,
        outputs: None,
        error: None,
    }
}

/// The record for a probe that produced nothing.
pub fn failed(probe: &Probe, error: &str) -> Record {
    Record {
        error: Some(error.to_owned()),
        ..base(probe)
    }
}

fn word(buf: &[u8], at: usize, bytes: usize) -> u64 {
    let mut v = 0u64;
    for (i, b) in buf.iter().skip(at).take(bytes).enumerate() {
        v |= u64::from(*b) << (8 * i);
    }
    v
}

fn regs(plan: &MemPlan, vals: &[u64]) -> Value {
    let hs: Vec<Value> = vals
        .iter()
        .map(|v| Value::String(hex(*v, plan.reg_bits)))
        .collect();
    match hs.as_slice() {
        [one] => one.clone(),
        _ => Value::Array(hs),
    }
}

fn mem_records(probe: &Probe, plan: &MemPlan, mem_after: &[u8]) -> Vec<Record> {
    let bytes = (plan.reg_bits / 8) as usize;
    plan.items
        .iter()
        .enumerate()
        .map(|(i, (mem, op))| {
            let after: Vec<u64> = (0..plan.vec as usize)
                .map(|r| word(mem_after, i * plan.stride() + r * bytes, bytes))
                .collect();
            let mut inputs = Map::new();
            inputs.insert("mem".into(), regs(plan, mem));
            inputs.insert("operand".into(), regs(plan, op));
            let mut outputs = Map::new();
            outputs.insert("mem".into(), regs(plan, &after));
            Record {
                inputs: Some(inputs),
                outputs: Some(outputs),
                ..base(probe)
            }
        })
        .collect()
}

fn lanes(f: impl Fn(usize) -> Option<String>) -> Value {
    Value::Array(
        (0..32)
            .map(|l| f(l).map_or(Value::Null, Value::String))
            .collect(),
    )
}

fn warp_records(probe: &Probe, plan: &WarpPlan, out: &[u8]) -> Vec<Record> {
    plan.tests
        .iter()
        .enumerate()
        .map(|(t, test)| {
            let mut inputs = Map::new();
            if plan.has_mask {
                inputs.insert(
                    "membermask".into(),
                    Value::String(hex(test.membermask.into(), 32)),
                );
            }
            inputs.insert(
                "executing".into(),
                Value::String(hex(test.executing.into(), 32)),
            );
            inputs.insert("exited".into(), Value::String(hex(test.exited.into(), 32)));
            match plan.source {
                Source::None => {}
                Source::Pred => {
                    inputs.insert(
                        "a".into(),
                        lanes(|l| Some(hex(u64::from(test.a[l] != 0), 4))),
                    );
                }
                Source::B32 => {
                    inputs.insert(
                        "a".into(),
                        lanes(|l| Some(hex(test.a[l] & 0xffff_ffff, 32))),
                    );
                }
                Source::B64 => {
                    inputs.insert("a".into(), lanes(|l| Some(hex(test.a[l], 64))));
                }
            }
            if plan.has_bc {
                inputs.insert("b".into(), lanes(|l| Some(hex(test.b[l].into(), 32))));
                inputs.insert("c".into(), lanes(|l| Some(hex(test.c[l].into(), 32))));
            }
            // Only lanes that executed the instruction have outputs.
            let ran = |l: usize| test.executing >> l & 1 == 1;
            let at = |l: usize, k: usize| word(out, (t * 32 + l) * WARP_OUT + 4 * k, 4);
            let mut outputs = Map::new();
            let dbits = if plan.d_pred { 4 } else { 32 };
            outputs.insert("d".into(), lanes(|l| ran(l).then(|| hex(at(l, 0), dbits))));
            if plan.has_p {
                outputs.insert("p".into(), lanes(|l| ran(l).then(|| hex(at(l, 1), 4))));
            }
            Record {
                inputs: Some(inputs),
                outputs: Some(outputs),
                ..base(probe)
            }
        })
        .collect()
}

/// Turns one probe's output buffer (memory after, or per-lane outputs) into records.
pub fn records(probe: &Probe, output: &[u8]) -> Vec<Record> {
    match &probe.plan {
        Plan::Memory(m) => mem_records(probe, m, output),
        Plan::Warp(w) => warp_records(probe, w, output),
    }
}

/// The whole file: the header line, then one line per record.
pub fn render(header: &Header, records: &[Record]) -> Result<String, serde_json::Error> {
    let mut out = serde_json::to_string(header)?;
    out.push('\n');
    for r in records {
        out.push_str(&serde_json::to_string(r)?);
        out.push('\n');
    }
    Ok(out)
}

/// Writes `contents` to `dir/name` through a temporary file in `dir` and a rename,
/// so that `dir/name` is either the old file or the whole new one.
pub fn write_atomic(dir: &Path, name: &str, contents: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    let dest = dir.join(name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &dest)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| dest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::silicon::probes;

    fn header() -> Header {
        Header {
            device: "NVIDIA H100".into(),
            cc: "9.0".into(),
            driver: Some("580.0".into()),
            cuda_driver_api: 13000,
            family: "red".into(),
            format: FORMAT.into(),
            ptx: probes::PTX_VERSION.into(),
            target: probes::TARGET.into(),
        }
    }

    /// Fake silicon: the output buffer is a fixed function of the inputs.
    fn fake_records() -> Vec<Record> {
        let mut out = Vec::new();
        for p in probes::all() {
            let n = match &p.plan {
                Plan::Memory(m) => m.launched * m.stride(),
                Plan::Warp(w) => w.tests.len() * 32 * WARP_OUT,
            };
            let buf: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            out.extend(records(&p, &buf));
        }
        out
    }

    #[test]
    fn rendering_is_deterministic() {
        let a = render(&header(), &fake_records()).unwrap();
        let b = render(&header(), &fake_records()).unwrap();
        assert_eq!(a, b);
        let first = a.lines().next().unwrap();
        assert_eq!(
            first,
            r#"{"device":"NVIDIA H100","cc":"9.0","driver":"580.0","cuda_driver_api":13000,"family":"red","format":"ptxvec-silicon/2","ptx":"8.4","target":"sm_90"}"#
        );
        let second = a.lines().nth(1).unwrap();
        assert!(second.starts_with(r#"{"text":"red.global.add.f32 [%rd3], %r8;","inputs":{"#), "{second}");
    }

    #[test]
    fn hex_has_fixed_width() {
        let table = [
            (0u64, 16, "0x0000"),
            (1, 4, "0x1"),
            (0x7fc0_0000, 32, "0x7fc00000"),
            (u64::MAX, 64, "0xffffffffffffffff"),
        ];
        for (v, bits, want) in table {
            assert_eq!(hex(v, bits), want, "case: ({v:#x}, {bits})");
        }
    }

    #[test]
    fn failed_records_carry_the_error_and_no_io() {
        let p = &probes::all()[0];
        let line = serde_json::to_string(&failed(p, "CUDA_ERROR_INVALID_PTX")).unwrap();
        assert!(
            line.ends_with(r#""error":"CUDA_ERROR_INVALID_PTX"}"#),
            "{line}"
        );
        assert!(!line.contains("inputs"));
    }

    #[test]
    fn write_is_atomic_and_repeatable() {
        let dir = tempfile::tempdir().unwrap();
        let text = render(&header(), &fake_records()).unwrap();
        let p1 = write_atomic(dir.path(), "red.jsonl", text.as_bytes()).unwrap();
        let first = std::fs::read(&p1).unwrap();
        write_atomic(dir.path(), "red.jsonl", text.as_bytes()).unwrap();
        assert_eq!(std::fs::read(&p1).unwrap(), first);
        assert_eq!(first, text.as_bytes());
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["red.jsonl"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "x.jsonl", b"old\n").unwrap();
        // A directory where the temporary file should go makes the write fail.
        std::fs::create_dir(dir.path().join(".x.jsonl.tmp")).unwrap();
        assert!(write_atomic(dir.path(), "x.jsonl", b"new\n").is_err());
        assert_eq!(std::fs::read(dir.path().join("x.jsonl")).unwrap(), b"old\n");
    }
}
