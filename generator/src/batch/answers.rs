//! A chunk's answers, written where they are made: the lines are split into
//! blocks, each answered on a worker into a buffer of its own, and the buffers are
//! written out in order. No answer is a string of its own, nothing is copied into
//! one buffer on the thread that writes, and the buffers are kept from chunk to
//! chunk, so that a run allocates nearly nothing once its first chunks are done.

use rayon::prelude::*;

use super::{Answer, InputLine};
use crate::output::ErrorAnswer;

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
    /// The numbers of the lines answered with an error record.
    bad: Vec<usize>,
}

impl Block {
    /// Appends line `no`'s answer: what `answer` appends, or the error record
    /// of the message it returns (what it appended then is dropped).
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
    /// Answers `lines` in parallel, a block at a time: `answer` gets a line, its
    /// item (one per line) and the block's buffer, and appends the line's answer
    /// (no newline) or returns the message of its error record.
    pub fn fill<T: Send>(
        &mut self,
        lines: &[InputLine<'_>],
        items: &mut [T],
        answer: impl Fn(&InputLine<'_>, &mut T, &mut Vec<u8>) -> Result<(), String> + Sync,
    ) {
        // One item per line is the contract; a missing one would shift every later
        // answer onto the wrong line.
        assert_eq!(items.len(), lines.len(), "one item per line");
        self.used = lines.len().div_ceil(BLOCK_LINES);
        if self.blocks.len() < self.used {
            self.blocks.resize_with(self.used, Block::default);
        }
        self.blocks[..self.used]
            .par_iter_mut()
            .zip(lines.par_chunks(BLOCK_LINES))
            .zip(items.par_chunks_mut(BLOCK_LINES))
            .for_each(|((block, lines), items)| {
                block.text.clear();
                block.lines.clear();
                block.bad.clear();
                for (line, item) in lines.iter().zip(items) {
                    block.push(line.no, |buf| answer(line, item, buf));
                }
            });
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

    /// Takes answers made one per line, as the definitions make them.
    pub fn fill_from(&mut self, lines: &[InputLine<'_>], mut answers: Vec<Answer>) {
        self.fill(lines, &mut answers, |_, a, buf| {
            let a = std::mem::replace(a, Ok(String::new()));
            a.map(|text| buf.extend_from_slice(text.as_bytes()))
        });
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

    #[test]
    fn answers_keep_input_order_across_blocks_and_chunks() {
        let mut answers = Answers::default();
        // A long chunk, then a short one that reuses the first blocks only.
        for n in [3 * BLOCK_LINES + 5, 2] {
            let bytes: Vec<Vec<u8>> = (1..=n).map(|i| format!("{i}").into_bytes()).collect();
            let lines: Vec<InputLine<'_>> = bytes
                .iter()
                .enumerate()
                .map(|(i, b)| InputLine { no: i + 1, bytes: b })
                .collect();
            let mut items = vec![(); n];
            // A bad line's partial answer is dropped for its error record.
            answers.fill(&lines, &mut items, |l, (), buf| {
                buf.extend_from_slice(format!("ok {}", l.no).as_bytes());
                match l.no % 7 {
                    0 => Err(format!("{} is bad", l.no)),
                    _ => Ok(()),
                }
            });
            let want: Vec<(String, bool)> = lines
                .iter()
                .map(|l| match l.no % 7 {
                    0 => rendered(&Err(format!("{} is bad", l.no))),
                    _ => rendered(&Ok(format!("ok {}", l.no))),
                })
                .collect();
            assert_eq!(answers.lines(), want);
            let text: Vec<u8> = answers.text().flatten().copied().collect();
            let joined: String = want.iter().map(|(t, _)| format!("{t}\n")).collect();
            assert_eq!(String::from_utf8(text).unwrap(), joined);
            assert_eq!(answers.bad_lines().collect::<Vec<_>>(), (1..=n / 7).map(|k| 7 * k).collect::<Vec<_>>());
        }
    }
}
