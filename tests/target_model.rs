//! The PTX ISA version and `.target` model, at its boundaries, on spec/targets.yaml.
//! Expected values come from the PTX ISA's .target notes and release history, and
//! from ptxas 13.5 (`--help` and the probes recorded in targets.yaml).

use ptxvec_spec::target::TargetVersionError;
use ptxvec_spec::{PtxVersion, Spec, Target, TargetModel};

use crate::spec_root;

fn model() -> TargetModel {
    Spec::load(&spec_root())
        .unwrap_or_else(|e| panic!("{e}"))
        .targets
}

fn t(s: &str) -> Target {
    s.parse().expect("test target")
}

fn v(s: &str) -> PtxVersion {
    s.parse().expect("test version")
}

#[test]
fn introducing_versions_at_the_boundary() {
    let m = model();
    // (target, first .version that may name it): PTX ISA .target notes.
    let table = [
        ("sm_75", "6.3"),
        ("sm_80", "7.0"),
        ("sm_86", "7.1"),
        ("sm_87", "7.4"),
        ("sm_88", "9.0"),
        ("sm_89", "7.8"),
        ("sm_90", "7.8"),
        ("sm_90a", "8.0"),
        ("sm_100", "8.6"),
        ("sm_100a", "8.6"),
        ("sm_100f", "8.8"),
        ("sm_101a", "8.6"),
        ("sm_103", "8.8"),
        ("sm_103a", "8.8"),
        ("sm_103f", "8.8"),
        ("sm_110", "9.0"),
        ("sm_110f", "9.0"),
        ("sm_120", "8.7"),
        ("sm_120a", "8.7"),
        ("sm_120f", "8.8"),
        ("sm_121", "8.8"),
        ("sm_121a", "8.8"),
        ("sm_121f", "8.8"),
    ];
    for (target, first) in table {
        let (target, first) = (t(target), v(first));
        assert_eq!(
            m.check_version(first, target),
            Ok(()),
            "{target} at {first}"
        );
        let below = PtxVersion::new(
            first.major - u8::from(first.minor == 0),
            if first.minor == 0 { 9 } else { first.minor - 1 },
        );
        assert!(
            matches!(
                m.check_version(below, target),
                Err(TargetVersionError::TooOld { .. })
            ),
            "{target} at {below} should be too old"
        );
    }
    // The issue's own example: `.version 8.5` cannot name sm_100a.
    assert!(m.check_version(v("8.5"), t("sm_100a")).is_err());
    assert!(m.check_version(v("9.5"), t("sm_100a")).is_ok());
}

#[test]
fn sm_101_is_withdrawn_from_9_0() {
    // PTX ISA 9.x: "Targets sm_{101,101f,101a} are renamed to targets sm_{110,110f,110a} from PTX ISA version 9.0."
    let m = model();
    assert_eq!(m.check_version(v("8.8"), t("sm_101a")), Ok(()));
    assert!(matches!(
        m.check_version(v("9.0"), t("sm_101a")),
        Err(TargetVersionError::Withdrawn { .. })
    ));
    assert!(matches!(
        m.check_version(v("9.0"), t("sm_99")),
        Err(TargetVersionError::Unknown(_))
    ));
}

#[test]
fn onion_rule_for_plain_requirements() {
    let m = model();
    let need = t("sm_90");
    for have in [
        "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_103a", "sm_120", "sm_121f",
    ] {
        assert!(m.satisfies(t(have), need), "{have} has sm_90's features");
    }
    for have in ["sm_89", "sm_88", "sm_87", "sm_80", "sm_75"] {
        assert!(!m.satisfies(t(have), need), "{have} lacks sm_90's features");
    }
}

#[test]
fn arch_specific_requirements_take_that_target_only() {
    let m = model();
    let need = t("sm_100a");
    assert!(m.satisfies(t("sm_100a"), need));
    for have in [
        "sm_100", "sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_120a", "sm_90a",
    ] {
        assert!(
            !m.satisfies(t(have), need),
            "{have} must not have sm_100a's features"
        );
    }
}

#[test]
fn family_requirements_take_the_same_family_equal_or_later() {
    let m = model();
    let need = t("sm_100f");
    // The example, and ptxas 13.5 on redux.sync.min.f32 (targets.yaml, families).
    for have in [
        "sm_100f", "sm_100a", "sm_103f", "sm_103a", "sm_107f", "sm_107a",
    ] {
        assert!(m.satisfies(t(have), need), "{have} is in sm_100f's family");
    }
    for have in [
        "sm_100", "sm_103", "sm_107", "sm_110f", "sm_120f", "sm_121f", "sm_90a",
    ] {
        assert!(!m.satisfies(t(have), need), "{have} is not");
    }
    // Equal or later within the family: sm_103f's features are not on sm_100f.
    assert!(!m.satisfies(t("sm_100f"), t("sm_103f")));
    assert!(m.satisfies(t("sm_121f"), t("sm_120f")));
    assert!(!m.satisfies(t("sm_120f"), t("sm_121f")));
    // sm_101f belongs to sm_11x (PTX ISA 9.1, Table 58), not to sm_10x.
    assert!(!m.satisfies(t("sm_101f"), t("sm_100f")));
}

#[test]
fn cuda_releases_carry_their_ptx_isa_version() {
    let m = model();
    for (cuda, ptx) in [
        ("9.0", "6.0"),
        ("10.0", "6.3"),
        ("11.0", "7.0"),
        ("11.8", "7.8"),
        ("12.0", "8.0"),
        ("12.8", "8.7"),
        ("12.9", "8.8"),
        ("13.0", "9.0"),
        ("13.5", "9.5"),
    ] {
        assert_eq!(m.ptx_of_cuda(cuda), Some(v(ptx)), "CUDA {cuda}");
    }
    assert_eq!(m.ptx_of_cuda("8.0"), None);
}
