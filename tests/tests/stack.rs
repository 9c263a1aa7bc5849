//! `run_bytes` keeps tensors off the stack (with the runtime's `alloc` feature, which this test
//! crate enables): a model with a 4 MiB input runs on a thread with a 256 KiB stack. `cargo test`
//! builds the runtime unoptimized (the workspace's test profile), as a user's debug build without
//! the profile line does, where the frames are largest (the f32 row kernels of each constant
//! length took 773 KiB in one frame there until each had its own); `cargo test --release` checks
//! the optimized build.

onnx_aot::model!(mod big = "data/models/big_argmax.onnx");
onnx_aot::model!(mod chain = "data/models/big_chain.onnx");

/// Scratch of the chain model in a static, as firmware would place it.
static SCRATCH: std::sync::Mutex<chain::Scratch> = std::sync::Mutex::new(chain::Scratch::zeroed());

/// A 16 MiB input, built on a thread with a stack large enough to hold it once.
fn chain_inputs() -> Box<chain::Inputs> {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut inputs = Box::new(chain::Inputs::zeroed());
            for (r, row) in inputs.x.iter_mut().enumerate() {
                row[(r * 13) % 2048] = 1.0 + r as f32;
            }
            inputs
        })
        .unwrap()
        .join()
        .unwrap()
}

fn check_chain(out: &chain::Outputs) {
    for r in 0..2048 {
        assert_eq!(out.rowmax[r], 1.0, "row {r}");
        assert_eq!(out.col[r], ((r * 13) % 2048) as i64, "row {r}");
    }
}

#[test]
fn run_into_and_run_with_scratch_keep_16_mib_off_a_small_stack() {
    // The Hardmax output (16 MiB) is the only intermediate, and only the ReduceMax reads it (the
    // ArgMax reads the input through the one-hot shortcut): the two run in chunks of axis 0, so
    // the scratch is one chunk of it (`codegen/src/chunks.rs`), not 16 MiB.
    assert_eq!(
        chain::SCRATCH_BYTES,
        16 << 10,
        "the Hardmax output runs in 16 KiB chunks"
    );
    let inputs = chain_inputs();
    let out = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut a = Box::new(chain::Outputs::zeroed());
            chain::run_into(&inputs, &mut a);
            let mut b = Box::new(chain::Outputs::zeroed());
            chain::run_with_scratch(&inputs, &mut SCRATCH.lock().unwrap(), &mut b);
            (a, b)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    check_chain(&out.0);
    check_chain(&out.1);
}

#[test]
fn run_bytes_with_a_4_mib_input_fits_a_small_stack() {
    let rows = 1024usize;
    let cols = 1024usize;
    // Column c has its maximum at row (c * 7) % rows.
    let mut x = vec![0f32; rows * cols];
    for c in 0..cols {
        x[((c * 7) % rows) * cols + c] = 1.0 + c as f32;
    }
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let out = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let mut y = vec![0u8; cols * 8];
            big::run_bytes(&[&bytes], &mut [&mut y]).map(|()| y)
        })
        .unwrap()
        .join()
        .expect("no stack overflow")
        .expect("sizes match");
    for c in 0..cols {
        let idx = i64::from_le_bytes(out[c * 8..c * 8 + 8].try_into().unwrap());
        assert_eq!(idx, ((c * 7) % rows) as i64, "column {c}");
    }
}

#[test]
fn run_bytes_rejects_wrong_counts_and_lengths() {
    let x = vec![0u8; 1024 * 1024 * 4];
    let mut y = vec![0u8; 1024 * 8];
    let e = big::run_bytes(&[], &mut [&mut y]).unwrap_err();
    assert_eq!(
        e,
        onnx_aot::Error::InputCount {
            expected: 1,
            found: 0
        }
    );
    let e = big::run_bytes(&[&x], &mut []).unwrap_err();
    assert_eq!(
        e,
        onnx_aot::Error::OutputCount {
            expected: 1,
            found: 0
        }
    );
    let e = big::run_bytes(&[&x[1..]], &mut [&mut y]).unwrap_err();
    assert_eq!(
        e,
        onnx_aot::Error::InputLength {
            index: 0,
            name: "x",
            expected: 4 * 1024 * 1024,
            found: 4 * 1024 * 1024 - 1
        }
    );
    let mut short = vec![0u8; 8];
    let e = big::run_bytes(&[&x], &mut [&mut short]).unwrap_err();
    assert_eq!(
        e,
        onnx_aot::Error::OutputLength {
            index: 0,
            name: "y",
            expected: 8192,
            found: 8
        }
    );
    assert_eq!(e.to_string(), "output 0 (\"y\") must be 8192 bytes, got 8");
}

/// The boxed constructors of the runtime's `alloc` feature build nothing on the stack: a
/// 16 MiB input made, filled and run on a thread with a 256 KiB stack, through the inherent
/// `new_boxed`/`run_boxed` and through the `Tensors` trait, in debug builds too.
#[test]
fn new_boxed_and_run_boxed_keep_16_mib_off_a_small_stack() {
    let (a, b) = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let mut inputs = chain::Inputs::new_boxed();
            assert!(inputs.x.iter().all(|row| row.iter().all(|&v| v == 0.0)));
            for (r, row) in inputs.x.iter_mut().enumerate() {
                row[(r * 13) % 2048] = 1.0 + r as f32;
            }
            let a = chain::run_boxed(&inputs);
            let mut b: Box<chain::Outputs> = onnx_aot::Tensors::new_boxed();
            let mut scratch = chain::Scratch::new_boxed();
            chain::run_with_scratch(&inputs, &mut scratch, &mut b);
            (a, b)
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    check_chain(&a);
    check_chain(&b);
}
