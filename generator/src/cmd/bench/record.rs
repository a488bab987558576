//! `ptxvec bench --record FILE`: the figures a bench run printed, written into the
//! marked section of a bench record (docs/bench.md) with the machine that measured
//! them and the command that reproduces them, so that the record is regenerated,
//! not copied by hand. Only the text between [`BEGIN`] and [`END`] is replaced;
//! the rest of the file is the maintainers'.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// The line that opens the generated section.
pub const BEGIN: &str = "<!-- bench -->";
/// The line that closes it.
pub const END: &str = "<!-- /bench -->";

/// The machine a bench run measured on, as the record states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The CPU's model name (`/proc/cpuinfo`), or `unknown CPU`.
    pub cpu: String,
    /// The cores the process may run on.
    pub cores: usize,
    /// The worker threads the parallel stages used.
    pub threads: usize,
    /// The SIMD levels the sweep stages time, best first (the best is the one the
    /// fast oracles choose by default).
    pub simd: Vec<String>,
    /// The one-minute load average when the record was written (`/proc/loadavg`):
    /// other work on the cores slows every stage.
    pub load: Option<String>,
}

impl Machine {
    /// This machine: its CPU model, its cores, rayon's threads and `simd`.
    pub fn here(simd: Vec<String>) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|text| cpu_model(&text))
            .unwrap_or_else(|| "unknown CPU".to_owned());
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            threads: rayon::current_num_threads(),
            simd,
            load: std::fs::read_to_string("/proc/loadavg")
                .ok()
                .and_then(|l| l.split_whitespace().next().map(str::to_owned)),
        }
    }
}

/// The first `model name` of a `/proc/cpuinfo` text, its spaces collapsed.
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == "model name").then(|| value.split_whitespace().collect::<Vec<_>>().join(" "))
    })
}

/// A command line as a shell reads it back: each word quoted only where it needs it.
pub fn command_line(words: &[String]) -> String {
    let quote = |w: &String| {
        let plain = !w.is_empty()
            && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
        if plain {
            w.clone()
        } else {
            format!("'{}'", w.replace('\'', r"'\''"))
        }
    };
    words.iter().map(quote).collect::<Vec<_>>().join(" ")
}

/// The generated section, markers included: the machine, the command, the tables
/// as the run printed them.
pub fn section(machine: &Machine, command: &str, tables: &str) -> String {
    let simd = match machine.simd.split_first() {
        Some((best, [])) => format!("SIMD level {best}"),
        Some((best, rest)) => format!("SIMD level {best} (sweeps also timed at {})", rest.join(", ")),
        None => "no SIMD level".to_owned(),
    };
    let load = machine.load.as_ref().map_or(String::new(), |l| format!(", load average {l} at the end"));
    format!(
        "{BEGIN}\nMachine: {}, {} cores, {} worker threads, {simd}{load}.\n\n\
         Command: `{command}`\n\n```text\n{}\n```\n{END}",
        machine.cpu,
        machine.cores,
        machine.threads,
        tables.trim_matches('\n')
    )
}

/// `doc` with its marked section replaced by `section` (which carries the markers);
/// `None` when `doc` has no [`BEGIN`] line followed by an [`END`] line.
pub fn replace_section(doc: &str, section: &str) -> Option<String> {
    let start = doc.find(&format!("{BEGIN}\n")).filter(|&i| i == 0 || doc.as_bytes()[i - 1] == b'\n')?;
    let end = start + doc[start..].find(END)? + END.len();
    Some(format!("{}{section}{}", &doc[..start], &doc[end..]))
}

/// Checks, before a run, that `write` can take the record at `path`: a file with
/// the markers, or none yet.
pub fn check(path: &Path) -> Result<()> {
    updated(path, "").map(drop)
}

/// Writes `section` into the record at `path` (through a temporary file and a
/// rename): a record that does not exist yet is made of the section alone; one
/// without the markers is refused, so that no hand-written text is lost.
pub fn write(path: &Path, section: &str) -> Result<()> {
    let doc = updated(path, section)?;
    crate::io::files::write_atomic(path, doc.as_bytes()).map_err(|e| Error::io(path, e))
}

/// The record at `path` with `section` in place.
fn updated(path: &Path, section: &str) -> Result<String> {
    match std::fs::read_to_string(path) {
        Ok(doc) => replace_section(&doc, section).ok_or_else(|| {
            Error::Input(format!(
                "{}: no bench section to replace (expected a line `{BEGIN}` and, after it, `{END}`)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(format!("{section}\n")),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// A writer that passes everything to `out` and keeps a copy.
pub struct Tee<'a> {
    /// Where the table is printed.
    pub out: &'a mut dyn Write,
    /// What was printed, for the record.
    pub kept: Vec<u8>,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.kept.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine {
            cpu: "AMD EPYC 7B13".to_owned(),
            cores: 2,
            threads: 2,
            simd: vec!["avx2".to_owned(), "portable".to_owned()],
            load: Some("1.52".to_owned()),
        }
    }

    #[test]
    fn the_model_name_is_the_first_processors() {
        let info = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  7B13 64-Core Processor\n\n\
                    processor\t: 1\nmodel name\t: other\n";
        assert_eq!(cpu_model(info).as_deref(), Some("AMD EPYC 7B13 64-Core Processor"));
        assert_eq!(cpu_model("processor\t: 0\n"), None);
    }

    #[test]
    fn a_command_is_quoted_where_a_shell_needs_it() {
        let words: Vec<String> = ["target/release/ptxvec", "bench", "--record", "my docs/bench.md", "it's"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            command_line(&words),
            r"target/release/ptxvec bench --record 'my docs/bench.md' 'it'\''s'"
        );
    }

    #[test]
    fn the_section_states_machine_command_and_tables() {
        let s = section(&machine(), "ptxvec bench --runs 5", "\nstage  items\nx  1\n\n");
        assert_eq!(
            s,
            "<!-- bench -->\nMachine: AMD EPYC 7B13, 2 cores, 2 worker threads, SIMD level avx2 \
             (sweeps also timed at portable), load average 1.52 at the end.\n\nCommand: `ptxvec bench --runs 5`\n\n\
             ```text\nstage  items\nx  1\n```\n<!-- /bench -->"
        );
    }

    #[test]
    fn only_the_marked_section_is_replaced() {
        let doc = "# Bench\n\nby hand\n<!-- bench -->\nold\n<!-- /bench -->\nafter\n";
        let new = replace_section(doc, "<!-- bench -->\nnew\n<!-- /bench -->").unwrap();
        assert_eq!(new, "# Bench\n\nby hand\n<!-- bench -->\nnew\n<!-- /bench -->\nafter\n");
        // Replacing again gives the same text: the section's markers are found again.
        assert_eq!(replace_section(&new, "<!-- bench -->\nnew\n<!-- /bench -->").unwrap(), new);
        assert_eq!(replace_section("# Bench\n", "x"), None);
        assert_eq!(replace_section("<!-- bench -->\nno end\n", "x"), None);
        // A marker inside a line is no marker.
        assert_eq!(replace_section("say `<!-- bench -->`\n<!-- /bench -->\n", "x"), None);
    }

    #[test]
    fn a_record_without_markers_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.md");
        std::fs::write(&path, "# by hand\n").unwrap();
        let e = write(&path, "<!-- bench -->\nx\n<!-- /bench -->").unwrap_err();
        assert!(e.to_string().contains("no bench section to replace"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# by hand\n");
        let fresh = dir.path().join("new.md");
        write(&fresh, "<!-- bench -->\nx\n<!-- /bench -->").unwrap();
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "<!-- bench -->\nx\n<!-- /bench -->\n");
    }
}
