//! A reader for the seed documents' own notation, independent of the spec loader:
//! fenced syntax blocks (syntax lines and `.name = { ... }` sets), markdown tables
//! and example blocks. The presence test compares what it finds with the YAML.

use std::collections::BTreeMap;

use ptxvec_spec::Mnemonic;

/// A run of syntax lines and the sets printed after them.
#[derive(Debug, Default)]
pub struct SeedGroup {
    /// Syntax lines, continuation lines joined, whitespace collapsed.
    pub lines: Vec<String>,
    /// Placeholder name → values, with `.shared{::cta, ::cluster}` expanded.
    pub sets: BTreeMap<String, Vec<String>>,
}

/// A markdown table: its header line and body rows, verbatim.
#[derive(Debug)]
pub struct SeedTable {
    /// The first line.
    pub header: String,
    /// The rows after the `| --- |` line.
    pub rows: Vec<String>,
}

/// What a seed holds.
#[derive(Debug, Default)]
pub struct SeedText {
    /// Syntax groups, in order.
    pub groups: Vec<SeedGroup>,
    /// Tables, in order.
    pub tables: Vec<SeedTable>,
    /// Example lines, whitespace collapsed.
    pub examples: Vec<String>,
}

/// Collapses runs of whitespace to one space and trims.
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_comment(s: &str) -> &str {
    s.split_once("//").map_or(s, |(a, _)| a)
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Syntax,
    Examples,
    Other,
}

fn heading(line: &str) -> Option<Section> {
    let t = line.trim().trim_start_matches('#').trim();
    match t {
        "Syntax" => Some(Section::Syntax),
        "Examples" | "Example" => Some(Section::Examples),
        _ if line.starts_with('#') => Some(Section::Other),
        "Description" | "Semantics" | "PTX ISA Notes" | "Target ISA Notes" | "Release Notes"
        | "Note" => Some(Section::Other),
        _ => None,
    }
}

/// Reads a seed.
pub fn parse(text: &str) -> SeedText {
    let mut out = SeedText::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut section = Section::Other;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(s) = heading(line) {
            section = s;
        }
        if line.trim_start().starts_with("```") {
            let start = i + 1;
            let mut end = start;
            while end < lines.len() && !lines[end].trim_start().starts_with("```") {
                end += 1;
            }
            let block = &lines[start..end.min(lines.len())];
            match section {
                Section::Syntax => syntax_block(block, &mut out.groups),
                Section::Examples => example_block(block, &mut out.examples),
                Section::Other => {}
            }
            i = end + 1;
            continue;
        }
        if line.starts_with('|')
            && lines
                .get(i + 1)
                .is_some_and(|l| l.starts_with("| ---") || l.starts_with("|---"))
        {
            let header = line.to_owned();
            let mut rows = Vec::new();
            let mut j = i + 2;
            while j < lines.len() && lines[j].starts_with('|') {
                rows.push(lines[j].to_owned());
                j += 1;
            }
            out.tables.push(SeedTable { header, rows });
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// A block's logical lines: comments and blank lines dropped, and an indented line
/// appended to the previous one when `continues(previous)` says it carries on.
fn logical_lines(block: &[&str], continues: impl Fn(&str) -> bool) -> Vec<String> {
    let mut logical: Vec<String> = Vec::new();
    for raw in block {
        let l = strip_comment(raw);
        if l.trim().is_empty() {
            continue;
        }
        match logical.last_mut() {
            Some(last) if l.starts_with(char::is_whitespace) && continues(last) => {
                last.push(' ');
                last.push_str(l.trim());
            }
            _ => logical.push(l.trim().to_owned()),
        }
    }
    logical
}

fn syntax_block(block: &[&str], groups: &mut Vec<SeedGroup>) {
    // The spec declares the mnemonics `prefix_of` knows.
    crate::support::spec();
    // Syntax lines and sets both wrap onto indented lines.
    let logical = logical_lines(block, |_| true);
    let mut current = SeedGroup::default();
    for l in logical {
        if Mnemonic::prefix_of(&l).is_some() {
            if !current.sets.is_empty() {
                groups.push(std::mem::take(&mut current));
            }
            current.lines.push(squash(&l));
        } else if let Some((name, values)) = set_line(&l) {
            current.sets.insert(name, values);
        }
    }
    if !current.lines.is_empty() {
        groups.push(current);
    }
}

fn set_line(l: &str) -> Option<(String, Vec<String>)> {
    let (name, rest) = l.strip_prefix('.')?.split_once('=')?;
    let open = rest.find('{')?;
    let close = rest.rfind('}')?;
    let inner = &rest[open + 1..close];
    let mut values = Vec::new();
    let mut depth = 0;
    let mut item = String::new();
    for c in inner.chars().chain(std::iter::once(',')) {
        match c {
            '{' => {
                depth += 1;
                item.push(c);
            }
            '}' => {
                depth -= 1;
                item.push(c);
            }
            ',' if depth == 0 => {
                values.extend(expand(item.trim()));
                item.clear();
            }
            _ => item.push(c),
        }
    }
    Some((
        name.trim().to_owned(),
        values.into_iter().filter(|v| !v.is_empty()).collect(),
    ))
}

/// `.shared{::cta, ::cluster}` → `.shared`, `.shared::cta`, `.shared::cluster`.
fn expand(item: &str) -> Vec<String> {
    match item.split_once('{') {
        None => vec![item.replace(' ', "")],
        Some((base, subs)) => {
            let base = base.trim();
            let mut v = vec![base.to_owned()];
            for s in subs.trim_end_matches('}').split(',') {
                v.push(format!("{base}{}", s.trim()));
            }
            v
        }
    }
}

fn example_block(block: &[&str], examples: &mut Vec<String>) {
    // cp.reduce.async.bulk's examples carry their operands on an indented next line.
    let logical = logical_lines(block, |previous| !previous.ends_with(';'));
    examples.extend(logical.iter().map(|l| squash(l)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_nested_sub_qualifiers_and_joins_multi_line_sets() {
        let g = &parse("Syntax\n\n```\nred.op [a], b;\n.space = { .global, .shared{::cta, ::cluster} };\n.op = { .and,\n        .or };\n```\n").groups[0];
        assert_eq!(
            g.sets["space"],
            [".global", ".shared", ".shared::cta", ".shared::cluster"]
        );
        assert_eq!(g.sets["op"], [".and", ".or"]);
        assert_eq!(g.lines, ["red.op [a], b;"]);
    }
}
