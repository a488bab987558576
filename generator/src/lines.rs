//! Reading batch input line by line with bounded memory, for every batch command
//! (`check-syntax -`, `eval`): each line is read as bytes (invalid UTF-8 is the
//! caller's to answer), at most [`MAX_LINE_BYTES`] of it, and the rest of a longer
//! line is skipped without being kept (`/dev/zero` is one endless line).

use std::io::BufRead;

/// The longest line a batch command reads, in bytes. A longer line is answered with
/// an error record.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// What [`read_line`] found.
pub enum Line {
    /// The end of the input.
    End,
    /// A line, now in the buffer without its line end.
    Read,
    /// A line longer than [`MAX_LINE_BYTES`]; its rest is still unread.
    TooLong,
}

/// Reads one line as bytes (invalid UTF-8 is the caller's to answer), at most
/// [`MAX_LINE_BYTES`] of it.
pub fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    append_line(input, buf)
}

/// [`read_line`], appending the line to what `buf` holds already (the batch
/// driver keeps a chunk of lines in one buffer). On [`Line::TooLong`] the part
/// read is taken off again.
pub fn append_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    let start = buf.len();
    let n = std::io::Read::take(&mut *input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.len() > start && buf.last() == Some(&b'\r') {
            buf.pop();
        }
        return Ok(Line::Read);
    }
    if buf.len() - start > MAX_LINE_BYTES {
        buf.truncate(start);
        return Ok(Line::TooLong);
    }
    Ok(Line::Read)
}

/// Reads and drops the rest of a line, a buffer at a time.
pub fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}
