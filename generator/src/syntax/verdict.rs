//! A verdict from a qualifier chain's reading: [`definition::judge`](super::definition::judge)'s steps after the
//! general statement grammar, written once.
//!
//! The definition ([`definition::judge`](super::definition::judge)) reads each text's chain afresh, its
//! qualifiers placed on the groups' sets (`judge::read_chain`); the batch judge
//! ([`super::index::Index`]) keeps each distinct chain's reading, its qualifiers
//! placed by the bit masks, and judges every text of that chain on it. Both make
//! the same [`Chain`] and both call [`verdict`], so a step is added, moved or
//! reworded here once; `tests/batch_fast_path.rs` holds what still differs
//! between them (the tokenizer, the masks, which texts go to the definition
//! whole) to the same answers.

use std::borrow::Cow;
use std::sync::OnceLock;

use ptxvec_spec::model::Rule;
use ptxvec_spec::{Instruction, PtxVersion, Qualifier, Spec, Target, TargetModel};

use super::defect::{fail, Defect, Kind};
use super::judge::{self, Head, Judgement, Order, Unread};
use super::needs::Needs;
use super::operands::{self, Position};
use super::rule_id::{ModuleRule, QualifierRule};
use super::spelling::Spelling;
use super::text::Operand;

/// One way a chain's qualifiers are read, with what the judge asks of it.
#[derive(Debug)]
pub struct Candidate<'s> {
    /// The spelling.
    pub spelling: Spelling<'s>,
    /// Whether the qualifiers, the mnemonic's own `.sync` among them, are written
    /// in the document's order.
    pub in_order: bool,
    /// The spelling's operand positions.
    positions: Vec<Position<'s>>,
    // The rest is asked only of a reading whose operands fit (most explorer
    // chains are read for a line or two whose operands do not), so each is made
    // when first asked, and kept with the batch judge's reading.
    /// Its canonical chain, for messages.
    chain: OnceLock<String>,
    /// The defect of a table or forbid rule that refuses it in every module.
    refusal: OnceLock<Option<Defect>>,
    /// Its requirement rules, in file order.
    requiring: OnceLock<Vec<&'s Rule>>,
    /// What all of them need at once: asked by `eval` alone.
    needs: OnceLock<Needs>,
}

impl<'s> Candidate<'s> {
    /// The reading `spelling`, in the document's order or not.
    fn new(spelling: Spelling<'s>, in_order: bool) -> Candidate<'s> {
        Candidate {
            positions: operands::positions(&spelling),
            chain: OnceLock::new(),
            refusal: OnceLock::new(),
            requiring: OnceLock::new(),
            needs: OnceLock::new(),
            spelling,
            in_order,
        }
    }

    /// What the spelling's requirement rules need at once, under `model` (the
    /// spec's target model).
    pub fn needs(&self, model: &TargetModel) -> &Needs {
        self.needs.get_or_init(|| self.spelling.needs(model))
    }

    /// The spelling's canonical chain.
    fn chain(&self) -> &str {
        self.chain.get_or_init(|| self.spelling.chain())
    }

    /// The defect of a table or forbid rule that refuses the spelling in every
    /// module.
    fn refusal(&self) -> Option<&Defect> {
        self.refusal.get_or_init(|| judge::refusal_defect(&self.spelling)).as_ref()
    }

    /// The spelling's requirement rules, in file order.
    fn requiring(&self) -> &[&'s Rule] {
        self.requiring.get_or_init(|| self.spelling.requiring_rules())
    }

    /// Whether the spelling is allowed in `module`: its table or forbid refusal,
    /// else the first of its requirement rules (in file order) that the module
    /// breaks, worded with its canonical chain.
    fn allowed(&self, module: &InModule<'_>) -> Option<Cow<'_, Defect>> {
        if let Some(d) = self.refusal() {
            return Some(Cow::Borrowed(d));
        }
        let (ptx, target) = (module.ptx, module.target);
        let rule = super::spelling::unmet_among(self.requiring(), module.model, ptx, target)?;
        judge::unmet_defect(rule, self.chain(), ptx, target).map(Cow::Owned)
    }
}

/// The placement of a chain's qualifiers on its instruction's syntax lines: the
/// exact readings (each with whether the order is the document's), or why none.
pub(crate) type Placed<'s> = Result<Vec<(Spelling<'s>, bool)>, Unread<'s>>;

/// What a qualifier chain reads as, whatever the operands, guard and module.
pub enum Chain<'s> {
    /// Decided before any qualifier is placed, whatever the operands: no
    /// instruction ptxvec covers or a word that is no PTX qualifier (a malformed
    /// defect, `instruction` `None`), or a chain of a covered instruction without
    /// its `.sync` or with a qualifier written twice (invalid, once the module and
    /// the guard are seen to be allowed).
    Unplaced {
        /// The instruction, where the chain names one.
        instruction: Option<&'s Instruction>,
        /// The defect.
        defect: Defect,
    },
    /// The instruction, its qualifiers, and the spellings they read as (in the
    /// judge's order), or why none.
    Instruction {
        /// The instruction.
        instruction: &'s Instruction,
        /// The qualifiers, as written.
        quals: Vec<Qualifier>,
        /// The readings, or why there are none.
        qualifiers: Result<Vec<Candidate<'s>>, Unread<'s>>,
    },
}

impl<'s> Chain<'s> {
    /// Reads the chain whose words are `words` (`red`, `global`, `add`, `u32`),
    /// its qualifiers placed by `place`: the definition's sets
    /// (`judge::read_chain`) or the batch judge's masks.
    pub(crate) fn read<S: AsRef<str>>(
        spec: &'s Spec,
        words: &[S],
        place: impl FnOnce(&'s Instruction, &[Qualifier]) -> Placed<'s>,
    ) -> Chain<'s> {
        Chain::of_head(judge::head_of(spec, words), place)
    }

    /// [`Chain::read`] from the chain's words as `judge::head_of` read them.
    pub(crate) fn of_head(
        head: Result<Head<'s>, Defect>,
        place: impl FnOnce(&'s Instruction, &[Qualifier]) -> Placed<'s>,
    ) -> Chain<'s> {
        let head = match head {
            Ok(head) => head,
            Err(defect) => {
                return Chain::Unplaced {
                    instruction: None,
                    defect,
                }
            }
        };
        let (instruction, quals, moved) = (head.instruction, head.quals, head.moved);
        // A missing `.sync` is named before a repeated qualifier.
        if let Some(defect) = head.missing.or_else(|| judge::repeated(&quals)) {
            return Chain::Unplaced {
                instruction: Some(instruction),
                defect,
            };
        }
        let qualifiers = place(instruction, &quals).map(|readings| {
            readings
                .into_iter()
                .map(|(spelling, in_order)| Candidate::new(spelling, in_order && !moved))
                .collect()
        });
        Chain::Instruction {
            instruction,
            quals,
            qualifiers,
        }
    }

    /// The spelling the chain is read as first, if it fits a syntax line exactly:
    /// [`judge::reading`]'s answer.
    pub fn reading(&self) -> Option<&Candidate<'s>> {
        match self {
            Chain::Instruction {
                qualifiers: Ok(c), ..
            } => c.first(),
            _ => None,
        }
    }
}

/// The module a text is judged in.
pub(crate) struct InModule<'m> {
    /// The spec's target model.
    pub model: &'m TargetModel,
    /// Its `.version`.
    pub ptx: PtxVersion,
    /// Its `.target`.
    pub target: Target,
    /// Whether `model` lets `.version ptx` name `.target target`
    /// (`TargetModel::check_version`'s answer; the batch judge has it from a
    /// table): the defect, where not, is worded by `check_version`.
    pub allowed: bool,
}

/// The verdict on a text whose chain reads as `chain`, whose guard (`@%p1`, as
/// written) is `guard` and whose operands are `operands`, in `module`. The steps,
/// in order, the first defect ending them:
///
/// 1. a chain that names no covered instruction, or a word that is no PTX
///    qualifier (malformed); the instruction is known from here, and every
///    defect below is invalid;
/// 2. a module the target model refuses;
/// 3. a guard that is no predicate;
/// 4. a chain without the mnemonic's `.sync`, then one that writes a qualifier
///    twice;
/// 5. qualifiers no syntax line reads exactly: the nearest line's defect, the
///    operands choosing among the nearest lines;
/// 6. the operands: the first reading they fit, else the first reading's operand
///    defect;
/// 7. qualifiers not in the document's order (a warning under [`Order::Lenient`]);
/// 8. the reading's table or forbid refusal, then its version and target rules.
pub(crate) fn verdict<'a, S: AsRef<str>>(
    chain: &'a Chain<'_>,
    guard: Option<&str>,
    operands: &[Operand<S>],
    module: &InModule<'_>,
    order: Order,
) -> Verdict<'a> {
    let mut j = Verdict::default();
    let (instruction, placed) = match chain {
        Chain::Unplaced {
            instruction: None,
            defect,
        } => {
            j.defect = Some(Cow::Borrowed(defect));
            return j;
        }
        Chain::Unplaced {
            instruction: Some(instruction),
            defect,
        } => (*instruction, Err(defect)),
        Chain::Instruction {
            instruction,
            quals,
            qualifiers,
        } => (*instruction, Ok((quals, qualifiers))),
    };
    j.instruction = Some(Cow::Borrowed(&instruction.instruction));
    if !module.allowed {
        if let Err(e) = module.model.check_version(module.ptx, module.target) {
            j.defect = Some(Cow::Owned(fail(Kind::Invalid, ModuleRule::Target, e.to_string())));
            return j;
        }
    }
    if let Some(d) = guard.and_then(judge::guard_defect) {
        j.defect = Some(Cow::Owned(d));
        return j;
    }
    let candidates = match placed {
        Err(defect) => {
            j.defect = Some(Cow::Borrowed(defect));
            return j;
        }
        Ok((quals, Err(unread))) => {
            let (defect, form) = unread.defect_ref(instruction, quals, operands);
            j.form = form.map(Cow::Borrowed);
            j.defect = Some(defect);
            return j;
        }
        Ok((_, Ok(candidates))) => candidates,
    };
    // `operands::fits` first: only the defect kept is worded.
    let fits = |c: &Candidate<'_>| operands::fits(&c.spelling, &c.positions, operands);
    match candidates.iter().find(|c| fits(c)) {
        Some(c) => {
            j.form = Some(Cow::Borrowed(&c.spelling.form.id));
            if !c.in_order {
                let msg = ["qualifiers not in the document's order `", c.chain(), "`"].concat();
                if order == Order::Strict {
                    j.defect = Some(Cow::Owned(fail(Kind::Invalid, QualifierRule::Order, msg)));
                    return j;
                }
                j.warnings.push(msg);
            }
            j.defect = c.allowed(module);
        }
        None => {
            // The first reading's defect, worded now. (`fits` is `check_at`
            // without the message, so the first reading's check finds one.)
            let Some(first) = candidates.first() else {
                return j;
            };
            if let Err(d) = operands::check_at(&first.spelling, &first.positions, operands) {
                j.form = Some(Cow::Borrowed(&first.spelling.form.id));
                j.defect = Some(Cow::Owned(judge::operand_defect(d)));
            }
        }
    }
    j
}

/// A verdict as [`verdict`] gives it: [`Judgement`]'s fields, borrowed from the
/// chain's reading where they come from it, so that a batch answer copies no
/// string on its way out.
#[derive(Debug, Default)]
pub struct Verdict<'a> {
    /// The instruction's name, once the mnemonic is known.
    pub instruction: Option<Cow<'a, str>>,
    /// The syntax line it was read as, once one is chosen.
    pub form: Option<Cow<'a, str>>,
    /// `None` when legal.
    pub defect: Option<Cow<'a, Defect>>,
    /// Legal but worth saying: a non-canonical qualifier order.
    pub warnings: Vec<String>,
}

impl Verdict<'_> {
    /// The same verdict, owned.
    pub fn into_judgement(self) -> Judgement {
        Judgement {
            instruction: self.instruction.map(Cow::into_owned),
            form: self.form.map(Cow::into_owned),
            defect: self.defect.map(Cow::into_owned),
            warnings: self.warnings,
        }
    }
}

impl From<Judgement> for Verdict<'static> {
    fn from(j: Judgement) -> Self {
        Verdict {
            instruction: j.instruction.map(Cow::Owned),
            form: j.form.map(Cow::Owned),
            defect: j.defect.map(Cow::Owned),
            warnings: j.warnings,
        }
    }
}
