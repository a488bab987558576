//! Self-checking PTX for the semantic vectors: one complete module per variant that
//! carries its vectors as `.global` data, runs every one, and either checks the
//! results against each profile's expectation on the device (`ptxvec_check`) or
//! writes the raw outputs for a comparison elsewhere (`ptxvec_raw`). The calling
//! convention is in vectors/silicon/README.md; any PTX consumer can run these.
//!
//! What to run comes from the records' text read against the spec (its spelling:
//! state space, vector form, element format, vote's `!`); what to accept, from the
//! records' expectations.

pub mod emit;
pub mod raw;
pub mod subset;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ptxvec_oracle::float::Format;
use ptxvec_oracle::profile::Profile;
use ptxvec_spec::{PtxVersion, Spec, Target, TargetModel};

use sha2::Digest;

pub use crate::family::{Execution, MemSpace};

use crate::error::{Error, Result};
use crate::family;
use crate::record::{self, Expectation, Inputs, Out, Record, Shape};
use crate::family::binding::{self, Bound};
use crate::record::index::{Index, IndexEntry};

/// Lanes in a warp.
pub const WARP: usize = 32;
/// Threads per block for memory variants (one thread per record).
pub const BLOCK: u32 = 128;
/// Record indices kept per profile in `ptxvec_check`'s result.
pub const FIRST_FAILS: usize = 16;

/// How a variant stated with generic addressing (`red` without a state space) runs:
/// its generic address into either memory, or spelled with a state space instead.
/// A vector form takes only the global ones: PTX ISA 9.7.13.6, "`red` with vector
/// type may be used only with `.global` space and with generic addressing where the
/// address points to `.global` space".
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Window {
    /// The generic address points into global memory (the default).
    Global,
    /// The generic address points into the CTA's shared memory.
    Shared,
    /// Spelled `red.global…`: a global address.
    #[value(name = "global-space")]
    GlobalSpace,
    /// Spelled `red.shared…`: a shared address.
    #[value(name = "shared-space")]
    SharedSpace,
}

impl Window {
    /// Every window, in the order the runner takes them.
    pub const ALL: [Window; 4] = [
        Window::Global,
        Window::Shared,
        Window::GlobalSpace,
        Window::SharedSpace,
    ];

    /// Its name on the command line and in the evidence.
    pub fn name(self) -> &'static str {
        match self {
            Window::Global => "global",
            Window::Shared => "shared",
            Window::GlobalSpace => "global-space",
            Window::SharedSpace => "shared-space",
        }
    }

    /// Where the reduction lands, and the state space the opcode then names.
    fn space(self) -> (MemSpace, Option<&'static str>) {
        match self {
            Window::Global => (MemSpace::Generic, None),
            Window::Shared => (MemSpace::GenericShared, None),
            Window::GlobalSpace => (MemSpace::Global, Some("global")),
            Window::SharedSpace => (MemSpace::SharedCta, Some("shared")),
        }
    }
}

/// The device encoding of an expectation: (kind bits, a, b). Kind bit 0: `a` or
/// `b` is accepted; bit 1: any NaN is; bit 2: anything is.
pub fn code(e: &Expectation) -> (u8, u64, u64) {
    match e {
        Expectation::Exact(x) => (1, x.value, x.value),
        Expectation::AnyNan => (2, 0, 0),
        Expectation::OneOf { bits, nan } => {
            let a = bits.first().map_or(0, |b| b.value);
            let b = bits.get(1).map_or(a, |b| b.value);
            (if *nan { 3 } else { 1 }, a, b)
        }
        // The device compares one value per slot; a permutation is judged on the
        // host, from every contending thread's value in the raw buffer, and an
        // election from every lane's (`accept::joint`).
        Expectation::Undefined
        | Expectation::NotExecuted
        | Expectation::Permutation(_)
        | Expectation::Leader { .. } => (4, 0, 0),
    }
}

/// A lane executes outside the membermask: undefined behaviour that may hang
/// silicon, so such records are not run.
pub fn skipped(r: &Record) -> bool {
    match &r.inputs {
        Inputs::Warp(w) => {
            let mm = w.membermask.map_or(0, |b| b.value);
            mm != 0 && (0..w.executing.width() as usize).any(|t| w.executing.get(t) && (t >= 64 || mm >> t & 1 == 0))
        }
        Inputs::Memory { .. } | Inputs::Contention { .. } => false,
    }
}

/// The threads of a contention record, where it is one.
pub fn contention(r: &Record) -> Option<usize> {
    r.inputs.contenders()
}

/// One variant's vectors, ready to emit.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The variant id (`red.global.add.f32`).
    pub id: String,
    /// The opcode with every qualifier, from the records' text.
    pub opcode: String,
    /// Its mnemonic (`red`), which the opcode begins with.
    pub mnemonic: &'static str,
    /// Its operands, as the self-checking module binds them to registers.
    pub operands: Vec<Bound>,
    /// What it runs.
    pub exec: Execution,
    /// Its records' inputs and outputs.
    pub shape: Shape,
    /// Alternatives `(ptx, target)`, any one suffices.
    pub requires: Vec<(String, String)>,
    /// The records, in file order.
    pub records: Vec<Record>,
    /// The texts among the records whose predicate source is negated (`!%p`).
    pub negated: BTreeSet<String>,
    /// How a variant stated with generic addressing runs (`Some(Window::Global)` as
    /// read); `None` for every other variant.
    pub window: Option<Window>,
    /// For a module of some records only ([`Suite::subset`]): their numbers in the
    /// variant (`<variant>#<n>`), in order; `None` for the whole variant.
    pub picked: Option<Vec<usize>>,
    /// For a spelling a rule withdraws (the non-sync `vote` and `shfl`, from PTX ISA
    /// 6.4 on sm_70): the last module before the withdrawal on its target
    /// (`("6.3", "sm_70")`), where a device of that architecture or later runs it.
    pub before_removal: Option<(String, String)>,
    /// The withdrawal itself: its first `.version` and its target; no module of that
    /// version or later on a target meeting it may hold the variant.
    pub removal: Option<(PtxVersion, Target)>,
    /// For a variant stated with generic addressing, each window that spells a
    /// state space (`red.global…`) with what that spelling computes and whether it
    /// writes `p`: the text is the spelled variant's, and its records expect what
    /// that variant's do ([`Suite::in_window`]).
    pub spelled: Vec<(Window, family::Semantics, bool)>,
}

impl Suite {
    /// Reads a variant's records against the spec: every text must be a spelling
    /// of one semantics, every record of its shape. Errors name the record's line.
    pub fn parse(spec: &Spec, id: &str, records: Vec<Record>) -> Result<Suite> {
        let first = records
            .first()
            .ok_or_else(|| Error::Input(format!("{id}: no records")))?;
        let at = |n: usize, e: &dyn std::fmt::Display| {
            Error::Input(format!("{id}: line {}: {e}", n + 1))
        };
        let reading = family::read(spec, &first.text).map_err(|e| at(0, &e))?;
        let (sem, exec, shape) = (
            reading.semantics,
            reading.semantics.execution(&reading.spelling),
            reading.semantics.shape().written(reading.pair),
        );
        let operands = binding::bind(&reading.spelling, sem, reading.pair);
        let mnemonic = reading.spelling.form.syntax.mnemonic.spelling();
        let opcode = first
            .text
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let requires = first
            .requires
            .iter()
            .map(|r| (r.ptx.clone(), r.target.clone().unwrap_or_default()))
            .collect();
        let mut negated = BTreeSet::new();
        let mut checked = BTreeSet::new();
        let mut fitted = Vec::with_capacity(records.len());
        for (n, mut r) in records.into_iter().enumerate() {
            if checked.insert(r.text.clone()) {
                let other = family::read(spec, &r.text).map_err(|e| at(n, &e))?;
                if other.semantics != sem {
                    return Err(at(
                        n,
                        &format!("`{}` computes another variant than line 1", r.text),
                    ));
                }
                if other.negate {
                    negated.insert(r.text.clone());
                }
            }
            r.inputs = r.inputs.fit(shape).map_err(|e| at(n, &e))?;
            if !r.expect.contains_key(&Profile::PtxIsa) {
                return Err(at(n, &"no ptx-isa expectation"));
            }
            for (p, o) in std::mem::take(&mut r.expect) {
                let o = o
                    .fit(shape)
                    .map_err(|e| at(n, &format!("expect.{}: {e}", p.name())))?;
                r.expect.insert(p, o);
            }
            if contention(&r).is_some_and(|t| t != WARP) {
                return Err(at(
                    n,
                    &format!("\"operands\": expected a list of {WARP} threads"),
                ));
            }
            if matches!(
                exec,
                Execution::Memory {
                    space: MemSpace::BulkGlobal | MemSpace::BulkCluster,
                    ..
                }
            ) && contention(&r).is_some()
            {
                return Err(at(
                    n,
                    &"a contention record for a bulk reduction (one thread issues it)",
                ));
            }
            fitted.push(r);
        }
        let window = matches!(
            exec,
            Execution::Memory {
                space: MemSpace::Generic,
                ..
            }
        )
        .then_some(Window::Global);
        let removal = reading.spelling.removal().and_then(|(_, at)| Some((at.ptx?, at.target?)));
        let before_removal = removal.and_then(|(ptx, target)| {
            Some((spec.targets.version_before(ptx)?.to_string(), target.to_string()))
        });
        let mut suite = Suite {
            id: id.to_owned(),
            opcode,
            mnemonic,
            operands,
            exec,
            shape,
            requires,
            records: fitted,
            negated,
            picked: None,
            window,
            before_removal,
            removal,
            spelled: Vec::new(),
        };
        suite.spelled = suite.spelled_readings(spec)?;
        Ok(suite)
    }

    /// What each window that spells a state space computes: the variant's text
    /// with the window's opcode, read as `ptxvec eval` reads it.
    fn spelled_readings(&self, spec: &Spec) -> Result<Vec<(Window, family::Semantics, bool)>> {
        let mut out = Vec::new();
        let Some(first) = self.records.first() else { return Ok(out) };
        for w in self.windows().into_iter().filter(|w| w.space().1.is_some()) {
            let at = |e: &dyn std::fmt::Display| Error::Input(format!("{} in window {}: {e}", self.id, w.name()));
            let rest = first.text.strip_prefix(self.opcode.as_str()).ok_or_else(|| at(&"the text does not start with the variant's opcode"))?;
            let reading = family::read(spec, &format!("{}{rest}", self.window_opcode(w))).map_err(|e| at(&e))?;
            out.push((w, reading.semantics, reading.pair));
        }
        Ok(out)
    }

    /// The opcode as `window` writes it: the variant's, with the window's state
    /// space after the mnemonic where it spells one.
    fn window_opcode(&self, window: Window) -> String {
        let rest = self.opcode.strip_prefix(self.mnemonic).and_then(|r| r.strip_prefix('.'));
        match (window.space().1, rest) {
            (Some(name), Some(rest)) => format!("{}.{name}.{rest}", self.mnemonic),
            _ => self.opcode.clone(),
        }
    }

    /// Whether record `r`'s predicate source is negated.
    pub fn negates(&self, r: &Record) -> bool {
        self.negated.contains(&r.text)
    }

    /// Whether record `r` leaves out an optional source its shape may hold (a
    /// `bar.red` without the thread count): its text leaves out the operand too.
    pub fn omits(&self, r: &Record) -> bool {
        match (&self.shape, &r.inputs) {
            (Shape::Warp(shape), Inputs::Warp(w)) => shape
                .sources()
                .any(|(key, s)| s.optional && w.sources().iter().any(|(k, v)| *k == key && v.is_none())),
            _ => false,
        }
    }

    /// The threads a warp record runs, lane after lane of its warps: 32 for a warp
    /// collective ([`record::WarpShape::threads`]); [`WARP`] for a memory variant's
    /// contention block.
    pub fn threads(&self) -> usize {
        match self.shape {
            Shape::Warp(w) => w.threads(),
            Shape::Memory(_) => WARP,
        }
    }

    /// The outputs of a record, with their widths in bits: `mem`, or `d` (and `p`).
    pub fn outputs(&self) -> Vec<(Out, u32)> {
        self.shape
            .outputs()
            .iter()
            .map(|o| (o.out, o.field.width()))
            .collect()
    }

    /// The float format of output `o`, where it holds floats.
    pub fn float(&self, o: Out) -> Option<Format> {
        self.shape
            .outputs()
            .iter()
            .find(|s| s.out == o)
            .and_then(|s| s.float)
    }

    /// The +infinity bits of output `o` when it holds a float (the device's NaN test).
    pub fn inf(&self, o: Out) -> Option<u64> {
        self.float(o).map(|f| f.inf(false))
    }

    /// Record `r`'s expected slots of output `o` under profile `p`.
    pub fn slots<'a>(&self, r: &'a Record, p: Profile, o: Out) -> &'a [Expectation] {
        r.expected(p).and_then(|e| e.get(o)).unwrap_or_default()
    }

    /// The lowest `(ptx, target)` an sm_90 module of this suite needs: the record's
    /// requirement the device meets, raised to what sm_90 itself needs (PTX 7.8).
    /// `None` when no requirement is met by a device of compute capability `cc`.
    pub fn module_for(&self, cc: (i32, i32)) -> Option<(String, String)> {
        let dev = cc.0 * 10 + cc.1;
        // A withdrawn spelling runs from a module written before its withdrawal:
        // the driver compiles `.version 6.3 .target sm_70` for the sm_90 it runs on
        // (ptxas 13.5 takes the non-sync forms there, warning that they "may
        // produce unpredictable results on sm_70 and later architectures").
        if let Some((p, t)) = &self.before_removal {
            return target_runs_on(t, dev).then(|| (p.clone(), t.clone()));
        }
        self.requires
            .iter()
            .filter(|(_, t)| target_runs_on(t, dev))
            .map(|(p, t)| {
                let target = if t.ends_with('a') {
                    t.clone()
                } else {
                    format!("sm_{dev}")
                };
                (max_version(p, "7.8"), target)
            })
            .min()
    }

    /// Whether a module of `.version ptx` and `.target target` meets one of the
    /// records' requirements, as the target model reads a requirement
    /// ([`TargetModel::satisfies`]: `sm_90a` only for `sm_90a`, an `f` target for
    /// its family from it on, a plain one for any later architecture), outside the
    /// variant's withdrawal, if a rule withdraws it. What `emit-ptx --variant --ptx
    /// --target` may lower a module to.
    pub fn allows(&self, model: &TargetModel, ptx: &str, target: &str) -> bool {
        let (Ok(v), Ok(have)) = (ptx.parse::<PtxVersion>(), target.parse::<Target>()) else {
            return false;
        };
        let withdrawn = self.removal.is_some_and(|(rv, rt)| v >= rv && model.satisfies(have, rt));
        !withdrawn
            && self.requires.iter().any(|(p, t)| {
                match (p.parse::<PtxVersion>(), t.parse::<Target>()) {
                    (Ok(pv), Ok(need)) => v >= pv && model.satisfies(have, need),
                    _ => false,
                }
            })
    }

    /// The module to emit where no device is given: sm_90 when it runs there, else
    /// the first requirement as stated (raised to sm_90's PTX 7.8).
    pub fn default_module(&self) -> (String, String) {
        self.module_for((9, 0)).or_else(|| self.before_removal.clone()).unwrap_or_else(|| {
            let (p, t) = self.requires.first().cloned().unwrap_or_default();
            (max_version(&p, "7.8"), t)
        })
    }

    /// The windows this suite runs in: every [`Window`] for a scalar variant stated
    /// with generic addressing, the global ones for a generic vector form, none for
    /// a variant that names its state space.
    pub fn windows(&self) -> Vec<Window> {
        match (self.window, self.exec) {
            (Some(Window::Global), Execution::Memory { global_only, .. }) => Window::ALL
                .into_iter()
                .filter(|w| !global_only || matches!(w, Window::Global | Window::GlobalSpace))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The suite as silicon runs it: once, or once in each of its windows.
    pub fn runs(&self) -> Vec<Suite> {
        match self.windows() {
            w if w.is_empty() => vec![self.clone()],
            w => w
                .into_iter()
                .filter_map(|w| self.in_window(w).ok())
                .collect(),
        }
    }

    /// The suite run through `window` (the same records; in a window that spells a
    /// state space, that spelling's expectations): an error for a window the
    /// variant does not have.
    pub fn in_window(&self, window: Window) -> Result<Suite> {
        if self.window.is_none() && window == Window::Global {
            return Ok(self.clone());
        }
        if !self.windows().contains(&window) {
            return Err(Error::Usage(format!(
                "{}: --window {} needs a variant stated with generic addressing (`red` without a state space), and a scalar one unless global",
                self.id,
                window.name()
            )));
        }
        let mut s = self.clone();
        if let Execution::Memory { space, .. } = &mut s.exec {
            *space = window.space().0;
        }
        s.opcode = self.window_opcode(window);
        // A window that spells a state space takes that spelling's expectations.
        if let Some(&(_, semantics, pair)) = self.spelled.iter().find(|(w, ..)| *w == window) {
            for r in &mut s.records {
                let at = |e: &dyn std::fmt::Display| Error::Input(format!("{}: {} in window {}: {e}", self.id, r.id, window.name()));
                let expect = family::expectations(semantics, (self.negated.contains(&r.text), pair), &r.inputs, Profile::ALL)
                    .map_err(|e| at(&e))?;
                r.expect = expect
                    .into_iter()
                    .map(|(p, o)| Ok((p, o.fit(self.shape).map_err(|e| at(&e))?)))
                    .collect::<Result<_>>()?;
            }
        }
        s.window = Some(window);
        Ok(s)
    }

    /// The window's name for a variant stated with generic addressing, `None` for
    /// every other variant.
    pub fn window(&self) -> Option<&'static str> {
        self.window.map(Window::name)
    }

    /// The file its raw buffer is kept in, for variant file `stem`: a variant
    /// stated with generic addressing has a window in every run.
    pub fn raw_file(&self, stem: &str) -> String {
        raw_name(stem, self.window)
    }

    /// Records run on silicon (not skipped).
    pub fn run_count(&self) -> usize {
        self.records.iter().filter(|r| !skipped(r)).count()
    }
}

/// A raw buffer's file name for variant file `stem`, in `window` where one is named.
pub fn raw_name(stem: &str, window: Option<Window>) -> String {
    match window {
        Some(w) => format!("{stem}.{}.bin", w.name()),
        None => format!("{stem}.bin"),
    }
}

/// Whether code for `target` (`sm_70`, `sm_90a`, `sm_100f`) runs on a device of
/// compute capability `dev` (90 for 9.0): plain targets run on that architecture
/// and later, `a` targets only on theirs, `f` targets on their family from there on.
pub fn target_runs_on(target: &str, dev: i32) -> bool {
    let Some(rest) = target.strip_prefix("sm_") else {
        return false;
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let Ok(n) = digits.parse::<i32>() else {
        return false;
    };
    match &rest[digits.len()..] {
        "" => n <= dev,
        "a" => n == dev,
        "f" => n <= dev && n / 10 == dev / 10,
        _ => false,
    }
}

fn max_version(a: &str, b: &str) -> String {
    let key = |s: &str| -> (u32, u32) {
        let (x, y) = s.split_once('.').unwrap_or((s, "0"));
        (x.parse().unwrap_or(0), y.parse().unwrap_or(0))
    };
    if key(a) >= key(b) {
        a.to_owned()
    } else {
        b.to_owned()
    }
}

/// The most bytes a variant's vector file may decompress to (the largest is under
/// 1 MB; `generate --count` makes bigger ones).
pub const MAX_VECTOR_BYTES: u64 = 1 << 30;

/// Reads a variant's vector file, which must be the one `index.json` lists: its
/// SHA-256 (of the file as written, gzipped) is checked, so that a file changed by
/// hand is refused, not run.
pub fn load(spec: &Spec, entry: &IndexEntry, vectors: &Path) -> Result<Suite> {
    let path = vectors.join(&entry.file);
    let mut bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let digest = format!("{:x}", sha2::Sha256::digest(&bytes));
    if digest != entry.sha256 {
        return Err(Error::Input(format!(
            "{}: SHA-256 {digest}, index.json lists {}: the file changed since `ptxvec generate` wrote it",
            path.display(),
            entry.sha256
        )));
    }
    if crate::io::gz::is_gz(&path) {
        bytes = crate::io::gz::decompress(&path.display().to_string(), &bytes, MAX_VECTOR_BYTES)?;
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::Input(format!("{}: not UTF-8: {e}", path.display())))?;
    let records = record::read_text(&path.display().to_string(), &text)
        .map_err(|e| Error::Input(e.to_string()))?;
    Suite::parse(spec, &entry.variant, records)
}

/// Which variants a command over the self-checking modules runs (`silicon`,
/// `run-engine`): those of a vectors folder, all or the ones named.
#[derive(Debug, Clone, clap::Args)]
pub struct Selection {
    /// The vectors folder (index.json, semantic/); default: ./vectors if it holds
    /// index.json, else the checkout's the binary was built from.
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Only these variants (by id).
    #[arg(long = "variant")]
    pub variants: Vec<String>,
}

impl Selection {
    /// The vectors folder: the one named, or the one found
    /// ([`crate::io::vectors_dir::resolve`]).
    pub fn vectors(&self) -> Result<PathBuf> {
        crate::io::vectors_dir::resolve(self.vectors.as_deref())
    }

    /// The index entries selected, in index order; a name no entry has is a usage
    /// error.
    pub fn entries(&self) -> Result<Vec<IndexEntry>> {
        let mut idx = index(&self.vectors()?)?;
        if let Some(v) = self.variants.iter().find(|v| !idx.iter().any(|e| e.variant == **v)) {
            return Err(Error::Usage(format!("unknown variant {v:?}")));
        }
        if !self.variants.is_empty() {
            idx.retain(|e| self.variants.contains(&e.variant));
        }
        Ok(idx)
    }
}

/// The variants `vectors/index.json` lists, in its order.
pub fn index(vectors: &Path) -> Result<Vec<IndexEntry>> {
    let path = vectors.join("index.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let index: Index = serde_json::from_str(&text)
        .map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
    Ok(index.files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_on_sm_90() {
        let table = [
            ("sm_30", true),
            ("sm_90", true),
            ("sm_90a", true),
            ("sm_100a", false),
            ("sm_100f", false),
            ("sm_100", false),
            ("compute_90", false),
        ];
        for (t, want) in table {
            assert_eq!(target_runs_on(t, 90), want, "case: {t}");
        }
    }
}
