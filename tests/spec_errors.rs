//! One bad fixture per class of spec error (tests/fixtures/spec/invalid). Each is
//! dropped into a copy of the real spec; the load must fail, at the fixture's line
//! and column, naming the offending key and the expected shape. The full messages
//! are insta snapshots named after the fixture.

use std::fs;
use std::path::{Path, PathBuf};

use ptxvec_spec::{Spec, SpecError};

use crate::spec_root;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/spec/invalid")
}

/// A copy of the real spec with the fixture in place, in a temporary folder.
fn spec_with(fixture: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = spec_root();
    let copy = |from: &Path, to: &Path| fs::copy(from, to).expect("copy spec file");
    fs::create_dir(dir.path().join("seeds")).expect("mkdir");
    for entry in fs::read_dir(root.join("seeds")).expect("seeds") {
        let p = entry.expect("entry").path();
        copy(
            &p,
            &dir.path().join("seeds").join(p.file_name().expect("name")),
        );
    }
    copy(&root.join("errata.yaml"), &dir.path().join("errata.yaml"));
    fs::create_dir(dir.path().join("instructions")).expect("mkdir");
    for entry in fs::read_dir(root.join("instructions")).expect("instructions") {
        let p = entry.expect("entry").path();
        copy(
            &p,
            &dir.path()
                .join("instructions")
                .join(p.file_name().expect("name")),
        );
    }
    let src = fixture_dir().join(format!("{fixture}.yaml"));
    if fixture.starts_with("targets_") {
        copy(&src, &dir.path().join("targets.yaml"));
    } else {
        copy(&root.join("targets.yaml"), &dir.path().join("targets.yaml"));
        copy(&src, &dir.path().join("instructions").join("fixture.yaml"));
    }
    dir
}

/// Loads the fixture's spec; returns the errors with the temporary path made stable.
fn errors(fixture: &str) -> (Vec<SpecError>, String) {
    let dir = spec_with(fixture);
    let errs = match Spec::load(dir.path()) {
        Ok(_) => panic!("fixture {fixture} loaded without error"),
        Err(e) => e,
    };
    let text = errs
        .to_string()
        .replace(&dir.path().display().to_string(), "<spec>");
    (errs.0, text)
}

/// (fixture, file:line:column of the first error, words the message must hold)
const CASES: &[(&str, &str, &str)] = &[
    (
        "yaml_syntax",
        "instructions/fixture.yaml:3:10",
        "invalid indentation in quoted scalar",
    ),
    (
        "unknown_field",
        "instructions/fixture.yaml:6:5",
        "unknown field `formz`, expected `sets` or `forms`",
    ),
    (
        "wrong_shape",
        "instructions/fixture.yaml:6:12",
        "invalid type: string \"activemask.b32 d;\", expected a sequence",
    ),
    (
        "missing_field",
        "instructions/fixture.yaml:7:9",
        "missing field `syntax`",
    ),
    (
        "unknown_qualifier",
        "instructions/fixture.yaml:7:27",
        "unknown qualifier `.fma`",
    ),
    (
        "unquoted_version",
        "instructions/fixture.yaml:13:22",
        "must be a quoted string (\"6.2\")",
    ),
    (
        "bad_target",
        "instructions/fixture.yaml:13:37",
        "`sm_3` is not a target",
    ),
    (
        "bad_syntax_line",
        "instructions/fixture.yaml:11:18",
        "syntax line `redux.sync.op{.abs.}{.NaN}.f32",
    ),
    (
        "source_two_witnesses",
        "instructions/fixture.yaml:5:6",
        "a source names exactly one of `seed`",
    ),
    (
        "rule_two_effects",
        "instructions/fixture.yaml:12:9",
        "rule `base`: expected exactly one of `requires`",
    ),
    (
        "targets_unknown_family_member",
        "targets.yaml:8:24",
        "sm_105f is not a family-specific target listed under `targets`",
    ),
];

#[test]
fn each_bad_fixture_fails_at_its_line_with_the_expected_words() {
    let mut failures = Vec::new();
    for &(fixture, at, words) in CASES {
        let (errs, text) = errors(fixture);
        let first = errs
            .first()
            .and_then(SpecError::location)
            .map(|l| l.to_string())
            .unwrap_or_default();
        let first = first.rsplit_once("/instructions/").map_or_else(
            || {
                first
                    .rsplit_once('/')
                    .map_or(first.clone(), |(_, f)| f.to_owned())
            },
            |(_, f)| format!("instructions/{f}"),
        );
        if first != at {
            failures.push(format!(
                "{fixture}: first error at {first}, expected {at}\n{text}"
            ));
        }
        if !text.contains(words) {
            failures.push(format!("{fixture}: message lacks {words:?}\n{text}"));
        }
        insta::assert_snapshot!(fixture, text);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn cross_reference_errors_are_all_reported_each_at_its_own_line() {
    let (errs, text) = errors("cross_references");
    let got: Vec<(usize, &str)> = errs
        .iter()
        .map(|e| match e {
            SpecError::Invalid { at, message } => (at.line, message.as_str()),
            other => panic!("unexpected error kind: {other}"),
        })
        .collect();
    let expect: &[(usize, &str)] = &[
        (5, "unknown seed `999`"),
        (9, "no syntax line of this group uses `.unused`"),
        (13, "placeholder `.type` has no set"),
        (14, "operand `membermask` of the syntax line has no entry"),
        (14, "`type` is not a type placeholder of this line"),
        (15, "unknown erratum `E999`"),
        (16, "duplicate form id `f`"),
        (17, "differs from `syntax` beyond whitespace"),
        (22, "unknown form `nope`"),
        (23, "no form it applies to can hold `.xor`"),
        (24, "sm_81 is not in spec/targets.yaml"),
        (
            27,
            "names the `form` it instantiates, or is marked `context: true`",
        ),
    ];
    for (line, words) in expect {
        assert!(
            got.iter().any(|(l, m)| l == line && m.contains(words)),
            "no error at line {line} saying {words:?}; got:\n{text}"
        );
    }
    assert_eq!(got.len(), expect.len(), "{text}");
    insta::assert_snapshot!("cross_references", text);
}

#[test]
fn a_missing_spec_file_is_an_error_that_names_it() {
    let dir = spec_with("unknown_field");
    fs::remove_file(dir.path().join("errata.yaml")).expect("rm");
    let errs = Spec::load(dir.path()).expect_err("no errata.yaml");
    assert!(
        errs.0
            .iter()
            .any(|e| matches!(e, SpecError::Io { path, .. } if path.ends_with("errata.yaml"))),
        "{errs}"
    );
}
