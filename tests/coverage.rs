//! `ptxvec coverage` on the committed vectors and on vectors with a planted hole.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn coverage(vectors: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxvec"))
        .arg("coverage")
        .arg("--vectors")
        .arg(vectors)
        .args(extra)
        .current_dir(repo_root())
        .output()
        .expect("run ptxvec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `coverage --mutants --html` on the committed vectors, run once for the tests that
/// read it: its stdout, stderr, exit status and page.
struct Committed {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    html: String,
}

fn committed() -> &'static Committed {
    static RUN: std::sync::OnceLock<Committed> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("coverage.html");
        let out = coverage(&repo_root().join("vectors"), &["--mutants", "--html", page.to_str().unwrap()]);
        Committed {
            stdout: text(&out.stdout),
            stderr: text(&out.stderr),
            code: out.status.code(),
            html: std::fs::read_to_string(&page).unwrap_or_default(),
        }
    })
}

/// Every element has the witnesses it needs and every defect class that a line
/// can carry is applied to it: exit 0, no hole. The witnesses that wait for
/// silicon are the ones the evidence says no device here could give: the four
/// `.f32` notes of redux.sync, whose variants vectors/silicon/sm_90/vectors.json
/// marks `not_run` (they need sm_100a or sm_100f). E025 rests on the probe's
/// record (cluster-probe.json), a row per variant.
///
/// With `--mutants` (the run .ci/run relies on; it has no step of its own): every
/// mutant of the spec is killed, and the line saying so is printed.
#[test]
fn the_committed_vectors_leave_no_hole() {
    let run = committed();
    let stdout = &run.stdout;
    assert_eq!(run.code, Some(0), "{stdout}{}", run.stderr);
    assert!(!stdout.contains("hole:"), "{stdout}");
    let adequacy = stdout.lines().find(|l| l.starts_with("mutation adequacy: ")).unwrap();
    eprintln!("{adequacy}");
    assert!(adequacy.contains(" 0 survivors"), "{adequacy}");
    let all = stdout.lines().find(|l| l.starts_with("all ")).unwrap();
    assert!(all.trim_end().ends_with(" 0"), "{all}");
    let mut awaiting: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("awaiting: "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    awaiting.sort_unstable();
    assert_eq!(
        awaiting,
        [
            "redux.sync#abs",
            "redux.sync#nan_propagates",
            "redux.sync#nan_skipped",
            "redux.sync#signed_zero"
        ],
        "{stdout}"
    );
    assert!(stdout.contains("needs silicon sm_100a (PTX 8.6) or sm_100f (PTX 8.8): "));
}

/// E025's silicon witnesses are the rows of vectors/silicon/sm_90/cluster-probe.json,
/// which its evidence cites: the committed page's E025 row names them, and without
/// that file the finding awaits silicon again.
#[test]
fn e025_rests_on_the_cluster_probe() {
    let html = &committed().html;
    let row = html
        .lines()
        .find(|l| l.contains("<tr id=\"E025\""))
        .unwrap_or_else(|| panic!("no E025 row in:\n{html}"));
    assert!(
        row.contains("silicon:sm_90:cluster-probe:cp.reduce.async.bulk.shared::cluster"),
        "{row}"
    );
    let src = repo_root().join("vectors");
    let dir = tempfile::tempdir().unwrap();
    let copy = |from: &Path, to: &Path| {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    };
    copy(&src, dir.path());
    copy(&src.join("syntax"), &dir.path().join("syntax"));
    copy(&src.join("silicon/sm_90"), &dir.path().join("silicon/sm_90"));
    std::fs::remove_file(dir.path().join("silicon/sm_90/cluster-probe.json")).unwrap();
    let out = coverage(dir.path(), &[]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("awaiting: E025 (sm_90): its silicon evidence (vectors/silicon/sm_90/cluster-probe.json:3)"),
        "{stdout}"
    );
}

/// Take away every case of one defect class of one line, and the matrix and the
/// element it witnessed say so: exit 1, the hole named.
#[test]
fn a_planted_hole_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let src = repo_root().join("vectors");
    std::fs::create_dir_all(dir.path().join("syntax")).unwrap();
    std::fs::copy(src.join("index.json"), dir.path().join("index.json")).unwrap();
    for entry in std::fs::read_dir(src.join("syntax")).unwrap() {
        let path = entry.unwrap().path();
        let body = std::fs::read_to_string(&path).unwrap();
        // redux.sync's `.f32` line without its `.f32`, and every `set.packed_type`
        // case of red's packed vector line.
        let kept: String = body
            .lines()
            .filter(|l| {
                !l.contains("\"id\":\"redux.sync/f32/.min.f32!qualifier.required:.f32\"")
                    && !l.contains("\"rule\":\"set.packed_type\"")
            })
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(dir.path().join("syntax").join(path.file_name().unwrap()), kept).unwrap();
    }
    let out = coverage(dir.path(), &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    for hole in [
        "hole: redux.sync/f32/.f32 (qualifier position): no illegal witness",
        "hole: red/vector_packed × set.packed_type",
        "hole: redux.sync/f32 × qualifier.required",
    ] {
        assert!(stdout.contains(hole), "no `{hole}` in:\n{stdout}");
    }
    // Without silicon evidence, the silicon witnesses are holes, not awaiting.
    assert!(stdout.contains("hole: E021 (erratum): no silicon witness"), "{stdout}");
}

/// `--html` writes one page with a row per element, anchored by its id, and the
/// matrix.
#[test]
fn the_html_page_has_a_row_per_element() {
    let run = committed();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let html = &run.html;
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for id in [
        "id=\"red-scalar-.op-.add\"",
        "id=\"E025\"",
        "<h2>Defect class × form</h2>",
        "class=\"awaiting\"",
    ] {
        assert!(html.contains(id), "no {id}");
    }
    let rows = html.matches("<tr id=").count();
    let summary = &run.stdout;
    let all: usize = summary
        .lines()
        .find(|l| l.starts_with("all "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert_eq!(rows, all);
}
