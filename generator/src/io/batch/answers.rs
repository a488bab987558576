//! A chunk's answers, written where they are made: the lines are split into
//! blocks, each answered on a worker into a buffer of its own, and the buffers are
//! written out in order. No answer is a string of its own, nothing is copied into
//! one buffer on the thread that writes, and the buffers are kept from chunk to
//! chunk, so that a run allocates nearly nothing once its first chunks are done.
//! Each line is read, answered, and what it allocated freed, on one worker in one
//! pass, while it is in that worker's cache.

use rayon::prelude::*;

use super::{Answer, InputLine};
use crate::io::output::ErrorAnswer;

/// The lines of a block: enough work for a worker to take at once, few enough
/// that two workers share a short chunk.
const BLOCK_LINES: usize = 64;

/// A chunk's answers, in input order.
#[derive(Default)]
pub struct Answers {
    /// The first `used` hold this chunk's answers; the rest keep their buffers.
    blocks: Vec<Block>,
    used: usize,
}

/// The answers to a block of consecutive lines.
#[derive(Default)]
struct Block {
    /// The answer lines, each ending in a newline.
    text: Vec<u8>,
    /// Where each line's answer starts in `text`, and whether it is an error
    /// record.
    lines: Vec<(usize, bool)>,
    /// The numbers of the lines answered with an error record, in order.
    bad: Vec<usize>,
}

impl Block {
    fn clear(&mut self) {
        self.text.clear();
        self.lines.clear();
        self.bad.clear();
    }

    /// Appends line `no`'s answer: what `answer` appends, or the error record of
    /// the message it returns (what it appended then is dropped).
    fn push(&mut self, no: usize, answer: impl FnOnce(&mut Vec<u8>) -> Result<(), String>) {
        let start = self.text.len();
        let error = match answer(&mut self.text) {
            Ok(()) => false,
            Err(e) => {
                self.text.truncate(start);
                self.text.extend_from_slice(ErrorAnswer::line(e).as_bytes());
                self.bad.push(no);
                true
            }
        };
        self.text.push(b'\n');
        self.lines.push((start, error));
    }
}

impl Answers {
    /// Answers `lines` in parallel, a block at a time: `answer` gets a line and
    /// the block's buffer, and appends the line's answer (no newline) or returns
    /// the message of its error record.
    pub fn fill(
        &mut self,
        lines: &[InputLine<'_>],
        answer: impl Fn(&InputLine<'_>, &mut Vec<u8>) -> Result<(), String> + Sync,
    ) {
        self.start(lines.len());
        self.blocks[..self.used]
            .par_iter_mut()
            .zip(lines.par_chunks(BLOCK_LINES))
            .for_each(|(block, lines)| {
                block.clear();
                for line in lines {
                    block.push(line.no, |buf| answer(line, buf));
                }
            });
    }

    /// Takes answers made one per line, as the definitions make them.
    pub fn fill_from(&mut self, lines: &[InputLine<'_>], answers: Vec<Answer>) {
        // One answer per line is the contract; a missing one would shift every
        // later answer onto the wrong line.
        assert_eq!(answers.len(), lines.len(), "one answer per line");
        self.start(lines.len());
        let mut answers = answers.into_iter();
        let per_block: Vec<Vec<Answer>> = (0..self.used)
            .map(|_| answers.by_ref().take(BLOCK_LINES).collect())
            .collect();
        self.blocks[..self.used]
            .par_iter_mut()
            .zip(lines.par_chunks(BLOCK_LINES))
            .zip(per_block)
            .for_each(|((block, lines), answers)| {
                block.clear();
                for (line, a) in lines.iter().zip(answers) {
                    block.push(line.no, |buf| a.map(|text| buf.extend_from_slice(text.as_bytes())));
                }
            });
    }

    /// Makes room for the answers to `lines` lines.
    fn start(&mut self, lines: usize) {
        self.used = lines.div_ceil(BLOCK_LINES);
        if self.blocks.len() < self.used {
            self.blocks.resize_with(self.used, Block::default);
        }
    }

    /// Holds no answers (the buffers are kept).
    pub fn clear(&mut self) {
        self.used = 0;
    }

    /// How many lines are answered.
    pub fn len(&self) -> usize {
        self.blocks[..self.used].iter().map(|b| b.lines.len()).sum()
    }

    /// Whether no line is answered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The answer lines' bytes, block by block, in order.
    pub fn text(&self) -> impl Iterator<Item = &[u8]> {
        self.blocks[..self.used].iter().map(|b| b.text.as_slice())
    }

    /// The numbers of the lines answered with an error record, in order.
    pub fn bad_lines(&self) -> impl Iterator<Item = usize> + '_ {
        self.blocks[..self.used].iter().flat_map(|b| b.bad.iter().copied())
    }

    /// Each line's answer line (without its newline) and whether it is an error
    /// record, in order: what [`rendered`] makes of the definitions' answers.
    pub fn lines(&self) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for b in &self.blocks[..self.used] {
            let ends = b.lines.iter().skip(1).map(|&(start, _)| start).chain([b.text.len()]);
            for (&(start, error), end) in b.lines.iter().zip(ends) {
                let line = &b.text[start..end - 1];
                out.push((String::from_utf8_lossy(line).into_owned(), error));
            }
        }
        out
    }
}

/// A definition's answer as [`Answers`] writes it: the answer line (an error
/// record for an error) and whether it is an error record.
pub fn rendered(answer: &Answer) -> (String, bool) {
    match answer {
        Ok(text) => (text.clone(), false),
        Err(e) => (ErrorAnswer::line(e.clone()), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Line `no`'s answer: an error for every seventh, else `ok <no>`.
    fn want(no: usize) -> Answer {
        match no % 7 {
            0 => Err(format!("{no} is bad")),
            _ => Ok(format!("ok {no}")),
        }
    }

    #[test]
    fn answers_keep_input_order_across_blocks_and_chunks() {
        let mut answers = Answers::default();
        // A long chunk, then a short one that reuses the first blocks only, each
        // answered line by line and from answers made before.
        for (n, from) in [(3 * BLOCK_LINES + 5, false), (2, false), (3 * BLOCK_LINES + 5, true), (BLOCK_LINES, true)] {
            let bytes: Vec<Vec<u8>> = (1..=n).map(|i| format!("{i}").into_bytes()).collect();
            let lines: Vec<InputLine<'_>> = bytes
                .iter()
                .enumerate()
                .map(|(i, b)| InputLine { no: i + 1, bytes: b })
                .collect();
            if from {
                answers.fill_from(&lines, lines.iter().map(|l| want(l.no)).collect());
            } else {
                answers.fill(&lines, |l, buf| {
                    // A bad line's partial answer is dropped for its error record.
                    buf.extend_from_slice(b"partial ");
                    let text = want(l.no)?;
                    buf.truncate(buf.len() - b"partial ".len());
                    buf.extend_from_slice(text.as_bytes());
                    Ok(())
                });
            }
            let rendered_lines: Vec<(String, bool)> = (1..=n).map(|no| rendered(&want(no))).collect();
            assert_eq!(answers.len(), n);
            assert_eq!(answers.lines(), rendered_lines);
            let text: Vec<u8> = answers.text().flatten().copied().collect();
            let joined: String = rendered_lines.iter().map(|(t, _)| format!("{t}\n")).collect();
            assert_eq!(String::from_utf8(text).unwrap(), joined);
            assert_eq!(answers.bad_lines().collect::<Vec<_>>(), (1..=n / 7).map(|k| 7 * k).collect::<Vec<_>>());
        }
    }
}
