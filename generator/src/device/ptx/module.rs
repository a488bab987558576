//! Modules and entries: the header, module- and entry-scope variables, `.global`
//! data arrays, an entry's parameters and register declarations.

use std::fmt::Write as _;

use super::Code;
use crate::syntax::text::RegClass;

/// A state space a variable is declared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Space {
    /// `.global`.
    Global,
    /// `.shared`.
    Shared,
}

impl Space {
    fn spelling(self) -> &'static str {
        match self {
            Space::Global => ".global",
            Space::Shared => ".shared",
        }
    }
}

/// `.global .align 16 .b8 name[len];` (`len` `None`: a scalar).
fn variable(space: Space, align: u32, ty: &str, name: &str, len: Option<usize>) -> String {
    let len = len.map_or(String::new(), |n| format!("[{n}]"));
    format!("{} .align {align} {ty} {name}{len};", space.spelling())
}

/// A module's text, written top to bottom.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Module {
    text: String,
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module::default()
    }

    /// A comment: `// ` before each line of `text`.
    pub fn comment(&mut self, text: &str) {
        for line in text.lines() {
            let _ = writeln!(self.text, "// {line}");
        }
    }

    /// `.version`, `.target`, `.address_size 64` (PTX ISA 11.1: the first two
    /// must open the module), and a blank line. Below PTX ISA 2.3 the module has no
    /// `.address_size`, which that version introduced (ptxas 12.9: "Feature
    /// '.address_size directive' requires PTX ISA .version 2.3 or later"). Such a
    /// module's address size is 32 bits, and ptxas 12.9 takes it with a warning
    /// ("64 Bit host architecture (--machine) being used mismatches with
    /// .address_size of 32 bits").
    pub fn header(&mut self, version: &str, target: &str) {
        let _ = writeln!(self.text, ".version {version}\n.target {target}");
        if has_address_size(version) {
            let _ = writeln!(self.text, ".address_size 64");
        }
        self.text.push('\n');
    }

    /// A blank line.
    pub fn blank(&mut self) {
        self.text.push('\n');
    }

    /// A module-scope variable: `.shared .align 16 .b8 name[len];`.
    pub fn variable(&mut self, space: Space, align: u32, ty: &str, name: &str, len: Option<usize>) {
        let _ = writeln!(self.text, "{}", variable(space, align, ty, name, len));
    }

    /// An initialized `.global` array of `.b{bits}` values, aligned to its element
    /// (at least 4), written in hex with every digit of the width, eight to a line.
    pub fn array(&mut self, name: &str, bits: u32, values: &[u64]) {
        let digits = (bits / 4) as usize;
        let _ = writeln!(
            self.text,
            ".global .align {} .b{bits} {name}[{}] = {{",
            (bits / 8).max(4),
            values.len()
        );
        for (i, chunk) in values.chunks(8).enumerate() {
            let line: Vec<String> = chunk.iter().map(|v| format!("0x{v:0digits$x}")).collect();
            let sep = if (i + 1) * 8 < values.len() { "," } else { "" };
            let _ = writeln!(self.text, "    {}{sep}", line.join(", "));
        }
        self.text.push_str("};\n");
    }

    /// Appends an entry; returns the 1-based line of its body's first statement.
    pub fn entry(&mut self, entry: &Entry) -> usize {
        self.text.push_str(&entry.head());
        let first = self.text.lines().count() + 1;
        self.text.push_str(entry.body.text());
        self.text.push_str("    ret;\n}\n");
        first
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, taken.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// A `.visible .entry`: its parameters, performance directives, declarations and
/// body. [`Module::entry`] closes it with `ret;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    name: String,
    params: Vec<String>,
    directives: Vec<String>,
    declarations: Vec<String>,
    /// The statements.
    pub body: Code,
}

impl Entry {
    /// An entry without parameters.
    pub fn new(name: &str) -> Entry {
        Entry {
            name: name.to_owned(),
            params: Vec::new(),
            directives: Vec::new(),
            declarations: Vec::new(),
            body: Code::new(),
        }
    }

    /// Adds `.param {ty} {name}` (`ty` as `.u64`).
    pub fn param(mut self, ty: &str, name: &str) -> Entry {
        self.params.push(format!(".param {ty} {name}"));
        self
    }

    /// Adds a directive between the signature and the body
    /// (`.reqnctapercluster 2, 1, 1`).
    pub fn directive(&mut self, text: &str) {
        self.directives.push(text.to_owned());
    }

    /// Declares `count` registers of `class`: `.reg .b32 %r<count>;`.
    pub fn registers(&mut self, class: RegClass, count: u32) {
        self.declarations.push(format!(
            ".reg {} {}<{count}>;",
            class.declared_type(),
            class.prefix()
        ));
    }

    /// Declares one named register: `.reg .pred p;`.
    pub fn register(&mut self, ty: &str, name: &str) {
        self.declarations.push(format!(".reg {ty} {name};"));
    }

    /// An entry-scope variable: `.shared .align 16 .b8 name[len];`.
    pub fn variable(&mut self, space: Space, align: u32, ty: &str, name: &str, len: Option<usize>) {
        self.declarations
            .push(variable(space, align, ty, name, len));
    }

    /// Everything before the body: signature, directives, `{`, declarations.
    fn head(&self) -> String {
        let mut t = format!(
            ".visible .entry {}({})\n",
            self.name,
            self.params.join(", ")
        );
        for d in &self.directives {
            let _ = writeln!(t, "{d}");
        }
        t.push_str("{\n");
        for d in &self.declarations {
            let _ = writeln!(t, "    {d}");
        }
        t
    }
}

/// Whether PTX ISA `version` (`major.minor`) knows `.address_size`: 2.3 and later.
/// A version that does not parse is taken as a current one.
fn has_address_size(version: &str) -> bool {
    let parsed = version
        .split_once('.')
        .and_then(|(a, b)| Some((a.parse::<u32>().ok()?, b.parse::<u32>().ok()?)));
    parsed.is_none_or(|v| v >= (2, 3))
}
