//! Legality: which instruction texts are legal in which module, and why not.
//!
//! `spelling` and `needs` read the spec's rules and tables; `legal` and `illegal`
//! enumerate the syntax vectors; `text`, `operands`, `nearest`, `judge` and `verdict`
//! make up `check-syntax` (`definition::judge` judges one text), and `index` keeps
//! the judge's reading of each qualifier chain for the batch commands; `context`
//! picks the modules a case is judged in.

pub mod across;
pub mod case;
pub mod chain_words;
pub mod common_text;
pub mod context;
pub mod declared;
pub mod defect;
pub mod definition;
pub mod departure;
pub mod illegal;
pub mod index;
pub mod judge;
pub mod nearest;
pub mod legal;
pub mod line_masks;
pub mod needs;
pub mod operands;
pub mod placement;
pub mod rule_id;
pub mod rules;
pub mod spelling;
pub mod text;
pub mod vectors;
pub mod verdict;
pub mod word_key;
