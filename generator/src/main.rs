//! The `ptxvec` command line. Kept thin: parsing and dispatch live in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    restore_sigpipe();
    keep_freed_memory();
    no_huge_pages();
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
/// `check-syntax -`'s time; docs/bench.md, "Batch commands").
#[global_allocator]
static ALLOCATOR: Allocator = Allocator;

/// mimalloc, asked by its plain entries where the alignment is a word's or less:
/// the `mimalloc` crate asks `mi_malloc_aligned` for every allocation, which
/// tests the alignment first and takes a slower path where it does not hold by
/// chance; the batch judge allocates a few times per line.
struct Allocator;

/// Every block mimalloc hands out is aligned to the word (its block sizes are
/// multiples of `MI_INTPTR_SIZE`, and a page's first block to 16 bytes:
/// `MI_PAGE_MIN_START_BLOCK_ALIGN` in its `types.h`).
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each entry returns memory of at least the layout's size and alignment,
// or null: the plain entries where the alignment is at most a word (see `WORD`),
// the aligned ones otherwise; memory is freed and resized by the same allocator.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation entries take any size.
        unsafe { by_alignment(layout, libmimalloc_sys::mi_malloc, libmimalloc_sys::mi_malloc_aligned) }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe { by_alignment(layout, libmimalloc_sys::mi_zalloc, libmimalloc_sys::mi_zalloc_aligned) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout` (GlobalAlloc's
        // contract); the block keeps the alignment it was asked with.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

/// mimalloc hands freed memory back to the system a while after it is freed, and
/// takes it again, zeroed page by page, for the next chunk's answers: a fifth of
/// `check-syntax -`'s time on the explorer's stream went to the kernel's page
/// clearing. Never purging keeps the batch commands' memory at its peak, which
/// their chunks bound (batch/mod.rs), and frees it at exit.
#[allow(unsafe_code)]
fn keep_freed_memory() {
    // SAFETY: sets an option of the allocator, which takes options at any time; no
    // pointer is passed.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY_OPTION, -1);
    }
}

/// `mi_option_purge_delay` in mimalloc's `mi_option_e` (mimalloc.h, v2 and v3:
/// the sixteenth option); -1 is "no purging at all".
const PURGE_DELAY_OPTION: libmimalloc_sys::mi_option_t = 15;

/// Transparent huge pages off for the process. mimalloc asks the kernel for them
/// on its arenas (madvise), and the kernel then clears 2 MiB at a fault, compacting
/// memory first where it has no free huge page: `check-syntax -` on the explorer's
/// 400,000 walks took 0.29 to 0.47 s, three runs of six spending 0.15 to 0.26 s in
/// the kernel; with small pages 0.30 to 0.31 s, every run (docs/bench.md,
/// "Batch commands"). The batch index's readings are small blocks, each touched a
/// few times. mimalloc's own option (`allow_thp`) comes too late from here: its
/// first arena is made by the runtime's allocations before `main`; the process's
/// flag holds for every fault after it.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn no_huge_pages() {
    // SAFETY: sets a flag of the process; no pointer is passed. A kernel without
    // it refuses (EINVAL), which changes nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn no_huge_pages() {}

/// A block of `layout` from mimalloc's `plain` entry where a word's alignment
/// suffices, else from its `aligned` one.
///
/// # Safety
/// Both entries must be mimalloc's allocation entries of one kind.
#[allow(unsafe_code)]
unsafe fn by_alignment(
    layout: std::alloc::Layout,
    plain: unsafe extern "C" fn(usize) -> *mut std::ffi::c_void,
    aligned: unsafe extern "C" fn(usize, usize) -> *mut std::ffi::c_void,
) -> *mut u8 {
    // SAFETY: the caller passes mimalloc's entries, which take any size and
    // power-of-two alignment.
    unsafe {
        if layout.align() <= WORD {
            plain(layout.size()).cast()
        } else {
            aligned(layout.size(), layout.align()).cast()
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    /// The option number set in `main` is the option named: its default and its
    /// neighbour's, as mimalloc v3's `options.c` gives them, read back (unless an
    /// environment variable of mimalloc's sets options).
    #[test]
    #[allow(unsafe_code)]
    fn the_allocator_option_set_is_the_one_named() {
        let get = |o: libmimalloc_sys::mi_option_t| {
            // SAFETY: reads an option of the allocator; no pointer is passed.
            unsafe { libmimalloc_sys::mi_option_get(o) }
        };
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            return;
        }
        // `purge_delay` (1000 ms), then `use_numa_nodes` (0).
        assert_eq!((get(super::PURGE_DELAY_OPTION), get(super::PURGE_DELAY_OPTION + 1)), (1000, 0));
    }

    /// Every entry returns memory of the layout's alignment, and a resized block
    /// keeps its bytes: for alignments of a byte to a page, on both sides of `WORD`.
    #[test]
    #[allow(unsafe_code)]
    fn the_allocator_keeps_every_alignment_and_the_bytes_it_moves() {
        let a = super::Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 24, 40, 100, 1000, 70_000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a layout of non-zero size; each block is written within
                // its size, resized with its layout and freed once.
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null() && (p as usize).is_multiple_of(align), "{size} at {align}");
                    std::ptr::write_bytes(p, 0xa5, size);
                    let q = a.realloc(p, layout, size * 3);
                    assert!(!q.is_null() && (q as usize).is_multiple_of(align), "resized {size} at {align}");
                    assert!(std::slice::from_raw_parts(q, size).iter().all(|&b| b == 0xa5));
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert!(!z.is_null() && (z as usize).is_multiple_of(align), "zeroed {size} at {align}");
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
