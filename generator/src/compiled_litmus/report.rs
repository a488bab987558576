//! One compiler's report: every litmus test as that compiler compiled it, read
//! back, judged, and held to what the source forbids.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ptxvec_oracle::model::{self, Event, Litmus, Loc, Op, Outcome, Reg, Rmw, Scope, Sem, Thread, Val};
use serde_json::{json, Value};

use super::cxx::{self, Cond, Observable};
use super::manifest::{Manifest, Test};
use super::ptx;
use crate::error::{Error, Result};

/// What became of one test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The compiler refused the source (its error lines).
    CompileError(Vec<String>),
    /// The module is not a litmus test the reader can map (where and why).
    NotLitmus(String),
    /// The oracle's brute force would pass its candidate cap.
    TooLarge(String),
    /// Judged: the allowed outcomes (on the observables) and the source's forbidden
    /// outcome with the compiled PTX's answer.
    Judged {
        /// Allowed outcomes, each as text.
        allowed: BTreeSet<String>,
        /// `None` when the source forbids nothing; else whether the PTX allows it
        /// (a finding) or the axioms that forbid it.
        verdict: Option<std::result::Result<(), Vec<String>>>,
    },
}

/// One test in the report.
#[derive(Debug, Clone)]
pub struct TestReport {
    /// The test id.
    pub id: String,
    /// The source, from the repository root.
    pub source: String,
    /// The module, relative to the compiler folder.
    pub module: Option<String>,
    /// Each thread's events as read, with module lines.
    pub threads: Vec<Vec<String>>,
    /// What the source forbids.
    pub forbidden: Option<cxx::Forbidden>,
    /// What became of it.
    pub status: Status,
}

/// A compiler's report.
#[derive(Debug, Clone)]
pub struct Report {
    /// The compiler folder's name.
    pub compiler: String,
    /// Its tests, in manifest order.
    pub tests: Vec<TestReport>,
}

impl Report {
    /// How many tests were judged.
    pub fn judged(&self) -> usize {
        self.tests.iter().filter(|t| matches!(t.status, Status::Judged { .. })).count()
    }

    /// The ids of the tests whose PTX allows an outcome the source forbids.
    pub fn findings(&self) -> Vec<&str> {
        self.tests
            .iter()
            .filter(|t| matches!(t.status, Status::Judged { verdict: Some(Ok(())), .. }))
            .map(|t| t.id.as_str())
            .collect()
    }

    /// The report as written: a header, then one test a line.
    pub fn to_json(&self) -> String {
        let count = |f: &dyn Fn(&Status) -> bool| self.tests.iter().filter(|t| f(&t.status)).count();
        let head = json!({
            "compiler": self.compiler,
            "generated": "by `ptxvec litmus-compiled`; do not edit",
            "summary": {
                "tests": self.tests.len(),
                "compile_errors": count(&|s| matches!(s, Status::CompileError(_))),
                "not_litmus_tests": count(&|s| matches!(s, Status::NotLitmus(_))),
                "over_candidate_cap": count(&|s| matches!(s, Status::TooLarge(_))),
                "judged": self.judged(),
                "source_forbids": self.tests.iter().filter(|t| t.forbidden.is_some() && matches!(t.status, Status::Judged { .. })).count(),
                "findings": self.findings().len(),
            },
        });
        let mut out = String::from("{");
        if let Value::Object(m) = head {
            for (k, v) in m {
                out.push_str(&format!("{}: {},\n ", Value::String(k), v));
            }
        }
        out.push_str("\"tests\": [\n");
        let lines: Vec<String> = self.tests.iter().map(|t| format!("  {}", t.to_value())).collect();
        out.push_str(&lines.join(",\n"));
        out.push_str("\n ]}\n");
        out
    }
}

impl TestReport {
    fn to_value(&self) -> Value {
        let mut v = json!({
            "id": self.id,
            "source": self.source,
            "module": self.module,
            "ptx": self.threads,
            "source_forbids": self.forbidden.as_ref().map(|f| json!({"outcome": cond_text(&f.cond), "rule": f.rule})),
        });
        let m = v.as_object_mut();
        let Some(m) = m else { return v };
        match &self.status {
            Status::CompileError(lines) => {
                m.insert("status".into(), json!("compile_error"));
                m.insert("error".into(), json!(lines));
            }
            Status::NotLitmus(why) => {
                m.insert("status".into(), json!("not_a_litmus_test"));
                m.insert("reason".into(), json!(why));
            }
            Status::TooLarge(why) => {
                m.insert("status".into(), json!("over_candidate_cap"));
                m.insert("reason".into(), json!(why));
            }
            Status::Judged { allowed, verdict } => {
                m.insert("status".into(), json!("judged"));
                m.insert("allowed".into(), json!(allowed));
                let (compiled, finding) = match verdict {
                    None => (Value::Null, false),
                    Some(Ok(())) => (json!("allowed"), true),
                    Some(Err(axioms)) => (json!(format!("forbidden ({})", axioms.join(", "))), false),
                };
                m.insert("compiled_ptx".into(), compiled);
                m.insert("finding".into(), json!(finding));
            }
        }
        v
    }
}

/// An outcome as text: `1:r0=1 1:r1=0` (thread:register) or `x=1` (final memory).
pub fn cond_text(c: &Cond) -> String {
    c.iter()
        .map(|(o, v)| match o {
            Observable::Reg { thread, name } => format!("{thread}:{name}={v}"),
            Observable::Mem(l) => format!("{l}={v}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A compiler manifest's entry, as far as the report needs it.
struct Entry {
    module: Option<String>,
    error: Vec<String>,
}

/// The report for the compiler folder `dir`, or `None` where its manifest has no
/// litmus source.
pub fn build(tests: &Manifest, dir: &Path) -> Result<Option<Report>> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Input(format!("{}:{}:{}: not a compiler manifest: {e}", path.display(), e.line(), e.column())))?;
    let entries = doc
        .get("entries")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::Input(format!("{}: expected an `entries` array", path.display())))?;
    let mut by_source: BTreeMap<String, Entry> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        let source = e
            .get("source")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::Input(format!("{}: entry {i}: expected a `source` string", path.display())))?;
        let module = e.get("module").and_then(Value::as_str).map(str::to_owned);
        let error = e
            .get("error")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        by_source.insert(source.to_owned(), Entry { module, error });
    }
    let compiler = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = Vec::new();
    for t in &tests.tests {
        let found = [t.sources.cuda.as_ref(), Some(&t.sources.llvm)]
            .into_iter()
            .flatten()
            .map(|s| format!("clients/compilers/{s}"))
            .find_map(|s| by_source.get(&s).map(|e| (s, e)));
        let Some((source, entry)) = found else { continue };
        out.push(judge_one(t, source, entry, dir)?);
    }
    if out.is_empty() {
        return Ok(None);
    }
    Ok(Some(Report { compiler, tests: out }))
}

/// One test of one compiler.
fn judge_one(t: &Test, source: String, entry: &Entry, dir: &Path) -> Result<TestReport> {
    let forbidden = cxx::forbidden(t);
    let mut rep = TestReport { id: t.id.clone(), source, module: entry.module.clone(), threads: Vec::new(), forbidden, status: Status::CompileError(entry.error.clone()) };
    let Some(module) = &entry.module else { return Ok(rep) };
    let text = crate::io::gz::read_text(&dir.join(module), 1 << 24)?;
    let nlocs = t.locations.len();
    let mut threads = Vec::new();
    let mut names: BTreeMap<(usize, String), Reg> = BTreeMap::new();
    for (i, th) in t.threads.iter().enumerate() {
        let k = match ptx::read(&text, &th.kernel, nlocs) {
            Ok(k) => k,
            Err(r) => {
                rep.status = Status::NotLitmus(format!("{} line {}: {}", th.kernel, r.line, r.why));
                return Ok(rep);
            }
        };
        rep.threads.push(k.events.iter().map(|(e, line)| format!("{line}: {}", event_text(e, &t.locations))).collect());
        for (j, name) in th.observed.iter().enumerate() {
            match k.observed.get(&j) {
                Some((r, _)) => {
                    names.insert((i, name.clone()), *r);
                }
                None => {
                    rep.status = Status::NotLitmus(format!("{}: the output of {name} is never written", th.kernel));
                    return Ok(rep);
                }
            }
        }
        threads.push(Thread { place: cxx::place(t, i), events: k.events.into_iter().map(|(e, _)| e).collect() });
    }
    let litmus = Litmus { threads };
    let verdict = match model::judge(&litmus) {
        Ok(v) => v,
        Err(model::Unsupported::TooLarge(n)) => {
            rep.status = Status::TooLarge(format!("{n} candidate executions, above the oracle's cap of {}", model::MAX_CANDIDATES));
            return Ok(rep);
        }
        Err(u) => {
            rep.status = Status::NotLitmus(format!("outside the model: {u}"));
            return Ok(rep);
        }
    };
    let allowed: BTreeSet<String> = verdict.allowed.iter().map(|o| cond_text(&observe(t, &names, o))).collect();
    let answer = rep.forbidden.as_ref().map(|f| answer(t, &names, &verdict, &f.cond));
    rep.status = Status::Judged { allowed, verdict: answer };
    Ok(rep)
}

/// An event as PTX-like text: `st.relaxed.gpu [data], 1`.
pub fn event_text(e: &Event, locs: &[String]) -> String {
    let q = match (e.sem, e.scope) {
        (Sem::Weak, _) => String::new(),
        (s, Some(sc)) => format!(".{}.{}", sem_text(s), scope_text(sc)),
        (s, None) => format!(".{}", sem_text(s)),
    };
    let loc = |l: Loc| locs.get(l.0 as usize).cloned().unwrap_or_else(|| format!("loc{}", l.0));
    let rmw = |r: Rmw| match r {
        Rmw::Add(k) => format!("add [..], {k}"),
        Rmw::Exch(k) => format!("exch [..], {k}"),
    };
    match e.op {
        Op::Ld { loc: l, reg } => format!("ld{q} r{} <- [{}]", reg.0, loc(l)),
        Op::St { loc: l, val } => match val {
            Val::Const(c) => format!("st{q} [{}], {c}", loc(l)),
            Val::Reg(r) => format!("st{q} [{}], r{}", loc(l), r.0),
        },
        Op::Atom { loc: l, reg, rmw: r } => format!("atom{q} r{} <- {}", reg.0, rmw(r).replace("..", &loc(l))),
        Op::Red { loc: l, rmw: r } => format!("red{q} {}", rmw(r).replace("..", &loc(l))),
        Op::Fence => format!("fence{q}"),
        Op::AliasFence => "fence.proxy.alias".to_owned(),
    }
}

fn sem_text(s: Sem) -> &'static str {
    match s {
        Sem::Weak => "weak",
        Sem::Relaxed => "relaxed",
        Sem::Acquire => "acquire",
        Sem::Release => "release",
        Sem::AcqRel => "acq_rel",
        Sem::Sc => "sc",
    }
}

fn scope_text(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "cta",
        Scope::Cluster => "cluster",
        Scope::Gpu => "gpu",
        Scope::Sys => "sys",
    }
}

/// The observables of `o`: each observed register (by `names`) and location.
pub fn observe(t: &Test, names: &BTreeMap<(usize, String), Reg>, o: &Outcome) -> Cond {
    let mut c: Cond = names
        .iter()
        .map(|((th, n), r)| (Observable::Reg { thread: *th, name: n.clone() }, o.reg(*th, *r).unwrap_or(0)))
        .collect();
    for m in &t.observed_memory {
        let l = t.locations.iter().position(|x| x == m).unwrap_or(0);
        c.push((Observable::Mem(m.clone()), o.mem(Loc(l as u8))));
    }
    c
}

/// Whether `verdict` allows an outcome agreeing with `cond` (`Ok`), or the axioms
/// that forbid every such outcome.
pub fn answer(
    t: &Test,
    names: &BTreeMap<(usize, String), Reg>,
    verdict: &model::Verdict,
    cond: &Cond,
) -> std::result::Result<(), Vec<String>> {
    let matches = |o: &Outcome| {
        let seen = observe(t, names, o);
        cond.iter().all(|(k, v)| seen.iter().any(|(k2, v2)| k2 == k && v2 == v))
    };
    match verdict.forbids(matches) {
        None => Ok(()),
        Some(axioms) => Err(axioms.iter().map(|a| format!("{a:?}")).collect()),
    }
}
