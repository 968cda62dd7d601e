//! A counting global allocator: the simulator's own heap, measured in Rust.
//!
//! Wraps the system allocator and keeps the bytes currently allocated and their peak in two
//! relaxed atomics. The hot path allocates nothing, so the counting costs nothing there; it
//! is what `routerlab bench` reports as `sim_peak_bytes`.
//!
//! On Linux it also gives large blocks (the arenas of packets, ports and endpoints of a large
//! run) transparent huge pages: a thousand flows' state is touched in random order, and with
//! 4 KB pages a touch of another flow's state often misses the TLB too (5–10 % of
//! `dumbbell-10g-1000`'s loop time on the development machine; docs/performance.md). Only the
//! calls that allocate such blocks pay for it, and it changes no result.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static CURRENT: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

fn added(n: usize) {
    let now = CURRENT.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

fn removed(n: usize) {
    CURRENT.fetch_sub(n as u64, Ordering::Relaxed);
}

/// Blocks of at least this size are given whole huge pages: one huge page.
const HUGE_PAGE: usize = 2 << 20;

/// The layout a block is really allocated with: on Linux a large block starts on a huge-page
/// boundary and spans whole huge pages (else the kernel can back none of it with one: a
/// 2.3 MB block at a random address rarely holds an aligned 2 MB range).
#[inline]
fn backing(layout: Layout) -> Layout {
    if cfg!(target_os = "linux") && layout.size() >= HUGE_PAGE {
        let size = layout.size().next_multiple_of(HUGE_PAGE);
        Layout::from_size_align(size, layout.align().max(HUGE_PAGE)).unwrap_or(layout)
    } else {
        layout
    }
}

/// Ask for transparent huge pages on a block allocated with a huge `backing` layout. (Where
/// they are off, or on `always`, the call changes nothing; it never changes the contents.)
#[inline]
fn advise_huge(p: *mut u8, backing: Layout) {
    #[cfg(target_os = "linux")]
    if backing.align() >= HUGE_PAGE {
        // SAFETY: `[p, p + size)` is the block just allocated, whole huge pages from a
        // huge-page boundary; the advice only changes how its pages are backed.
        unsafe { libc::madvise(p.cast(), backing.size(), libc::MADV_HUGEPAGE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, backing);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let b = backing(layout);
        let p = unsafe { System.alloc(b) };
        if !p.is_null() {
            added(layout.size());
            advise_huge(p, b);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let b = backing(layout);
        let p = unsafe { System.alloc_zeroed(b) };
        if !p.is_null() {
            added(layout.size());
            advise_huge(p, b);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, backing(layout)) };
        removed(layout.size());
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded to the alignment, fits an isize.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if backing(layout) == layout && backing(new_layout) == new_layout {
            let p = unsafe { System.realloc(ptr, layout, new_size) };
            if !p.is_null() {
                removed(layout.size());
                added(new_size);
            }
            return p;
        }
        // To or from a huge block: a new block, the contents copied (a few times per run).
        let p = unsafe { self.alloc(new_layout) };
        if !p.is_null() {
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

pub fn peak_bytes() -> u64 {
    PEAK.load(Ordering::Relaxed)
}

pub fn reset_peak() {
    PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_blocks_are_aligned_and_keep_their_contents_across_reallocs() {
        let a = Counting;
        let small = Layout::from_size_align(1 << 20, 8).unwrap();
        unsafe {
            let p = a.alloc(small);
            for i in 0..small.size() {
                *p.add(i) = (i % 251) as u8;
            }
            // Growing past a huge page moves the block onto a huge-page boundary.
            let big = 5 << 20;
            let q = a.realloc(p, small, big);
            assert_eq!(q as usize % HUGE_PAGE, 0);
            assert!((0..small.size()).all(|i| *q.add(i) == (i % 251) as u8));
            for i in small.size()..big {
                *q.add(i) = (i % 13) as u8;
            }
            // Huge to huge, then back to small: the contents follow.
            let big_layout = Layout::from_size_align(big, 8).unwrap();
            let r = a.realloc(q, big_layout, 3 << 20);
            assert_eq!(r as usize % HUGE_PAGE, 0);
            assert!((small.size()..3 << 20).all(|i| *r.add(i) == (i % 13) as u8));
            let s = a.realloc(r, Layout::from_size_align(3 << 20, 8).unwrap(), 4096);
            assert!((0..4096).all(|i| *s.add(i) == (i % 251) as u8));
            a.dealloc(s, Layout::from_size_align(4096, 8).unwrap());
        }
    }
}
