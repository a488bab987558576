//! The house's layering, read from the code's own paths: no module of the three
//! crates depends on a sibling that depends back on it, at any depth, and the
//! generator's top-level modules depend only on those declared before them in
//! `generator/src/lib.rs`, whose order is the data flow's (a stage uses the
//! stages below it, never one above). Test code is left out: a test may reach
//! anywhere.
//!
//! A dependency is a path through `crate::`, `super::` or `self::`, in a `use` or
//! written inline, resolved to the deepest module it names. Between two modules
//! that share a parent, it is an edge from the sibling holding the user to the one
//! holding the used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A module path from the crate root: `["sweep", "wide", "digest"]`.
type ModPath = Vec<String>;

/// One use of a path: where, and the module it names.
#[derive(Debug, Clone)]
struct Use {
    file: PathBuf,
    line: usize,
    from: ModPath,
    to: ModPath,
    written: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every module of a crate's `src/` with its file, test modules left out (a file
/// module named `tests`, and what lies under one).
fn modules(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut m: ModPath = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                m.pop();
            }
            if m.iter().any(|c| c == "tests") || m.first().is_some_and(|c| c == "bin") {
                continue;
            }
            out.insert(m, path);
        }
    }
    out
}

/// The text with comments, strings and character literals blanked (newlines
/// kept, so that offsets still give lines).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !b.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_') {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.extend(b[i..j.min(b.len())].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), else a lifetime.
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for _ in i..=e {
                        out.push(' ');
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code with every item under `#[cfg(test)]` blanked.
fn without_tests(code: &str) -> String {
    let mut b: Vec<char> = code.chars().collect();
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut i = 0;
    while i + marker.len() <= b.len() {
        if b[i..i + marker.len()] != marker[..] {
            i += 1;
            continue;
        }
        // The item runs to its `;` or to the end of its first brace block.
        let mut j = i + marker.len();
        let mut depth = 0usize;
        while j < b.len() {
            match b[j] {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        j += 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        let end = j.min(b.len());
        for c in &mut b[i..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        i = j;
    }
    b.into_iter().collect()
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a `use` tree or an inline path writes from position `i` (just after
/// `head::`), each as segments after the head.
fn tree(b: &[char], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut segs = prefix;
    loop {
        while b.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if b.get(i) == Some(&'{') {
            i += 1;
            loop {
                while b.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    i += 1;
                }
                if b.get(i) == Some(&'}') || i >= b.len() {
                    return i + 1;
                }
                i = tree(b, i, segs.clone(), out);
            }
        }
        let start = i;
        while b.get(i).is_some_and(|c| is_ident(*c)) {
            i += 1;
        }
        if i > start {
            segs.push(b[start..i].iter().collect());
        }
        if b.get(i) == Some(&':') && b.get(i + 1) == Some(&':') {
            i += 2;
            continue;
        }
        out.push(segs);
        // Past an `as name`, to the separator.
        while b.get(i).is_some_and(|c| !matches!(c, ',' | '}' | ';' | '(' | ')' | '<' | '>' | '\n')) {
            i += 1;
        }
        return i;
    }
}

/// Every module-level use in `file` (module `me`, a `mod.rs`/`lib.rs` when
/// `dir`), resolved against `mods`.
fn uses(file: &Path, me: &ModPath, mods: &BTreeMap<ModPath, PathBuf>) -> Vec<Use> {
    let text = std::fs::read_to_string(file).unwrap();
    let code = without_tests(&code_only(&text));
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        if b[i] == '\n' {
            line += 1;
        }
        let head = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|h| b[i..].starts_with(&h.chars().collect::<Vec<_>>()[..]));
        let preceded = i > 0 && (is_ident(b[i - 1]) || b[i - 1] == ':');
        let (Some(head), false) = (head, preceded) else {
            i += 1;
            continue;
        };
        let mut paths = Vec::new();
        let end = tree(&b, i + head.len(), Vec::new(), &mut paths);
        for segs in paths {
            let mut base: ModPath = match head {
                "crate::" => Vec::new(),
                "super::" => me[..me.len().saturating_sub(1)].to_vec(),
                _ => me.clone(),
            };
            let mut rest = segs.as_slice();
            while let Some(s) = rest.first().filter(|s| *s == "super" || *s == "self") {
                if s == "super" {
                    base.pop();
                }
                rest = &rest[1..];
            }
            let mut full = base;
            full.extend(rest.iter().cloned());
            while !full.is_empty() && !mods.contains_key(&full) {
                full.pop();
            }
            out.push(Use {
                file: file.to_path_buf(),
                line,
                from: me.clone(),
                to: full,
                written: format!("{head}{}", segs.join("::")),
            });
        }
        // Count the newlines the path spanned.
        line += b[i..end.min(b.len())].iter().filter(|c| **c == '\n').count();
        if b.get(end.saturating_sub(1)) == Some(&'\n') {
            line -= 1;
        }
        i = end.max(i + 1);
    }
    out
}

/// The edge a use makes between siblings: (their parent, the user's side, the
/// used side); `None` when one contains the other.
fn edge(u: &Use) -> Option<(ModPath, String, String)> {
    let common = u.from.iter().zip(&u.to).take_while(|(a, b)| a == b).count();
    let (a, b) = (u.from.get(common)?, u.to.get(common)?);
    Some((u.from[..common].to_vec(), a.clone(), b.clone()))
}

/// A cycle among the siblings of one parent, as a list of (from, to, an example
/// use), if there is one.
fn cycle(edges: &BTreeMap<(String, String), Vec<Use>>) -> Option<Vec<Use>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        graph.entry(a).or_default().push(b);
    }
    // Depth-first, each node's path kept: a node met again on the path closes a cycle.
    fn visit<'a>(
        n: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut std::collections::BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(k) = path.iter().position(|p| *p == n) {
            let mut c = path[k..].to_vec();
            c.push(n);
            return Some(c);
        }
        if !done.insert(n) {
            return None;
        }
        path.push(n);
        for m in graph.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = std::collections::BTreeSet::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, &graph, &mut Vec::new(), &mut done) {
            return Some(
                c.windows(2)
                    .map(|w| edges[&(w[0].to_owned(), w[1].to_owned())][0].clone())
                    .collect(),
            );
        }
    }
    None
}

fn show(u: &Use) -> String {
    format!(
        "{}:{}: {} uses `{}`",
        u.file.strip_prefix(root()).unwrap_or(&u.file).display(),
        u.line,
        if u.from.is_empty() { "crate".to_owned() } else { u.from.join("::") },
        u.written
    )
}

/// Every cycle among siblings in a crate, one per parent, as lines.
fn cycles(src: &Path) -> (Vec<String>, Vec<Use>) {
    let mods = modules(src);
    let all: Vec<Use> = mods.iter().flat_map(|(m, f)| uses(f, m, &mods)).collect();
    let mut by_parent: BTreeMap<ModPath, BTreeMap<(String, String), Vec<Use>>> = BTreeMap::new();
    for u in &all {
        if let Some((parent, a, b)) = edge(u) {
            by_parent.entry(parent).or_default().entry((a, b)).or_default().push(u.clone());
        }
    }
    let mut out = Vec::new();
    for (parent, edges) in &by_parent {
        if let Some(c) = cycle(edges) {
            let name = if parent.is_empty() { "the crate root".to_owned() } else { parent.join("::") };
            out.push(format!(
                "a cycle among the modules of {name}:\n  {}",
                c.iter().map(show).collect::<Vec<_>>().join("\n  ")
            ));
        }
    }
    (out, all)
}

#[test]
fn no_crate_has_a_cycle_among_sibling_modules() {
    let mut found = Vec::new();
    for krate in ["spec", "oracle", "generator"] {
        let (c, all) = cycles(&root().join(krate).join("src"));
        assert!(all.len() > 20, "{krate}: only {} uses read: the reader is broken", all.len());
        found.extend(c);
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The generator's top-level modules, in the order `lib.rs` declares them.
fn declared_order() -> Vec<String> {
    let lib = std::fs::read_to_string(root().join("generator/src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').trim().to_owned())
        .collect()
}

#[test]
fn the_generator_s_stages_use_only_the_stages_declared_before_them() {
    let order = declared_order();
    let src = root().join("generator/src");
    let (_, all) = cycles(&src);
    let rank = |m: &str| order.iter().position(|o| o == m);
    let mut up = Vec::new();
    for u in &all {
        let Some((parent, a, b)) = edge(u) else { continue };
        if !parent.is_empty() || a == "main" {
            continue;
        }
        match (rank(&a), rank(&b)) {
            (Some(x), Some(y)) if y < x => {}
            (x, y) => up.push(format!(
                "{} ({a} is #{}, {b} #{} in lib.rs)",
                show(u),
                x.map_or("undeclared".to_owned(), |x| (x + 1).to_string()),
                y.map_or("undeclared".to_owned(), |y| (y + 1).to_string())
            )),
        }
    }
    assert!(
        up.is_empty(),
        "uses that run back up the stages (lib.rs declares the stages lowest first):\n{}",
        up.join("\n")
    );
}

/// The reader itself: a use tree with groups, `self`, `super`, an inline path,
/// comments and strings.
#[test]
fn the_reader_finds_each_kind_of_path() {
    let dir = std::env::temp_dir().join(format!("ptxvec-layering-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    let file = dir.join("a/b.rs");
    std::fs::write(
        &file,
        "use crate::{x::{y, z as w}, q};\n// crate::comment::not\nfn f() { let s = \"crate::string\"; super::c::d(); self::e(); }\n#[cfg(test)]\nmod tests { use crate::t; }\n",
    )
    .unwrap();
    let mut mods = BTreeMap::new();
    for m in [&["x"][..], &["x", "y"], &["x", "z"], &["q"], &["a"], &["a", "b"], &["a", "c"], &["a", "b", "e"]] {
        mods.insert(m.iter().map(|s| s.to_string()).collect::<ModPath>(), dir.join("x.rs"));
    }
    let me: ModPath = vec!["a".into(), "b".into()];
    let got: Vec<(String, usize)> = uses(&file, &me, &mods)
        .iter()
        .map(|u| (u.to.join("::"), u.line))
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    let want: Vec<(String, usize)> = [("x::y", 1), ("x::z", 1), ("q", 1), ("a::c", 3), ("a::b::e", 3)]
        .iter()
        .map(|(m, l)| (m.to_string(), *l))
        .collect();
    assert_eq!(got, want);
}
