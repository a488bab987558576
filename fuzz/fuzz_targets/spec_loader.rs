//! The spec loader on one file's bytes: the first byte says which file it is (0 or
//! 1 mod 4: `instructions/fuzz.yaml`, 2: `targets.yaml`, 3: `errata.yaml`), the
//! rest is its content. The file is read and checked as `Spec::load` does, against
//! the repository's spec, and the errors are rendered as the CLI prints them. No
//! panic, and each unit well under a second.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use ptxvec_spec::{FileKind, SpecErrors};

// Loaded before the first unit, outside libFuzzer's clock (`-timeout`).
fuzz_target!(
    init: {
        ptxvec_fuzz::spec();
    },
    |data: &[u8]| {
        let Some((&select, bytes)) = data.split_first() else {
            return;
        };
        let (kind, path) = match select % 4 {
            2 => (FileKind::Targets, "spec/targets.yaml"),
            3 => (FileKind::Errata, "spec/errata.yaml"),
            _ => (FileKind::Instruction, "spec/instructions/fuzz.yaml"),
        };
        let spec = ptxvec_fuzz::spec();
        ptxvec_fuzz::timed(data, || {
            let errors = spec.check_file(kind, Path::new(path), bytes.to_vec());
            let _ = SpecErrors(errors).to_string();
        });
    }
);
