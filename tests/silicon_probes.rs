//! The probes recorded on sm_90 (`ptxvec silicon-probe`:
//! vectors/silicon/sm_90/cluster-probe.json and nan-probe.json), replayed without a
//! GPU against today's vectors and the oracle's sm_90 profile, and held to what
//! the errata ledger states (E025, E026).

use ptxvec_generator::device::selfcheck::Suite;
use ptxvec_generator::device::silicon::header::render_list;
use ptxvec_generator::device::silicon::probe::{cluster, nan, Observed, Shape};
use ptxvec_generator::device::silicon::vectors::{replay, AGREES};
use ptxvec_oracle::float::Format;
use ptxvec_spec::Spec;
use serde_json::Value;

use crate::support::{assert_exit, file_names, ptxvec, read_silicon, repo_root, spec, vectors_root};

/// A probe's committed evidence file.
fn read(name: &str) -> String {
    read_silicon(name, "silicon-probe")
}


/// The evidence entry `id` of the ledger, as YAML data (its sections and quotes).
fn erratum(spec: &Spec, id: &str) -> String {
    let e = spec.errata.errata.iter().find(|e| e.id == id).unwrap();
    let mut s = format!("{}\n{}\n", e.summary, e.resolution);
    for src in &e.evidence {
        s += &format!("{src}\n");
        for part in [&src.section, &src.quote, &src.note].into_iter().flatten() {
            s += part;
            s += "\n";
        }
    }
    s
}

#[test]
fn the_probe_files_render_back_byte_for_byte() {
    let text = read(cluster::FILE);
    let c = cluster::parse(&text).unwrap();
    assert_eq!(render_list(&c.header, "variants", &c.variants), text);
    let text = read(nan::FILE);
    let n = nan::parse(&text).unwrap();
    assert_eq!(render_list(&n.header, "rows", &n.rows), text);
}

/// E025 as silicon recorded it: every `.shared::cluster` bulk reduce of the
/// vectors, in an entry without cluster dimensions, faults with
/// CUDA_ERROR_ILLEGAL_INSTRUCTION when the kernel runs; the same code declared a
/// cluster of one runs, its self-check agrees, and its outputs are today's sm_90
/// expectations (the replay rebuilds silicon's digest from the vectors).
#[test]
fn the_cluster_probe_holds_to_e025() {
    let spec = spec();
    let f = cluster::parse(&read(cluster::FILE)).unwrap();
    assert_eq!((f.header.format.as_str(), f.header.cc.as_str()), (cluster::FORMAT, "9.0"));
    let suites: Vec<Suite> = cluster::variants(&spec, &vectors_root()).unwrap();
    let ids: Vec<&str> = f.variants.iter().map(|r| r.variant.as_str()).collect();
    let want: Vec<&str> = suites.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids, want,
        "the probe must cover every .shared::cluster variant, in index order"
    );
    assert_eq!(ids.len(), 12);
    for (row, s) in f.variants.iter().zip(&suites) {
        match &row.no_cluster_dims {
            Observed::Faulted(x) => assert_eq!(
                (x.error.as_str(), x.step.as_str(), x.entry.as_str()),
                (
                    "CUDA_ERROR_ILLEGAL_INSTRUCTION",
                    "running the kernel",
                    "ptxvec_raw"
                ),
                "{}",
                s.id
            ),
            other => panic!("{}: without cluster dimensions: {other:?}", s.id),
        }
        match &row.reqnctapercluster_1 {
            Observed::Ran(run) => {
                assert_eq!(run.matched("sm_90"), s.run_count(), "{}", s.id);
                assert_eq!(run.mismatched("sm_90"), 0, "{}", s.id);
                assert_eq!(run.selfcheck.as_deref(), Some(AGREES), "{}", s.id);
                let problems = replay(run, s);
                assert!(problems.is_empty(), "{}", problems.join("\n"));
            }
            other => panic!("{}: a cluster of one: {other:?}", s.id),
        }
    }
    let e = erratum(&spec, "E025");
    assert!(
        e.contains("vectors/silicon/sm_90/cluster-probe.json"),
        "{e}"
    );
    assert!(e.contains("CUDA_ERROR_ILLEGAL_INSTRUCTION"), "{e}");
}

/// A probe module's results: (memory, operand, silicon) in the file's order.
type Results = Vec<(u64, u64, u64)>;

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.strip_prefix("0x").unwrap(), 16).unwrap()
}

/// The NaN probe's modules in the plan's order, each with the variant's text and
/// silicon's results.
fn nan_runs(spec: &Spec) -> Vec<(&'static str, Shape, String, Results)> {
    let f = nan::parse(&read(nan::FILE)).unwrap();
    assert_eq!((f.header.format.as_str(), f.header.cc.as_str()), (nan::FORMAT, "9.0"));
    let mut runs = Vec::new();
    let mut rows = f.rows.iter().peekable();
    for (id, shapes) in nan::plan() {
        for shape in shapes {
            let s = shape.suite(spec, &vectors_root(), id).unwrap();
            let mut results = Vec::new();
            while let Some(r) = rows.next_if(|r| r.variant == id && r.shape == shape.name()) {
                results.extend(
                    r.results
                        .iter()
                        .map(|(o, got)| (hex(&r.mem), hex(o), hex(got))),
                );
            }
            runs.push((id, shape, s.records[0].text.clone(), results));
        }
    }
    assert!(rows.next().is_none(), "rows past the plan's modules");
    runs
}

fn format_of(id: &str) -> Format {
    if id.ends_with(".f64") {
        Format::F64
    } else {
        Format::F32
    }
}

#[test]
fn the_nan_probe_covers_todays_pairs_in_every_module() {
    for (id, shape, _, results) in nan_runs(&spec()) {
        let pairs: Vec<(u64, u64)> = results.iter().map(|&(m, o, _)| (m, o)).collect();
        assert_eq!(pairs, nan::pairs(format_of(id)), "{id} ({})", shape.name());
    }
}

/// Every module's results replayed against the sm_90 profile: equal everywhere
/// except where E026 says, in the module that relays red.shared.add.f64's
/// operand through other registers. There silicon gives the operand's NaN,
/// quieted, on every pair of two NaNs whose quieted bits differ (the profile gives
/// the memory's), and equals the profile on every other pair.
#[test]
fn the_nan_probe_replays_against_the_sm_90_profile() {
    let spec = spec();
    let mut ledgered = 0;
    for (id, shape, text, results) in nan_runs(&spec) {
        let fmt = format_of(id);
        let quiet = |x: u64| x | fmt.quiet_bit();
        for &(m, o, got) in &results {
            let want = nan::sm90(&spec, &text, m, o).unwrap();
            let case = format!(
                "{id} ({}): {m:#x} + {o:#x}: silicon {got:#x}, sm_90 {want:#x}",
                shape.name()
            );
            let two = fmt.is_nan(m) && fmt.is_nan(o) && quiet(m) != quiet(o);
            if id == "red.shared.add.f64" && shape == Shape::NanRelaid && two {
                assert_eq!((want, got), (quiet(m), quiet(o)), "{case}");
                ledgered += 1;
            } else {
                assert_eq!(got, want, "{case}");
            }
        }
    }
    // 16 × 16 NaN pairs less the 28 whose quieted bits are equal.
    assert_eq!(ledgered, 228);
    let e = erratum(&spec, "E026");
    assert!(e.contains("vectors/silicon/sm_90/nan-probe.json"), "{e}");
}

/// E026: no rule of (memory, operand) gives red.shared.add.f64's NaN on sm_90.
/// The same pair gives the memory's NaN in one module and the operand's in
/// another: in the NaN probe's two modules, and between the self-checking module
/// (vectors.json, whose digest proves the semantic vectors' sm_90 bits) and the
/// wide sweep's kernel (wide-sweeps.json). Each module on its own follows one
/// operand, quieted, on every pair.
#[test]
fn no_rule_of_memory_and_operand_fits_red_shared_add_f64() {
    let spec = spec();
    let runs = nan_runs(&spec);
    let of = |shape: Shape| {
        runs.iter()
            .find(|(id, s, ..)| *id == "red.shared.add.f64" && *s == shape)
            .map(|r| r.3.clone())
            .unwrap()
    };
    let (loaded, relaid) = (of(Shape::NanLoaded), of(Shape::NanRelaid));
    let fmt = Format::F64;
    let quiet = |x: u64| x | fmt.quiet_bit();
    let first_nan = |a: u64, b: u64| if fmt.is_nan(a) { quiet(a) } else { quiet(b) };
    let mut differing = 0;
    for (&(m, o, a), &(m2, o2, b)) in loaded.iter().zip(&relaid) {
        assert_eq!((m, o), (m2, o2));
        if !(fmt.is_nan(m) || fmt.is_nan(o)) {
            continue;
        }
        // Loaded: the memory's NaN, quieted; relaid: the operand's.
        assert_eq!(
            (a, b),
            (first_nan(m, o), first_nan(o, m)),
            "{m:#x} + {o:#x}"
        );
        differing += usize::from(a != b);
    }
    assert_eq!(differing, 228);
    // The pair E026 first met in two kernels: memory 0x7fff…ff, operand 0x7ff0…01.
    let (m, o) = (0x7fff_ffff_ffff_ffffu64, 0x7ff0_0000_0000_0001u64);
    let probe = |r: &Results| r.iter().find(|x| (x.0, x.1) == (m, o)).unwrap().2;
    assert_eq!((probe(&loaded), probe(&relaid)), (m, quiet(o)));
    // The self-checking module: record #478 of the semantic vectors, of a variant
    // whose every record silicon matched.
    let line = crate::support::vector_text(vectors_root().join("semantic/red.shared.add.f64.jsonl.gz"))
        .lines()
        .nth(478)
        .map(str::to_owned)
        .unwrap();
    let rec: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(rec["id"], "red.shared.add.f64#478");
    assert_eq!(rec["inputs"]["mem"][0], format!("{m:#018x}"));
    assert_eq!(rec["inputs"]["operand"][0], format!("{o:#018x}"));
    assert_eq!(rec["expect"]["sm_90"]["mem"][0], format!("{m:#018x}"));
    let evidence = ptxvec_generator::device::silicon::evidence::parse(
        &read_silicon("vectors.json", "silicon"),
    )
    .unwrap();
    let run = evidence
        .variants
        .iter()
        .find(|r| r.variant == "red.shared.add.f64")
        .unwrap();
    assert_eq!((run.mismatched("sm_90"), run.error.as_ref()), (0, None));
    // The wide sweep's kernel: the operand's.
    let wide = ptxvec_generator::sweep::gpu::wide::parse(&read("wide-sweeps.json")).unwrap();
    let sweep = wide
        .sweeps
        .iter()
        .find(|s| s.name == "red.shared.add.f64")
        .unwrap();
    let hit = sweep
        .mismatches
        .iter()
        .find(|x| (hex(&x.mem), hex(&x.operand)) == (m, o))
        .unwrap();
    assert_eq!(hex(&hit.silicon), quiet(o));
}

/// Every module of a probe (`Shape`, its variation of the self-checking module)
/// differs from the self-checking module only where the variation says: the
/// cluster layout's directive and peer, or the operand's two `xor`s.
#[test]
fn the_probe_modules_vary_only_where_they_say() {
    use ptxvec_generator::device::selfcheck::emit::{module, Entries};
    use ptxvec_generator::device::silicon::probe::{module_text, modules, Probe};
    let spec = spec();
    // Without the header comment, whose words name the variation.
    let code = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("//"))
            .map(str::to_owned)
            .collect()
    };
    let mut seen = 0;
    for p in Probe::ALL {
        for (s, shape) in modules(p, &spec, &vectors_root()).unwrap() {
            let (ptx, target) = s.default_module();
            let entries = if p == Probe::Cluster {
                Entries::Both
            } else {
                Entries::Raw
            };
            let base = code(&module(&s, &ptx, &target, entries));
            let varied = code(&module_text(&s, shape));
            let case = format!("{} ({})", s.id, shape.name());
            let (dropped, added) = diff(&base, &varied);
            let (want_dropped, want_added): (Vec<&str>, Vec<&str>) = match shape {
                Shape::NoClusterDims => (
                    vec![".reqnctapercluster 2, 1, 1", "    xor.b32 %r15, %r14, 1;"],
                    vec!["    mov.u32 %r15, %r14;"],
                ),
                Shape::ClusterOfOne => (
                    vec![".reqnctapercluster 2, 1, 1", "    xor.b32 %r15, %r14, 1;"],
                    vec![".reqnctapercluster 1, 1, 1", "    mov.u32 %r15, %r14;"],
                ),
                Shape::NanLoaded => (vec![], vec![]),
                Shape::NanRelaid => {
                    let (key, set, x) = if s.id.ends_with(".f64") {
                        ("%rd60", "    cvt.u64.u32 %rd60, %r0;", "b64 %rd20, %rd20")
                    } else {
                        ("%r60", "    mov.b32 %r60, %r0;", "b32 %r20, %r20")
                    };
                    let xor = format!("    xor.{x}, {key};");
                    let xors: Vec<&str> = vec![set, xor.as_str(), xor.as_str()];
                    assert_eq!(
                        added.iter().map(String::as_str).collect::<Vec<_>>(),
                        xors,
                        "{case}"
                    );
                    assert!(dropped.is_empty(), "{case}: {dropped:?}");
                    seen += 1;
                    continue;
                }
            };
            // Each entry carries the change once (the cluster probe runs both).
            let times = if p == Probe::Cluster { 2 } else { 1 };
            let rep = |v: Vec<&str>| -> Vec<String> {
                v.iter()
                    .flat_map(|l| std::iter::repeat_n(l.to_string(), times))
                    .collect()
            };
            let (mut d, mut a) = (dropped, added);
            d.sort();
            a.sort();
            let (mut wd, mut wa) = (rep(want_dropped), rep(want_added));
            wd.sort();
            wa.sort();
            assert_eq!((d, a), (wd, wa), "{case}");
            seen += 1;
        }
    }
    // 12 cluster variants × 2, 4 `red` × 2 and 2 bulk reduces.
    assert_eq!(seen, 24 + 8 + 2);
}

/// The lines of `a` missing from `b` and of `b` missing from `a`, as multisets.
fn diff(a: &[String], b: &[String]) -> (Vec<String>, Vec<String>) {
    let mut extra: Vec<String> = b.to_vec();
    let mut dropped = Vec::new();
    for l in a {
        match extra.iter().position(|x| x == l) {
            Some(i) => {
                extra.remove(i);
            }
            None => dropped.push(l.clone()),
        }
    }
    (dropped, extra)
}

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
)]
fn every_probe_module_assembles_with_ptxas() {
    use ptxvec_generator::device::silicon::probe::{module_text, modules, Probe};
    let ptxas = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let spec = spec();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for p in Probe::ALL {
        for (i, (s, shape)) in modules(p, &spec, &vectors_root()).unwrap().iter().enumerate() {
            let (_, target) = s.default_module();
            let name = format!("{p:?}{i}");
            if let Err(e) = ptxvec_generator::ptxas::assemble_module(
                &ptxas,
                &target,
                &module_text(s, *shape),
                dir.path(),
                &name,
            ) {
                failures.push(format!("{} ({}): {e}", s.id, shape.name()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn silicon_probe_emits_every_module_without_a_gpu() {
    for (probe, modules) in [("cluster", 24), ("nan", 10)] {
        let dir = tempfile::tempdir().unwrap();
        let out = ptxvec()
            .args([
                "silicon-probe",
                "--out",
                "unused",
                "--probe",
                probe,
                "--emit-ptx",
            ])
            .arg(dir.path())
            .current_dir(repo_root())
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let names = file_names(dir.path());
        assert_eq!(names.len(), modules, "{probe}: {names:?}");
        let relaid = dir.path().join("red.shared.add.f64.nan-relaid.ptx");
        if probe == "nan" {
            let text = std::fs::read_to_string(relaid).unwrap();
            assert!(
                text.starts_with("// Generated by `ptxvec silicon-probe`"),
                "{text:.200}"
            );
        }
    }
}
