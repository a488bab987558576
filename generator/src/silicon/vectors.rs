//! `ptxvec silicon`: runs the semantic vectors on a GPU and records how silicon's
//! raw outputs compare with each profile, as `vectors.json` evidence that a machine
//! without a GPU replays (`replay`). Format and design: vectors/silicon/README.md.
//!
//! Each variant runs in a child process of its own (a kernel that faults leaves the
//! CUDA context unusable, and one that hangs is killed after [`CHILD_TIMEOUT`]).
//! The child runs the raw entry, whose bits the parent judges on the CPU, and the
//! check entry, whose on-device verdict must agree with the CPU's.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use super::gpu::Gpu;
use crate::record::{Bits, Out};
use crate::selfcheck::ptx::{self, Entries, RESULT_PER_PROFILE};
use crate::selfcheck::raw::{self, SlotBits};
use crate::selfcheck::{self, Suite, Window, FIRST_FAILS};

/// The evidence format's name and version.
pub const FORMAT: &str = "ptxvec-silicon-vectors/1";
/// The evidence file's name in the output folder.
pub const FILE: &str = "vectors.json";
/// How long one variant's child may run.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(60);
/// ptx-isa mismatching slots kept per variant as examples (the rest are counted;
/// a replay recomputes them all from the rebuilt outputs).
pub const EXAMPLES: usize = 4;

/// Arguments of `ptxvec silicon`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The folder the evidence goes to (`vectors.json`).
    #[arg(long)]
    pub out: PathBuf,
    /// The vectors folder (index.json, semantic/).
    #[arg(long, default_value = "vectors")]
    pub vectors: PathBuf,
    /// Only these variants (by id).
    #[arg(long = "variant")]
    pub variants: Vec<String>,
    /// Run one variant in this process and print its buffers as JSON (what each
    /// child does).
    #[arg(long, hide = true)]
    pub child: Option<String>,
    /// With --child: the window a generic variant runs in.
    #[arg(long, value_enum, hide = true, default_value = "global")]
    pub window: Window,
    /// With --child: load this PTX file as the raw module instead of the generated
    /// one (to try a kernel by hand on the device).
    #[arg(long, hide = true, requires = "child")]
    pub module_file: Option<PathBuf>,
}

/// Exit status when the device ran but a variant failed or a profile disagreed.
const EXIT_FAILED: u8 = 1;

fn find(spec: &Spec, vectors: &Path, id: &str) -> Result<Suite, String> {
    let idx = selfcheck::index(vectors)?;
    let (_, path) = idx.iter().find(|(v, _)| v == id).ok_or_else(|| {
        format!(
            "unknown variant {id:?} ({} in {})",
            idx.len(),
            vectors.join("index.json").display()
        )
    })?;
    selfcheck::load(spec, id, path)
}

/// What `ptxvec emit-ptx --variant ID` writes.
#[derive(Debug, Clone, Copy)]
pub struct VariantModule<'a> {
    /// The vectors folder (index.json, semantic/).
    pub vectors: &'a Path,
    /// The variant id.
    pub id: &'a str,
    /// Only the `ptxvec_raw` entry.
    pub raw_only: bool,
    /// Where a generic variant's address points.
    pub window: Window,
    /// The module's `.version`, if not the variant's own.
    pub ptx: Option<&'a str>,
    /// The module's `.target`, if not the variant's own.
    pub target: Option<&'a str>,
    /// The file to write, stdout when `None`.
    pub out: Option<&'a Path>,
}

/// `ptxvec emit-ptx --variant ID [--raw] [--window W] [--out FILE]`.
pub fn emit(spec: &Spec, req: VariantModule<'_>) -> Result<u8, String> {
    let VariantModule {
        vectors,
        id,
        raw_only,
        window,
        ptx,
        target,
        out,
    } = req;
    let s = find(spec, vectors, id)
        .and_then(|s| s.in_window(window))
        .map_err(|e| format!("emit-ptx: {e}"))?;
    let (p, t) = s.default_module();
    let entries = if raw_only {
        Entries::Raw
    } else {
        Entries::Both
    };
    let m = ptx::module(&s, ptx.unwrap_or(&p), target.unwrap_or(&t), entries);
    match out {
        Some(path) => {
            std::fs::write(path, m).map_err(|e| format!("emit-ptx: {}: {e}", path.display()))?
        }
        None => print!("{m}"),
    }
    Ok(0)
}

/// Runs the subcommand. `Err` is a usage or environment error (exit 2).
pub fn run(args: &Args, spec: &Spec, spec_dir: &Path) -> Result<u8, String> {
    if let Some(id) = &args.child {
        return child(args, spec, id);
    }
    let gpu = Gpu::open().map_err(|e| format!("silicon: {e}"))?;
    let info = gpu.info().map_err(|e| format!("silicon: {e}"))?;
    drop(gpu);
    eprintln!("silicon: {info}");
    let mut idx = selfcheck::index(&args.vectors).map_err(|e| format!("silicon: {e}"))?;
    if !args.variants.is_empty() {
        for v in &args.variants {
            if !idx.iter().any(|(id, _)| id == v) {
                return Err(format!("silicon: unknown variant {v:?}"));
            }
        }
        idx.retain(|(id, _)| args.variants.contains(id));
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("silicon: cannot find own binary: {e}"))?;
    let mut entries = Vec::new();
    let mut code = 0;
    println!(
        "{:<90} {:>5} {:>5} {:>8} {:>8} {:>6} {:>6}",
        "variant", "run", "skip", "ptx-isa", "sm_90", "!isa", "!sm90"
    );
    for (id, path) in &idx {
        let s = selfcheck::load(spec, id, path).map_err(|e| format!("silicon: {e}"))?;
        let Some((p, t)) = s.module_for(info.cc) else {
            let need: Vec<String> = s
                .requires
                .iter()
                .map(|(p, t)| format!("{t} (PTX {p})"))
                .collect();
            println!("{id:<90} not run: needs {}", need.join(" or "));
            entries.push(json!({"variant": id, "not_run": format!("needs {}", need.join(" or "))}));
            continue;
        };
        // A generic variant runs twice: its address into global memory, then into
        // the CTA's shared memory (the hardware resolves a generic address at run
        // time, and a variant covers both).
        for sw in s.runs() {
            let w = sw.window.unwrap_or(Window::Global);
            let label = match sw.window() {
                Some(x) => format!("{id} ({x})"),
                None => id.clone(),
            };
            let result = spawn(&exe, args, spec_dir, id, w).and_then(|v| {
                let raw = unhex(v["raw"].as_str().unwrap_or_default())?;
                let check = unhex(v["check"].as_str().unwrap_or_default())?;
                Ok((raw, check))
            });
            let (raw_bytes, check) = match result {
                Ok(x) => x,
                Err(e) => {
                    println!("{label:<90} failed: {e}");
                    let mut entry = json!({"variant": id, "ptx": p, "target": t, "error": e});
                    if let Some(x) = sw.window() {
                        entry["window"] = json!(x);
                    }
                    entries.push(entry);
                    code = EXIT_FAILED;
                    continue;
                }
            };
            let e = evaluate(&sw, &p, &t, &raw_bytes, &check);
            let m = &e["matches"];
            let x = &e["mismatches"];
            let n = |v: &Value| v.to_string();
            println!(
                "{label:<90} {:>5} {:>5} {:>8} {:>8} {:>6} {:>6}{}",
                n(&e["run"]),
                n(&e["skipped"]),
                n(&m["ptx-isa"]),
                n(&m["sm_90"]),
                n(&x["ptx-isa"]),
                n(&x["sm_90"]),
                if e["selfcheck"] == "agrees" {
                    String::new()
                } else {
                    format!("  selfcheck: {}", e["selfcheck"])
                }
            );
            if x["sm_90"] != 0 || e["selfcheck"] != "agrees" {
                code = EXIT_FAILED;
            }
            entries.push(e);
        }
    }
    let header = json!({
        "format": FORMAT,
        "device": info.name,
        "cc": info.cc_text(),
        "driver": info.driver,
        "cuda_driver_api": info.driver_api,
    });
    let text = render(&header, &entries);
    let path = super::evidence::write_atomic(&args.out, FILE, text.as_bytes())
        .map_err(|e| format!("silicon: writing {}: {e}", args.out.join(FILE).display()))?;
    eprintln!("silicon: {} variants -> {}", entries.len(), path.display());
    Ok(code)
}

/// The evidence file: the header's keys, then `variants`, one per line.
pub fn render(header: &Value, variants: &[Value]) -> String {
    let mut h = header.as_object().cloned().unwrap_or_default();
    h.remove("variants");
    let head = serde_json::to_string(&h).unwrap_or_default();
    let mut s = format!("{},\n\"variants\": [\n", head.trim_end_matches('}'));
    for (i, v) in variants.iter().enumerate() {
        s += &serde_json::to_string(v).unwrap_or_default();
        s += if i + 1 < variants.len() { ",\n" } else { "\n" };
    }
    s += "]}\n";
    s
}

fn hexs(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err("odd hex length".into());
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

fn child(args: &Args, spec: &Spec, id: &str) -> Result<u8, String> {
    let s = find(spec, &args.vectors, id)?.in_window(args.window)?;
    let gpu = Gpu::open().map_err(|e| e.to_string())?;
    let info = gpu.info().map_err(|e| e.to_string())?;
    let (p, t) = s
        .module_for(info.cc)
        .ok_or_else(|| format!("{id}: not for this device"))?;
    let l = s.launch();
    let raw_module = match &args.module_file {
        Some(f) => std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?,
        None => ptx::module(&s, &p, &t, Entries::Raw),
    };
    let out = match gpu.run_one(&raw_module, ptx::RAW, l.out_bytes, l.grid, l.block) {
        Ok(raw) => {
            let check = gpu.run_one(
                &ptx::module(&s, &p, &t, Entries::Both),
                ptx::CHECK,
                l.result_bytes,
                l.grid,
                l.block,
            );
            match check {
                Ok(c) => json!({"raw": hexs(&raw), "check": hexs(&c)}),
                Err(e) => json!({"error": format!("{}: {e}", ptx::CHECK)}),
            }
        }
        Err(e) => json!({"error": format!("{}: {e}", ptx::RAW)}),
    };
    println!("{out}");
    Ok(0)
}

fn spawn(
    exe: &Path,
    args: &Args,
    spec_dir: &Path,
    id: &str,
    window: Window,
) -> Result<Value, String> {
    let mut c = Command::new(exe)
        .arg("--spec")
        .arg(spec_dir)
        .arg("silicon")
        .arg("--out")
        .arg(&args.out)
        .arg("--vectors")
        .arg(&args.vectors)
        .args(["--child", id])
        .arg("--window")
        .arg(window.name())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let mut stdout = c.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match c.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > CHILD_TIMEOUT => {
                let _ = c.kill();
                let _ = c.wait();
                return Err(format!("timed out after {}s", CHILD_TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let text = reader.join().map_err(|_| "reader panicked")?;
    if !status.success() {
        return Err(format!("child exited with {status}"));
    }
    let v: Value = serde_json::from_str(text.trim()).map_err(|e| format!("child output: {e}"))?;
    if let Some(e) = v.get("error").and_then(Value::as_str) {
        return Err(e.to_owned());
    }
    Ok(v)
}

fn slot_key(s: &SlotBits) -> String {
    format!("{}[{}]", s.out.name(), s.slot)
}

fn width_of(s: &Suite, o: Out) -> u32 {
    s.outputs()
        .into_iter()
        .find(|(x, _)| *x == o)
        .map_or(32, |(_, w)| w)
}

/// The evidence entry of a variant from its raw buffer and check result.
pub fn evaluate(s: &Suite, p: &str, t: &str, raw_bytes: &[u8], check: &[u8]) -> Value {
    let vals = raw::decode(s, raw_bytes);
    let mut matches = Map::new();
    let mut mismatches = Map::new();
    let mut verdicts = Vec::new();
    for &pr in Profile::ALL {
        let v = raw::judge(s, &vals, pr);
        matches.insert(pr.name().into(), json!(v.matches));
        mismatches.insert(pr.name().into(), json!(v.mismatched.len()));
        verdicts.push(v);
    }
    let sm90 = raw::profile_index(Profile::Sm90);
    let isa = raw::profile_index(Profile::PtxIsa);
    let detail = |v: &raw::Verdict, p: Profile, limit: usize| -> Vec<Value> {
        v.slots
            .iter()
            .take(limit)
            .map(|d| {
                let rec = &s.records[d.record];
                let w = width_of(s, d.out);
                json!({
                    "id": rec.id,
                    "out": slot_key(d),
                    "got": Bits::new(d.got, w).to_string(),
                    "expected": s.slots(rec, p, d.out).get(d.slot),
                })
            })
            .collect()
    };
    let unpinned: Vec<Value> = raw::unpinned(s, &vals)
        .iter()
        .map(|u| {
            json!([
                s.records[u.record].id,
                slot_key(u),
                Bits::new(u.got, width_of(s, u.out)).to_string()
            ])
        })
        .collect();
    let mut entry = json!({
        "variant": s.id,
        "ptx": p,
        "target": t,
        "records": s.records.len(),
        "run": s.run_count(),
        "skipped": s.records.len() - s.run_count(),
        "raw_sha256": raw::digest(s, &vals),
        "matches": matches,
        "mismatches": mismatches,
        "selfcheck": selfcheck_agrees(&verdicts, check),
        "sm_90_mismatches": detail(&verdicts[sm90], Profile::Sm90, usize::MAX),
        "ptx_isa_examples": detail(&verdicts[isa], Profile::PtxIsa, EXAMPLES),
        "unpinned": unpinned,
    });
    if let Some(w) = s.window() {
        entry["window"] = json!(w);
    }
    entry
}

/// "agrees" when the device's pass/fail counts and first failures equal the CPU's.
fn selfcheck_agrees(verdicts: &[raw::Verdict], check: &[u8]) -> String {
    let word = |i: usize| -> u32 {
        check
            .get(4 * i..4 * i + 4)
            .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut diffs = Vec::new();
    for (pi, v) in verdicts.iter().enumerate() {
        let base = pi * RESULT_PER_PROFILE / 4;
        let (pass, fail) = (word(base), word(base + 1));
        let first: Vec<u32> = (0..FIRST_FAILS)
            .map(|i| word(base + 2 + i))
            .take_while(|x| *x != u32::MAX)
            .collect();
        let want: Vec<u32> = v
            .mismatched
            .iter()
            .take(FIRST_FAILS)
            .map(|r| *r as u32)
            .collect();
        if pass as usize != v.matches || fail as usize != v.mismatched.len() || first != want {
            diffs.push(format!(
                "{}: device pass {pass} fail {fail} first {first:?}, cpu pass {} fail {} first {want:?}",
                Profile::ALL[pi].name(),
                v.matches,
                v.mismatched.len()
            ));
        }
    }
    if diffs.is_empty() {
        "agrees".to_owned()
    } else {
        diffs.join("; ")
    }
}

/// What a replay of one evidence entry found: problems, one line each.
pub fn replay(entry: &Value, s: &Suite) -> Vec<String> {
    let mut problems = Vec::new();
    let id = &s.id;
    let mut kept = Vec::new();
    for u in entry["unpinned"].as_array().into_iter().flatten() {
        let (Some(rid), Some(key), Some(got)) = (u[0].as_str(), u[1].as_str(), u[2].as_str())
        else {
            problems.push(format!("{id}: malformed unpinned entry {u}"));
            continue;
        };
        let parsed = (|| -> Option<SlotBits> {
            let record = s.records.iter().position(|r| r.id == rid)?;
            let (o, k) = key.strip_suffix(']')?.split_once('[')?;
            let out = [Out::Mem, Out::D, Out::P]
                .into_iter()
                .find(|x| x.name() == o)?;
            let got = u64::from_str_radix(got.strip_prefix("0x")?, 16).ok()?;
            Some(SlotBits {
                record,
                out,
                slot: k.parse().ok()?,
                got,
            })
        })();
        match parsed {
            Some(b) => kept.push(b),
            None => problems.push(format!(
                "{id}: unpinned entry {u} names no slot of the vectors"
            )),
        }
    }
    let vals = match raw::rebuild(s, &kept) {
        Ok(v) => v,
        Err(e) => {
            problems.push(format!("{id}: {e}"));
            return problems;
        }
    };
    let digest = raw::digest(s, &vals);
    if entry["raw_sha256"].as_str() != Some(digest.as_str()) {
        problems.push(format!(
            "{id}: the sm_90 expectations no longer rebuild silicon's outputs (digest {digest}, silicon {}): an oracle or vector change broke agreement with silicon, or the vectors changed and silicon must run again",
            entry["raw_sha256"]
        ));
    }
    if entry["run"].as_u64() != Some(s.run_count() as u64) {
        problems.push(format!(
            "{id}: {} records run on silicon, the vectors run {}",
            entry["run"],
            s.run_count()
        ));
    }
    for &p in Profile::ALL {
        let v = raw::judge(s, &vals, p);
        let rec_m = entry["matches"][p.name()].as_u64();
        if rec_m != Some(v.matches as u64) {
            problems.push(format!(
                "{id}: {} matches {} records of silicon now, {} when recorded",
                p.name(),
                v.matches,
                entry["matches"][p.name()]
            ));
        }
    }
    problems
}
