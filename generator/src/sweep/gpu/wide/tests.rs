use super::*;

fn header() -> Header {
    crate::device::silicon::header::h100(FORMAT)
}

/// A record with made-up digests (a test of the file's form, not evidence).
fn record(s: &WideSweep, mismatch: bool) -> WideResult {
    let (mismatched_rows, mismatches) = if mismatch {
        (
            vec![RowMismatch {
                row: "0x1fe01".into(),
                mem: "0x7fffffff".into(),
                silicon: "0000000000000001".into(),
                oracle: "0000000000000002".into(),
                pairs: Some(1),
            }],
            vec![PairMismatch {
                mem: "0x7fffffff".into(),
                operand: "0x3f800000".into(),
                silicon: "0x7fc00000".into(),
                oracle: "0x7fffffff".into(),
            }],
        )
    } else {
        (Vec::new(), Vec::new())
    };
    WideResult {
        name: s.name.into(),
        text: text(s),
        block_pairs: s.block_pairs(),
        blocks: (0..BLOCKS as u64)
            .map(|i| format!("{:016x}", i * 0x0101))
            .collect(),
        differing_rows: mismatched_rows.len() as u64,
        mismatched_rows,
        mismatches,
    }
}

#[test]
fn rendered_evidence_parses_back_whole() {
    let records = vec![
        record(&WideSweep::ALL[0], false),
        record(&WideSweep::ALL[5], true),
    ];
    let text = render(&header(), &records);
    let e = parse(&text).unwrap();
    assert_eq!(e.sweeps, records);
    assert_eq!(e.header, header());
    assert_eq!(
        e.sets,
        vec![SetRecord::of(Set::f32()), SetRecord::of(Set::f64())]
    );
    assert_eq!(block(&e.sweeps[1], 3).unwrap(), 0x0303);
    // Deterministic: the same inputs, the same bytes; eight digests a line.
    assert_eq!(text, render(&header(), &records));
    assert!(text
        .contains("\n        \"0000000000000000\", \"0000000000000101\", \"0000000000000202\","));
    // An empty run is a file too.
    assert!(parse(&render(&header(), &[])).unwrap().sweeps.is_empty());
}

#[test]
fn parse_refuses_what_does_not_fit() {
    let good = render(&header(), &[record(&WideSweep::ALL[3], false)]);
    for (from, to, says) in [
        ("ptxvec-wide-sweeps/1", "ptxvec-wide-sweeps/2", "format"),
        (
            "\"red.global.add.f64\"",
            "\"red.global.add.f16\"",
            "no such wide sweep",
        ),
        (
            "\"block_pairs\": 16777216",
            "\"block_pairs\": 16777217",
            "block_pairs",
        ),
        ("\"0000000000000000\", ", "", "255 blocks"),
        (
            "\"mismatches\": []",
            "\"mismatches\": [], \"extra\": 1",
            "unknown field",
        ),
    ] {
        assert!(good.contains(from), "{from}");
        let e = parse(&good.replacen(from, to, 1)).unwrap_err().to_string();
        assert!(e.contains(says), "{from} -> {to}: {e}");
    }
    // More rows listed than counted.
    let listed = render(&header(), &[record(&WideSweep::ALL[0], true)]);
    let e = parse(&listed.replacen("\"differing_rows\": 1,", "\"differing_rows\": 0,", 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("1 rows listed as differing, 0 counted"), "{e}");
}

#[test]
fn raw_digest_is_the_oracle_digest_of_the_same_results() {
    let s = WideSweep::find("red.shared.add.f64").unwrap();
    let row = 0x3f81;
    let raw: Vec<u64> = (0..s.rows())
        .map(|o| s.result(row * s.rows() + o).unwrap())
        .collect();
    assert_eq!(raw_digest(s, row, &raw), s.scalar_row_digest(row).unwrap());
}

#[test]
fn modules_carry_the_set_and_the_instruction_once() {
    for s in WideSweep::ALL {
        let m = module(s);
        assert_eq!(m.matches(&text(s)).count(), 1, "{}", s.name);
        let set = s.set();
        let bits = s.stride() * 8;
        assert!(
            m.contains(".global .align 4 .b32 ptxvec_exponents[256] = {"),
            "{}",
            s.name
        );
        assert!(
            m.contains(&format!(
                ".b{bits} ptxvec_patterns[{}] = {{",
                set.patterns.len()
            )),
            "{}",
            s.name
        );
        // The tables' entries as written, in order.
        let first = set.patterns[..8]
            .iter()
            .map(|p| format!("0x{p:0w$x}", w = (bits / 4) as usize))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(m.contains(&first), "{}: {first}", s.name);
        for e in ["values", "init", "reduce", "digest"] {
            assert!(
                m.contains(&format!(".visible .entry {e}(")),
                "{}: {e}",
                s.name
            );
        }
        // The index split and the digest's key multiplier.
        assert!(m.contains(&format!("shr.u64 %rd23, %rd22, {};", set.index_bits())));
        assert!(m.contains("mul.lo.u64 %rd3, %rd22, 0x9E3779B97F4A7C15;"));
    }
}

#[test]
#[cfg_attr(
    not(ptxas),
    ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
)]
fn every_wide_kernel_assembles_with_ptxas() {
    let ptxas = crate::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, s) in WideSweep::ALL.iter().enumerate() {
        if let Err(e) =
            crate::ptxas::assemble_module(&ptxas, TARGET, &module(s), dir.path(), &i.to_string())
        {
            failures.push(format!("{}: {e}", s.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
