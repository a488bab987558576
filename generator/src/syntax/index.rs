//! The judge for batch commands: [`definition::judge`](super::definition::judge)'s verdicts, with what they take
//! from the qualifier chain alone read once per distinct chain.
//!
//! Most of a verdict's cost is placing the qualifiers onto the syntax lines
//! (`judge::read_chain`); it depends only on the words before the operands
//! (`red.relaxed.gpu.global.add.u32`), not on the operands, the guard or the
//! module. The [`Index`] keeps each chain's reading ([`Chain`]): its instruction,
//! the spellings it can be read as (with their operand positions, their table and
//! forbid refusal, their requirement rules), or why none reads it: a defect of
//! the chain alone, or its nearest syntax lines by qualifiers with the defect each
//! names, among which the text's operands choose (`judge::Unread`). A verdict is
//! then the judge's remaining steps on one line, on the kept reading:
//! [`verdict::verdict`], the very steps the definition takes on the chain it
//! reads afresh.
//!
//! What differs from the definition is how a text gets there: the tokenizer of
//! the common shape ([`common_text`]), the qualifiers placed by bit masks
//! ([`Masks`]), and the texts handed to [`definition::judge`](super::definition::judge) whole (a text with a
//! comment outside the common shape, one without its `;`, a module the target
//! model refuses): [`Index::parsed`]. The differential test
//! (`tests/batch_fast_path.rs`) holds this path to the definition's answers on
//! every syntax and semantic vector, in both orders.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::prelude::*;

use ptxvec_spec::{Departure, Erratum, Instruction, PtxVersion, Qualifier, Spec, Target};

use super::common_text;
use super::departure;
use super::illegal::CHECK_PTXAS;
use super::judge::{self, Judgement, Order};
use super::line_masks::Masks;
use super::text::{self, InstrText, LexError};
use super::verdict::{self, Chain, InModule, Placed, Verdict};
use super::word_key::{self, ByWord};

/// The most chains the index keeps; past it, it starts over (a stream of
/// distinct chains must not grow memory without bound). The explorer's 400,000
/// walks hold about 82,000 distinct chains since atom joined them: at 2^16 the
/// index started over once in a run and read the later chains again (3 to 4% of
/// the batch's time, alternating runs); at 2^17 it never does, for 10 MB more peak memory (96 to
/// 106 MB). A reading takes at most a few kilobytes (one placement and one defect
/// per syntax line of its instruction).
pub const MAX_CHAINS: usize = 1 << 17;
/// Longer chains are read for each line, never kept.
pub const MAX_CHAIN_BYTES: usize = 256;

/// A chain's qualifiers placed by `masks` (the spec's syntax lines as bit masks):
/// `judge::read_chain`'s answer, by the definition's steps on the masks.
fn placed<'s>(masks: &Masks<'s>, instruction: &'s Instruction, quals: &[Qualifier]) -> Placed<'s> {
    match masks.of(instruction) {
        Some(m) => m.read_chain(quals),
        None => judge::read_chain(instruction, quals),
    }
}

/// A chain's reading as the index keeps it, with the ledger's departures that its
/// words may meet.
pub struct Read<'s> {
    /// The reading.
    pub chain: Chain<'s>,
    /// The departures of its instruction, seen in ptxas [`CHECK_PTXAS`], that its
    /// words may meet ([`departure::word_departures`]), in ledger order. Made with
    /// the reading: every reading is asked for them, by the first verdict that a
    /// departure may change, and the words are looked up once for both.
    pub departures: Vec<(&'s Erratum, &'s Departure)>,
}

impl<'s> Read<'s> {
    /// Reads the chain of `words` ([`Chain::read`]) and its departures.
    fn new(spec: &'s Spec, masks: &Masks<'s>, words: &[&str]) -> Read<'s> {
        let head = judge::head_of(spec, words);
        let departures = head.as_ref().map_or_else(
            |_| Vec::new(),
            |head| departure::word_departures(spec, &head.instruction.instruction, CHECK_PTXAS, &head.words),
        );
        let chain = Chain::of_head(head, |instruction, quals| placed(masks, instruction, quals));
        Read { chain, departures }
    }
}

/// An instruction text split into its tokens once, for one or several verdicts.
#[derive(Debug)]
pub struct Tokens<'t> {
    /// The tokens, or where they stop making sense.
    pub parsed: Result<InstrText<&'t str>, LexError>,
    /// The words before the operands, joined by dots (empty when it does not
    /// tokenize).
    pub chain: &'t str,
    /// Whether `parsed` is what the definition's tokenizer makes of the text
    /// (`text::tokenize`, comments made whitespace): false where the tokens were
    /// not made here (a comment or whitespace inside the chain, a comment outside
    /// the common shape), and the definition judges the text whole.
    exact: bool,
    /// Whether the tokens were read up to the text's `;` (the common shape's):
    /// then the text ends there, comments aside, without looking again.
    ended: bool,
}

impl<'t> Tokens<'t> {
    /// Tokenizes `text`. A text with a comment or whitespace inside its chain
    /// (`redux.sync .add.u32`) has no tokens here: its chain is no slice of it, and
    /// the definition ([`definition::judge`](super::definition::judge)) reads it; so does a text with a comment
    /// that is not of the common shape ([`common_text`]).
    pub fn of(text: &'t str) -> Tokens<'t> {
        let definition = || Tokens {
            parsed: Err(text::LexError {
                message: "read by the definition".to_owned(),
                offset: 0,
            }),
            chain: "",
            exact: false,
            ended: false,
        };
        // Most texts have the common shape, tokenized in one pass, comments
        // between tokens read as the whitespace they are.
        match common_text::tokenize(text) {
            Ok(parsed) => {
                if let Some(chain) = chain_of(text, &parsed.words) {
                    return Tokens {
                        parsed: Ok(parsed),
                        chain,
                        exact: true,
                        ended: true,
                    };
                }
            }
            // The definition's words would be no one slice of the text: no chain
            // to look up (the caller reads the text's plain form), so the
            // definition is not asked to tokenize it here.
            Err(common_text::Uncommon::SpacedChain) => return definition(),
            Err(common_text::Uncommon::Other) => {}
        }
        if text.contains('/') {
            return definition();
        }
        let parsed = text::tokenize_borrowed(text);
        let chain = match &parsed {
            Ok(p) => match chain_of(text, &p.words) {
                Some(c) => c,
                None => return definition(),
            },
            Err(_) => "",
        };
        Tokens {
            parsed,
            chain,
            exact: true,
            ended: false,
        }
    }

    /// The chain the index is asked about, if the text tokenizes.
    pub fn chain(&self) -> Option<&'t str> {
        self.parsed.as_ref().ok().map(|_| self.chain)
    }
}

/// The words joined by dots, as the slice of `text` they were split from when they
/// follow one another there, one dot apart (no copy); `None` when whitespace
/// stands between them.
fn chain_of<'t>(text: &'t str, words: &[&'t str]) -> Option<&'t str> {
    let offset = |w: &str| w.as_ptr() as usize - text.as_ptr() as usize;
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return Some("");
    };
    let chain = &text[offset(first)..offset(last) + last.len()];
    // The words are dot-free, so the slice is their join exactly when its length is.
    let joined = words.iter().map(|w| w.len()).sum::<usize>() + words.len() - 1;
    (chain.len() == joined).then_some(chain)
}

/// A chain's words (`red.global.add.u32` → `red`, `global`, `add`, `u32`): its
/// pieces between dots, as `split('.')` cuts them. With room for every chain of
/// the spec's syntax lines at once (collected from the split, they grew twice
/// for nearly every chain read), and cut by a plain loop (the split's searcher
/// asks `memchr` once per word, for words a few bytes long: a twentieth of the
/// batch judge's instructions went there).
fn words_of(chain: &str) -> Vec<&str> {
    let mut words = Vec::with_capacity(8);
    let mut start = 0;
    for (i, b) in chain.bytes().enumerate() {
        if b == b'.' {
            words.push(&chain[start..i]);
            start = i + 1;
        }
    }
    words.push(&chain[start..]);
    words
}

mod kept;

use kept::{Kept, Table};

/// A reading as the index's tables hold it: kept with its chain's text, shared.
type KeptRead<'s> = Arc<Kept<Read<'s>>>;

/// The readings of the chains met so far.
pub struct Index<'s> {
    spec: &'s Spec,
    /// The readings kept from the chunks before, looked up once per line (shared,
    /// so that a reading met in a chunk is kept without moving it).
    chains: Table<Read<'s>>,
    /// The readings made while a chunk is answered ([`Index::with_reading`]): a
    /// chain met for the first time is read by the worker that meets it, on the
    /// spot, and shared with the chunk's other lines at once; [`Index::keep_met`]
    /// keeps them for the chunks after.
    met: Mutex<Table<Read<'s>>>,
    /// The tables' hasher: a chain is hashed once per line, for both.
    hasher: foldhash::fast::RandomState,
    /// The spec's syntax lines as bit masks, made when the first chain is read.
    masks: OnceLock<Masks<'s>>,
    /// The module words the target model lists, made when first asked.
    modules: OnceLock<ModuleWords>,
}

/// Every PTX ISA version and target the target model lists, by the word that
/// names it (`8.6`, `sm_100a`: as it is written, and read back to itself).
#[derive(Default)]
struct ModuleWords {
    /// By [`word_key::key`]: a line's `ptx` and `target` are looked up as one
    /// integer each.
    versions: ByWord<PtxVersion>,
    targets: ByWord<Target>,
    /// Per listed version and target, whether the target model lets a module of
    /// that `.version` name that `.target`: `TargetModel::check_version`'s answer,
    /// asked once per pair here (asked of every line, it searched the list of
    /// targets), so that the rule is the model's alone.
    allowed: HashMap<(PtxVersion, Target), bool, foldhash::fast::RandomState>,
}

impl ModuleWords {
    fn new(spec: &Spec) -> ModuleWords {
        let model = &spec.targets;
        ModuleWords {
            versions: model
                .ptx_versions
                .values
                .iter()
                .map(|v| (v.to_string(), *v))
                .filter(|(w, v)| w.parse::<PtxVersion>().ok() == Some(*v))
                .filter_map(|(w, v)| Some((word_key::key(&w)?, v)))
                .collect(),
            targets: model
                .targets
                .iter()
                .map(|t| (t.name.to_string(), t.name))
                .filter(|(w, t)| w.parse::<Target>().ok() == Some(*t))
                .filter_map(|(w, t)| Some((word_key::key(&w)?, t)))
                .collect(),
            allowed: model
                .ptx_versions
                .values
                .iter()
                .flat_map(|&v| model.targets.iter().map(move |t| ((v, t.name), model.check_version(v, t.name).is_ok())))
                .collect(),
        }
    }
}

impl<'s> Index<'s> {
    /// An empty index over `spec`.
    pub fn new(spec: &'s Spec) -> Index<'s> {
        Index {
            spec,
            chains: Table::default(),
            met: Mutex::default(),
            hasher: foldhash::fast::RandomState::default(),
            masks: OnceLock::new(),
            modules: OnceLock::new(),
        }
    }

    /// The module of `.version ptx` and `.target target` where the target model
    /// lists both under these very words: what parsing them and looking them up in
    /// the model gives (`context::module`), without either. `None` for any
    /// other words, which the caller parses.
    pub fn listed_module(&self, ptx: &str, target: &str) -> Option<(PtxVersion, Target)> {
        let words = self.modules.get_or_init(|| ModuleWords::new(self.spec));
        Some((*words.versions.get(&word_key::key(ptx)?)?, *words.targets.get(&word_key::key(target)?)?))
    }

    /// Whether the target model lets a module of `.version ptx` name `.target
    /// target`: `TargetModel::check_version(ptx, target).is_ok()`.
    pub fn module_allowed(&self, ptx: PtxVersion, target: Target) -> bool {
        let words = self.modules.get_or_init(|| ModuleWords::new(self.spec));
        match words.allowed.get(&(ptx, target)) {
            Some(&allowed) => allowed,
            // A version or target the model does not list: the model's answer.
            None => self.spec.targets.check_version(ptx, target).is_ok(),
        }
    }

    /// Reads `chain` (`red.global.add.u32`) as the definition does, its
    /// qualifiers placed by the masks.
    fn read(&self, chain: &str) -> Chain<'s> {
        let masks = self.masks();
        Chain::read(self.spec, &words_of(chain), |instruction, quals| placed(masks, instruction, quals))
    }

    /// Reads the chain of `words` and its departures ([`Read::new`]).
    fn read_departing(&self, words: &[&str]) -> Read<'s> {
        Read::new(self.spec, self.masks(), words)
    }

    /// The spec's syntax lines as bit masks, made once.
    fn masks(&self) -> &Masks<'s> {
        self.masks.get_or_init(|| Masks::new(self.spec))
    }

    /// The spec judged against.
    pub fn spec(&self) -> &'s Spec {
        self.spec
    }

    /// Reads every chain of `chains` that the index does not hold yet, in
    /// parallel. A chain longer than [`MAX_CHAIN_BYTES`] is left out (it is read
    /// where it is judged). Past [`MAX_CHAINS`] the index is emptied first.
    pub fn fill<'a>(&mut self, chains: impl Iterator<Item = &'a str>) {
        let mut missing: Vec<&str> = chains
            .filter(|c| !self.settled(c))
            .collect::<HashSet<&str, foldhash::fast::RandomState>>()
            .into_iter()
            .collect();
        if missing.is_empty() {
            return;
        }
        // Sorted so that which chains a full index keeps does not depend on hashing
        // (it changes no answer, only the time).
        missing.sort_unstable();
        missing.truncate(MAX_CHAINS);
        if self.chains.len() + missing.len() > MAX_CHAINS {
            self.chains.clear();
        }
        let this = &*self;
        let read: Vec<KeptRead<'s>> = missing
            .par_iter()
            .map(|c| Arc::new(Kept::new(c, this.hash(c), this.read_departing(&words_of(c)))))
            .collect();
        self.chains.reserve(read.len());
        for r in read {
            self.chains.insert(r);
        }
    }

    /// Whether the index holds `chain`, or would not keep it anyway.
    fn settled(&self, chain: &str) -> bool {
        chain.len() > MAX_CHAIN_BYTES || self.chains.get(self.hash(chain), chain.as_bytes()).is_some()
    }

    /// `chain`'s hash in the tables.
    fn hash(&self, chain: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(chain.as_bytes())
    }

    /// Answers `items` in parallel, in order: `prepare` makes each ready (and
    /// `chain_of` names the chain its answer needs, if any), `finish` answers it.
    /// An item whose chain the index holds is answered in the same pass; the
    /// chains it lacks are read afterwards, all at once ([`Index::fill`]), and
    /// their items answered then.
    pub fn answer_all<'a, L: Sync, P: Send, A: Send>(
        &mut self,
        items: &'a [L],
        prepare: impl Fn(&'a L) -> P + Sync,
        chain_of: impl Fn(&P) -> Option<&str> + Sync,
        finish: impl Fn(&Index<'s>, &'a L, P) -> A + Sync,
    ) -> Vec<A> {
        enum Step<P, A> {
            Answered(A),
            Waiting(P),
        }
        let this = &*self;
        let steps: Vec<Step<P, A>> = items
            .par_iter()
            .map(|item| {
                let p = prepare(item);
                match chain_of(&p) {
                    Some(c) if !this.settled(c) => Step::Waiting(p),
                    _ => Step::Answered(finish(this, item, p)),
                }
            })
            .collect();
        if steps.iter().all(|s| matches!(s, Step::Answered(_))) {
            return steps
                .into_iter()
                .zip(items)
                .map(|(s, item)| match s {
                    Step::Answered(a) => a,
                    Step::Waiting(p) => finish(this, item, p),
                })
                .collect();
        }
        self.fill(steps.iter().filter_map(|s| match s {
            Step::Waiting(p) => chain_of(p),
            Step::Answered(_) => None,
        }));
        let this = &*self;
        steps
            .into_par_iter()
            .zip(items.par_iter())
            .map(|(s, item)| match s {
                Step::Answered(a) => a,
                Step::Waiting(p) => finish(this, item, p),
            })
            .collect()
    }

    /// The reading of `chain`, from the index or read now, to `use`.
    pub fn with_chain<T>(&self, chain: &str, f: impl FnOnce(&Chain<'s>) -> T) -> T {
        match self.chains.get(self.hash(chain), chain.as_bytes()) {
            Some(r) => f(&r.value.chain),
            None => f(&self.read(chain)),
        }
    }

    /// The reading of `chain`, whose words are `words` (the tokens' own: the chain
    /// is their join), to `use`: kept from the chunks before, met earlier in this
    /// chunk, or read now and shared with the chunk's other lines (a chain longer
    /// than [`MAX_CHAIN_BYTES`] is read for each line, never kept). Two workers may
    /// both read a chain they meet at once (the same reading); the second keeps
    /// the first's.
    pub fn with_reading<T>(&self, chain: &str, words: &[&str], f: impl FnOnce(&Read<'s>) -> T) -> T {
        let hash = self.hash(chain);
        if let Some(r) = self.chains.get(hash, chain.as_bytes()) {
            return f(&r.value);
        }
        if chain.len() > MAX_CHAIN_BYTES {
            return f(&self.read_departing(words));
        }
        // A poisoned lock holds whole readings: each is inserted at once.
        let met = || self.met.lock().unwrap_or_else(PoisonError::into_inner);
        let found: Option<KeptRead<'s>> = met().get(hash, chain.as_bytes()).cloned();
        let reading = found.unwrap_or_else(|| {
            // Read outside the lock, which the other worker asks for every chain
            // it does not find kept.
            let read = Arc::new(Kept::new(chain, hash, self.read_departing(words)));
            let mut met = met();
            match met.get(hash, chain.as_bytes()) {
                Some(first) => first.clone(),
                None => {
                    met.insert(read.clone());
                    read
                }
            }
        });
        f(&reading.value)
    }

    /// Keeps the readings met while the chunk was answered ([`Index::with_reading`]),
    /// emptying the index first when they would take it past [`MAX_CHAINS`]. It
    /// runs between chunks, while the workers wait: nothing here is per line.
    pub fn keep_met(&mut self) {
        let met = self.met.get_mut().unwrap_or_else(PoisonError::into_inner);
        if met.is_empty() {
            return;
        }
        if met.len() > MAX_CHAINS {
            // Sorted so that which chains a full index keeps does not depend on
            // hashing (it changes no answer, only the time). Only a chunk of more
            // distinct chains than the index holds needs it.
            let mut sorted: Vec<KeptRead<'s>> = met.drain().collect();
            sorted.sort_unstable_by(|a, b| a.chain().cmp(b.chain()));
            sorted.truncate(MAX_CHAINS);
            for r in sorted {
                met.insert(r);
            }
        }
        if self.chains.len() + met.len() > MAX_CHAINS {
            self.chains.clear();
        }
        // Room for a full index at once: growing it step by step rehashes it on
        // this thread, between chunks.
        if self.chains.capacity() < MAX_CHAINS {
            self.chains.reserve(MAX_CHAINS);
        }
        // Drained, not taken: the map keeps its room for the next chunk's readings,
        // which the workers insert under its lock.
        for r in met.drain() {
            self.chains.insert(r);
        }
    }

    /// [`definition::judge`](super::definition::judge)'s verdict on `text` (whose tokens are `tokens`) in a module
    /// of `.version ptx` and `.target target`, the same steps in the same order,
    /// with the chain's reading taken from the index.
    pub fn judge(
        &self,
        text: &str,
        tokens: &Tokens<'_>,
        ptx: PtxVersion,
        target: Target,
        order: Order,
    ) -> Judgement {
        match self.parsed(text, tokens, ptx, target, order) {
            Ok(parsed) => self.with_chain(tokens.chain, |chain| self.verdict(chain, parsed, order).into_judgement()),
            Err(j) => j,
        }
    }

    /// Whether [`Index::judge`] finds `text` legal (leniently), its chain's reading
    /// kept for the chunk ([`Index::with_reading`]): the departures' rewritten texts
    /// are judged so.
    pub fn is_legal(&self, text: &str, ptx: PtxVersion, target: Target) -> bool {
        let tokens = Tokens::of(text);
        match self.parsed(text, &tokens, ptx, target, Order::Lenient) {
            Ok(parsed) => self.with_reading(tokens.chain, &parsed.tokens.words, |r| {
                self.verdict(&r.chain, parsed, Order::Lenient).defect.is_none()
            }),
            Err(j) => j.legal(),
        }
    }

    /// The ledger's prediction for verdict `j` on `text` (as
    /// [`departure::predict`]), its rewritten texts judged here.
    pub fn predict(&self, text: &str, ptx: PtxVersion, target: Target, j: &Judgement) -> Option<departure::Prediction> {
        let module = super::context::Module { ptx, target };
        departure::predict_by(self.spec, text, module, CHECK_PTXAS, j, |t, m| {
            self.judge(t, &Tokens::of(t), m.ptx, m.target, Order::Lenient)
        })
    }

    /// [`Index::is_legal`] on the text `t` is the tokens of, without writing it:
    /// the same verdict, since the written text reads back as `t` (a departure's
    /// rewriting keeps the shape the tokens were read in). `tests/batch_fast_path.rs`
    /// holds it to the definition, which writes each rewritten text out and judges
    /// that.
    pub fn is_legal_tokens(&self, t: &InstrText<&str>, ptx: PtxVersion, target: Target) -> bool {
        if !self.module_allowed(ptx, target) {
            return self.is_legal(&departure::render(t), ptx, target);
        }
        let chain = t.words.join(".");
        let parsed = Parsed { tokens: t, ptx, target };
        self.with_reading(&chain, &t.words, |r| self.verdict(&r.chain, parsed, Order::Lenient).defect.is_none())
    }

    /// The tokens [`Index::verdict`] judges, or the verdict when the steps before the
    /// chain's reading decide it: the definition's (`definition::judge`), which names
    /// their defects in its order.
    // The verdict is returned whole, not boxed: it is built once per line that
    // takes this way out, and boxing would add an allocation to each.
    #[allow(clippy::result_large_err)]
    pub fn parsed<'t, 'a>(
        &self,
        text: &str,
        tokens: &'t Tokens<'a>,
        ptx: PtxVersion,
        target: Target,
        order: Order,
    ) -> Result<Parsed<'t, 'a>, Judgement> {
        let definition = || super::definition::judge(self.spec, text, ptx, target, order);
        if !self.module_allowed(ptx, target) || (!tokens.ended && !text.trim_end().ends_with(';')) {
            return Err(definition());
        }
        match &tokens.parsed {
            Ok(parsed) => Ok(Parsed { tokens: parsed, ptx, target }),
            // A comment-free text that does not tokenize: the definition's first
            // defect, from the same tokenizer.
            Err(e) if tokens.exact => Err(Judgement::unparsed(judge::parse_defect(e))),
            Err(_) => Err(definition()),
        }
    }

    /// [`definition::judge`](super::definition::judge)'s steps from the chain's words on ([`verdict::verdict`],
    /// the definition's own), with the chain's reading kept: the verdict on a
    /// text that [`Index::parsed`] reads as `parsed`.
    pub fn verdict<'a>(&self, chain: &'a Chain<'s>, parsed: Parsed<'_, '_>, order: Order) -> Verdict<'a> {
        let module = InModule {
            model: &self.spec.targets,
            ptx: parsed.ptx,
            target: parsed.target,
            allowed: true,
        };
        verdict::verdict(chain, parsed.tokens.guard, &parsed.tokens.operands, &module, order)
    }
}

/// A text's tokens as [`Index::parsed`] lets them through to [`Index::verdict`],
/// with the module they are judged in: one the target model allows, so that the
/// verdict's module step does not look it up again (that second lookup was a
/// hundred instructions a line, about 1% of `check-syntax -`'s under callgrind).
#[derive(Debug, Clone, Copy)]
pub struct Parsed<'t, 'a> {
    /// The tokens.
    pub tokens: &'t InstrText<&'a str>,
    /// The module's `.version` and `.target`, allowed.
    ptx: PtxVersion,
    target: Target,
}

/// The readings freed on the workers: tens of thousands of them, each a few
/// allocations, freed one after another on the thread that ends a batch run.
impl Drop for Index<'_> {
    fn drop(&mut self) {
        let chains: Vec<KeptRead<'_>> = self.chains.drain().collect();
        chains.into_par_iter().for_each(drop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo_spec as spec;

    #[test]
    fn modules_are_allowed_as_the_target_model_checks_them() {
        let spec = spec();
        let index = Index::new(&spec);
        let model = &spec.targets;
        let unlisted: Target = "sm_21".parse().unwrap();
        assert!(model.info(unlisted).is_none());
        // Versions the model does not list too (`6.9`): the model's answer still.
        let unlisted_versions: Vec<PtxVersion> = (1..=10)
            .flat_map(|major| (0..=9).map(move |minor| format!("{major}.{minor}")))
            .filter_map(|v| v.parse().ok())
            .filter(|v| !model.ptx_versions.values.contains(v))
            .collect();
        assert!(!unlisted_versions.is_empty());
        let mut refused = 0;
        for &v in model.ptx_versions.values.iter().chain(&unlisted_versions) {
            for t in model.targets.iter().map(|t| t.name).chain([unlisted]) {
                let want = model.check_version(v, t).is_ok();
                assert_eq!(index.module_allowed(v, t), want, "{v} {t}");
                refused += usize::from(!want);
            }
        }
        // Both answers are met: versions before a target, withdrawn ones, unlisted.
        assert!(refused > 100, "{refused}");
    }

    /// The departures' summary of a chain's words, as the index makes it from
    /// `head_of`'s lookups, is the one made from the words alone: on every syntax
    /// case's chain, with each word written twice, and with the first two
    /// qualifiers swapped.
    #[test]
    fn the_chains_words_are_summed_up_as_from_the_words() {
        let spec = spec();
        let mut chains = std::collections::BTreeSet::new();
        for f in &spec.instructions {
            for c in crate::syntax::vectors::cases(&spec, &f.instruction) {
                let Ok(t) = text::tokenize(&c.text) else { continue };
                let words: Vec<String> = t.words.iter().map(|w| w.to_string()).collect();
                for k in 0..words.len() {
                    let mut twice = words.clone();
                    twice.insert(k, words[k].clone());
                    chains.insert(twice);
                }
                if words.len() > 3 {
                    let mut swapped = words.clone();
                    swapped.swap(words.len() - 1, words.len() - 2);
                    chains.insert(swapped);
                }
                chains.insert(words);
            }
        }
        let mut repeated = 0;
        for words in &chains {
            let Ok(head) = judge::head_of(&spec, words) else { continue };
            let of_words = crate::syntax::chain_words::ChainWords::of(words);
            assert_eq!(head.words.spelled, of_words.spelled, "{words:?}");
            assert_eq!(head.words.repeated, of_words.repeated, "{words:?}");
            assert_eq!(head.words.first, of_words.first, "{words:?}");
            repeated += usize::from(head.words.repeated != Default::default());
        }
        assert!(chains.len() > 5_000 && repeated > 1_000, "{} chains, {repeated} with a repeat", chains.len());
    }

    #[test]
    fn a_chain_is_cut_at_its_dots_as_split_cuts_it() {
        for chain in ["", ".", "..", "red", "red.", ".red", "red..add", "red.shared::cta.add.u32", "a.b.c.d.e.f.g.h.i"] {
            assert_eq!(words_of(chain), chain.split('.').collect::<Vec<_>>(), "{chain:?}");
        }
    }

    #[test]
    fn verdicts_equal_the_judges_whether_the_chain_is_held_or_not() {
        let spec = spec();
        let v = |s: &str| s.parse::<PtxVersion>().unwrap();
        let t = |s: &str| s.parse::<Target>().unwrap();
        // One text per step of the judge that can decide a verdict.
        let texts = [
            "activemask.b32 %r1;",
            "activemask.b32 %r1",
            "activemask.b32 %r1,;",
            "foo.b32 %r1;",
            "@%r1 activemask.b32 %r1;",
            "activemask.b32.b32 %r1;",
            "activemask.q %r1;",
            "red.add.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};",
            "red.global.relaxed.gpu.add.u32 [%rd1], %r1;",
            "red.add.u32 [%rd1], %rd1;",
            "redux.sync.min.abs.NaN.f32 %f1, %f2, 0xffffffff;",
            "vote.sync.ballot.b32 %r1, !%p1, 0xffffffff;",
            // No line reads the qualifiers: the operands choose the nearest line.
            "redux.sync.min %f1, %f2, 0xffffffff;",
            "redux.sync.min %r1, %r2, 0xffffffff;",
            "redux.sync.min.u32.f32 %r1, %r2, 0xffffffff;",
            // A line reads them, the operands do not fit it.
            "red.global.add.u32 [%rd1], %f1;",
            "red.global.add.u32 [%r1], %r1;",
            "red.global.add.u32 [%rd1], %r1, %r2;",
            // Not the document's order, and a table's refusal.
            "red.sys.global.add.u32 [%rd1], %r1;",
            "red.global.add.v2.u32 [%rd1], {%r1, %r2};",
            // A guard that is no predicate, before and after the chain's own defects.
            "@%r1 redux.sync.add.u32 %r1, %r2, 0xffffffff;",
            "@!%rd1 redux.add.u32 %r1, %r2, 0xffffffff;",
            "@%r1 redux.sync.add.add.u32 %r1, %r2, 0xffffffff;",
            "@%f1 foo.b32 %r1;",
            "@%r1 redux.sync.add.q %r1, %r2, 0xffffffff;",
            // Texts that do not tokenize, with and without a comment.
            "red.global.add.u32 [%rd1, %r1;",
            "red.global.add.u32 [%rd1], %r1 /* c;",
            "red.global.add.u32 [%rd1], {%r1;",
            "red.global..add.u32 [%rd1], %r1;",
        ];
        let mut index = Index::new(&spec);
        for fill in [false, true] {
            if fill {
                let tokens: Vec<Tokens> = texts.iter().map(|t| Tokens::of(t)).collect();
                index.fill(tokens.iter().filter_map(Tokens::chain));
            }
            for text in texts {
                for (ptx, target) in [("8.6", "sm_90"), ("8.6", "sm_100a"), ("6.0", "sm_30"), ("6.0", "sm_90")] {
                    for order in [Order::Lenient, Order::Strict] {
                        let want = crate::syntax::definition::judge(&spec, text, v(ptx), t(target), order);
                        let got = index.judge(text, &Tokens::of(text), v(ptx), t(target), order);
                        assert_eq!(got, want, "{text} at {ptx} {target} {order:?}, held: {fill}");
                    }
                }
            }
        }
    }

    #[test]
    fn listed_modules_are_what_their_words_parse_to() {
        let spec = spec();
        let index = Index::new(&spec);
        for v in &spec.targets.ptx_versions.values {
            for t in &spec.targets.targets {
                let (pw, tw) = (v.to_string(), t.name.to_string());
                let parsed = crate::syntax::context::module(&spec, Some(&pw), Some(&tw)).ok();
                assert_eq!(index.listed_module(&pw, &tw), parsed, "{pw} {tw}");
            }
        }
        // Other words are parsed by the caller.
        let padded = ("8.6\0", "sm_90\0\0"); // the same bytes as "8.6" and "sm_90", and more
        let long = ("8.6", "sm_90aaaaaaaaaaaaaaaaaaaaaaaaaa");
        for (p, t) in [("8.60", "sm_90"), (" 8.6", "sm_90"), ("8.6", "sm_999"), ("8.6", "SM_90"), ("", ""), padded, long] {
            assert_eq!(index.listed_module(p, t), None, "{p:?} {t:?}");
        }
    }

    #[test]
    fn the_index_stays_bounded() {
        let spec = spec();
        let mut index = Index::new(&spec);
        let chains: Vec<String> = (0..MAX_CHAINS + 10).map(|i| format!("red.x{i}")).collect();
        index.fill(chains.iter().map(String::as_str));
        assert!(index.chains.len() <= MAX_CHAINS);
        index.fill(chains.iter().take(20).map(String::as_str));
        assert!(index.chains.len() <= MAX_CHAINS);
        let long = format!("red{}", ".add".repeat(MAX_CHAIN_BYTES));
        index.fill(std::iter::once(long.as_str()));
        assert!(index.chains.get(index.hash(&long), long.as_bytes()).is_none());
    }
}
