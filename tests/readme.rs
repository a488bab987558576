//! The README is used, not read through: its quick starts run as pasted, it stays
//! short and free of commit hashes, and every relative link of it and of docs/
//! points at a file (and heading) that exists.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The marker line above a block that CI runs.
const RUNS: &str = "<!-- ci: runs -->";

/// The README's upper bound in words (issue 39: about 1,500).
const MAX_WORDS: usize = 1_700;

fn repo_root() -> PathBuf {
    crate::spec_root().join("..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `.md` file under `dir`, at any depth, in path order.
pub fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The blocks marked [`RUNS`]: (the 1-based line of the block's opening fence, its
/// text). The marker must stand directly above a ```sh fence, and the block must close.
fn marked_blocks(readme: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != RUNS {
            continue;
        }
        let fence = i + 1;
        assert_eq!(
            lines.get(fence).copied(),
            Some("```sh"),
            "README.md:{}: `{RUNS}` must stand directly above a ```sh block",
            i + 1
        );
        let len = lines[fence + 1..]
            .iter()
            .position(|l| *l == "```")
            .unwrap_or_else(|| panic!("README.md:{}: the block never closes", fence + 1));
        let body = lines[fence + 1..fence + 1 + len].join("\n") + "\n";
        blocks.push((fence + 1, body));
    }
    blocks
}

/// Each marked block of README.md, run with `bash -euo pipefail` from the repository
/// root with this build's `ptxvec` first on `PATH`, exits 0.
#[test]
fn the_readme_quick_starts_run_as_pasted() {
    let root = repo_root().canonicalize().unwrap();
    let blocks = marked_blocks(&read(&root.join("README.md")));
    assert!(blocks.len() >= 3, "a quick start per reader: {} marked blocks", blocks.len());
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ptxvec"), bin.path().join("ptxvec")).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    for (line, script) in blocks {
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(&root)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README.md:{line}: the block exits {:?}\n--- block\n{script}--- stdout\n{}--- stderr\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The marker parser itself: a marker names the fence below it, and a marker with
/// no ```sh block under it is refused.
#[test]
fn marked_blocks_are_found_by_their_fence() {
    let text = "# t\n<!-- ci: runs -->\n```sh\necho a\necho b\n```\n\n```sh\nnot marked\n```\n";
    assert_eq!(marked_blocks(text), vec![(3, "echo a\necho b\n".to_owned())]);
    let loose = std::panic::catch_unwind(|| marked_blocks("<!-- ci: runs -->\ntext\n```sh\nx\n```\n"));
    assert!(loose.is_err(), "a marker above no block");
}

/// A commit hash: 7 to 40 lower-case hex digits, with a digit and a letter, standing
/// alone (not the tail of a name such as `gpgpu-sim-667834c`, nor part of `0x...`).
fn commit_hashes(text: &str) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(word) {
        let len = rest[start..].find(|c: char| !word(c)).unwrap_or(rest.len() - start);
        let token = &rest[start..start + len];
        let named = rest[..start].ends_with('-');
        let hex = token.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
        if !named
            && hex
            && (7..=40).contains(&token.len())
            && token.chars().any(|c| c.is_ascii_digit())
            && token.chars().any(|c| c.is_ascii_lowercase())
        {
            found.push(token.to_owned());
        }
        rest = &rest[start + len..];
    }
    found
}

#[test]
fn a_commit_hash_is_told_from_names_and_numbers() {
    let text = "at 1696741 and 2f906d3, seed 2026112901, `gpgpu-sim-667834c`, 0x1b1484ccdacb9c32, \
                decaded, 000_abc1234, a5f3c2e91b7d04a6c8e2f1b3d5a7c9e0f2a4b6c8d";
    assert_eq!(commit_hashes(text), ["2f906d3"]);
}

/// The README stays short, and neither it nor docs/ nor CHANGELOG.md names a commit.
#[test]
fn the_readme_is_short_and_names_no_commit() {
    let root = repo_root();
    let readme = read(&root.join("README.md"));
    let words = readme.split_whitespace().count();
    assert!(words <= MAX_WORDS, "README.md has {words} words, more than {MAX_WORDS}");
    let mut files = vec![root.join("README.md"), root.join("vectors/README.md"), root.join("CHANGELOG.md")];
    files.extend(markdown_files(&root.join("docs")));
    for f in files {
        let hashes = commit_hashes(&read(&f));
        assert!(hashes.is_empty(), "{} names commits: {hashes:?}", f.display());
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a markdown file's headings (outside code blocks).
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of a markdown file's inline links `[text](target)`, outside code
/// blocks, with their 1-based lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    assert_eq!(anchor(" Wider sweeps (f32, f64)"), "wider-sweeps-f32-f64");
    assert_eq!(anchor(" `lint --json`"), "lint---json");
    let text = "# A b\nsee [x](a.md#b) and [y](https://e.org)\n```\n[z](no.md)\n```\n";
    assert_eq!(links(text), [(2, "a.md#b".to_owned()), (2, "https://e.org".to_owned())]);
    assert_eq!(anchors(text), ["a-b"]);
}

/// Every relative link of README.md and docs/ names a file that exists, and a
/// heading of it where the link names one.
#[test]
fn every_relative_link_points_at_a_file() {
    let root = repo_root();
    let mut files = vec![root.join("README.md"), root.join("vectors/README.md")];
    files.extend(markdown_files(&root.join("docs")));
    let mut broken = Vec::new();
    for f in &files {
        for (line, target) in links(&read(f)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
            let file = if path.is_empty() { f.clone() } else { f.parent().unwrap().join(path) };
            if !file.exists() {
                broken.push(format!("{}:{line}: {target}: no such file", f.display()));
            } else if !fragment.is_empty()
                && file.extension().is_some_and(|x| x == "md")
                && !anchors(&read(&file)).iter().any(|a| a == fragment)
            {
                broken.push(format!("{}:{line}: {target}: no such heading", f.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// A marked list of instructions: the line it opens on, the kind its marker names
/// (`""` for every instruction), and the instructions it names.
type Listed = (usize, String, std::collections::BTreeSet<String>);

/// The instructions a marked list names (`<!-- instructions -->` ... `<!--
/// /instructions -->`, across lines; `<!-- instructions: memory -->` or `<!--
/// instructions: warp -->` for those whose records are memory or warp records):
/// every backticked word (the non-sync `vote` and `shfl` are instructions of their
/// own), with the line the list opens on.
fn listed_instructions(text: &str) -> Vec<Listed> {
    const OPEN: &str = "<!-- instructions";
    const CLOSE: &str = "<!-- /instructions -->";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        let line = text.len() - rest.len() + start;
        let marker = &rest[start + OPEN.len()..];
        let shut = marker.find("-->").unwrap_or_else(|| panic!("a marker at byte {line} is not closed"));
        let kind = marker[..shut].trim().trim_start_matches(':').trim().to_owned();
        let body = &marker[shut + "-->".len()..];
        let end = body.find(CLOSE).unwrap_or_else(|| panic!("an instruction list opened at byte {line} is not closed"));
        let names = body[..end].split('`').skip(1).step_by(2).map(str::to_owned).collect();
        out.push((text[..line].matches('\n').count() + 1, kind, names));
        rest = &body[end + CLOSE.len()..];
    }
    out
}

/// The spec's instructions a marker's kind names: every one (`""`), or those whose
/// variants' records are memory records (`memory`) or warp records (`warp`), as
/// their families declare (`Shape`).
fn instructions_of(spec: &ptxvec_spec::Spec, kind: &str) -> std::collections::BTreeSet<String> {
    use ptxvec_generator::record::Shape;
    if kind.is_empty() {
        return spec.instructions.iter().map(|f| f.instruction.instruction.clone()).collect();
    }
    ptxvec_generator::vectors::semantic::variants(spec)
        .iter()
        .filter(|v| match (kind, v.semantics.shape()) {
            ("memory", Shape::Memory(_)) | ("warp", Shape::Warp(_)) => true,
            ("memory" | "warp", _) => false,
            _ => panic!("`<!-- instructions: {kind} -->`: the kinds are memory and warp"),
        })
        .map(|v| v.spelling.instruction.instruction.clone())
        .collect()
}

/// Every list of the instructions in the README, vectors/README.md and docs/ is
/// marked, and names exactly the spec's instructions of its kind: a new
/// instruction's file cannot be left out of the words a reader takes the project's
/// scope from, nor out of the page that says what its records hold.
#[test]
fn every_marked_instruction_list_names_the_specs_instructions() {
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let root = repo_root();
    let mut files = vec![root.join("README.md"), root.join("vectors/README.md")];
    files.extend(markdown_files(&root.join("docs")));
    let mut kinds = std::collections::BTreeMap::<String, usize>::new();
    for f in files {
        for (line, kind, names) in listed_instructions(&read(&f)) {
            *kinds.entry(kind.clone()).or_default() += 1;
            assert_eq!(names, instructions_of(&spec, &kind), "{}:{line}: the marked list of {kind} instructions", f.display());
        }
    }
    assert!(kinds.get("").is_some_and(|&n| n >= 2), "the README's and docs/formats.md's lists are marked: {kinds:?}");
    // docs/formats.md's sections on memory and on warp records open with the
    // instructions whose records they describe.
    let formats = listed_instructions(&read(&root.join("docs/formats.md")));
    for kind in ["memory", "warp"] {
        assert!(
            formats.iter().any(|(_, k, _)| k == kind),
            "docs/formats.md: the {kind} records' list of instructions is marked `<!-- instructions: {kind} -->`"
        );
    }
}

/// The kinds split the spec's instructions: each is a memory or a warp instruction.
#[test]
fn the_memory_and_warp_instructions_are_the_specs() {
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let (memory, warp) = (instructions_of(&spec, "memory"), instructions_of(&spec, "warp"));
    assert!(memory.is_disjoint(&warp), "{memory:?} {warp:?}");
    assert_eq!(&memory | &warp, instructions_of(&spec, ""));
    // The document's own words: red is a memory reduction, vote a warp vote.
    assert!(memory.contains("red") && warp.contains("vote.sync"));
}

#[test]
fn an_instruction_list_is_read_between_its_markers() {
    let text = "a\nb <!-- instructions -->`red`, `atom` and\n`vote`<!-- /instructions --> `shfl`\n";
    let got = listed_instructions(text);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 2);
    assert_eq!(got[0].1, "");
    assert_eq!(got[0].2, ["atom", "red", "vote"].into_iter().map(str::to_owned).collect());
    let kinded = listed_instructions("x\n<!-- instructions: warp -->`vote`<!-- /instructions -->\n");
    assert_eq!((kinded[0].0, kinded[0].1.as_str()), (2, "warp"));
}

/// The check-syntax page's example of a statement not covered shows what
/// check-syntax says of it, the list of covered instructions included: a new
/// instruction's name cannot be left out of the page.
#[test]
fn the_check_syntax_page_shows_its_example_as_check_syntax_says_it() {
    let page = read(&repo_root().join("docs/commands/check-syntax.md"));
    let out = crate::support::ptxvec()
        .args(["check-syntax", "add.s32 %r1, %r2, %r3;", "--ptx", "8.0", "--target", "sm_90"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let said = String::from_utf8_lossy(&out.stdout);
    let said = said.trim_end();
    assert!(
        page.lines().any(|l| l == said),
        "docs/commands/check-syntax.md: the example's answer is stale; check-syntax now says:\n{said}"
    );
}

/// The class layouts a row of a records table gives (`| `class` | ... |`): each
/// instruction it names, with the number of classes of the layout that follows its
/// name (a backticked `[a, b, c]` holds 3, a backticked string is one class), in
/// order. A layout that follows no name (the memory records') names nothing.
fn class_layouts(row: &str, names: &std::collections::BTreeSet<String>) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for word in row.split('`').skip(1).step_by(2) {
        if names.contains(word) {
            pending.push(word.to_owned());
            continue;
        }
        let classes = match word.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
            Some(items) => items.split(',').count(),
            None if word.starts_with('"') => 1,
            None => continue,
        };
        out.extend(pending.drain(..).map(|n| (n, classes)));
    }
    out
}

/// docs/formats.md's table of a record's keys says, for each warp instruction, the
/// input classes its records name: as many as its family's shape declares
/// (`WarpShape::classes`, which vectors/schema.json holds the records to), and for
/// every warp instruction.
#[test]
fn the_formats_page_gives_each_warp_instructions_classes() {
    use ptxvec_generator::record::Shape;
    let spec = ptxvec_spec::Spec::load(&crate::spec_root()).unwrap();
    let mut want = std::collections::BTreeMap::<String, std::collections::BTreeSet<usize>>::new();
    for v in ptxvec_generator::vectors::semantic::variants(&spec) {
        if let Shape::Warp(w) = v.semantics.shape() {
            want.entry(v.spelling.instruction.instruction.clone()).or_default().insert(w.classes);
        }
    }
    let page = read(&repo_root().join("docs/formats.md"));
    let row = page.lines().find(|l| l.starts_with("| `class` |")).expect("docs/formats.md: a `class` row");
    let names = want.keys().cloned().collect();
    let mut got = std::collections::BTreeMap::<String, std::collections::BTreeSet<usize>>::new();
    for (name, classes) in class_layouts(row, &names) {
        got.entry(name).or_default().insert(classes);
    }
    assert_eq!(got, want, "docs/formats.md, the `class` row: each warp instruction's classes");
}

#[test]
fn class_layouts_are_read_after_the_names_they_follow() {
    let names = ["a.sync", "b", "c"].into_iter().map(str::to_owned).collect();
    let row = "| `class` | Memory: `\"<m> <o>\"`. `a.sync`, `b`: `[x, y (z), w]` (the other `b`: `[\"full\", v]`). `c`: one string, `\"s\"` or `\"t\"` |";
    assert_eq!(
        class_layouts(row, &names),
        [("a.sync", 3), ("b", 3), ("b", 2), ("c", 1)].map(|(n, c)| (n.to_owned(), c))
    );
}
