//! The `ptxvec` command line. Kept thin: parsing and dispatch live in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    restore_sigpipe();
    keep_freed_memory();
    ptxvec_generator::cmd::cli::main()
}

/// Rust starts programs with SIGPIPE ignored, so a reader that stops early
/// (`ptxvec generate | head`) made `println!` panic. Restoring the default action
/// ends the program quietly then, as other Unix filters do. `generate` prints its
/// summary only once its whole set is in place, so no set is left half-written.
#[cfg(unix)]
#[allow(unsafe_code)]
fn restore_sigpipe() {
    // SAFETY: called first in main, before any other thread exists; it changes only
    // the action of SIGPIPE, to the default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_sigpipe() {}

/// mimalloc rather than the system's malloc: the batch commands' workers free what
/// other workers allocated, which glibc's malloc serves slowly (about 15% of
/// `check-syntax -`'s time; vectors/README.md, "Batch commands").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc hands freed memory back to the system 10 ms after it is freed, and
/// takes it again, zeroed page by page, for the next chunk's answers: a fifth of
/// `check-syntax -`'s time on the explorer's stream went to the kernel's page
/// clearing. Never purging keeps the batch commands' memory at its peak, which
/// their chunks bound (batch/mod.rs), and frees it at exit.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    /// `mi_option_purge_delay` in mimalloc's `mi_option_e` (mimalloc.h, v2 and v3:
    /// the sixteenth option); -1 is "no purging at all".
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    // SAFETY: sets an option of the allocator, which takes options at any time; no
    // pointer is passed.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, -1);
    }
}
