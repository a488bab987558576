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
pub mod flat_json;
pub mod json;
mod read;

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};

pub use answers::{rendered, Answers};

use crate::error::{Error, Result};
use crate::io::lines::MAX_LINE_BYTES;
use crate::io::output::ErrorAnswer;
use read::{read_pieces, Chunk};

/// The most lines a chunk holds. Between two chunks both workers wait (the
/// last block of a chunk, the readings met in it kept by one thread): at 4,096
/// lines a chunk, the explorer's walks ran 5% slower (`ptxvec bench`, medians
/// 0.310 to 0.317 s against 0.294 to 0.300 s, alternating runs), for 4 MB less
/// peak memory on a 1.2 GB stream.
pub const CHUNK_LINES: usize = 16384;
/// A chunk ends once its lines hold this many bytes (one line can take it over, by
/// at most [`MAX_LINE_BYTES`]).
pub const CHUNK_BYTES: usize = 4 << 20;
/// The most bytes one read asks for: a chunk of short lines is read with a few
/// system calls.
const READ_BYTES: usize = 1 << 20;

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

/// What the answering thread hands the writing one, in input order.
enum Answered {
    /// A chunk's answers.
    Lines(Answers),
    /// A line over [`MAX_LINE_BYTES`], by number.
    TooLong(usize),
    /// The input could not be read: the message. Nothing follows.
    Failed(String),
}

/// The most [`Answers`] in flight: one being written, one waiting, one being
/// filled.
const ANSWERS: usize = 3;

/// Answers every line of `input` (named `name` in messages) onto `out`, a chunk at
/// a time: `answer` gets a chunk's lines and fills [`Answers`] with one answer per
/// line. Returns the numbers of the lines answered with an error record. A read
/// error stops the run once the lines before it are answered; a write error stops
/// the run at once (the other threads stop at their next hand-over).
///
/// Three threads, each a chunk ahead of the next: one reads, one answers (in
/// parallel, on rayon's workers) and the caller's writes, so that neither the
/// reading nor the writing holds the workers up.
pub fn run(
    name: &str,
    input: impl Read + Send,
    out: &mut dyn Write,
    answer: impl FnMut(&[InputLine<'_>], &mut Answers) + Send,
) -> Result<Vec<usize>> {
    std::thread::scope(|scope| {
        // Made here, so that an early return drops the writing ends and the other
        // threads, waiting on either, stop before the scope waits for them.
        let (to_answer, pieces) = mpsc::sync_channel(1);
        // Answered chunks go back to the reader, and written answers to the
        // answerer, so that their buffers are reused.
        let (to_reuse, spare) = mpsc::channel();
        let (to_write, answered) = mpsc::sync_channel(1);
        let (answers_back, free) = mpsc::channel();
        scope.spawn(move || read_pieces(name, input, &to_answer, &spare));
        scope.spawn(move || answer_pieces(&pieces, &to_reuse, &to_write, &free, answer));
        let mut bad_lines = Vec::new();
        for a in answered {
            match a {
                Answered::Lines(answers) => {
                    bad_lines.extend(answers.bad_lines());
                    answers
                        .text()
                        .try_for_each(|block| out.write_all(block))
                        .and_then(|()| out.flush())
                        .map_err(Error::Stdout)?;
                    // The answerer may have stopped; then the buffers are dropped.
                    let _ = answers_back.send(answers);
                }
                Answered::TooLong(no) => {
                    bad_lines.push(no);
                    let e = format!("{name}:{no}: line longer than {MAX_LINE_BYTES} bytes");
                    writeln!(out, "{}", ErrorAnswer::line(e))
                        .and_then(|()| out.flush())
                        .map_err(Error::Stdout)?;
                }
                Answered::Failed(e) => return Err(Error::Input(e)),
            }
        }
        Ok(bad_lines)
    })
}

/// The answering thread: answers each chunk into an [`Answers`] and hands it to
/// the writer, in order, until the pieces end or the writer stops.
fn answer_pieces(
    pieces: &Receiver<Piece>,
    to_reuse: &Sender<Chunk>,
    to_write: &SyncSender<Answered>,
    free: &Receiver<Answers>,
    mut answer: impl FnMut(&[InputLine<'_>], &mut Answers),
) {
    let mut made = 0;
    for piece in pieces {
        let answered = match piece {
            Piece::Lines(mut chunk) => {
                let mut answers = match free.try_recv() {
                    Ok(a) => a,
                    Err(_) if made < ANSWERS => {
                        made += 1;
                        Answers::default()
                    }
                    // The writer hands every answers back once written, unless it
                    // has stopped.
                    Err(_) => match free.recv() {
                        Ok(a) => a,
                        Err(_) => return,
                    },
                };
                let lines = chunk.input_lines();
                answers.clear();
                answer(&lines, &mut answers);
                // One answer per line is the contract of `answer`; a missing one
                // would shift every later answer onto the wrong line.
                assert_eq!(answers.len(), lines.len(), "one answer per line");
                drop(lines);
                chunk.clear();
                // The reader may have stopped; then the buffers are dropped.
                let _ = to_reuse.send(chunk);
                Answered::Lines(answers)
            }
            Piece::TooLong(no) => Answered::TooLong(no),
            Piece::Failed(e) => Answered::Failed(e),
        };
        if to_write.send(answered).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers each line with its number and length, `bad` for a line `bad`.
    fn echo(lines: &[InputLine<'_>], answers: &mut Answers) {
        answers.fill(lines, |l, buf| match l.bytes {
            b"bad" => Err(format!("line {} is bad", l.no)),
            b => {
                buf.extend_from_slice(format!("{}:{}", l.no, b.len()).as_bytes());
                Ok(())
            }
        });
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
