//! Progress bars for the commands that run for minutes (`audit-syntax`,
//! `silicon-sweep`, `coverage --mutants`, `grade` on large inputs, the exhaustive
//! replays): drawn on stderr when stderr is a terminal, and nothing at all otherwise,
//! so that logs, pipes and CI output stay byte-for-byte what they were.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `len` units of work, or nothing when stderr is not a terminal.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar labelled `what` (a few words: "ptxas checks", "sweep blocks"), drawn
    /// only if stderr is a terminal.
    pub fn new(len: u64, what: &str) -> Progress {
        Progress::on(std::io::stderr().is_terminal(), len, what)
    }

    /// A bar drawn on stderr if `terminal`, else a silent counter. Split from
    /// [`Progress::new`] so that tests can ask for either.
    pub fn on(terminal: bool, len: u64, what: &str) -> Progress {
        if !terminal {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        // The template is fixed text: its parse cannot fail, and if a later indicatif
        // rejected it the bar would still count, only in the default style.
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>14} [{bar:40}] {pos}/{len} ({elapsed}, eta {eta})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_owned());
        Progress(Some(bar))
    }

    /// Whether a bar is drawn.
    pub fn is_drawn(&self) -> bool {
        self.0.is_some()
    }

    /// `n` more units done. Cheap enough for every unit: indicatif redraws at most
    /// 20 times a second.
    pub fn inc(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }

    /// Runs `f` with the bar hidden, so that a line `f` prints on stderr is not
    /// drawn over.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Clears the bar, leaving the terminal as it was before it.
    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // An error return between `new` and `finish` must not leave a half bar above
        // the error message.
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_drawn_off_a_terminal() {
        let p = Progress::on(false, 10, "units");
        assert!(!p.is_drawn());
        p.inc(3);
        p.finish();
        assert!(Progress::on(true, 10, "units").is_drawn());
    }
}
