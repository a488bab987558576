//! clients/compilers/litmus.json: what each litmus test for real compilers is, in
//! source terms (written by clients/compilers/litmus.py, read here).

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The whole manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Who wrote it.
    pub generated: String,
    /// The tests, in the generator's order.
    pub tests: Vec<Test>,
}

/// One test: a shape at chosen memory orders and one thread scope.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    /// `MP.rel_acq.device`: shape, orders, scope.
    pub id: String,
    /// The classic shape the rules of [`super::cxx`] know it by.
    pub shape: Shape,
    /// The thread scope every atomic and fence of the source names.
    pub scope: ThreadScope,
    /// Where the threads run.
    pub placement: Placement,
    /// The source in each language, relative to clients/compilers/.
    pub sources: Sources,
    /// Why the test has no CUDA C++ source, where it has none (cluster scope:
    /// libcu++ has no public `thread_scope` for it).
    #[serde(default)]
    pub why_no_cuda: Option<String>,
    /// The shared locations, in the order of each kernel's first parameters.
    pub locations: Vec<String>,
    /// The locations whose final value is observed.
    pub observed_memory: Vec<String>,
    /// The threads: one kernel each.
    pub threads: Vec<Thread>,
}

/// The classic shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub enum Shape {
    /// Message passing.
    #[serde(rename = "MP")]
    Mp,
    /// Message passing with a fence in each thread between its accesses.
    #[serde(rename = "MP+fences")]
    MpFences,
    /// Message passing whose flag is written by an exchange.
    #[serde(rename = "MP+rmw")]
    MpRmw,
    /// Message passing whose flag is written by an exchange and read by a
    /// fetch_add of 0.
    #[serde(rename = "MP+rmws")]
    MpRmws,
    /// Store buffering.
    #[serde(rename = "SB")]
    Sb,
    /// Store buffering with a fence in each thread between its accesses.
    #[serde(rename = "SB+fences")]
    SbFences,
    /// Store buffering whose stores are exchanges.
    #[serde(rename = "SB+rmw")]
    SbRmw,
    /// Store buffering whose stores are exchanges and loads fetch_adds of 0.
    #[serde(rename = "SB+rmws")]
    SbRmws,
    /// Load buffering.
    #[serde(rename = "LB")]
    Lb,
    /// Independent reads of independent writes.
    #[serde(rename = "IRIW")]
    Iriw,
    /// Write-to-read causality.
    #[serde(rename = "WRC")]
    Wrc,
    /// Read-read coherence.
    #[serde(rename = "CoRR")]
    CoRr,
    /// Two writers of two locations in opposite orders.
    #[serde(rename = "2+2W")]
    TwoPlusTwoW,
}

/// A CUDA thread scope (LLVM's syncscope "block", "cluster", "device", "" alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreadScope {
    /// `thread_scope_block`, syncscope("block").
    Block,
    /// syncscope("cluster"), which CUDA C++ cannot write (the test's `why_no_cuda`).
    Cluster,
    /// `thread_scope_device`, syncscope("device").
    Device,
    /// `thread_scope_system`, the empty syncscope.
    System,
}

/// Where the test puts its threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// All in one CTA.
    Cta,
    /// A CTA each, in one cluster.
    Cluster,
    /// A CTA each, on one GPU, in clusters of their own.
    Gpu,
    /// A GPU each.
    Sys,
}

impl Placement {
    /// Whether `places` (one a thread) are this placement's: all one place; one
    /// GPU and cluster, CTAs apart; one GPU, clusters apart; GPUs apart.
    pub fn holds(self, places: &[Place]) -> bool {
        let apart = |key: fn(&Place) -> u8| {
            let mut seen: Vec<u8> = places.iter().map(key).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len() == places.len()
        };
        let same = |key: fn(&Place) -> (u8, u8, u8)| places.windows(2).all(|w| key(&w[0]) == key(&w[1]));
        match self {
            Placement::Cta => same(|p| (p.gpu, p.cluster, p.cta)),
            Placement::Cluster => same(|p| (p.gpu, p.cluster, 0)) && apart(|p| p.cta),
            Placement::Gpu => same(|p| (p.gpu, 0, 0)) && apart(|p| p.cluster),
            Placement::Sys => apart(|p| p.gpu),
        }
    }
}

/// A test's sources, relative to clients/compilers/.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sources {
    /// The CUDA C++ source, where the test can be written in CUDA C++.
    #[serde(default)]
    pub cuda: Option<String>,
    /// The LLVM IR source.
    pub llvm: String,
}

/// One thread: its kernel, where it runs, what it observes and does.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Thread {
    /// The kernel's name in the compiled module.
    pub kernel: String,
    /// Where it runs.
    pub place: Place,
    /// The registers whose values it writes out, in the order of the kernel's
    /// parameters after the locations.
    pub observed: Vec<String>,
    /// Its operations in program order.
    pub ops: Vec<SourceOp>,
}

/// A thread's place, as the manifest writes it.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Place {
    /// The GPU.
    pub gpu: u8,
    /// The cluster on it.
    pub cluster: u8,
    /// The CTA in that cluster.
    pub cta: u8,
}

/// A C++ memory order (LLVM's monotonic is relaxed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// `memory_order_relaxed`, `monotonic`.
    Relaxed,
    /// `memory_order_acquire`.
    Acquire,
    /// `memory_order_release`.
    Release,
    /// `memory_order_acq_rel`.
    AcqRel,
    /// `memory_order_seq_cst`.
    SeqCst,
}

impl Order {
    /// Whether it is a release, or stronger ([atomics.order] p1: "memory_order_release,
    /// memory_order_acq_rel, and memory_order_seq_cst: a store operation performs a
    /// release operation").
    pub fn releases(self) -> bool {
        matches!(self, Order::Release | Order::AcqRel | Order::SeqCst)
    }

    /// Whether it is an acquire, or stronger ([atomics.order] p1: "memory_order_acquire,
    /// memory_order_acq_rel, and memory_order_seq_cst: a load operation performs an
    /// acquire operation").
    pub fn acquires(self) -> bool {
        matches!(self, Order::Acquire | Order::AcqRel | Order::SeqCst)
    }
}

/// One source operation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceOp {
    /// `a.load(order)` / `load atomic`, its value written out as `reg`.
    Load {
        /// The location.
        loc: String,
        /// The observed register.
        reg: String,
        /// The order.
        order: Order,
    },
    /// `a.store(value, order)` / `store atomic`.
    Store {
        /// The location.
        loc: String,
        /// The value.
        value: u32,
        /// The order.
        order: Order,
    },
    /// `a.exchange(value, order)` / `atomicrmw xchg`, the old value unused.
    Exchange {
        /// The location.
        loc: String,
        /// The value.
        value: u32,
        /// The order.
        order: Order,
    },
    /// `a.fetch_add(value, order)` / `atomicrmw add`, the old value written out as
    /// `reg`.
    FetchAdd {
        /// The location.
        loc: String,
        /// The observed register.
        reg: String,
        /// The value added.
        value: u32,
        /// The order.
        order: Order,
    },
    /// `cuda::atomic_thread_fence(order, scope)` / `fence`.
    Fence {
        /// The order.
        order: Order,
    },
}

impl SourceOp {
    /// The order of the operation.
    pub fn order(&self) -> Order {
        match self {
            SourceOp::Load { order, .. }
            | SourceOp::Store { order, .. }
            | SourceOp::Exchange { order, .. }
            | SourceOp::FetchAdd { order, .. }
            | SourceOp::Fence { order } => *order,
        }
    }
}

/// Reads and checks the manifest at `path`: each test's locations, observed names and
/// operations refer to one another.
pub fn load(path: &Path) -> Result<Manifest> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}:{}:{}: not a litmus manifest (clients/compilers/litmus.json, written by litmus.py): {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    for t in &m.tests {
        check(t).map_err(|why| Error::Input(format!("{}: test {}: {why}", path.display(), t.id)))?;
    }
    Ok(m)
}

/// Cross-references within one test.
fn check(t: &Test) -> std::result::Result<(), String> {
    if t.threads.is_empty() {
        return Err("no threads".to_owned());
    }
    match (&t.sources.cuda, &t.why_no_cuda) {
        (None, None) => return Err("no CUDA C++ source and no `why_no_cuda`".to_owned()),
        (Some(_), Some(_)) => return Err("a CUDA C++ source and a `why_no_cuda`".to_owned()),
        _ => {}
    }
    if !t.placement.holds(&t.threads.iter().map(|th| th.place).collect::<Vec<_>>()) {
        return Err(format!("its threads' places are not the placement {:?}'s", t.placement));
    }
    for m in &t.observed_memory {
        if !t.locations.contains(m) {
            return Err(format!("observed location {m} is not among its locations"));
        }
    }
    for th in &t.threads {
        let loads: Vec<&String> = th
            .ops
            .iter()
            .filter_map(|o| match o {
                SourceOp::Load { reg, .. } | SourceOp::FetchAdd { reg, .. } => Some(reg),
                _ => None,
            })
            .collect();
        if loads != th.observed.iter().collect::<Vec<_>>() {
            return Err(format!("{}: observed {:?} are not its loads' and fetch_adds' registers {loads:?}", th.kernel, th.observed));
        }
        for o in &th.ops {
            if let SourceOp::Load { loc, .. }
            | SourceOp::Store { loc, .. }
            | SourceOp::Exchange { loc, .. }
            | SourceOp::FetchAdd { loc, .. } = o
            {
                if !t.locations.contains(loc) {
                    return Err(format!("{}: location {loc} is not among its locations", th.kernel));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Message passing at `scope` and `placement`, its threads at `places`, with
    /// `sources` and the optional `why_no_cuda` as written in the manifest.
    fn mp(scope: &str, placement: &str, places: [(u8, u8, u8); 2], sources: &str, why: &str) -> Test {
        let th = |k: usize, (g, c, t): (u8, u8, u8), observed: &str, ops: &str| {
            format!(r#"{{"kernel": "k{k}", "place": {{"gpu": {g}, "cluster": {c}, "cta": {t}}}, "observed": {observed}, "ops": {ops}}}"#)
        };
        let t0 = th(0, places[0], "[]", r#"[{"op": "store", "loc": "flag", "value": 1, "order": "release"}]"#);
        let t1 = th(1, places[1], r#"["r0"]"#, r#"[{"op": "load", "loc": "flag", "reg": "r0", "order": "acquire"}]"#);
        let text = format!(
            r#"{{"id": "t", "shape": "MP", "scope": "{scope}", "placement": "{placement}", "sources": {sources}, {why} "locations": ["data", "flag"], "observed_memory": [], "threads": [{t0}, {t1}]}}"#
        );
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    /// A test has a CUDA C++ source or says why it has none, not both; its threads'
    /// places are its placement's.
    #[test]
    fn sources_and_places_are_checked() {
        let both = r#"{"cuda": "cuda/t.cu", "llvm": "llvm/t.ll"}"#;
        let llvm = r#"{"llvm": "llvm/t.ll"}"#;
        let why = r#""why_no_cuda": "no cluster scope in CUDA C++","#;
        assert_eq!(check(&mp("block", "cta", [(0, 0, 0); 2], both, "")), Ok(()));
        assert_eq!(check(&mp("cluster", "cluster", [(0, 0, 0), (0, 0, 1)], llvm, why)), Ok(()));
        let err = |t: &Test| check(t).expect_err("refused");
        assert!(err(&mp("cluster", "cluster", [(0, 0, 0), (0, 0, 1)], llvm, "")).contains("no CUDA C++ source and no `why_no_cuda`"));
        assert!(err(&mp("block", "cta", [(0, 0, 0); 2], both, why)).contains("a CUDA C++ source and a `why_no_cuda`"));
        assert!(err(&mp("block", "gpu", [(0, 0, 0); 2], both, "")).contains("not the placement Gpu's"));
    }

    fn at(gpu: u8, cluster: u8, cta: u8) -> Place {
        Place { gpu, cluster, cta }
    }

    /// Each placement holds its own places and not the others' (the manifest's
    /// words: one CTA; a CTA each in one cluster; a cluster each on one GPU; a GPU
    /// each).
    #[test]
    fn placements_hold_their_own_places() {
        let cases = [
            (Placement::Cta, [at(0, 0, 0), at(0, 0, 0)]),
            (Placement::Cluster, [at(0, 0, 0), at(0, 0, 1)]),
            (Placement::Gpu, [at(0, 0, 0), at(0, 1, 0)]),
            (Placement::Sys, [at(0, 0, 0), at(1, 0, 0)]),
        ];
        for (p, places) in &cases {
            for (q, _) in &cases {
                assert_eq!(q.holds(places), p == q, "{q:?} on {p:?}'s places");
            }
        }
    }
}
