//! One PTX writer: every idiom the emitters share is spelled here once. A
//! [`Module`] holds the header, module-scope data and entries; an [`Entry`] its
//! parameters, register declarations and body; a [`Code`] the body's statements,
//! labels and guarded branches, and the idioms built from them (thread index,
//! parameter pointers, symbol addresses, the bulk reduction's hand-off between the
//! generic and the async proxy).
//!
//! It writes text, not a syntax tree: each method appends exactly the lines it
//! names, so an emitter reads top to bottom as the module it prints.

mod code;
mod module;

pub use code::{Code, Pred};
pub use module::{Entry, Module, Space};

/// Writes one statement into a [`Code`] with `format!` arguments:
/// `ins!(c, "add.u32 %r5, %r4, {n}")` appends `    add.u32 %r5, %r4, 7;`.
macro_rules! ins {
    ($code:expr, $($fmt:tt)*) => {
        $code.ins(format_args!($($fmt)*))
    };
}
pub(crate) use ins;

#[cfg(test)]
mod tests;
