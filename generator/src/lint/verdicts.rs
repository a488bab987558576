//! The covered statements of a module judged through the batch judge ([`Index`]),
//! in parallel, in order: check-syntax's batch mode on statements rather than
//! lines (`check_syntax::answer_lines`).

use ptxvec_spec::{PtxVersion, Target};

use super::position::Position;
use crate::syntax::departure::Prediction;
use crate::syntax::index::{Index, Tokens};
use crate::syntax::judge::{Judgement, Order};
use crate::syntax::text::plain_form;

/// A covered instruction statement, where the module holds it.
#[derive(Debug, Clone)]
pub struct Found {
    /// Where its first character is.
    pub at: Position,
    /// Its text, label and guard to `;`.
    pub text: String,
}

/// A verdict worth saying: illegal, or legal with a warning.
#[derive(Debug)]
pub struct Verdict {
    /// The judge's answer.
    pub judgement: Judgement,
    /// The ledger's prediction, where ptxas departs from an illegal verdict.
    pub predicted: Option<Prediction>,
}

/// A statement made ready for the index.
enum Prepared<'t> {
    /// Its own tokens.
    Tokens(Tokens<'t>),
    /// Its plain form (comments or whitespace inside its chain: `text::plain_form`,
    /// the same tokens, so the same verdict).
    Plain(String),
}

/// The verdict on each of `found`, in order: `None` where it is legal and
/// warns of nothing.
pub fn judge_all(
    index: &mut Index<'_>,
    found: &[Found],
    ptx: PtxVersion,
    target: Target,
    order: Order,
) -> Vec<Option<Verdict>> {
    index.answer_all(
        found,
        |f| {
            let tokens = Tokens::of(&f.text);
            match tokens.chain() {
                None => plain_form(&f.text).map_or(Prepared::Tokens(tokens), Prepared::Plain),
                Some(_) => Prepared::Tokens(tokens),
            }
        },
        |p| match p {
            Prepared::Tokens(t) => t.chain(),
            Prepared::Plain(text) => Tokens::of(text).chain(),
        },
        |index, f, p| {
            let (text, judgement) = match &p {
                Prepared::Tokens(tokens) => (f.text.as_str(), index.judge(&f.text, tokens, ptx, target, order)),
                Prepared::Plain(text) => (text.as_str(), index.judge(text, &Tokens::of(text), ptx, target, order)),
            };
            if judgement.legal() && judgement.warnings.is_empty() {
                return None;
            }
            let predicted = index.predict(text, ptx, target, &judgement);
            Some(Verdict { judgement, predicted })
        },
    )
}
