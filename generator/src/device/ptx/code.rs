//! An entry's statements: instructions, labels, guarded branches, and the idioms
//! several kernels share.

use std::fmt::{Display, Write as _};

/// A predicate as a guard names it: `%p1`, or `!%p1` for its negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pred<'a> {
    /// The register (`%p1`).
    pub reg: &'a str,
    /// Guard on the predicate being false (`@!%p1`).
    pub negated: bool,
}

impl<'a> Pred<'a> {
    /// `@reg`.
    pub fn is(reg: &'a str) -> Pred<'a> {
        Pred {
            reg,
            negated: false,
        }
    }

    /// `@!reg`.
    pub fn not(reg: &'a str) -> Pred<'a> {
        Pred { reg, negated: true }
    }
}

impl Display for Pred<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bang = if self.negated { "!" } else { "" };
        write!(f, "@{bang}{}", self.reg)
    }
}

/// Statements, one to a line, indented four spaces; labels flush left.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Code {
    text: String,
}

impl Code {
    /// No statements.
    pub fn new() -> Code {
        Code::default()
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// One instruction, `;` appended.
    pub fn ins(&mut self, instruction: impl Display) {
        let _ = writeln!(self.text, "    {instruction};");
    }

    /// One instruction under a guard: `@%p1 instruction;`.
    pub fn guarded(&mut self, pred: Pred<'_>, instruction: impl Display) {
        let _ = writeln!(self.text, "    {pred} {instruction};");
    }

    /// A statement exactly as given (it carries its own `;`).
    pub fn verbatim(&mut self, statement: &str) {
        let _ = writeln!(self.text, "    {statement}");
    }

    /// A comment line.
    pub fn comment(&mut self, text: &str) {
        let _ = writeln!(self.text, "    // {text}");
    }

    /// A blank line.
    pub fn blank(&mut self) {
        self.text.push('\n');
    }

    /// `name:`.
    pub fn label(&mut self, name: &str) {
        let _ = writeln!(self.text, "{name}:");
    }

    /// `bra label;`.
    pub fn jump(&mut self, label: &str) {
        let _ = writeln!(self.text, "    bra {label};");
    }

    /// `@pred bra label;`.
    pub fn branch(&mut self, pred: Pred<'_>, label: &str) {
        self.guarded(pred, format_args!("bra {label}"));
    }

    /// `setp.{cmp} pred, a, b;` then `@pred bra label;`: a skip forward, or a
    /// loop's back edge.
    pub fn branch_if(
        &mut self,
        cmp: &str,
        pred: &str,
        a: impl Display,
        b: impl Display,
        label: &str,
    ) {
        self.ins(format_args!("setp.{cmp} {pred}, {a}, {b}"));
        self.branch(Pred::is(pred), label);
    }

    /// The thread's coordinates: `%r0` its index in the block (`%tid.x`), `%r1` the
    /// block's (`%ctaid.x`), `%r2` the block size (`%ntid.x`), `%r3` its index in
    /// the grid.
    pub fn thread_index(&mut self) {
        self.ins("mov.u32 %r0, %tid.x");
        self.ins("mov.u32 %r1, %ctaid.x");
        self.ins("mov.u32 %r2, %ntid.x");
        self.ins("mad.lo.u32 %r3, %r1, %r2, %r0");
    }

    /// A `.u64` pointer parameter as a global address in `dst`, read through
    /// `loaded`: kernel parameters hold generic addresses (PTX ISA 5.1.6.1), and
    /// `cvta.to.global` makes them usable by `ld.global`/`st.global`.
    pub fn global_param(&mut self, dst: &str, loaded: &str, param: &str) {
        self.ins(format_args!("ld.param.u64 {loaded}, [{param}]"));
        self.ins(format_args!("cvta.to.global.u64 {dst}, {loaded}"));
    }

    /// `dst = &symbol + offset`, the symbol's address through `base`
    /// (`mov.u64 base, symbol; add.u64 dst, base, offset;`).
    pub fn symbol_plus(&mut self, dst: &str, base: &str, symbol: &str, offset: &str) {
        self.ins(format_args!("mov.u64 {base}, {symbol}"));
        self.ins(format_args!("add.u64 {dst}, {base}, {offset}"));
    }

    /// `dst = base + index × scale`, the byte offset through `offset`
    /// (`mul.wide.u32 offset, index, scale; add.u64 dst, base, offset;`).
    pub fn element(
        &mut self,
        dst: &str,
        base: &str,
        offset: &str,
        index: &str,
        scale: impl Display,
    ) {
        self.ins(format_args!("mul.wide.u32 {offset}, {index}, {scale}"));
        self.ins(format_args!("add.u64 {dst}, {base}, {offset}"));
    }

    /// `x = splitmix64_finalizer(x)`, as `crate::sweep::mix` computes it (the
    /// increment γ added first), through `tmp`: 64-bit add, shift, xor and low
    /// multiply, defined alike in PTX and Rust.
    pub fn splitmix64(&mut self, x: &str, tmp: &str) {
        self.ins(format_args!("add.u64 {x}, {x}, 0x9E3779B97F4A7C15"));
        for (shift, factor) in [
            (30, Some("0xBF58476D1CE4E5B9")),
            (27, Some("0x94D049BB133111EB")),
            (31, None),
        ] {
            self.ins(format_args!("shr.u64 {tmp}, {x}, {shift}"));
            self.ins(format_args!("xor.b64 {x}, {x}, {tmp}"));
            if let Some(f) = factor {
                self.ins(format_args!("mul.lo.u64 {x}, {x}, {f}"));
            }
        }
    }

    /// Lane 0 of each warp gets the wrapping sum of the 64-bit `x` of its 32 lanes
    /// (other lanes partial sums): five shuffle-down steps on the two halves, through
    /// the 32-bit `halves` (x's low, high, the shuffled low, high) and `tmp`. Every
    /// lane must take part (`shfl.sync` with a full mask).
    pub fn warp_sum_u64(&mut self, x: &str, halves: [&str; 4], tmp: &str) {
        let [lo, hi, lo2, hi2] = halves;
        for off in [16, 8, 4, 2, 1] {
            self.ins(format_args!("mov.b64 {{{lo}, {hi}}}, {x}"));
            self.ins(format_args!(
                "shfl.sync.down.b32 {lo2}, {lo}, {off}, 31, -1"
            ));
            self.ins(format_args!(
                "shfl.sync.down.b32 {hi2}, {hi}, {off}, 31, -1"
            ));
            self.ins(format_args!("mov.b64 {tmp}, {{{lo2}, {hi2}}}"));
            self.ins(format_args!("add.u64 {x}, {x}, {tmp}"));
        }
    }

    /// Hands a block's generic-proxy writes to the async proxy, then lets thread 0
    /// of the block alone (the rest branch to `skip`) run `issue`, which issues a
    /// bulk operation into its bulk group, and waits for the group to complete.
    ///
    /// PTX ISA 9.7.9.25.4.2 (cp.reduce.async.bulk): size a multiple of 16, both
    /// addresses 16-byte aligned; writes by the generic proxy need
    /// `fence.proxy.async` (here one per state space in `fenced`) before the async
    /// proxy reads them, and `bar.sync` makes every thread's writes visible to
    /// thread 0 before it issues. `cp.async.bulk.wait_group 0` waits for every
    /// bulk group the thread committed.
    pub fn bulk_by_thread0(&mut self, fenced: &[&str], skip: &str, issue: impl FnOnce(&mut Code)) {
        for space in fenced {
            self.ins(format_args!("fence.proxy.async.{space}"));
        }
        self.ins("bar.sync 0");
        self.branch_if("ne.u32", "%p1", "%r0", 0, skip);
        issue(self);
        self.ins("cp.async.bulk.commit_group");
        self.ins("cp.async.bulk.wait_group 0");
    }
}
