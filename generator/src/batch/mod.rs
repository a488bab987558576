//! The loop of the batch commands (`check-syntax -`, `eval`): every input line gets
//! exactly one answer line, in input order. A reader thread reads lines into
//! bounded chunks while the caller's thread answers the chunk before (in parallel,
//! [`rayon`]) and writes its answers in order: reading overlaps answering, and
//! memory stays flat whatever the length of the input (at most three chunks exist:
//! one being read, one waiting, one being answered).
//!
//! A chunk ends early when no whole line is waiting in the read buffer, so that a
//! program that writes one line and waits for its answer gets it (the answers are
//! flushed at the end of every chunk, and the reader's next read does not hold
//! them back). A line over [`MAX_LINE_BYTES`] is answered as soon as it is met,
//! before its rest is skipped, since the rest may never end (`/dev/zero`).

mod answers;

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};

pub use answers::{rendered, Answers};

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

/// What the reader hands the answering thread, in input order.
enum Piece {
    /// Whole lines to answer.
    Lines(Chunk),
    /// A line over [`MAX_LINE_BYTES`], by number: an error record takes its place.
    TooLong(usize),
    /// The input could not be read: the message. Nothing follows.
    Failed(String),
}

/// Answers every line of `input` (named `name` in messages) onto `out`, a chunk at
/// a time: `answer` gets a chunk's lines and fills [`Answers`] with one answer per
/// line.
/// Returns the numbers of the lines answered with an error record. A read error
/// stops the run once the lines before it are answered; a write error stops the
/// answering at once (the reader stops at its next chunk).
pub fn run(
    name: &str,
    input: impl Read + Send,
    out: &mut dyn Write,
    mut answer: impl FnMut(&[InputLine<'_>], &mut Answers),
) -> Result<Vec<usize>> {
    // One chunk may wait while one is answered: the reader runs at most a chunk
    // ahead (the sync channel's one place).
    std::thread::scope(|scope| {
        // Made here, so that an early return drops the answering ends and the
        // reader, waiting on either, stops before the scope waits for it.
        let (to_answer, pieces) = mpsc::sync_channel(1);
        // Answered chunks go back to the reader, so that their buffers are reused.
        let (to_reuse, spare) = mpsc::channel();
        scope.spawn(move || read_pieces(name, input, &to_answer, &spare));
        let mut bad_lines = Vec::new();
        let mut answers = Answers::default();
        for piece in pieces {
            match piece {
                Piece::Lines(mut chunk) => {
                    chunk.answer(out, &mut answers, &mut answer, &mut bad_lines)?;
                    // The reader may have stopped; then the buffers are dropped.
                    let _ = to_reuse.send(chunk);
                }
                Piece::TooLong(no) => {
                    bad_lines.push(no);
                    let e = format!("{name}:{no}: line longer than {MAX_LINE_BYTES} bytes");
                    writeln!(out, "{}", ErrorAnswer::line(e))
                        .and_then(|()| out.flush())
                        .map_err(Error::Stdout)?;
                }
                Piece::Failed(e) => return Err(Error::Input(e)),
            }
        }
        Ok(bad_lines)
    })
}

/// Why the reader stopped before the end of the input.
enum Stop {
    /// The answering side takes no more pieces (a write error).
    Answering,
    /// The input could not be read: the message.
    Input(String),
}

/// The most chunks in flight: one being read, one waiting, one being answered.
const CHUNKS: usize = 3;

/// The reader's end of the two channels.
struct Handoff<'a> {
    pieces: &'a SyncSender<Piece>,
    spare: &'a Receiver<Chunk>,
    /// Chunks made so far; past [`CHUNKS`] an answered one is waited for, so that
    /// their buffers, grown once, are reused.
    made: std::cell::Cell<usize>,
}

impl Handoff<'_> {
    /// Hands a piece on; an error once the answering side has stopped.
    fn send(&self, piece: Piece) -> std::result::Result<(), Stop> {
        self.pieces.send(piece).map_err(|_| Stop::Answering)
    }

    /// Hands a chunk's lines on (if it holds any), leaving it empty, with the
    /// buffers of an answered chunk where one has come back.
    fn lines(&self, chunk: &mut Chunk) -> std::result::Result<(), Stop> {
        if chunk.is_empty() {
            return Ok(());
        }
        let full = std::mem::take(chunk);
        self.send(Piece::Lines(full))?;
        *chunk = match self.spare.try_recv() {
            Ok(c) => c,
            Err(_) if self.made.get() < CHUNKS => {
                self.made.set(self.made.get() + 1);
                Chunk::default()
            }
            // The answering side hands every chunk back once answered, unless it
            // has stopped.
            Err(_) => self.spare.recv().map_err(|_| Stop::Answering)?,
        };
        Ok(())
    }
}

/// The reader thread: reads `input` into chunks and hands them on, in order,
/// until the input ends or fails or the answering side stops taking them.
fn read_pieces(name: &str, input: impl Read, pieces: &SyncSender<Piece>, spare: &Receiver<Chunk>) {
    let handoff = Handoff {
        pieces,
        spare,
        made: std::cell::Cell::new(1),
    };
    let mut chunk = Chunk::default();
    let read = read_chunks(name, input, &mut chunk, &handoff);
    // The lines read before the end or the failure are answered first.
    if let (Ok(()), Err(Stop::Input(e))) = (handoff.lines(&mut chunk), read) {
        let _ = handoff.send(Piece::Failed(e));
    }
}

/// Reads lines into `chunk`, handing it on whenever it is full or no whole line is
/// waiting in the read buffer, and a too-long line's number in its place.
fn read_chunks(
    name: &str,
    input: impl Read,
    chunk: &mut Chunk,
    handoff: &Handoff<'_>,
) -> std::result::Result<(), Stop> {
    let mut input = BufReader::with_capacity(READ_BUFFER, input);
    for no in 1.. {
        let waiting = memchr::memchr(b'\n', input.buffer());
        if waiting.is_none() || chunk.is_full() {
            handoff.lines(chunk)?;
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
        let failed = |e: std::io::Error| Stop::Input(format!("{name}:{no}: {e}"));
        match append_line(&mut input, &mut chunk.bytes) {
            Err(e) => {
                chunk.bytes.truncate(start);
                return Err(failed(e));
            }
            Ok(Line::End) => return Ok(()),
            Ok(Line::Read) => chunk.lines.push((no, start..chunk.bytes.len())),
            Ok(Line::TooLong) => {
                handoff.lines(chunk)?;
                handoff.send(Piece::TooLong(no))?;
                skip_line(&mut input).map_err(failed)?;
            }
        }
    }
    Ok(())
}

/// Lines read and not yet answered: their bytes one after another, and per line
/// its number and where its bytes are.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    lines: Vec<(usize, std::ops::Range<usize>)>,
}

impl Chunk {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn is_full(&self) -> bool {
        self.lines.len() >= CHUNK_LINES || self.bytes.len() >= CHUNK_BYTES
    }

    /// Answers the lines, writes the answers in order (through `answers`, whose
    /// buffers serve every chunk) and flushes, and empties the chunk.
    fn answer(
        &mut self,
        out: &mut dyn Write,
        answers: &mut Answers,
        answer: &mut impl FnMut(&[InputLine<'_>], &mut Answers),
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
        answers.clear();
        answer(&lines, answers);
        // One answer per line is the contract of `answer`; a missing one would
        // shift every later answer onto the wrong line.
        assert_eq!(answers.len(), lines.len(), "one answer per line");
        bad_lines.extend(answers.bad_lines());
        answers
            .text()
            .try_for_each(|block| out.write_all(block))
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
    fn echo(lines: &[InputLine<'_>], answers: &mut Answers) {
        answers.fill(lines, &mut vec![(); lines.len()], |l, (), buf| match l.bytes {
            b"bad" => Err(format!("line {} is bad", l.no)),
            b => {
                buf.extend_from_slice(format!("{}:{}", l.no, b.len()).as_bytes());
                Ok(())
            }
        })
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

    /// What the answers' writer sends on at every flush: the bytes written since.
    struct Forward {
        pending: Vec<u8>,
        to: std::sync::mpsc::Sender<Vec<u8>>,
    }

    impl Write for Forward {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.pending.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            let _ = self.to.send(std::mem::take(&mut self.pending));
            Ok(())
        }
    }

    /// A client that writes one line and waits for its answer before it writes the
    /// next (a pipe both ways) gets every answer: the reader thread, blocked on
    /// the next line, holds back no answer.
    #[test]
    fn a_client_that_waits_for_each_answer_gets_it() {
        let (input, mut client) = std::io::pipe().unwrap();
        let (to, answers) = std::sync::mpsc::channel();
        let runner = std::thread::spawn(move || {
            let mut out = Forward {
                pending: Vec::new(),
                to,
            };
            run("<t>", input, &mut out, echo)
        });
        let mut got = Vec::new();
        for line in ["one", "bad", "three"] {
            writeln!(client, "{line}").unwrap();
            let answer = answers
                .recv_timeout(std::time::Duration::from_secs(20))
                .expect("the answer to a line came before the next line was written");
            got.push(String::from_utf8(answer).unwrap());
        }
        drop(client);
        assert_eq!(runner.join().unwrap().unwrap(), [2]);
        assert_eq!(got, ["1:3\n", "{\"error\":\"line 2 is bad\"}\n", "3:5\n"]);
    }

    /// A reader that fails after some lines.
    struct FailsAfter(&'static [u8]);

    impl Read for FailsAfter {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(std::io::Error::other("closed"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_comes_after_the_answers_to_the_lines_before_it() {
        let mut out = Vec::new();
        let e = run("<t>", FailsAfter(b"one\ntwo\nthr"), &mut out, echo).unwrap_err();
        assert_eq!(e.to_string(), "<t>:3: closed");
        assert_eq!(String::from_utf8(out).unwrap(), "1:3\n2:3\n");
    }

    /// A writer that fails at once.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("no space"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_the_run() {
        let input = "x\n".repeat(3 * CHUNK_LINES);
        let e = run("<t>", input.as_bytes(), &mut Full, echo).unwrap_err();
        assert!(matches!(e, Error::Stdout(_)), "{e}");
    }
}
