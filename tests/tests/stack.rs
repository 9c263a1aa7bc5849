//! `run_bytes` keeps tensors off the stack (with the runtime's `alloc` feature, which this test
//! crate enables): a model with a 4 MiB input runs on a thread with a 256 KiB stack.

onnx_aot::model!(mod big = "data/models/big_argmax.onnx");

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
