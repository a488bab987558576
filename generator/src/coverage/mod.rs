//! `ptxvec coverage`: every element of the spec (syntax lines, qualifier positions
//! and values, table rows, rules, operands, version and target boundaries, semantic
//! notes, errata) with the vectors that witness it, the defect class × form matrix,
//! and, with `--mutants`, mutation adequacy: the spec mutated in memory, one element
//! at a time, and the committed cases judged by each mutant.

pub mod elements;
pub mod html;
pub mod matrix;
pub mod mutation;
pub mod witness;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use ptxvec_spec::Spec;

use crate::error::{Context, Error, Outcome, Result};
use crate::io::output::{write_error, Stdout};
use crate::syntax::case::Case;
use elements::{Element, ElementKind, WitnessKind};
use witness::{CaseInfo, Found, Semantic};

/// `ptxvec coverage`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The vectors folder (syntax/, index.json, silicon/sm_90/vectors.json); default:
    /// ./vectors if it holds index.json, else the checkout's the binary was built from.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Also write one static page: a row per element, its witnesses by id.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Also run mutation adequacy: print the score and the surviving mutants.
    #[arg(long)]
    pub mutants: bool,
    /// The recorded exploration's verdict cache, whose texts witness the ledger's
    /// departures of ptxas (explore/README.md).
    #[arg(long, default_value = crate::ptxas::explore::DEFAULT_CACHE)]
    pub explored: PathBuf,
}

/// An element with what was found for it.
pub struct Row<'e> {
    /// The element.
    pub element: &'e Element,
    /// Its witnesses.
    pub found: Found,
}

impl Row<'_> {
    /// The kinds it needs and has none of (a silicon witness that awaits silicon
    /// or a recorded run is not missing: it is reported as awaiting).
    pub fn missing(&self) -> Vec<WitnessKind> {
        self.element
            .needs
            .iter()
            .copied()
            .filter(|k| self.found.count(*k) == 0)
            .filter(|k| !(*k == WitnessKind::Silicon && self.found.1.is_some()))
            .collect()
    }
}

/// Reads the committed syntax cases of every instruction.
pub fn read_cases(spec: &Spec, vectors: &std::path::Path) -> Result<Vec<Case>> {
    let mut out = Vec::new();
    for f in &spec.instructions {
        let path = crate::syntax::vectors::file_for(vectors, &f.instruction.instruction);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        for (n, line) in text.lines().enumerate() {
            let case: Case = serde_json::from_str(line)
                .map_err(|e| Error::Input(format!("{}:{}: {e}", path.display(), n + 1)))?;
            out.push(case);
        }
    }
    Ok(out)
}

/// Runs the command.
pub fn run(spec: &Spec, args: &Args, stdout: &mut Stdout) -> Result<Outcome> {
    let vectors = crate::io::vectors_dir::resolve(args.vectors.as_deref())?;
    let cases = read_cases(spec, &vectors)?;
    let index_path = vectors.join("index.json");
    let index_text = std::fs::read_to_string(&index_path).map_err(|e| Error::io(&index_path, e))?;
    let index: crate::record::index::Index = serde_json::from_str(&index_text)
        .map_err(|e| Error::Input(format!("{}: {e}", index_path.display())))?;
    let silicon_path = vectors.join("silicon/sm_90/vectors.json");
    let silicon = match std::fs::read_to_string(&silicon_path) {
        Ok(t) => Some(
            crate::device::silicon::evidence::parse(&t)
                .map_err(|e| Error::Input(format!("{}: {e}", silicon_path.display())))?,
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Error::io(&silicon_path, e)),
    };
    let probes = read_probes(&vectors.join("silicon/sm_90"))?;
    let infos: Vec<CaseInfo<'_>> = cases.iter().map(|c| CaseInfo::of(spec, c)).collect();
    let elements = elements::elements(spec);
    let litmus = crate::compiled_litmus::recorded_findings(&vectors.join("clients"))?;
    let semantic = Semantic {
        index: &index,
        silicon: silicon.as_ref(),
        probes: &probes,
        litmus: &litmus,
    };
    let explored = crate::ptxas::explore::recorded_departures(spec, &args.explored)?;
    let found = witness::find(spec, &elements, &infos, &semantic, &explored);
    let rows: Vec<Row<'_>> = elements
        .iter()
        .zip(found)
        .map(|(element, found)| Row { element, found })
        .collect();
    let grid = matrix::build(spec, &cases);
    let mut report = summary(&rows);
    report.push_str(&matrix::render(&grid));
    let mut holes = rows.iter().any(|r| !r.missing().is_empty()) || grid.holes() > 0;
    if args.mutants {
        let m = mutation::run(spec, &cases)?;
        report.push_str(&m.render());
        holes |= !m.survivors.is_empty();
    }
    write!(stdout, "{report}").map_err(write_error)?;
    if let Some(path) = &args.html {
        let page = html::render(&rows, &grid);
        crate::io::files::write_atomic(path, page.as_bytes())
            .map_err(|e| Error::io(path, e))
            .context("writing the coverage page")?;
    }
    Ok(Outcome::findings_if(holes))
}

/// The probes' evidence files present in `dir`, each with its observations as
/// witness ids: a cluster-probe row whose two modules both gave an answer (a fault
/// or a run), a NaN-probe module that recorded results. A file that is there and
/// does not read is an input error.
fn read_probes(dir: &std::path::Path) -> Result<witness::Probes> {
    use crate::device::silicon::probe::{cluster, nan, Observed};
    let read = |name: &str| -> Result<Option<String>> {
        let path = dir.join(name);
        match std::fs::read_to_string(&path) {
            Ok(t) => Ok(Some(t)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(&path, e)),
        }
    };
    let bad = |name: &str, e: serde_json::Error| {
        Error::Input(format!("{}: {e}", dir.join(name).display()))
    };
    let mut probes = witness::Probes::default();
    if let Some(t) = read(cluster::FILE)? {
        let f = cluster::parse(&t).map_err(|e| bad(cluster::FILE, e))?;
        let answered = |o: &Observed| !matches!(o, Observed::Failed(_));
        let ids = f
            .variants
            .iter()
            .filter(|r| answered(&r.no_cluster_dims) && answered(&r.reqnctapercluster_1))
            .map(|r| format!("silicon:sm_90:cluster-probe:{}", r.variant))
            .collect();
        probes.0.insert(cluster::FILE.to_owned(), ids);
    }
    if let Some(t) = read(nan::FILE)? {
        let f = nan::parse(&t).map_err(|e| bad(nan::FILE, e))?;
        let mut ids: Vec<String> = f
            .rows
            .iter()
            .filter(|r| !r.results.is_empty())
            .map(|r| format!("silicon:sm_90:nan-probe:{}:{}", r.variant, r.shape))
            .collect();
        ids.dedup();
        probes.0.insert(nan::FILE.to_owned(), ids);
    }
    Ok(probes)
}

/// The summary table (per element kind: elements, needs met, holes) and every hole.
fn summary(rows: &[Row<'_>]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<26} {:>8} {:>9} {:>8} {:>6}  witnesses found (legal/illegal/vector/semantic/silicon/explored)",
        "element", "count", "witnessed", "awaiting", "holes"
    );
    let (mut all, mut all_awaiting, mut all_holes) = (0, 0, 0);
    for kind in ElementKind::ALL {
        let of: Vec<&Row<'_>> = rows.iter().filter(|r| r.element.kind == *kind).collect();
        let holes = of.iter().filter(|r| !r.missing().is_empty()).count();
        let awaiting = of
            .iter()
            .filter(|r| r.missing().is_empty() && r.found.1.is_some())
            .count();
        let per_kind: Vec<String> = WitnessKind::ALL
            .iter()
            .map(|w| {
                of.iter()
                    .map(|r| r.found.count(*w))
                    .sum::<usize>()
                    .to_string()
            })
            .collect();
        let _ = writeln!(
            s,
            "{:<26} {:>8} {:>9} {:>8} {:>6}  {}",
            kind.name(),
            of.len(),
            of.len() - holes - awaiting,
            awaiting,
            holes,
            per_kind.join("/")
        );
        all += of.len();
        all_awaiting += awaiting;
        all_holes += holes;
    }
    let _ = writeln!(
        s,
        "{:<26} {:>8} {:>9} {:>8} {:>6}",
        "all",
        all,
        all - all_holes - all_awaiting,
        all_awaiting,
        all_holes
    );
    let awaiting: Vec<(&Row<'_>, &witness::Awaiting)> = rows
        .iter()
        .filter_map(|r| r.found.1.as_ref().map(|a| (r, a)))
        .collect();
    let _ = writeln!(
        s,
        "awaiting silicon (no recorded run can witness them yet; not holes, not faked): {}",
        awaiting.len()
    );
    let mut by_silicon: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (r, a) in &awaiting {
        by_silicon.entry(a.silicon.as_str()).or_default().push(&r.element.id);
    }
    for (silicon, ids) in &by_silicon {
        let _ = writeln!(s, "  needs silicon {silicon}: {}", ids.join(", "));
    }
    for (r, a) in &awaiting {
        let _ = writeln!(s, "awaiting: {} ({}): {}", r.element.id, a.silicon, a.why);
    }
    for r in rows.iter().filter(|r| !r.missing().is_empty()) {
        let missing: Vec<&str> = r.missing().iter().map(|k| k.name()).collect();
        let _ = writeln!(
            s,
            "hole: {} ({}): no {} witness",
            r.element.id,
            r.element.kind.name(),
            missing.join(", no ")
        );
    }
    s
}
