//! `ptxvec audit-syntax`: the ptxas differential, summarized per instruction, with
//! every disagreement and whether the errata ledger explains it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use ptxvec_spec::Spec;

use crate::differential::{self, Finding};
use crate::ptxas::{Outcome, Ptxas};
use crate::syntax::case::Verdict;
use crate::syntax::illegal::CHECK_PTXAS;
use crate::syntax::vectors;

/// Where the assemblers are.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// ptxas from CUDA 13.5 (default: $PTXVEC_PTXAS).
    #[arg(long, env = "PTXVEC_PTXAS")]
    pub ptxas: Option<PathBuf>,
    /// ptxas from CUDA 12.9, for targets below sm_75 (default: $PTXVEC_PTXAS_CU12).
    #[arg(long, env = "PTXVEC_PTXAS_CU12")]
    pub ptxas_cu12: Option<PathBuf>,
    /// Threads running ptxas.
    #[arg(long, default_value_t = 2)]
    pub jobs: usize,
}

/// The differential's outcome.
pub struct Audit {
    /// Every check with ptxas's answer.
    pub findings: Vec<Finding>,
    /// Disagreements no ledger entry lists: (check key, what ptxas said).
    pub unexplained: Vec<String>,
    /// Ledger `disagreements` entries that no longer disagree.
    pub stale: Vec<String>,
    /// The report.
    pub report: String,
}

/// The assemblers named by the arguments; a missing one is an error.
pub fn tools(spec: &Spec, args: &Args) -> crate::error::Result<Vec<Ptxas>> {
    let mut out = Vec::new();
    for (path, release, flag) in [(&args.ptxas, CHECK_PTXAS, "--ptxas / PTXVEC_PTXAS"), (&args.ptxas_cu12, "12.9", "--ptxas-cu12 / PTXVEC_PTXAS_CU12")] {
        let path = crate::ptxas::locate(path.clone(), flag, &format!("ptxas {release}: pip install nvidia-cuda-nvcc"))?;
        out.push(Ptxas::new(spec, path, release).ok_or_else(|| crate::error::Error::Usage(format!("CUDA {release} is not in spec/targets.yaml")))?);
    }
    Ok(out)
}

/// Runs the differential over every syntax case and doc example. `Err` only if the
/// ptxas threads cannot be started.
pub fn audit(spec: &Spec, tools: &[Ptxas], jobs: usize) -> crate::error::Result<Audit> {
    let mut checks = Vec::new();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for file in &spec.instructions {
        let cases = vectors::cases(spec, &file.instruction);
        let legal = cases.iter().filter(|c| c.verdict == Verdict::Legal).count();
        counts.insert(file.instruction.instruction.clone(), (legal, cases.len() - legal));
        checks.extend(differential::case_checks(spec, &cases, CHECK_PTXAS));
    }
    checks.extend(differential::example_checks(spec, CHECK_PTXAS));
    let dir = std::env::temp_dir();
    let findings = differential::run(spec, checks, tools, &dir, jobs)?;
    let ledgered: BTreeMap<&str, &str> = spec
        .errata
        .errata
        .iter()
        .flat_map(|e| e.disagreements.iter().map(move |d| (d.as_str(), e.id.as_str())))
        // Doc-versus-silicon entries belong to the silicon replay, not to ptxas.
        .filter(|(d, _)| !d.starts_with("silicon:"))
        .collect();
    let mut unexplained = Vec::new();
    let mut disagreeing = Vec::new();
    let mut report = String::new();
    let mut per: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for f in &findings {
        let slot = per.entry(f.check.instruction.as_str()).or_default();
        match f.agrees() {
            Some(true) => slot[0] += 1,
            Some(false) => {
                slot[1] += 1;
                disagreeing.push(f.check.case.as_str());
                let said = match &f.outcome {
                    Outcome::Rejected(m) => format!("rejected: {m}"),
                    _ => "accepted".to_owned(),
                };
                let line = format!(
                    "{} [{} at .version {} .target {}] ours {} / ptxas {} {}",
                    f.check.case,
                    f.check.boundary,
                    f.check.module.ptx,
                    f.check.module.target,
                    if f.check.ours_legal { "legal" } else { "illegal" },
                    f.ptxas.as_deref().unwrap_or("?"),
                    said
                );
                match ledgered.get(f.check.case.as_str()) {
                    Some(e) => {
                        let _ = writeln!(report, "  ledgered ({e}): {line}");
                    }
                    None => unexplained.push(line),
                }
            }
            None => slot[2] += 1,
        }
        // A doc example that ptxas rejects must cite the ledger.
        if f.check.boundary == "example" && matches!(f.outcome, Outcome::Rejected(_)) && f.check.errata.is_empty() {
            unexplained.push(format!("{}: ptxas rejects a doc example that cites no erratum: {:?}", f.check.case, f.outcome));
        }
    }
    let stale: Vec<String> = ledgered
        .keys()
        .filter(|k| !disagreeing.contains(k))
        .map(|k| (*k).to_owned())
        .collect();
    let mut head = String::new();
    let _ = writeln!(head, "{:<22} {:>6} {:>8} {:>8} {:>9} {:>10}  errata", "instruction", "legal", "illegal", "agree", "disagree", "unverified");
    for (name, (legal, illegal)) in &counts {
        let [a, d, u] = per.get(name.as_str()).copied().unwrap_or_default();
        let errata: Vec<&str> = spec.errata.errata.iter().filter(|e| e.instructions.contains(name)).map(|e| e.id.as_str()).collect();
        let _ = writeln!(head, "{name:<22} {legal:>6} {illegal:>8} {a:>8} {d:>9} {u:>10}  {}", errata.join(" "));
    }
    let total: [usize; 3] = per.values().fold([0; 3], |acc, v| [acc[0] + v[0], acc[1] + v[1], acc[2] + v[2]]);
    let _ = writeln!(head, "ptxas agreement: {} of {} verifiable checks agree ({} disagree, {} ledgered); {} unverified", total[0], total[0] + total[1], total[1], total[1] - unexplained.iter().filter(|u| !u.contains("cites no erratum")).count(), total[2]);
    // Why checks went unverified, so that a boundary no ptxas reaches is visible.
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &findings {
        if let Outcome::Unverifiable(m) = &f.outcome {
            *why.entry(m.as_str()).or_default() += 1;
        }
    }
    for (m, n) in &why {
        let _ = writeln!(head, "  unverified ({n}): {m}");
    }
    for u in &unexplained {
        let _ = writeln!(report, "  UNEXPLAINED: {u}");
    }
    for s in &stale {
        let _ = writeln!(report, "  STALE ledger entry (agrees now): {s}");
    }
    Ok(Audit { findings, unexplained, stale, report: head + &report })
}
