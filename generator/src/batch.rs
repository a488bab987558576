//! The loop of the batch commands (`check-syntax -`, `eval`): every input line gets
//! exactly one answer line, in input order. Lines are read into a bounded chunk,
//! the command answers the chunk (in parallel, [`rayon`]), and the answers are
//! written in order before the next chunk is read: memory stays flat whatever the
//! length of the input.
//!
//! A chunk ends early when no whole line is waiting in the read buffer, so that a
//! program that writes one line and waits for its answer gets it (the answers are
//! flushed at the end of every chunk). A line over [`MAX_LINE_BYTES`] is answered
//! as soon as it is met, before its rest is skipped, since the rest may never end
//! (`/dev/zero`).

use std::io::{BufRead, BufReader, Read, Write};

use crate::error::{Error, Result};
use crate::lines::{append_line, skip_line, Line, MAX_LINE_BYTES};
use crate::output::ErrorAnswer;

/// The most lines a chunk holds.
pub const CHUNK_LINES: usize = 4096;
/// A chunk ends once its lines hold this many bytes (one line can take it over, by
/// at most [`MAX_LINE_BYTES`]).
pub const CHUNK_BYTES: usize = 4 << 20;
/// The read buffer: a chunk of short lines is read with a few system calls.
const READ_BUFFER: usize = 1 << 20;

/// One input line, without its line end.
#[derive(Debug, Clone, Copy)]
pub struct InputLine<'a> {
    /// 1-based line number.
    pub no: usize,
    /// The bytes, not yet checked for UTF-8.
    pub bytes: &'a [u8],
}

/// The answer to one line: its answer line (a blank line for a blank one), or the
/// message of the error record written in its place.
pub type Answer = std::result::Result<String, String>;

/// Answers every line of `input` (named `name` in messages) onto `out`, a chunk at
/// a time: `answer` gets a chunk's lines and returns one answer per line, in order.
/// Returns the numbers of the lines answered with an error record. A read error
/// stops the run once the lines before it are answered; a write error stops it at
/// once.
pub fn run(
    name: &str,
    input: impl Read,
    out: &mut dyn Write,
    mut answer: impl FnMut(&[InputLine<'_>]) -> Vec<Answer>,
) -> Result<Vec<usize>> {
    let mut input = BufReader::with_capacity(READ_BUFFER, input);
    let mut chunk = Chunk::default();
    let mut bad_lines = Vec::new();
    for no in 1.. {
        let waiting = memchr::memchr(b'\n', input.buffer());
        if !chunk.is_empty() && (waiting.is_none() || chunk.is_full()) {
            chunk.answer(out, &mut answer, &mut bad_lines)?;
        }
        let start = chunk.bytes.len();
        // A whole line in the read buffer, short enough, is taken from it at once
        // (what `append_line` would read); any other goes through `append_line`.
        if let Some(end) = waiting.filter(|&end| end <= MAX_LINE_BYTES) {
            let line = &input.buffer()[..end];
            chunk.bytes.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
            input.consume(end + 1);
            chunk.lines.push((no, start..chunk.bytes.len()));
            continue;
        }
        let read = append_line(&mut input, &mut chunk.bytes);
        let read = match read {
            Ok(r) => r,
            Err(e) => {
                chunk.bytes.truncate(start);
                chunk.answer(out, &mut answer, &mut bad_lines)?;
                return Err(Error::Input(format!("{name}:{no}: {e}")));
            }
        };
        match read {
            Line::End => break,
            Line::Read => chunk.lines.push((no, start..chunk.bytes.len())),
            Line::TooLong => {
                chunk.answer(out, &mut answer, &mut bad_lines)?;
                bad_lines.push(no);
                let e = format!("{name}:{no}: line longer than {MAX_LINE_BYTES} bytes");
                writeln!(out, "{}", ErrorAnswer::line(e))
                    .and_then(|()| out.flush())
                    .map_err(Error::Stdout)?;
                skip_line(&mut input).map_err(|e| Error::Input(format!("{name}:{no}: {e}")))?;
            }
        }
    }
    chunk.answer(out, &mut answer, &mut bad_lines)?;
    Ok(bad_lines)
}

/// Lines read and not yet answered: their bytes one after another, and per line
/// its number and where its bytes are.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    lines: Vec<(usize, std::ops::Range<usize>)>,
    written: Vec<u8>,
}

impl Chunk {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= CHUNK_LINES || self.bytes.len() >= CHUNK_BYTES
    }

    /// Answers the lines, writes the answers in order and flushes, and empties the
    /// chunk.
    fn answer(
        &mut self,
        out: &mut dyn Write,
        answer: &mut impl FnMut(&[InputLine<'_>]) -> Vec<Answer>,
        bad_lines: &mut Vec<usize>,
    ) -> Result<()> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let lines: Vec<InputLine<'_>> = self
            .lines
            .iter()
            .map(|(no, r)| InputLine {
                no: *no,
                bytes: &self.bytes[r.clone()],
            })
            .collect();
        let answers = answer(&lines);
        // One answer per line is the contract of `answer`; a missing one would
        // shift every later answer onto the wrong line.
        assert_eq!(answers.len(), lines.len(), "one answer per line");
        self.written.clear();
        for (line, a) in lines.iter().zip(&answers) {
            match a {
                Ok(t) => self.written.extend_from_slice(t.as_bytes()),
                Err(e) => {
                    bad_lines.push(line.no);
                    self.written
                        .extend_from_slice(ErrorAnswer::line(e.clone()).as_bytes());
                }
            }
            self.written.push(b'\n');
        }
        // Freed by a worker, off the one thread that reads and writes.
        rayon::spawn(move || drop(answers));
        out.write_all(&self.written)
            .and_then(|()| out.flush())
            .map_err(Error::Stdout)?;
        self.bytes.clear();
        self.lines.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers each line with its number and length, `bad` for a line `bad`.
    fn echo(lines: &[InputLine<'_>]) -> Vec<Answer> {
        lines
            .iter()
            .map(|l| match l.bytes {
                b"bad" => Err(format!("line {} is bad", l.no)),
                b => Ok(format!("{}:{}", l.no, b.len())),
            })
            .collect()
    }

    #[test]
    fn every_line_is_answered_in_order_across_chunks() {
        let n = CHUNK_LINES * 2 + 7;
        let mut input = String::new();
        for i in 1..=n {
            input.push_str(if i % 1000 == 0 { "bad" } else { "x" });
            input.push('\n');
        }
        let mut out = Vec::new();
        let bad = run("<t>", input.as_bytes(), &mut out, echo).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), n);
        assert_eq!(lines[0], "1:1");
        assert_eq!(lines[n - 1], format!("{n}:1"));
        assert_eq!(lines[999], r#"{"error":"line 1000 is bad"}"#);
        assert_eq!(bad, (1..=n / 1000).map(|k| k * 1000).collect::<Vec<_>>());
    }

    #[test]
    fn long_line_answered_in_place_and_last_line_without_end() {
        let mut input = b"a\r\n".to_vec();
        input.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 1));
        input.extend(b"\nbb");
        let mut out = Vec::new();
        let bad = run("<t>", input.as_slice(), &mut out, echo).unwrap();
        let want = format!(
            "1:1\n{{\"error\":\"<t>:2: line longer than {MAX_LINE_BYTES} bytes\"}}\n3:2\n"
        );
        assert_eq!(String::from_utf8(out).unwrap(), want);
        assert_eq!(bad, [2]);
    }

    /// A reader that hands out one line per read and then fails, as a pipe whose
    /// writer waits for the answer before it writes again would stall.
    struct OneLineAtATime {
        lines: Vec<&'static [u8]>,
        answered_before_next: std::rc::Rc<std::cell::RefCell<Vec<u8>>>,
        seen: usize,
    }

    impl Read for OneLineAtATime {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            // Every line before this read must have been answered already.
            let answered = self.answered_before_next.borrow().iter().filter(|&&b| b == b'\n').count();
            assert_eq!(answered, self.seen, "a line waited for one that was not sent");
            match self.lines.get(self.seen) {
                Some(l) => {
                    buf[..l.len()].copy_from_slice(l);
                    self.seen += 1;
                    Ok(l.len())
                }
                None => Err(std::io::Error::other("closed")),
            }
        }
    }

    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_line_is_answered_before_the_next_read() {
        let written = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let input = OneLineAtATime {
            lines: vec![b"one\n", b"two\n", b"three\n"],
            answered_before_next: written.clone(),
            seen: 0,
        };
        let mut out = Shared(written.clone());
        let e = run("<t>", input, &mut out, echo).unwrap_err();
        assert_eq!(e.to_string(), "<t>:4: closed");
        assert_eq!(written.borrow().as_slice(), b"1:3\n2:3\n3:5\n");
    }
}
