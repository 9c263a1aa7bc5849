//! `run_bytes` with the runtime's `alloc` feature (which this test crate enables) copies its
//! tensors to heap buffers; when the heap refuses one, it returns `Error::Allocation` and
//! writes nothing, where it once aborted the process (issue 16 item 6).
//!
//! The test's allocator refuses, on the thread that asks it to, every allocation above a size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

onnx_aot::model!(mod chain = "data/models/big_chain.onnx");

/// Refuses allocations larger than the current thread's limit.
struct Limited;

thread_local! {
    static LIMIT: Cell<usize> = const { Cell::new(usize::MAX) };
}

unsafe impl GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.with(Cell::get) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Limited = Limited;

/// Runs `run_bytes` of the chain model (a 16 MiB f32 input, which `run_bytes` copies into a
/// buffer of its own; a 16 KiB chunk of intermediate; two outputs of 2048 elements) with
/// allocations above `limit` bytes refused.
fn run_limited(
    x: &[u8],
    rowmax: &mut [u8],
    col: &mut [u8],
    limit: usize,
) -> Result<(), onnx_aot::Error> {
    LIMIT.with(|l| l.set(limit));
    let result = chain::run_bytes(&[x], &mut [rowmax, col]);
    LIMIT.with(|l| l.set(usize::MAX));
    result
}

#[test]
fn run_bytes_returns_err_when_the_heap_refuses_a_buffer() {
    let (rows, cols) = (2048usize, 2048usize);
    let mut x = vec![0f32; rows * cols];
    for r in 0..rows {
        x[r * cols + (r * 13) % cols] = 1.0 + r as f32;
    }
    let x: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(chain::OUTPUT_NAMES, ["rowmax", "col"]);
    let mut rowmax = vec![0xabu8; rows * 4];
    let mut col = vec![0xabu8; rows * 8];
    // The 16 MiB buffers are refused: an error naming the size, and the outputs untouched.
    let e = run_limited(&x, &mut rowmax, &mut col, 8 << 20).unwrap_err();
    assert_eq!(e, onnx_aot::Error::Allocation { bytes: 16 << 20 });
    assert_eq!(
        e.to_string(),
        "could not allocate a temporary buffer of 16777216 bytes"
    );
    assert!(
        rowmax.iter().chain(&col).all(|&b| b == 0xab),
        "nothing written"
    );
    // With the heap back, the same call computes the model.
    run_limited(&x, &mut rowmax, &mut col, usize::MAX).expect("the buffers fit");
    for r in 0..rows {
        let m = f32::from_le_bytes(rowmax[r * 4..r * 4 + 4].try_into().unwrap());
        let c = i64::from_le_bytes(col[r * 8..r * 8 + 8].try_into().unwrap());
        assert_eq!((m, c), (1.0, ((r * 13) % cols) as i64), "row {r}");
    }
}
