//! `ptxvec grade`: grades a consumer's results against the vectors, and holds the
//! project's one evaluator of what passes an expectation ([`accept`]).
//!
//! Results come as syntax results (JSON Lines `{"id", "accepted", "message"?}` or
//! `{"id", "skipped"}`), semantic results (JSON Lines `{"id", "outputs"}` or
//! `{"id", "skipped"}`) and raw buffers of the self-checking modules (`--raw DIR`).
//! Every results file is read in full first; each bad line is an input error, named
//! at its file, line and column. Then every case is graded, from the good lines of a
//! file with bad ones too, and reported: a summary on stdout, and on request
//! `--json`, `--junit` and `--html`, the bad lines in each. Bad lines make the exit
//! status 2 after that.

pub mod conformance;
pub mod conformance_compiler;
pub mod conformance_semantic;
pub mod dashboard;
pub mod dashboard_litmus;
pub mod failure;
pub mod html;
pub mod junit;
pub mod litmus;
pub mod report;
pub mod results;
pub mod semantic;
pub mod summary;
pub mod syntax;

use std::io::Write;
use std::path::{Path, PathBuf};

use ptxvec_oracle::profile::Profile;
use ptxvec_spec::Spec;

use crate::error::{Error, Outcome, Result};
use report::Report;
use results::{parse, read_input, SemanticResult, SyntaxResult};

/// The profile `grade` keeps: one of the oracle's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GradeProfile {
    /// What the PTX ISA document promises (accept classes where it leaves bits open).
    #[value(name = "ptx-isa")]
    PtxIsa,
    /// What sm_90 silicon does.
    #[value(name = "sm_90")]
    Sm90,
}

impl GradeProfile {
    /// The oracle's profile.
    pub fn profile(self) -> Profile {
        match self {
            GradeProfile::PtxIsa => Profile::PtxIsa,
            GradeProfile::Sm90 => Profile::Sm90,
        }
    }
}

/// Arguments of `ptxvec grade`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("results").required(true).multiple(true).args(["syntax", "semantic", "raw", "clients", "litmus"])))]
pub struct Args {
    /// Syntax results: JSON Lines `{"id": <case id>, "accepted": true|false,
    /// "message": "..."}` (`-` for stdin).
    #[arg(long)]
    pub syntax: Option<PathBuf>,
    /// Semantic results: JSON Lines `{"id": "<variant>#<n>", "outputs": {...}}`,
    /// shaped like the record's `expect`, a slot `null` where the lane did not
    /// execute, or `{"id": ..., "skipped": "why"}` (`-` for stdin).
    #[arg(long)]
    pub semantic: Option<PathBuf>,
    /// A folder of raw `ptxvec_raw` buffers: `<stem>.bin` per variant file
    /// vectors/semantic/<stem>.jsonl.gz, `<stem>.<window>.bin` for a generic `red`.
    #[arg(long)]
    pub raw: Option<PathBuf>,
    /// Grade every recorded client in this folder (vectors/clients) and, with
    /// --html, write the conformance dashboard: clients × instructions, syntax and
    /// semantics, silicon as the reference, each cell linked to its failures.
    /// Exit 0: the clients' failures are what the page reports.
    #[arg(long, conflicts_with_all = ["syntax", "semantic", "raw", "parser", "json", "junit"])]
    pub clients: Option<PathBuf>,
    /// Litmus results: JSON Lines `{"id": <test id>, "outcomes": [{"regs": {"1:r0":
    /// 1}, "mem": {"x": 1}, "count": N}]}`, the outcomes an engine saw for the tests
    /// of vectors/litmus.jsonl.gz (`-` for stdin). Fails a test that showed a
    /// forbidden outcome, naming the axiom; says which weak outcomes each test
    /// showed, and which tests showed none.
    #[arg(long, conflicts_with_all = ["syntax", "semantic", "raw", "parser", "json", "junit", "html", "all"])]
    pub litmus: Option<PathBuf>,
    /// Grade a grammar-only syntax consumer: legal and malformed cases; accepting an
    /// invalid case is not graded.
    #[arg(long)]
    pub parser: bool,
    /// The profile whose expectations the semantic results must keep.
    #[arg(long, value_enum, default_value = "ptx-isa")]
    pub profile: GradeProfile,
    /// Require every record of every variant (and every case of every instruction),
    /// not only of those the results name.
    #[arg(long)]
    pub all: bool,
    /// The vectors folder (syntax/, semantic/, index.json); default: ./vectors if it
    /// holds index.json, else the checkout's the binary was built from.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Write the report as one JSON document: counts, tallies, every failure.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the report as JUnit XML.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the report as one static HTML page.
    #[arg(long)]
    pub html: Option<PathBuf>,
}

/// Runs `ptxvec grade`: findings when any case fails.
pub fn run(spec: &Spec, args: &Args, out: &mut dyn Write) -> Result<Outcome> {
    if let Some(clients) = &args.clients {
        let d = dashboard::build(spec, &crate::io::vectors_dir::resolve(args.vectors.as_deref())?, clients)?;
        if let Some(path) = &args.html {
            crate::io::files::write_atomic(path, d.html.as_bytes()).map_err(|e| Error::io(path, e))?;
        }
        write!(out, "{}", d.summary).map_err(Error::Stdout)?;
        return Ok(Outcome::Pass);
    }
    if let Some(path) = &args.litmus {
        return grade_litmus(path, args.vectors.as_deref(), out);
    }
    if args.syntax.as_deref() == Some(Path::new("-"))
        && args.semantic.as_deref() == Some(Path::new("-"))
    {
        return Err(Error::Usage(
            "--syntax and --semantic cannot both read stdin (`-`)".to_owned(),
        ));
    }
    // Every results file is read, and every bad line found, before anything is
    // graded. A bad line stops nothing: the good lines are graded, the reports are
    // written with the bad lines in them, and the exit status is 2.
    let mut syntax_bad = Vec::new();
    let syntax_results = match &args.syntax {
        Some(p) => Some(parse::<SyntaxResult>(
            &results::display_name(p),
            &read_input(p)?,
            &mut syntax_bad,
        )),
        None => None,
    };
    let mut semantic_bad = Vec::new();
    let semantic_results = match &args.semantic {
        Some(p) => Some(parse::<SemanticResult>(
            &results::display_name(p),
            &read_input(p)?,
            &mut semantic_bad,
        )),
        None => None,
    };
    let mut report = Report::default();
    if let Some(r) = &syntax_results {
        let cases = syntax::load(spec, &crate::io::vectors_dir::resolve(args.vectors.as_deref())?)?;
        let mode = syntax::Mode {
            parser: args.parser,
            all: args.all,
        };
        let mut section = syntax::grade(&cases, r, &syntax_bad, mode);
        section.explained = rule_explanations(spec, &section);
        report.sections.push(section);
    }
    if semantic_results.is_some() || args.raw.is_some() {
        let variants = semantic::load(spec, &crate::io::vectors_dir::resolve(args.vectors.as_deref())?)?;
        let mode = semantic::Mode {
            profile: args.profile.profile(),
            all: args.all,
        };
        if let Some(r) = &semantic_results {
            report
                .sections
                .push(semantic::grade(&variants, r, &semantic_bad, mode));
        }
        if let Some(dir) = &args.raw {
            let mut section = semantic::grade_raw(&variants, dir, mode)?;
            // An engine folder may say what each failure class is
            // (`explanations.json`, as vectors/clients' recorded engines do).
            section.explained = conformance_semantic::explanations(dir)?;
            report.sections.push(section);
        }
    }
    report.input_errors = syntax_bad;
    report.input_errors.append(&mut semantic_bad);
    write_reports(&report, args)?;
    write!(out, "{}", summary::render(&report)).map_err(Error::Stdout)?;
    if !report.input_errors.is_empty() {
        return Err(results::bad_lines_error(&report.input_errors));
    }
    Ok(Outcome::findings_if(report.failed()))
}

/// `grade --litmus`: every line read first, the good ones graded and reported, then
/// the bad ones an error (exit 2); else findings when a test failed.
fn grade_litmus(path: &Path, vectors: Option<&Path>, out: &mut dyn Write) -> Result<Outcome> {
    let mut bad = Vec::new();
    let name = results::display_name(path);
    let lines = parse::<litmus::LitmusResult>(&name, &read_input(path)?, &mut bad);
    let records = litmus::load(&crate::io::vectors_dir::resolve(vectors)?)?;
    let grades = litmus::grade(&records, &name, &lines, &mut bad);
    write!(out, "{}", litmus::render(&grades, records.len())).map_err(Error::Stdout)?;
    if !bad.is_empty() {
        return Err(results::bad_lines_error(&bad));
    }
    Ok(Outcome::findings_if(grades.iter().any(|g| !g.passed())))
}

/// What each failure class of syntax results means: the rule its illegal cases
/// accepted break, as vectors/rules.json says it, by `<instruction>: <class>`.
fn rule_explanations(spec: &Spec, section: &report::Section) -> std::collections::BTreeMap<String, String> {
    let catalog = crate::syntax::rules::catalog(spec);
    let mut out = std::collections::BTreeMap::new();
    for g in section.failure_groups() {
        let rules: std::collections::BTreeSet<&str> = g
            .cases
            .iter()
            .filter(|t| t.failures.iter().any(|f| f.what.starts_with("illegal case accepted")))
            .filter_map(|t| t.groups.get("rule").map(String::as_str))
            .collect();
        let said: Vec<String> = rules
            .into_iter()
            .filter_map(|rule| {
                let e = crate::syntax::rules::entry_named(&catalog, g.instruction, rule)?;
                Some(format!("`{rule}`: {}", e.meaning))
            })
            .collect();
        if !said.is_empty() {
            out.insert(g.key(), said.join(" "));
        }
    }
    out
}

/// Renders a report in one format.
type Render = fn(&Report) -> String;

/// Writes each report file asked for, through a temporary name.
fn write_reports(report: &Report, args: &Args) -> Result<()> {
    let files: [(&Option<PathBuf>, Render); 3] = [
        (&args.json, report::json),
        (&args.junit, junit::render),
        (&args.html, html::render),
    ];
    for (path, render) in files {
        if let Some(path) = path {
            crate::io::files::write_atomic(path, render(report).as_bytes())
                .map_err(|e| Error::io(path, e))?;
        }
    }
    Ok(())
}
