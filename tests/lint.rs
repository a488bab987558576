//! `ptxvec lint` as a user runs it: exit codes, diagnostics, the JSON document,
//! input errors; and, under `cfg(ptxas)`, its verdict on whole modules against
//! ptxas's exit status.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{repo_root, text};

const FIXTURES: &str = "tests/fixtures/lint";

/// `ptxvec lint ARGS`, from the repository root, with `stdin` on its stdin.
fn lint(args: &[&str], stdin: &[u8]) -> Output {
    let all: Vec<&str> = std::iter::once("lint").chain(args.iter().copied()).collect();
    crate::support::run_with_stdin(&all, stdin)
}

/// A module of one entry whose body holds `body`.
fn module(version: &str, target: &str, body: &str) -> String {
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n\n.visible .entry k(.param .u64 p)\n{{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r2, 7;\n\
         \t{body}\n\tret;\n}}\n"
    )
}

#[test]
fn legal_modules_exit_0_with_a_summary_on_stderr() {
    let out = lint(&[&format!("{FIXTURES}/nvcc/warp.sm_90.ptx95.ptx"), &format!("{FIXTURES}/legal/lexical.ptx")], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    // lexical.ptx: ld, mov, mov, setp, red, shfl, vote, activemask, red.async,
    // cp.reduce.async.bulk.tensor, cp.reduce.async.bulk, bra, ret.
    assert!(
        err.contains("legal/lexical.ptx: 13 instructions, 6 covered judged, 0 illegal (.version 8.6, .target sm_90a)"),
        "{err}"
    );
    assert!(err.contains("nvcc/warp.sm_90.ptx95.ptx: "), "{err}");
}

#[test]
fn an_illegal_instruction_ptxas_refuses_exits_1_at_its_line_and_column() {
    // ptxas 13.5, -arch=sm_90: "ptxas illegal/redux_min_b32.ptx, line 16; error   :
    // Incorrect type '.b32' for operation '.min' in instruction 'redux'" (cited in
    // the fixture); -arch=sm_75 on redux_needs_sm80.ptx, line 14: "Feature 'redux'
    // requires .target sm_80 or higher".
    let out = lint(&[&format!("{FIXTURES}/illegal/redux_min_b32.ptx"), &format!("{FIXTURES}/illegal/redux_needs_sm80.ptx")], b"");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&format!("{FIXTURES}/illegal/redux_min_b32.ptx:16:2: illegal: set.type: `.b32`")), "{lines:?}");
    assert!(lines[1].starts_with(&format!("{FIXTURES}/illegal/redux_needs_sm80.ptx:14:2: illegal: base: ")), "{lines:?}");
    assert!(text(&out.stderr).contains("redux_min_b32.ptx: 6 instructions, 2 covered judged, 1 illegal"));
}

#[test]
fn order_is_a_warning_unless_strict() {
    let file = format!("{FIXTURES}/legal/order_warning.ptx");
    let lenient = lint(&[&file], b"");
    assert_eq!(lenient.status.code(), Some(0), "{}", text(&lenient.stderr));
    assert_eq!(
        text(&lenient.stdout),
        format!("{file}:14:2: warning: qualifiers not in the document's order `red.global.add.u32`\n")
    );
    let strict = lint(&["--strict", &file], b"");
    assert_eq!(strict.status.code(), Some(1));
    assert!(text(&strict.stdout).starts_with(&format!("{file}:14:2: illegal: qualifier.order: ")), "{}", text(&strict.stdout));
}

#[test]
fn stdin_is_read_for_a_dash() {
    let m = module("8.6", "sm_90", "redux.sync.min.b32 %r1, %r2, 0xffffffff;");
    let out = lint(&["-"], m.as_bytes());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("<stdin>:13:2: illegal: set.type: "), "{}", text(&out.stdout));
    let twice = lint(&["-", "-"], m.as_bytes());
    assert_eq!(twice.status.code(), Some(2));
}

#[test]
fn json_has_every_file_with_counts_not_covered_and_diagnostics() {
    let m = module("8.6", "sm_90", "redux.sync.min.b32 %r1, %r2, 0xffffffff; red.add.global.u32 [%rd1], %r2; add.u32 %r3, %r2, 1;");
    let out = lint(&["--json", "-", &format!("{FIXTURES}/legal/lexical.ptx"), "no/such.ptx"], m.as_bytes());
    // The file that does not exist makes it an input error, after the document.
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let f = &files[0];
    assert_eq!(f["file"], "<stdin>");
    assert_eq!(f["ptx"], "8.6");
    assert_eq!(f["target"], "sm_90");
    assert_eq!(f["counts"], serde_json::json!({"instructions": 6, "covered": 2, "illegal": 1}));
    // Sorted by opcode.
    assert_eq!(f["not_covered"], serde_json::json!({"add": 1, "ld": 1, "mov": 1, "ret": 1}));
    let keys: Vec<&String> = f["not_covered"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["add", "ld", "mov", "ret"]);
    let d = f["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 2);
    assert_eq!(d[0]["line"], 13);
    assert_eq!(d[0]["column"], 2);
    assert_eq!(d[0]["text"], "redux.sync.min.b32 %r1, %r2, 0xffffffff;");
    assert_eq!(d[0]["instruction"], "redux.sync");
    assert_eq!(d[0]["legal"], false);
    assert_eq!(d[0]["kind"], "invalid");
    assert_eq!(d[0]["rule"], "set.type");
    assert!(d[0]["form"].is_string());
    // The second statement on the line: its own column.
    assert_eq!(d[1]["column"], 43);
    assert_eq!(d[1]["legal"], true);
    assert_eq!(d[1]["message"], "legal");
    assert_eq!(d[1]["warnings"].as_array().unwrap().len(), 1);
    assert!(files[1]["not_covered"]["red.async"].is_null(), "{}", files[1]);
    assert_eq!(files[1]["not_covered"]["cp.reduce.async.bulk.tensor"], 1);
    assert!(files[2]["error"].as_str().unwrap().starts_with("no/such.ptx: "), "{}", files[2]);
    // The same input gives the same bytes.
    let again = lint(&["--json", "-", &format!("{FIXTURES}/legal/lexical.ptx"), "no/such.ptx"], m.as_bytes());
    assert_eq!(again.stdout, out.stdout);
}

#[test]
fn a_ptxas_departure_is_noted() {
    // E019 (spec/errata.yaml): ptxas 13.5 accepts `.sync` written twice
    // (`redux.sync.add.sync.u32`), which no syntax line has.
    let m = module("8.6", "sm_90", "redux.sync.add.sync.u32 %r1, %r2, 0xffffffff;");
    let out = lint(&["-"], m.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let line = text(&out.stdout);
    assert!(line.starts_with("<stdin>:13:2: illegal: qualifier.not_allowed: "), "{line}");
    assert!(line.trim_end().ends_with("(ptxas 13.5 accepts this: E019)"), "{line}");
    let json = lint(&["--json", "-"], m.as_bytes());
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["files"][0]["diagnostics"][0]["ptxas"], serde_json::json!({"accepts": true, "erratum": "E019"}));
}

#[test]
fn bad_input_exits_2_naming_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let body = "\n.visible .entry k() { ret; }\n";
    // (file name, bytes, the error's text after the path)
    let rows: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.ptx", b"".to_vec(), ":1:1: expected `.version` at the start of the module, found the end of the file"),
        ("no_version.ptx", format!(".target sm_90{body}").into_bytes(), ":1:1: expected `.version` at the start of the module, found `.target`"),
        ("no_target.ptx", format!(".version 8.6{body}").into_bytes(), ":2:1: expected `.target` after `.version`, found `.visible`"),
        ("unknown_target.ptx", format!(".version 8.6\n.target sm_91{body}").into_bytes(), ":2:9: unknown target sm_91: spec/targets.yaml does not list it"),
        ("unknown_version.ptx", format!(".version 9.9\n.target sm_90{body}").into_bytes(), ":1:10: unknown PTX ISA version 9.9"),
        ("refused_pair.ptx", format!(".version 6.0\n.target sm_90{body}").into_bytes(), ":2:9: .version 6.0 cannot name .target sm_90"),
        ("two_arches.ptx", format!(".version 8.6\n.target sm_90, sm_80{body}").into_bytes(), ":2:16: expected one architecture in `.target`"),
        ("not_utf8.ptx", b".version 8.6\n.target sm_90\n// caf\xe9\n".to_vec(), ":3:7: not UTF-8 (byte 0xe9)"),
        ("open_comment.ptx", format!(".version 8.6\n.target sm_90{body}/* never closed").into_bytes(), ":4:1: expected `*/` to close this comment"),
        ("not_ptx.ptx", b"hello, world\n".to_vec(), ":1:1: expected `.version` at the start of the module, found `hello,`"),
        ("binary.ptx", b"\x7fELF\x02\x01\x01\0\0\0".to_vec(), ":1:1: expected `.version` at the start of the module, found `\\u{7f}ELF"),
        ("no_semicolon.ptx", b".version 8.6\n.target sm_90\n.visible .entry k() {\n  ret\n}\n".to_vec(), ":4:3: expected `;` to end this instruction before the `}`"),
    ];
    for (name, bytes, want) in &rows {
        let path = write(name, bytes);
        let out = lint(&[path.to_str().unwrap()], b"");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        let expected = format!("error: {}{want}", path.display());
        assert!(err.starts_with(&expected), "{name}:\n got {err}\nwant {expected}");
        assert!(out.stdout.is_empty(), "{name}");
    }
    // A folder, and a file among good ones: the good one is still linted.
    let good = write("good.ptx", module("8.6", "sm_90", "activemask.b32 %r1;").as_bytes());
    let out = lint(&[dir.path().to_str().unwrap(), good.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("error: {}: a folder, not a PTX file", dir.path().display())), "{err}");
    assert!(err.contains("good.ptx: 4 instructions, 1 covered judged, 0 illegal"), "{err}");
}

/// ptxas's and lint's answers on one module: whether ptxas accepts it, lint's exit
/// status, whether lint predicts ptxas accepts it (every illegal instruction has
/// the ledger's `ptxas.accepts`), and what both said.
fn both(ptxas: &Path, dir: &Path, name: &str, m: &str) -> (bool, Option<i32>, bool, String) {
    let file = dir.join(name);
    std::fs::write(&file, m).unwrap();
    let target = m.lines().find_map(|l| l.strip_prefix(".target ")).unwrap().split(',').next().unwrap().trim();
    let p = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .args(["-o", "/dev/null"])
        .arg(&file)
        .output()
        .unwrap();
    let l = lint(&["--json", file.to_str().unwrap()], b"");
    let doc: serde_json::Value = serde_json::from_slice(&l.stdout).unwrap();
    let predicts_accepted = doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["legal"] == true || d["ptxas"]["accepts"] == true);
    let said = format!("ptxas: {}lint: {}{}", text(&p.stderr), text(&l.stdout), text(&l.stderr));
    (p.status.success(), l.status.code(), predicts_accepted, said)
}

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
)]
fn lint_agrees_with_ptxas_on_whole_modules() {
    let ptxas = ptxvec_generator::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    // (name, module): each legal or illegal only through its covered instructions.
    let mut rows: Vec<(String, String)> = vec![
        ("redux_legal", module("8.6", "sm_90", "redux.sync.add.u32 %r1, %r2, 0xffffffff;")),
        ("redux_min_b32", module("8.6", "sm_90", "redux.sync.min.b32 %r1, %r2, 0xffffffff;")),
        ("redux_sm75", module("8.6", "sm_75", "redux.sync.add.u32 %r1, %r2, 0xffffffff;")),
        ("red_f64_from_b32", module("8.6", "sm_90", "red.global.add.f64 [%rd1], %r2;")),
        ("red_out_of_order", module("8.6", "sm_90", "red.add.global.u32 [%rd1], %r2;")),
        ("shfl_guarded", module("8.6", "sm_90", "@!%p1 shfl.sync.bfly.b32 %r1|%p2, %r2, 1, 0x1f, 0xffffffff;")),
        ("vote_and_mask", module("8.6", "sm_90", "vote.sync.ballot.b32 %r1, %p1, 0xffffffff; /* x; */ activemask.b32 %r3;")),
        ("match_sm90", module("8.6", "sm_90", "match.any.sync.b32 %r1, %r2, 0xffffffff;")),
        ("bulk_reduce", module("8.6", "sm_90", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r2], 16;")),
        // E019: illegal by the syntax lines, and the ledger predicts ptxas accepts it.
        ("redux_sync_twice", module("8.6", "sm_90", "redux.sync.add.sync.u32 %r1, %r2, 0xffffffff;")),
        ("bulk_reduce_sm80", module("8.6", "sm_80", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%r2], 16;")),
    ]
    .into_iter()
    .map(|(n, m)| (n.to_owned(), m))
    .collect();
    for entry in std::fs::read_dir(repo_root().join(FIXTURES).join("nvcc")).unwrap() {
        let path = entry.unwrap().path();
        rows.push((path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&path).unwrap()));
    }
    for sub in ["legal", "illegal"] {
        for entry in std::fs::read_dir(repo_root().join(FIXTURES).join(sub)).unwrap() {
            let path = entry.unwrap().path();
            rows.push((format!("{sub}_{}", path.file_name().unwrap().to_string_lossy()), std::fs::read_to_string(&path).unwrap()));
        }
    }
    let mut seen = (0, 0);
    for (name, m) in &rows {
        let name = if name.ends_with(".ptx") { name.clone() } else { format!("{name}.ptx") };
        let (accepts, status, predicted, said) = both(&ptxas, dir.path(), &name, m);
        assert!(matches!(status, Some(0 | 1)), "{name}: {said}");
        // Legal modules ptxas takes; illegal ones it refuses, unless the ledger
        // says it departs there.
        assert_eq!(predicted, accepts, "{name}: ptxas accepts: {accepts}, lint's status {status:?}\n{said}");
        if accepts { seen.0 += 1 } else { seen.1 += 1 }
    }
    // Both verdicts are exercised.
    assert!(seen.0 >= 5 && seen.1 >= 4, "{seen:?}");
}

/// The recorded compilers' folders (vectors/clients/*/manifest.json), in name order.
fn compiler_folders() -> Vec<PathBuf> {
    let dirs = crate::support::client_folders("manifest.json");
    assert!(dirs.len() >= 4, "LLVM 19, LLVM 22, nvcc 13.5 and Triton 3.9: {dirs:?}");
    dirs
}

/// Each compiler's `lint.json` is what `ptxvec lint --json` says of its modules
/// now (the README's command: `LC_ALL=C`, modules in byte order).
#[test]
fn the_recorded_lint_results_are_current() {
    for dir in compiler_folders() {
        let mut modules: Vec<String> = std::fs::read_dir(dir.join("modules"))
            .unwrap()
            .map(|e| format!("modules/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        modules.sort();
        let o = Command::new(env!("CARGO_BIN_EXE_ptxvec"))
            .args(["lint", "--json", "--spec"])
            .arg(repo_root().join("spec"))
            .args(&modules)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}: {}", dir.display(), text(&o.stderr));
        let want = std::fs::read_to_string(dir.join("lint.json")).unwrap();
        assert!(
            text(&o.stdout) == want,
            "{}/lint.json is stale: rerun the command in vectors/clients/README.md",
            dir.display()
        );
    }
}

/// docs/conformance.md's compiler table is what linting the recorded modules
/// and comparing with their recorded ptxas verdicts gives now; lint agrees with
/// ptxas on every module ptxas judged line by line.
#[test]
fn the_compiler_conformance_table_is_current() {
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let clients = repo_root().join("vectors/clients");
    for dir in compiler_folders() {
        for c in ptxvec_generator::grade::conformance_compiler::check(&spec, &dir).unwrap() {
            assert!(
                !matches!(c.ptxas, ptxvec_generator::grade::conformance_compiler::Agreement::Differs(_)),
                "{}/{}: lint and ptxas differ: {:?}",
                dir.display(),
                c.module,
                c.ptxas
            );
        }
    }
    let want = ptxvec_generator::grade::conformance_compiler::table(&spec, &clients).unwrap();
    let readme = std::fs::read_to_string(repo_root().join("docs/conformance.md")).unwrap();
    let (begin, end) = ("<!-- conformance-compiler -->\n", "<!-- /conformance-compiler -->");
    let start = readme.find(begin).expect("a compiler conformance table in docs/conformance.md") + begin.len();
    let stop = readme[start..].find(end).expect("its end marker") + start;
    assert_eq!(&readme[start..stop], want, "docs/conformance.md's compiler conformance table is stale; it is now:\n{want}");
}
