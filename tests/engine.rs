//! `ptxvec run-engine` with a stand-in runner (tests/fixtures/stand-in-runner.py):
//! a record that crashes the engine is found alone and recorded while the others
//! keep their results; a module the engine cannot load is not run, with the
//! reason; and the recorded runs of our own runner on sm_90 silicon give the
//! silicon evidence's digest for every variant run.

use std::path::Path;
use std::process::{Command, Output};

use ptxvec_generator::device::engine::{NotRun, RunsFile};
use ptxvec_generator::device::selfcheck::raw::POISON;
use ptxvec_generator::device::silicon::evidence;

use crate::support::{ptxvec, repo_root, spec, stderr, stdout};

/// `run-engine` on activemask.b32 (34 records, one warp each) with the stand-in
/// and `env`; its runs.json and its raw buffer, if written.
fn run(env: &[(&str, &str)], out: &Path) -> (Output, RunsFile, Option<Vec<u8>>) {
    let mut c = ptxvec();
    c.current_dir(repo_root())
        .args(["run-engine", "--engine", "stand-in", "--variant", "activemask.b32", "--runner"])
        .arg(repo_root().join("tests/fixtures/stand-in-runner.py"))
        .arg("--out")
        .arg(out);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    let runs = RunsFile::read(out).unwrap().expect("runs.json written");
    let bin = std::fs::read(out.join("activemask.b32.bin")).ok();
    (o, runs, bin)
}

/// The stand-in runner is a Python script: without python3 the tests fail, and
/// say why.
fn need_python() {
    let here = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(here, "tests/engine.rs needs python3 for its stand-in runner");
}

#[test]
fn a_crashing_record_is_found_alone_and_the_rest_keep_their_results() {
    need_python();
    let dir = tempfile::tempdir().unwrap();
    let (o, runs, bin) = run(&[("STANDIN_CRASH", "5,20")], dir.path());
    let stdout = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    let r = &runs.runs[0];
    assert_eq!(r.crashed.iter().map(|c| c.record).collect::<Vec<_>>(), [5, 20]);
    assert!(r.crashed.iter().all(|c| c.reason == "killed by SIGSEGV"), "{r:?}");
    // The whole, three probes, then halves: far fewer calls than a record each.
    assert!(r.calls > 4 && r.calls < 34, "{} calls", r.calls);
    let bin = bin.unwrap();
    assert_eq!(bin.len(), 34 * 256);
    for n in 0..34 {
        let want = if n == 5 || n == 20 { POISON } else { n as u8 + 1 };
        assert!(bin[n * 256..(n + 1) * 256].iter().all(|&b| b == want), "record {n}");
    }
    assert!(stdout.contains("ran 32 records, 2 crashed (first: #5 killed by SIGSEGV)"), "{stdout}");

    let (o, runs, bin) = run(&[], dir.path());
    assert_eq!(o.status.code(), Some(0));
    assert_eq!((runs.runs[0].calls, runs.runs[0].crashed.len()), (1, 0));
    // Not silicon's bits: the digest is compared, and differs.
    assert_eq!(runs.runs[0].evidence.as_deref(), Some("differs"));
    assert!(bin.unwrap().chunks(256).enumerate().all(|(n, c)| c.iter().all(|&b| b == n as u8 + 1)));
}

#[test]
fn a_module_the_engine_cannot_load_is_not_run_with_the_reason() {
    need_python();
    let dir = tempfile::tempdir().unwrap();
    let (o, runs, bin) = run(&[("STANDIN_REFUSE", "1")], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let r = &runs.runs[0];
    assert_eq!(
        r.not_run,
        Some(NotRun::Refused("exited with status 1: activemask.b32.ptx:12 Syntax error:".to_owned()))
    );
    assert!(
        std::fs::read_to_string(dir.path().join("runs.json")).unwrap().contains(
            r#""not_run":"the module fails whole and record by record: exited with status 1: activemask.b32.ptx:12 Syntax error:""#
        ),
        "the sentence on disk"
    );
    // The whole and its first, middle and last record: no more.
    assert_eq!(r.calls, 4);
    assert!(bin.is_none(), "no buffer for a variant not run");

    let (o, runs, bin) = run(&[("STANDIN_CANNOT", "1")], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(runs.runs[0].not_run, Some(NotRun::CannotRun("stand-in: cannot launch this".to_owned())));
    assert!(std::fs::read_to_string(dir.path().join("runs.json"))
        .unwrap()
        .contains(r#""not_run":"exited with status 3: stand-in: cannot launch this""#));
    assert_eq!(runs.runs[0].calls, 1);
    assert!(bin.is_none());
}

#[test]
fn bad_runner_arguments_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (&["--runner", "/bin/false", "--cc", "nine"][..], "expected a compute capability"),
        (&["--runner", "/bin/false", "--variant", "no.such"], "unknown variant"),
        (&["--runner", "/nonexistent/runner"], "no such program"),
    ] {
        let o = ptxvec()
            .current_dir(repo_root())
            .args(["run-engine", "--engine", "x", "--out"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}");
    }
}

/// Our runner on sm_90 silicon, through the driver and the runtime API
/// (vectors/silicon/sm_90/runner-*.json): every variant the device runs gives the
/// digest of the evidence `ptxvec silicon` wrote, and no record crashed.
#[test]
fn the_recorded_runner_runs_reproduce_the_silicon_evidence() {
    let dir = repo_root().join("vectors/silicon/sm_90");
    let e = evidence::parse(&std::fs::read_to_string(dir.join(evidence::FILE)).unwrap()).unwrap();
    for api in ["driver", "runtime"] {
        let text = std::fs::read_to_string(dir.join(format!("runner-{api}.json"))).unwrap();
        let runs: RunsFile = serde_json::from_str(&text).unwrap();
        assert_eq!(runs.runs.len(), e.variants.len(), "{api}");
        for (r, ev) in runs.runs.iter().zip(&e.variants) {
            assert_eq!((&r.variant, &r.window), (&ev.variant, &ev.window), "{api}");
            assert!(r.crashed.is_empty(), "{api} {}", r.run);
            match (&ev.raw_sha256, &ev.not_run) {
                (Some(d), _) => {
                    assert_eq!(r.raw_sha256.as_ref(), Some(d), "{api} {}", r.run);
                    assert_eq!(r.evidence.as_deref(), Some("same"));
                }
                (None, Some(_)) => assert!(matches!(r.not_run, Some(NotRun::Needs(_))), "{api} {}", r.run),
                (None, None) => panic!("{}: evidence without digest", ev.variant),
            }
        }
    }
}

/// The recorded engines' folders (vectors/clients/*/runs.json), in name order.
fn recorded_engines() -> Vec<std::path::PathBuf> {
    let dirs = crate::support::client_folders("runs.json");
    assert!(dirs.len() >= 2, "{dirs:?}");
    dirs
}

/// Every recorded runs.json (each engine's, our runner's on silicon) reads, each
/// reason not to run typed, and is written again byte for byte.
#[test]
fn the_recorded_runs_files_read_typed_and_write_back_the_same() {
    let mut files: Vec<_> = recorded_engines().into_iter().map(|d| d.join("runs.json")).collect();
    files.extend(["driver", "runtime"].map(|api| repo_root().join(format!("vectors/silicon/sm_90/runner-{api}.json"))));
    let mut kinds = std::collections::BTreeSet::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let runs: RunsFile = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(runs.render() == text, "{} does not write back the same", path.display());
        for r in &runs.runs {
            kinds.insert(match &r.not_run {
                Some(NotRun::Needs(_)) => "needs",
                Some(NotRun::Refused(_)) => "refused",
                Some(NotRun::CannotRun(_)) => "cannot run",
                None => "ran",
            });
        }
    }
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), ["needs", "ran", "refused"]);
}

/// runner/ptxvec-runner.c builds against the CUDA headers pip installs (with
/// ptxas, `nvidia-cuda-nvcc` brings the CUDA runtime's), warning-free, and answers
/// bad arguments and a missing engine library with a usage error and a failure.
#[test]
#[cfg_attr(not(ptxas), ignore = "needs pip's CUDA headers: bash .ci/run installs them with ptxas")]
fn the_runner_builds_from_pip_headers_and_refuses_bad_calls() {
    let inc = Command::new("python3")
        .args(["-c", "import nvidia, os; print(os.path.join(nvidia.__path__[0], 'cu13', 'include'))"])
        .output()
        .unwrap();
    let inc = String::from_utf8(inc.stdout).unwrap().trim().to_owned();
    assert!(Path::new(&inc).join("cuda.h").exists(), "no cuda.h under {inc}");
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("ptxvec-runner");
    let cc = Command::new("cc")
        .args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{inc}"))
        .arg("-o")
        .arg(&exe)
        .arg(repo_root().join("runner/ptxvec-runner.c"))
        .arg("-ldl")
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", stderr(&cc));
    let call = |args: &[&str]| Command::new(&exe).args(args).output().unwrap();
    let o = call(&["m.ptx", "ptxvec_raw", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("usage: ptxvec-runner"));
    let o = call(&["m.ptx", "ptxvec_raw", "x", "32", "256", "0xa5", "out.bin"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("GRID: not a number: x"));
    let o = call(&["--lib", "/nonexistent/libcuda.so", "m.ptx", "ptxvec_raw", "1", "32", "256", "0xa5", "out.bin"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot open the engine's library"));
}

/// docs/conformance.md's engine table is what grading the recorded engines
/// (vectors/clients/*/runs.json) gives now, each top failure group explained.
#[test]
fn the_engine_conformance_table_is_current() {
    let spec = spec();
    let want = ptxvec_generator::grade::conformance_semantic::table(
        &spec,
        &repo_root().join("vectors"),
        &repo_root().join("vectors/clients"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let readme = std::fs::read_to_string(repo_root().join("docs/conformance.md")).unwrap();
    let (begin, end) = ("<!-- conformance-semantic -->\n", "<!-- /conformance-semantic -->");
    let start = readme.find(begin).expect("a semantic conformance table in docs/conformance.md") + begin.len();
    let stop = readme[start..].find(end).expect("its end marker") + start;
    assert_eq!(&readme[start..stop], want, "docs/conformance.md's semantic conformance table is stale; it is now:\n{want}");
}

/// `grade --raw` reads a buffer kept gzipped (`<name>.bin.gz`, as the recorded
/// engines are) as the plain one, and refuses a folder that holds both, or a
/// `.gz` that is no gzip stream.
#[test]
fn raw_buffers_may_be_gzipped() {
    let grade = |dir: &Path| {
        ptxvec()
            .current_dir(repo_root())
            .args(["grade", "--profile", "sm_90", "--raw"])
            .arg(dir)
            .output()
            .unwrap()
    };
    let recorded = repo_root().join("vectors/clients/gpgpu-sim-667834c");
    let dir = tempfile::tempdir().unwrap();
    let gz = std::fs::read(recorded.join("vote.sync.ballot.b32.bin.gz")).unwrap();
    std::fs::write(dir.path().join("vote.sync.ballot.b32.bin.gz"), &gz).unwrap();
    let o = grade(dir.path());
    let text = stdout(&o);
    // GPGPU-Sim's ballot is silicon's, bit for bit (runs.json: evidence "same").
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("vote.sync") && text.contains(" 0 failed"), "{text}");
    std::fs::write(dir.path().join("vote.sync.ballot.b32.bin"), b"x").unwrap();
    let o = grade(dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("both vote.sync.ballot.b32.bin and"), "{}", stderr(&o));
    std::fs::remove_file(dir.path().join("vote.sync.ballot.b32.bin")).unwrap();
    std::fs::write(dir.path().join("vote.sync.ballot.b32.bin.gz"), &gz[..gz.len() / 2]).unwrap();
    let o = grade(dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a gzip stream"), "{}", stderr(&o));
}

/// `grade --clients vectors/clients --html FILE`: one page, clients × instructions
/// for syntax and semantics with silicon as the reference row, every linked cell's
/// failures on the same page, no external resource; exit 0.
#[test]
fn the_dashboard_covers_every_client_and_links_each_failing_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (html, stdout) = dashboard(dir.path());
    for client in ["ptxas-13.5-12.9", "ptx-syntax-0.5.0", "zluda-ptx-parser-8a7931b", "sm_90 silicon"] {
        assert!(html.contains(client) && stdout.contains(client), "{client} missing");
    }
    // Every recorded engine has its row, and its failing cells their failures.
    for dir in recorded_engines() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(html.contains(&name) && stdout.contains(&name), "{name} missing");
        assert!(html.contains(&format!("id=\"t-semantic-{name}-")), "{name}: no failing cell");
    }
    assert!(html.contains("Syntax: parsers and assemblers") && html.contains("Semantics: silicon and engines"));
    // The compilers: each recorded one (every folder with a manifest.json), lint
    // against ptxas on every module, and nvcc's illegal sm_80 module listed line by line.
    assert!(html.contains("Compilers: their modules linted, against ptxas"));
    let compilers: Vec<String> = crate::support::client_folders("manifest.json")
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(compilers.len() >= 4, "LLVM 19, LLVM 22, nvcc 13.5 and Triton 3.9: {compilers:?}");
    for compiler in &compilers {
        assert!(html.contains(&format!("<td>{compiler}</td>")) && stdout.contains(compiler.as_str()), "{compiler} missing");
    }
    assert!(html.contains("ptx_bulk.sm_80.ptx95.ptx.gz"));
    // Every link goes to an element of the page.
    let mut links = 0;
    for part in html.split("href=\"#").skip(1) {
        let target = &part[..part.find('"').unwrap()];
        assert!(html.contains(&format!("id=\"{target}\"")), "a link to nothing: #{target}");
        links += 1;
    }
    assert!(links >= 10, "{links} links");
    assert!(html.contains("id=\"t-semantic-gpgpu-sim-667834c-shfl-sync\""));
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"));
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["grade", "--clients", "vectors/clients", "--syntax", "-"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// index.json's `launches` are what the modules need: for every run, the grid,
/// block and buffer sizes of the module `emit-ptx` writes (its header comment
/// states the same), the raw buffer's name that `grade --raw` reads, and the
/// records it skips, as a record list.
#[test]
fn index_launches_match_the_modules() {
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join("vectors/index.json")).unwrap()).unwrap();
    let files = index["files"].as_array().unwrap();
    let mut runs = 0;
    for f in files.iter().filter(|f| {
        let v = f["variant"].as_str().unwrap();
        ["activemask.b32", "red.add.f32", "vote.sync.all.pred", "shfl.sync.idx.b32-d"].contains(&v)
            || v.starts_with("cp.reduce.async.bulk.shared::cluster")
    }) {
        let variant = f["variant"].as_str().unwrap();
        for l in f["launches"].as_array().unwrap() {
            let mut c = ptxvec();
            c.current_dir(repo_root()).args(["emit-ptx", "--variant", variant, "--raw"]);
            if let Some(w) = l["window"].as_str() {
                c.args(["--window", w]);
            }
            let m = String::from_utf8(c.output().unwrap().stdout).unwrap();
            let header = format!(
                "launch: grid ({}, 1, 1), block ({}, 1, 1)",
                l["grid"], l["block"]
            );
            assert!(m.contains(&header), "{variant}: {header}");
            assert!(m.contains(&format!("writes {} bytes at out", l["raw_bytes"])), "{variant}");
            assert_eq!(m.contains(".reqnctapercluster 2, 1, 1"), l["cluster"] == serde_json::json!([2, 1, 1]), "{variant}");
            assert!(m.contains(&format!(".version {}", l["ptx"].as_str().unwrap())), "{variant}");
            assert_eq!(l["poison"], "0xa5");
            let raw = l["raw_file"].as_str().unwrap();
            assert!(raw.ends_with(".bin") && raw.starts_with(variant.replace("::", "__").as_str()), "{raw}");
            runs += 1;
        }
    }
    assert!(runs >= 8, "{runs} runs");
    // vote's records where a lane outside the membermask executes are skipped.
    let vote = files.iter().find(|f| f["variant"] == "vote.sync.all.pred").unwrap();
    let skipped = vote["launches"][0]["skipped"].as_str().unwrap();
    assert!(skipped.starts_with("24-31,"), "{skipped}");
}

/// A corrupt runs.json beside raw buffers is bad input: exit 2, naming the file,
/// its line and column; nothing is graded from it.
#[test]
fn a_corrupt_runs_file_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("runs.json"), "{\"format\":\"ptxvec-engine-runs/1\",\n \"engine\": 3}").unwrap();
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["grade", "--raw"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("runs.json:2:"), "{err}");
}

/// `grade --raw` of each recorded engine's folder, its summary and its pages, as a
/// user first reads them: the verdict and the counts first; what was not graded a
/// count per instruction, matching the JSON report's list; failures by class, a few
/// examples each, from distinct variants where the class has them; the HTML page
/// under 2 MB with every class folded.
#[test]
fn the_recorded_engines_report_leads_with_the_verdict_and_stays_small() {
    for engine in recorded_engines() {
        recorded_report_leads_with_the_verdict(&engine);
    }
}

fn recorded_report_leads_with_the_verdict(engine: &Path) {
    let name = engine.file_name().unwrap().to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();
    let (json, html) = (dir.path().join("g.json"), dir.path().join("g.html"));
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["grade", "--raw"])
        .arg(engine)
        .arg("--json")
        .arg(&json)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let sec = &doc["sections"][0];
    let n = |v: &serde_json::Value| v.as_u64().unwrap() as usize;
    // The verdict, then the section's counts, before anything else.
    let c = &sec["counts"];
    let head = format!(
        "grade: FAILED\n  raw (profile ptx-isa): {} graded, {} passed, {} failed, {} not graded; {} variants with no result\n",
        n(&c["graded"]),
        n(&c["passed"]),
        n(&c["failed"]),
        n(&c["not_graded"]),
        sec["not_graded"].as_array().unwrap().len()
    );
    assert!(text.starts_with(&head), "{text}");
    assert!(text.lines().all(|l| l.len() <= 400), "a line of more than 400 characters:\n{text}");
    assert!(text.len() < 20_000, "{} bytes of summary", text.len());
    // Not graded: per instruction, the variants and their records that the JSON
    // report lists one by one, each not run by the engine (runs.json says why).
    let mut per = std::collections::BTreeMap::<String, (usize, usize, usize)>::new();
    for u in sec["not_graded"].as_array().unwrap() {
        let e = per.entry(u["instruction"].as_str().unwrap().to_owned()).or_default();
        e.0 += 1;
        e.1 += n(&u["cases"]);
        e.2 += usize::from(u.get("not_run").is_some());
    }
    assert!(per.contains_key("red") && per.contains_key("atom"), "{per:?}");
    for (instruction, (variants, records, not_run)) in &per {
        // Only the variants the engine could not run are counted apart.
        let apart = if *not_run > 0 { format!(" ({not_run} not run by the engine)") } else { String::new() };
        let want = format!("    {instruction:<48} {variants:>6} variants     {records:>7} records{apart}\n");
        assert!(text.contains(&want), "no `{want}` in\n{text}");
    }
    // Failures by class: the classes add up to the failures; each shows at most
    // three examples, from distinct variants where the class holds three.
    let groups = sec["failure_groups"].as_array().unwrap();
    let failures = sec["failures"].as_array().unwrap();
    assert_eq!(groups.iter().map(|g| n(&g["cases"])).sum::<usize>(), failures.len());
    assert_eq!(failures.len(), n(&c["failed"]));
    let variant = |name: &str| name.split('#').next().unwrap().to_owned();
    let atom = groups
        .iter()
        .find(|g| g["instruction"] == "atom" && g["group"] == "d: value not accepted + mem: value not accepted")
        .expect("the 64-bit atom class");
    let distinct: std::collections::BTreeSet<String> = failures
        .iter()
        .filter(|f| f["instruction"] == "atom" && f["failures"].as_array().unwrap().len() == 2)
        .map(|f| variant(f["id"].as_str().unwrap()))
        .collect();
    assert!(distinct.len() >= 3, "{distinct:?}");
    let shown: std::collections::BTreeSet<String> =
        atom["examples"].as_array().unwrap().iter().map(|e| variant(e.as_str().unwrap())).collect();
    assert_eq!(shown.len(), 3, "{atom}");
    assert!(text.matches("FAIL ").count() <= 3 * groups.len(), "{text}");
    // A FAIL line names a kind of defect once; the slots after it of the same kind
    // by their index alone (bar.red's True where the document says False:
    // `d[1] (expected ...`).
    for l in text.lines().filter(|l| l.contains("FAIL ")) {
        assert!(l.matches("not written").count() <= 1, "{l}");
    }
    if name == "gpgpu-sim-667834c" {
        assert!(text.contains(": d[0]: value not accepted (expected 0x0, got 0x1); d[1] (expected 0x0, got 0x1)"), "{text}");
    }
    // The largest classes, each with its count; the rest counted in one line.
    let shown = ptxvec_generator::grade::summary::SUMMARY_GROUPS;
    for g in groups.iter().take(shown) {
        let line = format!("  {:>6}  {}: {}\n", n(&g["cases"]), g["instruction"].as_str().unwrap(), g["group"].as_str().unwrap());
        assert!(text.contains(&line), "no `{line}` in\n{text}");
    }
    if groups.len() > shown {
        let more = format!("  ... and {} more classes\n", groups.len() - shown);
        assert!(text.contains(&more), "no `{more}` in\n{text}");
    }
    // Each class says what it means where the folder's explanations.json does.
    let explained: std::collections::BTreeMap<String, String> = serde_json::from_str(
        &std::fs::read_to_string(engine.join("explanations.json")).unwrap(),
    )
    .unwrap();
    for g in groups {
        let key = format!("{}: {}", g["instruction"].as_str().unwrap(), g["group"].as_str().unwrap());
        assert_eq!(g["explanation"].as_str(), explained.get(&key).map(String::as_str), "{key}");
    }
    // The page: at most 2 MB; every class folded, every failed row inside its fold.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.len() <= 2 << 20, "{} bytes", page.len());
    assert_eq!(page.matches("<details class=\"group\">").count(), groups.len());
    let mut rows = 0;
    for fold in page.split("<details class=\"group\">").skip(1) {
        let fold = &fold[..fold.find("</details></td>").expect("a fold's end")];
        rows += fold.matches("<tr class=\"failed\">").count();
    }
    assert_eq!(rows, page.matches("<tr class=\"failed\">").count(), "a failed row outside a fold");
    assert!(rows <= 3 * groups.len());
    // The verdict and the sections' table come before the first fold.
    let first_fold = page.find("<details").unwrap();
    assert!(page[..first_fold].contains("<h1>ptxvec grade: <span class=\"fail\">FAILED</span></h1>\n<table class=\"summary\">"));
}

/// The text of an HTML fragment: its tags left out, its entities read.
fn html_text(fragment: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in fragment.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&#96;", "`").replace("&amp;", "&")
}

/// The dashboard of the recorded clients, written into `dir` (exit 0: their failures
/// are what the page reports): the page, and what grade printed.
fn dashboard(dir: &Path) -> (String, String) {
    let page = dir.join("dashboard.html");
    let o = ptxvec()
        .current_dir(repo_root())
        .args(["grade", "--clients", "vectors/clients", "--html"])
        .arg(&page)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    (std::fs::read_to_string(&page).unwrap(), stdout(&o))
}

/// The dashboard as a reader at 1,400 pixels needs it: the matrices laid out to
/// the window's width; what did not run apart from the pass rate (GPGPU-Sim's
/// atom: passed of graded as `grade --raw` grades them, and the records of the
/// variants its runs.json says did not run); silicon's departures from the
/// document with the ledger entries that name them; every rule a failure names
/// explained as vectors/rules.json explains it; explanations rendered, no raw
/// backtick left; failure examples folded.
#[test]
fn the_dashboard_shows_what_did_not_run_apart_and_explains_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    let (html, summary) = dashboard(dir.path());
    // Two matrices, each of the window's width with fixed columns.
    assert_eq!(html.matches("<table class=\"matrix\">").count(), 2);
    assert!(html.contains("table.matrix{table-layout:fixed;width:100%"));
    assert!(html.contains("<th>cp.<wbr>reduce.<wbr>async.<wbr>bulk</th>"));
    // GPGPU-Sim's atom cell: passed of graded, and apart, what did not run.
    let json = dir.path().join("g.json");
    let g = ptxvec()
        .current_dir(repo_root())
        .args(["grade", "--raw", "vectors/clients/gpgpu-sim-667834c", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(g.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let atom = &doc["sections"][0]["tallies"]["instruction"]["atom"];
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join("vectors/index.json")).unwrap()).unwrap();
    let instruction_of = |variant: &str| -> String {
        let e = index["files"].as_array().unwrap().iter().find(|e| e["variant"] == variant).unwrap();
        e["spec"][0].as_str().unwrap().split('#').next().unwrap().to_owned()
    };
    let runs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("vectors/clients/gpgpu-sim-667834c/runs.json")).unwrap(),
    )
    .unwrap();
    let not_run: u64 = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("not_run").is_some() && instruction_of(r["variant"].as_str().unwrap()) == "atom")
        .map(|r| r["records"].as_u64().unwrap())
        .sum();
    assert!(not_run > 0);
    let (passed, graded) = (atom["passed"].as_u64().unwrap(), atom["graded"].as_u64().unwrap());
    let cell = format!(
        "<b>{passed} / {graded}</b><small>passed, {:.1}%</small><small class=\"notrun\">{not_run} not run</small>",
        passed as f64 * 100.0 / graded as f64
    );
    assert!(html.contains(&cell), "no `{cell}`");
    assert!(summary.contains(&format!(" atom: {passed}/{graded} ({not_run} not run)")), "{summary}");
    // Silicon below 100%: each variant whose evidence departs from the document's
    // profile is listed with every ledger entry that names it, and there is one.
    let evidence: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("vectors/silicon/sm_90/vectors.json")).unwrap(),
    )
    .unwrap();
    let ledger = spec().errata;
    let silicon = &html[html.find("<h2 id=\"silicon\">").unwrap()..html.find("<h2>Compilers").unwrap()];
    let mut departing = 0;
    for v in evidence["variants"].as_array().unwrap() {
        let n = v["mismatches"]["ptx-isa"].as_u64().unwrap_or(0);
        if n == 0 {
            continue;
        }
        departing += 1;
        let variant = v["variant"].as_str().unwrap();
        assert!(html_text(silicon).contains(variant), "{variant} not in the silicon section");
        let key = format!("silicon:sm_90:{variant}");
        let entries: Vec<_> = ledger.errata.iter().filter(|e| e.disagreements.contains(&key)).collect();
        assert!(!entries.is_empty(), "no ledger entry for {key}");
        for e in entries {
            assert!(silicon.contains(&format!("<strong>{}</strong>", e.id)), "{} not shown for {variant}", e.id);
        }
        let instruction = instruction_of(variant);
        let link = format!("href=\"#{}\"", ptxvec_generator::grade::html::anchor("silicon", &instruction));
        assert!(html.contains(&link), "the silicon cell of {instruction} does not link to why");
    }
    assert!(departing > 0);
    // Every rule linked is explained once, as vectors/rules.json has it.
    let rules: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo_root().join("vectors/rules.json")).unwrap()).unwrap();
    let mut links = 0;
    for part in html.split("<a class=\"rule\" href=\"#").skip(1) {
        let target = &part[..part.find('"').unwrap()];
        let at = html.find(&format!("<dt id=\"{target}\">")).unwrap_or_else(|| panic!("no explanation #{target}"));
        let dt = &html[at..at + html[at..].find("</dt>").unwrap()];
        let dd_at = at + html[at..].find("<dd class=\"meaning\">").unwrap();
        let dd = &html[dd_at..dd_at + html[dd_at..].find("</dd>").unwrap()];
        let name = html_text(&dt[dt.find("<code>").unwrap()..dt.find("</code>").unwrap()]);
        let whose = dt.find("<small>(").map(|s| html_text(&dt[s..]).trim_matches(|c| c == '(' || c == ')').to_owned());
        let entry = rules["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["rule"] == name.as_str() && e["instruction"].as_str().map(str::to_owned) == whose)
            .unwrap_or_else(|| panic!("{name} ({whose:?}) is not in vectors/rules.json"));
        let meaning = entry["meaning"].as_str().unwrap().replace('`', "").replace("**", "");
        assert!(html_text(dd).starts_with(&meaning), "#{target}: {dd}\nwant {meaning}");
        links += 1;
    }
    assert!(links > 20, "{links} rule links");
    assert!(html.contains("<dt id=\"rule-cp-reduce-async-bulk-base\"><code>base</code>"), "nvcc's `base` rule explained");
    // Explanations rendered: inline code as <code>, no backtick left.
    for class in ["<small class=\"why\">", "<dd class=\"meaning\">", "<td class=\"ledger\">"] {
        let mut seen = 0;
        for part in html.split(class).skip(1) {
            let end = part.find("</small>").into_iter().chain(part.find("</dd>")).chain(part.find("</td>")).min().unwrap();
            assert!(!part[..end].contains('`'), "a raw backtick in {class}: {}", &part[..end]);
            seen += usize::from(part[..end].contains("<code>"));
        }
        // The ledger's sentences may hold no code; the rules' and GPGPU-Sim's do.
        assert!(seen > 0 || class.contains("ledger"), "no rendered code in {class}");
    }
    // Examples folded: every example table is inside a fold.
    let examples = html.matches("<th>case</th><th>what</th><th>expected</th><th>got</th>").count();
    assert!(examples > 0);
    assert_eq!(
        html.matches("<details class=\"group\"><summary>").count(),
        examples + html.matches("<th>line</th><th>text</th>").count()
    );
}

/// The dashboard read at 1,400 pixels: laid out by headless Chromium in a window
/// that wide, no part of the page, and no matrix, reaches past the window's right
/// edge (the `vote` column was cut off), nor do the litmus tables. The page has no script; the test adds one
/// to a copy, which writes the measures into the DOM that Chromium dumps.
#[test]
#[cfg_attr(
    not(chromium),
    ignore = "needs chromium: apt-get install -y chromium, or set PTXVEC_CHROMIUM (generator/build.rs)"
)]
fn the_dashboard_fits_a_1400_pixel_window() {
    let dir = tempfile::tempdir().unwrap();
    let (html, _) = dashboard(dir.path());
    let measure = "<script>var w=[window.innerWidth,document.documentElement.scrollWidth];\
        document.querySelectorAll('table.matrix, table.litmus').forEach(function(t){w.push(Math.ceil(t.getBoundingClientRect().right))});\
        document.body.setAttribute('data-widths',w.join(','));</script></body>";
    let measured = dir.path().join("measured.html");
    std::fs::write(&measured, html.replace("</body>", measure)).unwrap();
    let browser = std::env::var("PTXVEC_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    // --no-sandbox: CI and this test run as root, where chromium refuses its sandbox.
    let out = Command::new(&browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,2000", "--dump-dom"])
        .arg(format!("file://{}", measured.display()))
        .output()
        .unwrap_or_else(|e| panic!("{browser}: {e}"));
    assert!(out.status.success(), "{}", stderr(&out));
    let dom = stdout(&out);
    let at = dom.find("data-widths=\"").expect("the measures") + "data-widths=\"".len();
    let widths: Vec<u64> = dom[at..at + dom[at..].find('"').unwrap()]
        .split(',')
        .map(|w| w.parse().unwrap())
        .collect();
    let (window, rest) = widths.split_first().unwrap();
    assert_eq!(*window, 1400, "{widths:?}");
    assert_eq!(rest.len(), 5, "the page, two matrices and two litmus tables: {widths:?}");
    for w in rest {
        assert!(w <= window, "wider than the window: {widths:?} (window, page, matrices)");
    }
}

/// A summary line's numbers after the name: `{ran} ran, {pass} pass, {fail} fail;
/// weak outcomes seen in {w} tests, untested in {u}; {n} not run`.
fn litmus_line(ran: usize, pass: usize, fail: usize, weak: usize, untested: usize, not_run: usize) -> String {
    format!("{ran} ran, {pass} pass, {fail} fail; weak outcomes seen in {weak} tests, untested in {untested}; {not_run} not run")
}

/// The dashboard's litmus section says what the recorded files say: silicon's
/// rows (litmus.json and each stress configuration: tests that ran, that showed a
/// forbidden outcome, a weak one, or allow one and showed none), each engine as
/// `grade --litmus` grades its results with the tests its litmus-runs.json lists
/// as not run, and each compiler's litmus.json summary, every finding shown with
/// the ledger's erratum that lists it.
#[test]
fn the_dashboard_shows_the_litmus_results_as_the_files_say() {
    let dir = tempfile::tempdir().unwrap();
    let (html, summary) = dashboard(dir.path());
    let litmus = &html[html.find("<h2 id=\"litmus\">").unwrap()..html.find("<h2>Failures</h2>").unwrap()];
    let silicon = repo_root().join("vectors/silicon/sm_90");
    let mut files = vec![("sm_90 silicon (NVIDIA H200)".to_owned(), std::fs::read_to_string(silicon.join("litmus.json")).unwrap())];
    for e in std::fs::read_dir(silicon.join("litmus-stress")).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_name().unwrap().to_string_lossy().trim_end_matches(".json.gz").to_owned();
        files.push((format!("sm_90 silicon, stress {stem}"), ptxvec_generator::io::gz::read_text(&p, 1 << 30).unwrap()));
    }
    assert!(files.len() >= 2, "litmus.json and the stress configuration");
    for (name, text) in &files {
        let doc: serde_json::Value = serde_json::from_str(text).unwrap();
        let rows = doc["tests"].as_array().unwrap();
        let ran: Vec<&serde_json::Value> = rows.iter().filter(|r| r["failed"].is_null()).collect();
        let fail = ran.iter().filter(|r| r["forbidden_observed"].as_u64().unwrap() > 0).count();
        let passing: Vec<_> = ran.iter().filter(|r| r["forbidden_observed"] == 0).collect();
        let weak = passing.iter().filter(|r| r["weak_observed"].as_u64().unwrap() > 0).count();
        let untested = passing.iter().filter(|r| r["weak_allowed"] == true && r["weak_observed"] == 0).count();
        let line = litmus_line(ran.len(), ran.len() - fail, fail, weak, untested, rows.len() - ran.len());
        assert!(summary.contains(&format!("  {name:<42} {line}")), "{name}: no `{line}` in\n{summary}");
        assert!(litmus.contains(&format!("<tr><th>{name}<br>")), "{name}: no row");
        assert!(weak > 100, "{name}: silicon shows weak outcomes in about 100 tests");
    }
    let engines = crate::support::client_folders("litmus-results.jsonl");
    assert!(engines.len() >= 2, "GPGPU-Sim and gpuocelot: {engines:?}");
    for e in &engines {
        let name = e.file_name().unwrap().to_string_lossy().into_owned();
        let o = ptxvec().args(["grade", "--litmus"]).arg(e.join("litmus-results.jsonl")).output().unwrap();
        let text = stdout(&o);
        let last = text.lines().last().unwrap();
        let n: Vec<usize> = last.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(|w| w.parse().unwrap()).collect();
        let (graded, pass, fail) = (n[0], n[2], n[3]);
        let weak = text.lines().filter(|l| l.starts_with("pass ") && l.contains("; weak seen: ")).count();
        let untested = text.lines().filter(|l| l.starts_with("pass ") && l.contains("the weak case is untested")).count();
        let runs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(e.join("litmus-runs.json")).unwrap()).unwrap();
        let not_run: usize = runs["not_run"].as_array().unwrap().iter().map(|g| g["tests"].as_array().unwrap().len()).sum();
        assert_eq!(graded + not_run, n[1], "{name}: every test ran or is listed as not run");
        let line = litmus_line(graded, pass, fail, weak, untested, not_run);
        assert!(summary.contains(&format!("  {name:<42} {line}")), "{name}: no `{line}` in\n{summary}");
        let row = if fail > 0 { format!("<tr class=\"fail\"><th>{name}<br>") } else { format!("<tr><th>{name}<br>") };
        assert!(litmus.contains(&row), "{name}: no `{row}`");
        assert_eq!(litmus.contains(&format!("<b>{fail} FAIL</b>")), fail > 0, "{name}");
        assert_eq!(o.status.code(), Some(if fail > 0 { 1 } else { 0 }));
    }
    let ledger = spec().errata;
    let compilers = crate::support::client_folders("litmus.json");
    assert!(compilers.len() >= 3, "LLVM 19, LLVM 22 and nvcc 13.5: {compilers:?}");
    let mut findings = 0;
    for c in &compilers {
        let name = c.file_name().unwrap().to_string_lossy().into_owned();
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(c.join("litmus.json")).unwrap()).unwrap();
        let s = &doc["summary"];
        let (tests, judged, forbids, found) = (s["tests"].as_u64().unwrap(), s["judged"].as_u64().unwrap(), s["source_forbids"].as_u64().unwrap(), s["findings"].as_u64().unwrap());
        let start = format!("  {name:<42} {tests} tests, {judged} judged, {forbids} where the source forbids an outcome: {} forbidden by the PTX too, {found} findings", forbids - found);
        assert!(summary.contains(&start), "{name}: no `{start}` in\n{summary}");
        assert!(summary.contains(&format!("; {} not judged", tests - judged)));
        for t in doc["tests"].as_array().unwrap().iter().filter(|t| t["finding"] == true) {
            let key = format!("litmus:{name}:{}", t["id"].as_str().unwrap());
            let e = ledger.errata.iter().find(|e| e.disagreements.contains(&key)).unwrap_or_else(|| panic!("{key}: not in the ledger"));
            let row = format!("<tr><td><code>{}</code></td>", t["id"].as_str().unwrap());
            let at = litmus.find(&format!("id=\"{}\"", ptxvec_generator::grade::html::anchor("litmus-compiler", &name))).unwrap();
            let shown = &litmus[at..];
            let r = &shown[shown.find(&row).unwrap_or_else(|| panic!("{key}: no row"))..];
            assert!(r[..r.find("</tr>").unwrap()].contains(&format!("<strong>{}</strong>", e.id)), "{key}: {} not shown", e.id);
            findings += 1;
        }
    }
    assert!(findings > 0, "LLVM's dropped seq_cst");
    assert!(!litmus.contains("no ledger entry lists it"));
}

/// A results file with a forbidden outcome makes a FAIL row, the axiom the test's
/// record names beside it; a compiler's finding the ledger does not list is marked
/// FAIL; a test with no line and no account is counted as not run.
#[test]
fn a_forbidden_litmus_outcome_makes_a_fail_row_on_the_dashboard() {
    let dir = tempfile::tempdir().unwrap();
    let clients = dir.path().join("clients");
    let engine = clients.join("fixture-engine");
    std::fs::create_dir_all(&engine).unwrap();
    // MP with release/acquire at .gpu across clusters: the stale read (flag 1,
    // data 0) is forbidden.
    let id = "MP/rel_acq/gpu/other_clusters";
    std::fs::write(
        engine.join("litmus-results.jsonl"),
        format!("{{\"id\":\"{id}\",\"outcomes\":[{{\"regs\":{{\"1:r0\":1,\"1:r1\":0}},\"mem\":{{\"x\":1,\"y\":1}},\"count\":3}},{{\"regs\":{{\"1:r0\":1,\"1:r1\":1}},\"mem\":{{\"x\":1,\"y\":1}},\"count\":5}}]}}\n"),
    )
    .unwrap();
    // A compiler whose findings no ledger entry lists: LLVM 22's report under
    // another name.
    let cc = clients.join("fixture-cc");
    std::fs::create_dir_all(cc.join("modules")).unwrap();
    let llvm = repo_root().join("vectors/clients/llvm-22.1.0");
    std::fs::copy(llvm.join("manifest.json"), cc.join("manifest.json")).unwrap();
    for e in std::fs::read_dir(llvm.join("modules")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, cc.join("modules").join(p.file_name().unwrap())).unwrap();
    }
    let report = std::fs::read_to_string(llvm.join("litmus.json")).unwrap().replace("\"compiler\": \"llvm-22.1.0\"", "\"compiler\": \"fixture-cc\"");
    std::fs::write(cc.join("litmus.json"), &report).unwrap();
    let page = dir.path().join("d.html");
    let o = ptxvec().current_dir(repo_root()).args(["grade", "--clients"]).arg(&clients).arg("--html").arg(&page).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    let summary = stdout(&o);
    let tests = ptxvec_generator::grade::litmus::load(&repo_root().join("vectors")).unwrap();
    let record = &tests[id];
    let f = record.forbidden.iter().find(|f| f.regs["1:r0"] == 1 && f.regs["1:r1"] == 0).expect("the stale read is forbidden");
    assert!(summary.contains(&format!("  {:<42} {}", "fixture-engine", litmus_line(1, 0, 1, 0, 0, tests.len() - 1))), "{summary}");
    assert!(html.contains("<tr class=\"fail\"><th>fixture-engine<br>"));
    assert!(html.contains("<b>1 FAIL</b>"));
    let row = format!("<tr class=\"fail\"><td class=\"fail\"><b>FAIL</b></td><td><code>{id}</code><br><small>8 runs</small></td><td>1 forbidden</td>");
    let at = html.find(&row).unwrap_or_else(|| panic!("no `{row}`"));
    let detail = &html[at..at + html[at..].find("</table></details>").unwrap()];
    assert!(detail.contains(&format!("forbidden: {}", f.axioms.join(", "))), "{detail}");
    assert!(detail.contains("<td class=\"msg\">1:r0=1 1:r1=0 | x=1 y=1</td><td class=\"n\">3</td>"), "{detail}");
    let doc: serde_json::Value = serde_json::from_str(&report).unwrap();
    let found = doc["summary"]["findings"].as_u64().unwrap() as usize;
    assert!(found > 0);
    assert_eq!(html.matches("<b>FAIL</b>: no ledger entry lists it").count(), found);
    assert!(summary.contains(&format!("{found} findings, {found} not in the errata ledger")), "{summary}");
    // A bad line or a corrupt account is an input error at its place; the page is
    // left as it was.
    let results = engine.join("litmus-results.jsonl");
    let good = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, format!("{good}{{\"id\": 7}}\n")).unwrap();
    let o = ptxvec().current_dir(repo_root()).args(["grade", "--clients"]).arg(&clients).arg("--html").arg(&page).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{}:2:", results.display())), "{}", stderr(&o));
    std::fs::write(&results, good).unwrap();
    std::fs::write(engine.join("litmus-runs.json"), "{\"engine\": \"x\",\n \"ran\": 3}").unwrap();
    let o = ptxvec().current_dir(repo_root()).args(["grade", "--clients"]).arg(&clients).arg("--html").arg(&page).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{}:2:", engine.join("litmus-runs.json").display())), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&page).unwrap(), html);
}
