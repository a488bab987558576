//! The target model against ptxas: for every target an installed ptxas knows, the
//! model's first `.version` assembles and the version below does not. ptxas is found
//! through PTXVEC_PTXAS (CUDA 13.5) and PTXVEC_PTXAS_CU12 (CUDA 12.9, for targets
//! below sm_75 and the withdrawn sm_101*), as .ci/run sets them. The test runs under
//! `cfg(ptxas)` (generator/build.rs), where a missing ptxas is a failure; elsewhere it
//! is listed as ignored.

use std::path::PathBuf;
use std::process::Command;

use ptxvec_generator::ptxas;
use ptxvec_spec::{PtxVersion, Spec, Target};

use crate::spec_root;

/// Every PTX ISA version, in order (PTX ISA release history).
const VERSIONS: &[&str] = &[
    "1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "2.0", "2.1", "2.2", "2.3", "3.0", "3.1", "3.2",
    "4.0", "4.1", "4.2", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1",
    "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5",
    "8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3", "9.4", "9.5",
];

/// Whether ptxas assembles an empty kernel at this `.version` and `.target`.
fn assembles(
    ptxas: &PathBuf,
    version: &str,
    target: Target,
    dir: &std::path::Path,
) -> (bool, String) {
    declares(ptxas, version, target, "", dir)
}

/// Whether ptxas assembles a kernel whose body is `body` at this `.version` and
/// `.target`.
fn declares(
    ptxas: &PathBuf,
    version: &str,
    target: Target,
    body: &str,
    dir: &std::path::Path,
) -> (bool, String) {
    let file = dir.join(format!("{target}_{version}_{}.ptx", body.len()));
    let text = format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k() {{ {body} ret; }}\n"
    );
    std::fs::write(&file, text).expect("write ptx");
    let out = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .expect("run ptxas");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS and PTXVEC_PTXAS_CU12 (bash .ci/run does)"
)]
fn first_versions_agree_with_ptxas() {
    let cu13 = ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let cu12 = ptxas::from_env("PTXVEC_PTXAS_CU12").unwrap_or_else(|e| panic!("{e}"));
    let spec = Spec::load(&spec_root()).unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    let mut checked = 0;
    for info in &spec.targets.targets {
        // The recorded probe says which ptxas knows the target; older ones none does.
        let Some(probe) = &info.ptxas else { continue };
        let assembler = if probe.version == "13.5" {
            &cu13
        } else {
            &cu12
        };
        let first = info.ptx.to_string();
        let Some(i) = VERSIONS.iter().position(|v| *v == first) else {
            failures.push(format!("{}: {} is not a PTX ISA version", info.name, first));
            continue;
        };
        let (ok, msg) = assembles(assembler, &first, info.name, dir.path());
        if !ok {
            failures.push(format!(
                "{}: ptxas {} rejects .version {first}, the model's first:\n{msg}",
                info.name, probe.version
            ));
        }
        if i > 0 {
            let below = VERSIONS[i - 1];
            let model_rejects = spec
                .targets
                .check_version(below.parse::<PtxVersion>().expect("version"), info.name)
                .is_err();
            let (ok, _) = assembles(assembler, below, info.name, dir.path());
            if ok || !model_rejects {
                failures.push(format!(
                    "{}: .version {below} — ptxas accepts: {ok}, model rejects: {model_rejects}",
                    info.name
                ));
            }
        }
        checked += 1;
    }
    assert!(checked >= 35, "only {checked} targets compared with ptxas");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{checked} targets: first .version agrees with ptxas");
}

/// The register-class table's first versions (`syntax::text::CLASSES`, `since`):
/// on sm_90, ptxas 13.5 declares each class at sm_90's first `.version` or at the
/// class's own first one, whichever is later, and refuses it at the version below
/// a class's own.
#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS and PTXVEC_PTXAS_CU12 (bash .ci/run does)"
)]
fn register_classes_are_declared_from_their_first_version() {
    use ptxvec_generator::syntax::text::CLASSES;
    let cu13 = ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let spec = Spec::load(&spec_root()).unwrap_or_else(|e| panic!("{e}"));
    let sm_90: Target = "sm_90".parse().expect("target");
    let first = spec.targets.targets.iter().find(|t| t.name == sm_90).expect("sm_90 in the model").ptx;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut failures = Vec::new();
    for row in &CLASSES {
        let body = format!(".reg {} %x;", row.declared.spelling());
        let from = row.since.map_or(first, |v| v.max(first)).to_string();
        let (ok, msg) = declares(&cu13, &from, sm_90, &body, dir.path());
        if !ok {
            failures.push(format!("{}: refused at .version {from}:\n{msg}", row.prefix));
        }
        if let Some(since) = row.since {
            let i = VERSIONS.iter().position(|v| *v == since.to_string()).expect("a PTX ISA version");
            let (ok, _) = declares(&cu13, VERSIONS[i - 1], sm_90, &body, dir.path());
            if ok {
                failures.push(format!("{}: declared at .version {}, below its {since}", row.prefix, VERSIONS[i - 1]));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
