//! The `ptxvec` command line. Kept thin: parsing and dispatch live in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    restore_sigpipe();
    ptxvec_generator::cli::main()
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
