//! `ptxvec audit-syntax`: the ptxas differential, summarized per instruction, with
//! every disagreement and whether the errata ledger explains it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ptxvec_spec::Spec;

use crate::grade::results::{write_syntax, SyntaxResult};
use crate::ptxas::differential::{self, Finding};
use crate::ptxas::{Outcome, Ptxas};
use crate::syntax::case::Verdict;
use crate::syntax::definition::judge;
use crate::syntax::departure;
use crate::syntax::judge::Order;
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
    /// Also write what each ptxas release made of every case at the case's own
    /// module: `DIR/ptxas-<release>/syntax.jsonl.gz` (format: vectors/clients/README.md).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Only these instructions (by name: `add`, `match.sync`): their cases and doc
    /// examples. The ledger's stale entries are then not reported (another
    /// instruction's may not have run).
    #[arg(long = "instruction", value_name = "NAME")]
    pub instructions: Vec<String>,
    /// The explorer: texts the generator never made.
    #[command(flatten)]
    pub explore: crate::ptxas::explore::Args,
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

/// Runs the differential over every syntax case and doc example (of the named
/// instructions only, where `only` names any). `Err` only if the ptxas threads
/// cannot be started, or `only` names an instruction the spec lacks.
pub fn audit(spec: &Spec, tools: &[Ptxas], jobs: usize, only: &[String]) -> crate::error::Result<Audit> {
    if let Some(unknown) = only.iter().find(|n| spec.instruction(n).is_none()) {
        let known: Vec<&str> = spec.instructions.iter().map(|f| f.instruction.instruction.as_str()).collect();
        return Err(crate::error::Error::Usage(format!("--instruction {unknown}: no such instruction (expected one of {})", known.join(", "))));
    }
    let chosen = |name: &str| only.is_empty() || only.iter().any(|n| n == name);
    let mut checks = Vec::new();
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for file in spec.instructions.iter().filter(|f| chosen(&f.instruction.instruction)) {
        let cases = vectors::cases(spec, &file.instruction);
        let legal = cases.iter().filter(|c| c.verdict == Verdict::Legal).count();
        counts.insert(file.instruction.instruction.clone(), (legal, cases.len() - legal));
        checks.extend(differential::case_checks(spec, &cases, CHECK_PTXAS));
    }
    checks.extend(differential::example_checks(spec, CHECK_PTXAS).into_iter().filter(|c| chosen(&c.instruction)));
    let dir = std::env::temp_dir();
    let findings = differential::run(spec, checks, tools, &dir, jobs)?;
    let ledgered: BTreeMap<&str, &str> = spec
        .errata
        .errata
        .iter()
        .flat_map(|e| e.disagreements.iter().map(move |d| (d.as_str(), e.id.as_str())))
        // Doc-versus-silicon entries belong to the silicon replay, compiler-versus-model
        // ones to `litmus-compiled`, not to ptxas.
        .filter(|(d, _)| !d.starts_with("silicon:") && !d.starts_with("litmus:"))
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
                    Outcome::Rejected(m) => format!("rejected: {}", m.join(" | ")),
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
                    None => match predicted(spec, f) {
                        // A departure of the ledger reads the text as ptxas did: the
                        // entry explains it, as it explains the explorer's texts.
                        Some(e) => {
                            let _ = writeln!(report, "  ledgered departure ({e}): {line}");
                        }
                        None => unexplained.push(line),
                    },
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
        .filter(|k| only.is_empty() && !disagreeing.contains(k))
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
        if let Outcome::Unverifiable(m) | Outcome::Failed(m) = &f.outcome {
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

/// The ledger entry whose departure predicts what ptxas said of a check where it
/// departs from our verdict ([`departure::predict`]), if one does.
fn predicted(spec: &Spec, f: &Finding) -> Option<String> {
    let accepted = match f.outcome {
        Outcome::Accepted => true,
        Outcome::Rejected(_) => false,
        Outcome::Unverifiable(_) | Outcome::Failed(_) => return None,
    };
    let m = f.check.module;
    let ours = judge(spec, &f.check.text, m.ptx, m.target, Order::Lenient);
    let release = f.ptxas.as_deref().unwrap_or(CHECK_PTXAS);
    departure::predict(spec, &f.check.text, m, release, &ours).filter(|p| !p.fails && p.accepts == accepted).map(|p| p.erratum)
}

/// What ptxas made of each syntax case at the case's own module (a legal case's
/// lowest, an illegal case's), taken from the differential's findings, in the order
/// of the vectors/syntax files. The differential runs each module on the first
/// release that can assemble it (13.5 from sm_75 on, else 12.9), so together they
/// are one witness: each case is answered by the release that ran its module, or
/// skipped with the reason where none could.
pub fn results(spec: &Spec, findings: &[Finding]) -> Vec<SyntaxResult> {
    let at: BTreeMap<(&str, crate::syntax::context::Module), &Finding> =
        findings.iter().map(|f| ((f.check.case.as_str(), f.check.module), f)).collect();
    // vectors/syntax/<instruction>.jsonl, in file-name order.
    let mut files: Vec<&ptxvec_spec::Instruction> = spec.instructions.iter().map(|f| &f.instruction).collect();
    files.sort_by_key(|i| format!("{}.jsonl", i.instruction));
    let mut out = Vec::new();
    for ins in files {
        for case in vectors::cases(spec, ins) {
            // No check at the case's own module: nothing to say of it.
            if let Some(f) = case.module().and_then(|m| at.get(&(case.id.as_str(), m))) {
                out.push(result_of(&case.id, &f.outcome));
            }
        }
    }
    out
}

fn result_of(id: &str, outcome: &Outcome) -> SyntaxResult {
    match outcome {
        Outcome::Accepted => SyntaxResult::accepted(id),
        Outcome::Rejected(m) => SyntaxResult::rejected(id, m.first().map_or("", String::as_str)),
        Outcome::Unverifiable(why) | Outcome::Failed(why) => SyntaxResult::skipped(id, why),
    }
}

/// The folder of the recorded ptxas results under the clients folder.
pub const RESULTS_DIR: &str = "ptxas-13.5-12.9";

/// Writes [`results`] to `dir/ptxas-13.5-12.9/syntax.jsonl.gz` (gzipped: vectors/
/// keeps its recorded clients so, under its size cap); returns the file and its
/// count of cases.
pub fn write_results(spec: &Spec, findings: &[Finding], dir: &Path) -> crate::error::Result<(PathBuf, usize)> {
    let rows = results(spec, findings);
    let path = dir.join(RESULTS_DIR).join("syntax.jsonl.gz");
    write_syntax(&path, &rows)?;
    Ok((path, rows.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptxas::differential::Check;
    use crate::syntax::case::Case;
    use crate::syntax::context::Module;

    use crate::repo_spec as spec;

    fn finding(case: &Case, module: Module, release: Option<&str>, outcome: Outcome) -> Finding {
        Finding {
            check: Check {
                case: case.id.clone(),
                instruction: case.instruction.clone(),
                boundary: "minimum",
                text: case.text.clone(),
                module,
                ours_legal: case.verdict == Verdict::Legal,
                errata: Vec::new(),
            },
            ptxas: release.map(str::to_owned),
            outcome,
        }
    }

    /// Only a finding at the case's own module counts, under the release that made
    /// it; an unverifiable one leaves the case out; the order is the files'
    /// (activemask.jsonl before red.jsonl), whatever the findings' order.
    #[test]
    fn results_take_each_case_at_its_own_module_in_file_order() {
        let spec = spec();
        let cases = |name: &str| vectors::cases(&spec, spec.instruction(name).unwrap());
        let (red, am) = (cases("red"), cases("activemask"));
        let legal = red.iter().find(|c| c.verdict == Verdict::Legal).unwrap();
        let red_illegal: Vec<&Case> = red.iter().filter(|c| c.verdict == Verdict::Illegal).take(2).collect();
        let illegal = red_illegal[0];
        let am_illegal: Vec<&Case> = am.iter().filter(|c| c.verdict == Verdict::Illegal).take(2).collect();
        let own = |c: &Case| c.module().unwrap();
        let below = Module { ptx: "6.0".parse().unwrap(), target: own(legal).target };
        let rejected = |m: &[&str]| Outcome::Rejected(m.iter().map(|s| (*s).to_owned()).collect());
        let findings = [
            finding(legal, below, Some("13.5"), rejected(&["not at its own module"])),
            finding(legal, own(legal), Some("13.5"), Outcome::Accepted),
            finding(illegal, own(illegal), Some("13.5"), rejected(&["first", "second"])),
            finding(am_illegal[0], own(am_illegal[0]), None, Outcome::Unverifiable("no ptxas".into())),
            finding(am_illegal[1], own(am_illegal[1]), Some("13.5"), Outcome::Accepted),
            finding(red_illegal[1], own(red_illegal[1]), Some("12.9"), rejected(&["old"])),
        ];
        let got: Vec<String> = results(&spec, &findings).iter().map(|r| r.to_line()).collect();
        // Every case with a check at its own module, in file order, answered by the
        // release that ran its module; a case no release could assemble is skipped.
        assert_eq!(
            got,
            [
                format!(r#"{{"id":"{}","skipped":"no ptxas"}}"#, am_illegal[0].id),
                format!(r#"{{"id":"{}","accepted":true}}"#, am_illegal[1].id),
                format!(r#"{{"id":"{}","accepted":true}}"#, legal.id),
                format!(r#"{{"id":"{}","accepted":false,"message":"first"}}"#, illegal.id),
                format!(r#"{{"id":"{}","accepted":false,"message":"old"}}"#, red_illegal[1].id),
            ]
        );
    }
}
