//! Which instruction statements `lint` judges: those whose opcode words are a
//! covered instruction's ([`ptxvec_spec::Mnemonic::opcode`], for every instruction
//! the spec holds), except the neighbours that share those words and are other
//! instructions ([`NEIGHBOURS`]). Everything else is counted by its opcode.

use ptxvec_spec::{Mnemonic, Spec};

/// A PTX instruction that is not one ptxvec covers, though its words start like
/// one's (or like a covered instruction's first word): a statement whose chain
/// starts with `words` is counted under `name`, never judged.
#[derive(Debug, Clone, Copy)]
pub struct Neighbour {
    /// Its name, the key it is counted under.
    pub name: &'static str,
    /// The words its chain starts with.
    pub words: &'static [&'static str],
    /// A spelling ptxas 13.5 assembles (`-arch=sm_90a`, PTX ISA 8.6, in a module
    /// that declares its operands): the evidence that it is a real instruction.
    pub example: &'static str,
}

/// The covered instructions' neighbours. Longer word lists are tried first, so
/// their order does not matter. Sections are named by title (the seeds' numbering
/// puts `red` at 9.7.13.6 and `cp.reduce.async.bulk` at 9.7.9.25.4.2), with their
/// anchors in
/// <https://docs.nvidia.com/cuda/parallel-thread-execution/>.
pub const NEIGHBOURS: &[Neighbour] = &[
    // PTX ISA, "Data Movement and Conversion Instructions:
    // cp.reduce.async.bulk.tensor" (#data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor):
    // the tensor form, whose operands are a tensor map and coordinates.
    Neighbour {
        name: "cp.reduce.async.bulk.tensor",
        words: &["cp", "reduce", "async", "bulk", "tensor"],
        example: "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r3}], [%r2];",
    },
    // PTX ISA, "Data Movement and Conversion Instructions: cp.async.bulk"
    // (#data-movement-and-conversion-instructions-cp-async-bulk): a bulk copy,
    // no reduction.
    Neighbour {
        name: "cp.async.bulk",
        words: &["cp", "async", "bulk"],
        example: "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 16, [%r1];",
    },
    // PTX ISA, "Data Movement and Conversion Instructions: cp.async"
    // (#data-movement-and-conversion-instructions-cp-async): the non-bulk copy.
    Neighbour {
        name: "cp.async",
        words: &["cp", "async"],
        example: "cp.async.ca.shared.global [%r2], [%rd1], 4;",
    },
];

/// What a statement is to `lint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class<'t> {
    /// A covered instruction: judged.
    Covered,
    /// Counted under this key: a neighbour's name, or the opcode's first word.
    Counted(&'t str),
}

/// The covered instructions' opcode words, as the spec holds them.
pub struct Covered {
    mnemonics: Vec<Mnemonic>,
    /// The [`NEIGHBOURS`] the spec does not hold (one it holds is covered).
    neighbours: Vec<&'static Neighbour>,
    /// Their opcodes' first words (`bar`, `cp`, ...).
    first: Vec<&'static str>,
}

impl Covered {
    /// The opcodes of every instruction of `spec` ([`Mnemonic::opcode`]: the words
    /// ptxas reads as the opcode, so `vote.any.sync.pred` is `vote`'s).
    pub fn of(spec: &Spec) -> Covered {
        let mnemonics: Vec<Mnemonic> = spec.instructions.iter().map(|f| f.instruction.mnemonic).collect();
        let first = mnemonics.iter().filter_map(|m| m.opcode().split('.').next()).collect();
        let neighbours = NEIGHBOURS.iter().filter(|n| !mnemonics.iter().any(|m| m.spelling() == n.name)).collect();
        Covered { mnemonics, neighbours, first }
    }

    /// The key `lint` counts `text` under when `text` is one instruction statement
    /// ([`super::statement::opcode_at`], comments read as whitespace) that no
    /// covered instruction reads: check-syntax's "not covered". `None` for a
    /// covered instruction's text, and for a text that is no statement.
    pub fn not_covered(&self, text: &str) -> Option<String> {
        let code = crate::syntax::text::uncommented(text).ok()?;
        let at = super::statement::opcode_at(&code)?;
        match self.class(&code[at..]) {
            Class::Covered => None,
            Class::Counted(key) => Some(key.to_owned()),
        }
    }

    /// The class of the instruction whose opcode starts `text` (after its label
    /// and guard).
    pub fn class<'t>(&self, text: &'t str) -> Class<'t> {
        let chain = chain(text);
        // Whitespace may stand before a dot (`add .s32`): the key is the word.
        let first = chain.split('.').next().unwrap_or_default().trim_end();
        // Most statements share no first word with a covered opcode: decided here.
        if !self.first.contains(&first) {
            return Class::Counted(first);
        }
        let starts = |words: &[&str]| {
            let mut it = chain.split('.').map(str::trim);
            words.iter().all(|w| it.next() == Some(w))
        };
        if let Some(n) = self
            .neighbours
            .iter()
            .filter(|n| starts(n.words))
            .max_by_key(|n| n.words.len())
        {
            return Class::Counted(n.name);
        }
        let words: Vec<&str> = chain.split('.').map(str::trim).collect();
        if self.mnemonics.iter().any(|m| m.opcode_in(&words).is_some()) {
            Class::Covered
        } else {
            Class::Counted(first)
        }
    }
}

/// The dotted chain at the start of `text`: up to the first whitespace that no `.`
/// follows (ptxas reads `redux.sync .add.u32` as one chain; `syntax::text`'s
/// `chain_end`), or a `;`, `{`, `[`, `(` or comment. Whitespace stays inside it.
fn chain(text: &str) -> &str {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' | b'{' | b'[' | b'(' | b'/' | b',' => break,
            b if b.is_ascii_whitespace() => {
                let next = i + bytes[i..].iter().take_while(|b| b.is_ascii_whitespace()).count();
                if bytes.get(next) != Some(&b'.') {
                    break;
                }
                i = next;
            }
            _ => i += 1,
        }
    }
    &text[..i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_neighbours_and_others() {
        let spec = crate::repo_spec();
        let covered = Covered::of(&spec);
        // (text from the opcode, class)
        let rows = [
            ("red.global.add.u32 [a], 1;", Class::Covered),
            ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [a], b, [m];", Class::Covered),
            ("redux.sync.add.u32 %r1, %r2, 0xffffffff;", Class::Covered),
            // ptxas's opcode is `redux`: `.sync` may stand anywhere, or be missing.
            ("redux.add.sync.u32 %r1, %r2, 0xffffffff;", Class::Covered),
            ("redux.add.u32 %r1, %r2, 0xffffffff;", Class::Covered),
            ("vote.sync.ballot.b32 %r1, %p1, -1;", Class::Covered),
            ("shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;", Class::Covered),
            ("match.any.sync.b32 %r1, %r2, -1;", Class::Covered),
            ("activemask.b32 %r1;", Class::Covered),
            ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [a], [b], 16;", Class::Covered),
            ("cp.reduce.async.bulk .global.shared::cta.bulk_group.add.u32 [a], [b], 16;", Class::Covered),
            ("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [a, {b}], [c];", Class::Counted("cp.reduce.async.bulk.tensor")),
            ("cp.reduce.async.bulk .tensor.1d.global.shared::cta.add.tile.bulk_group [a, {b}], [c];", Class::Counted("cp.reduce.async.bulk.tensor")),
            ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [a], [b], 16, [m];", Class::Counted("cp.async.bulk")),
            ("cp.async.ca.shared.global [a], [b], 4;", Class::Counted("cp.async")),
            ("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [a], [b, {c}], [m];", Class::Counted("cp.async.bulk")),
            ("mov.u32 %r1, 1;", Class::Counted("mov")),
            ("ret;", Class::Counted("ret")),
            ("atom.global.add.u32 %r1, [a], 1;", Class::Covered),
            // nvcc's order: the operation first, `.sem` and `.scope` after it.
            ("atom.add.release.gpu.u32 %r1, [a], 1;", Class::Covered),
            ("ld.global.u32 %r1, [a];", Class::Counted("ld")),
            ("reduce.add.u32 %r1;", Class::Counted("reduce")),
            ("matches %r1;", Class::Counted("matches")),
            ("add .s32 %r1, %r2, %r3;", Class::Counted("add")),
            // ptxas's opcodes are `bar`, `bar.cta`, `barrier` and `barrier.cta`,
            // and `.red` right after one makes the reduction (Mnemonic::infix).
            ("bar.red.popc.u32 %r1, 0, %p1;", Class::Covered),
            ("bar.cta.red.and.pred %p2, 0, %p1;", Class::Covered),
            ("barrier.cta.red.or.aligned.pred %p2, 0, 64, %p1;", Class::Covered),
            ("barrier.red.popc.u32.aligned %r1, 0, %p1;", Class::Covered),
            ("bar.sync 0;", Class::Counted("bar")),
            ("bar.cta.arrive 0, 64;", Class::Counted("bar")),
            ("bar.warp.sync -1;", Class::Counted("bar")),
            ("barrier.aligned.sync 0;", Class::Counted("barrier")),
            ("barrier.cluster.arrive;", Class::Counted("barrier")),
        ];
        for (text, want) in rows {
            assert_eq!(covered.class(text), want, "{text}");
        }
    }

    /// check-syntax's "not covered": a statement of another instruction, counted
    /// under lint's key; neither a covered instruction's text, malformed or not,
    /// nor a text that is no statement.
    #[test]
    fn not_covered_is_a_statement_lint_counts() {
        let spec = crate::repo_spec();
        let covered = Covered::of(&spec);
        let rows = [
            ("add.s32 %r1, %r2, %r3;", Some("add")),
            ("mov.u32 %r1, %tid.x;", Some("mov")),
            ("ld.global.u32 %r1, [%rd1];", Some("ld")),
            ("bar.sync 0;", Some("bar")),
            ("barrier.cta.sync.aligned 0;", Some("barrier")),
            ("bar.cta.red.popc.u32 %r1, 0, %p1;", None),
            ("L1: @%p1 bra L1; // loop", Some("bra")),
            ("add /* the opcode */ .s32 %r1, %r2, %r3;", Some("add")),
            ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r2], %r3, [%r1];", None),
            ("red.global.add.u32 [%rd1], %r1;", None),
            ("red.global.add.u32 [%rd1] %r1;", None),
            ("red.global.foo.u32 [%rd1], %r1;", None),
            ("atom.global.add.u32 %r1, [%rd1], 1;", None),
            ("add.s32 %r1, %r2, %r3", None),
            ("add.s32 %r1 %r2;", None),
            ("%%% garbage;", None),
            ("foo bar baz;", None),
        ];
        for (text, want) in rows {
            assert_eq!(covered.not_covered(text).as_deref(), want, "{text}");
        }
    }

    /// Each neighbour is a real instruction: ptxas assembles its example, in a
    /// module that declares what it names.
    #[test]
    #[cfg_attr(
        not(ptxas),
        ignore = "needs ptxas: set PTXVEC_PTXAS (bash .ci/run does)"
    )]
    fn every_neighbour_assembles() {
        let ptxas = crate::ptxas::from_env("PTXVEC_PTXAS").unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap();
        for n in NEIGHBOURS {
            let module = format!(
                ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry f()\n{{\n\
                 .reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n{}\nret;\n}}\n",
                n.example
            );
            let file = dir.path().join(format!("{}.ptx", n.name));
            std::fs::write(&file, module).unwrap();
            let out = std::process::Command::new(&ptxas)
                .args(["-arch=sm_90a", "-o", "/dev/null"])
                .arg(&file)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}: {}", n.name, String::from_utf8_lossy(&out.stderr));
            let spec = crate::repo_spec();
            assert_eq!(Covered::of(&spec).class(n.example), Class::Counted(n.name));
        }
    }
}
