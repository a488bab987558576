//! The batch loop's reader thread: reads the input straight into the buffer of
//! the chunk its lines will be answered from (one copy of each byte, the read's
//! own), and hands whole lines on a chunk at a time. The line being read when a
//! chunk is handed on, at most [`MAX_LINE_BYTES`] of it, is copied into the next.

use std::io::Read;
use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender};

use super::{InputLine, Piece, CHUNK_BYTES, CHUNK_LINES, READ_BYTES};
use crate::io::lines::MAX_LINE_BYTES;

/// The most chunks in flight: one being read, one waiting, one being answered.
const CHUNKS: usize = 3;

/// Lines read and not yet answered, in the buffer they were read into.
#[derive(Default)]
pub struct Chunk {
    /// The input as read: whole lines, then the start of the line being read.
    /// Its length only grows, so that a chunk used again is not cleared.
    buf: Vec<u8>,
    /// How much of `buf` holds input.
    filled: usize,
    /// Per whole line, its number and where its bytes are (no line end).
    lines: Vec<(usize, Range<usize>)>,
}

impl Chunk {
    /// The whole lines.
    pub fn input_lines(&self) -> Vec<InputLine<'_>> {
        self.lines
            .iter()
            .map(|(no, r)| InputLine {
                no: *no,
                bytes: &self.buf[r.clone()],
            })
            .collect()
    }

    /// Holds nothing (its buffers are kept).
    pub fn clear(&mut self) {
        self.lines.clear();
        self.filled = 0;
    }
}

/// Why the reader stopped before the end of the input.
enum Stop {
    /// The answering side takes no more pieces (a write error).
    Answering,
    /// The input could not be read: the message.
    Input(String),
}

/// The reader thread: reads `input` into chunks and hands them on, in order,
/// until the input ends or fails or the answering side stops taking them.
pub fn read_pieces(name: &str, input: impl Read, pieces: &SyncSender<Piece>, spare: &Receiver<Chunk>) {
    let mut reader = Reader {
        input,
        name,
        pieces,
        spare,
        made: 1,
        chunk: Chunk::default(),
        tail: 0,
        searched: 0,
        no: 1,
    };
    // The lines read before a failure are answered first.
    if let Err(Stop::Input(e)) = reader.read_all() {
        if reader.pass_on().is_ok() {
            let _ = reader.pieces.send(Piece::Failed(e));
        }
    }
}

/// The reader's state: its input, its ends of the two channels, and the chunk
/// being filled.
struct Reader<'a, R> {
    input: R,
    /// The input's name, for messages.
    name: &'a str,
    pieces: &'a SyncSender<Piece>,
    /// Answered chunks, back for their buffers.
    spare: &'a Receiver<Chunk>,
    /// Chunks made so far; past [`CHUNKS`] an answered one is waited for.
    made: usize,
    chunk: Chunk,
    /// Where the line being read starts in the chunk's buffer.
    tail: usize,
    /// How far the buffer has been searched for a line end.
    searched: usize,
    /// The number of the line being read.
    no: usize,
}

impl<R: Read> Reader<'_, R> {
    /// Reads the whole input, handing lines on whenever the chunk is full or no
    /// whole line is waiting (the next read may wait for input, and a client may
    /// wait for the answers to the lines it has written), and a too-long line's
    /// number in its place.
    fn read_all(&mut self) -> Result<(), Stop> {
        loop {
            self.take_lines()?;
            self.pass_on()?;
            if self.chunk.filled - self.tail > MAX_LINE_BYTES {
                // The lines after it are taken at the loop's start.
                match self.skip_long_line()? {
                    true => return Ok(()),
                    false => continue,
                }
            }
            if self.read_more()? == 0 {
                return self.last_line();
            }
        }
    }

    /// Takes every whole line in what was read; a full chunk is handed on.
    fn take_lines(&mut self) -> Result<(), Stop> {
        while let Some(at) = memchr::memchr(b'\n', &self.chunk.buf[self.searched..self.chunk.filled]) {
            let end = self.searched + at;
            if end - self.tail > MAX_LINE_BYTES {
                // Longer than a line may be, and ended within the last read.
                self.pass_on()?;
                self.send(Piece::TooLong(self.no))?;
            } else {
                let line = &self.chunk.buf[self.tail..end];
                let len = line.strip_suffix(b"\r").unwrap_or(line).len();
                self.chunk.lines.push((self.no, self.tail..self.tail + len));
            }
            self.no += 1;
            self.tail = end + 1;
            self.searched = self.tail;
            if self.chunk.lines.len() >= CHUNK_LINES || self.tail >= CHUNK_BYTES {
                self.pass_on()?;
            }
        }
        self.searched = self.chunk.filled;
        Ok(())
    }

    /// Hands the chunk's lines on, if it holds any, and goes on in another chunk
    /// with the line being read; without lines, that line moves to the buffer's
    /// start.
    fn pass_on(&mut self) -> Result<(), Stop> {
        let (tail, filled) = (self.tail, self.chunk.filled);
        if self.chunk.lines.is_empty() {
            if tail > 0 {
                self.chunk.buf.copy_within(tail..filled, 0);
            }
        } else {
            let mut next = self.next_chunk()?;
            let carried = &self.chunk.buf[tail..filled];
            if next.buf.len() < carried.len() {
                next.buf.resize(carried.len(), 0);
            }
            next.buf[..carried.len()].copy_from_slice(carried);
            let full = std::mem::replace(&mut self.chunk, next);
            self.send(Piece::Lines(full))?;
        }
        self.chunk.filled = filled - tail;
        self.searched -= tail;
        self.tail = 0;
        Ok(())
    }

    /// An empty chunk: an answered one where one has come back, a new one while
    /// fewer than [`CHUNKS`] exist, else the next to come back.
    fn next_chunk(&mut self) -> Result<Chunk, Stop> {
        match self.spare.try_recv() {
            Ok(c) => Ok(c),
            Err(_) if self.made < CHUNKS => {
                self.made += 1;
                Ok(Chunk::default())
            }
            // The answering side hands every chunk back once answered, unless it
            // has stopped.
            Err(_) => self.spare.recv().map_err(|_| Stop::Answering),
        }
    }

    fn send(&self, piece: Piece) -> Result<(), Stop> {
        self.pieces.send(piece).map_err(|_| Stop::Answering)
    }

    /// Reads once more after what the buffer holds; 0 at the end of the input.
    fn read_more(&mut self) -> Result<usize, Stop> {
        let filled = self.chunk.filled;
        if self.chunk.buf.len() < filled + READ_BYTES {
            self.chunk.buf.resize(filled + READ_BYTES, 0);
        }
        loop {
            match self.input.read(&mut self.chunk.buf[filled..filled + READ_BYTES]) {
                Ok(n) => {
                    self.chunk.filled += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Stop::Input(format!("{}:{}: {e}", self.name, self.no))),
            }
        }
    }

    /// Answers the line being read, longer than [`MAX_LINE_BYTES`] and not yet
    /// ended, with its number, and reads and drops its rest (which may never end:
    /// `/dev/zero`). Whether the input ended within it.
    fn skip_long_line(&mut self) -> Result<bool, Stop> {
        self.send(Piece::TooLong(self.no))?;
        self.no += 1;
        loop {
            self.chunk.filled = self.tail;
            self.searched = self.tail;
            if self.read_more()? == 0 {
                return Ok(true);
            }
            let read = &self.chunk.buf[self.tail..self.chunk.filled];
            if let Some(at) = memchr::memchr(b'\n', read) {
                self.tail += at + 1;
                self.searched = self.tail;
                return Ok(false);
            }
        }
    }

    /// At the end of the input: the last line, if it has no line end, and every
    /// line not yet handed on.
    fn last_line(&mut self) -> Result<(), Stop> {
        let (tail, filled) = (self.tail, self.chunk.filled);
        if filled - tail > MAX_LINE_BYTES {
            self.pass_on()?;
            self.send(Piece::TooLong(self.no))?;
        } else if filled > tail {
            self.chunk.lines.push((self.no, tail..filled));
            self.tail = filled;
            self.searched = filled;
        }
        self.pass_on()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{run, Answers};
    use super::*;

    /// An input that gives at most `step` bytes a read.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.data.len().min(buf.len()).min(self.step);
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Each line answered with its number and its bytes.
    fn echo(lines: &[InputLine<'_>], answers: &mut Answers) {
        answers.fill(lines, |l, buf| {
            buf.extend_from_slice(format!("{} ", l.no).as_bytes());
            buf.extend_from_slice(l.bytes);
            Ok(())
        });
    }

    /// What `data` cut whole at its line ends makes, as the batch loop writes
    /// it with [`echo`]: a line is what comes before a `\n` (less one `\r`), or
    /// the bytes after the last; one longer than [`MAX_LINE_BYTES`], `\r`
    /// included, is answered with an error record.
    fn by_splitting(data: &[u8]) -> (Vec<u8>, Vec<usize>) {
        let mut parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        // After a last line end (or in an empty input) there is no line.
        if data.is_empty() || data.ends_with(b"\n") {
            parts.pop();
        }
        let (mut out, mut bad) = (Vec::new(), Vec::new());
        let last = parts.len();
        for (no, part) in (1..).zip(parts) {
            if part.len() > MAX_LINE_BYTES {
                let e = format!("<t>:{no}: line longer than {MAX_LINE_BYTES} bytes");
                out.extend_from_slice(crate::io::output::ErrorAnswer::line(e).as_bytes());
                bad.push(no);
            } else {
                let ended = no < last || data.ends_with(b"\n");
                let line = if ended { part.strip_suffix(b"\r").unwrap_or(part) } else { part };
                out.extend_from_slice(format!("{no} ").as_bytes());
                out.extend_from_slice(line);
            }
            out.push(b'\n');
        }
        (out, bad)
    }

    /// Lines across reads and chunks, line ends split between reads, lines of
    /// the longest length and one byte more (ended, and last without an end), and
    /// a long line ended only far later: cut as [`by_splitting`] cuts them, whatever
    /// the size of the reads.
    #[test]
    fn lines_are_cut_at_their_ends_whatever_the_reads() {
        let long = |n: usize, end: &[u8]| [vec![b'y'; n], end.to_vec()].concat();
        let mut short = Vec::new();
        for i in 0..CHUNK_LINES + 300 {
            short.extend_from_slice(format!("line {i}\r\n").as_bytes());
        }
        let inputs: Vec<Vec<u8>> = vec![
            short.clone(),
            [short.clone(), b"last\r".to_vec()].concat(),
            [b"a\n".to_vec(), long(MAX_LINE_BYTES, b"\n"), b"b\n".to_vec()].concat(),
            [b"a\n".to_vec(), long(MAX_LINE_BYTES - 1, b"\r\n"), b"b".to_vec()].concat(),
            [b"a\n".to_vec(), long(MAX_LINE_BYTES + 1, b"\n"), b"b\n".to_vec()].concat(),
            [b"a\n".to_vec(), long(3 * MAX_LINE_BYTES, b"\n"), b"b\nc".to_vec()].concat(),
            [b"a\n".to_vec(), long(MAX_LINE_BYTES, b"")].concat(),
            [b"a\n".to_vec(), long(MAX_LINE_BYTES + 1, b"")].concat(),
            [b"a\n".to_vec(), long(2 * MAX_LINE_BYTES + 7, b"")].concat(),
            b"\n\n\r\n".to_vec(),
            Vec::new(),
        ];
        for (k, data) in inputs.iter().enumerate() {
            let want = by_splitting(data);
            for step in [1 << 30, READ_BYTES - 1, 65_537, 4093] {
                let mut out = Vec::new();
                let bad = run("<t>", Trickle { data, step }, &mut out, echo).unwrap();
                assert!((out.clone(), bad.clone()) == want, "input {k}, reads of {step}: {} bytes, bad {bad:?}; want {} bytes, bad {:?}", out.len(), want.0.len(), want.1);
            }
        }
    }
}
