//! Every snapshotted expansion (`tests/expansions/NAME.rs`, kept equal to the generator's output
//! by `tests/snapshots.rs`) compiled as a user's crate would compile it, with every warning an
//! error, and run once on zeroed inputs through both entry points.
#![deny(warnings)]

/// Includes `tests/expansions/NAME.rs` (which defines `pub mod NAME`) and adds a test that runs
/// it on zeroed inputs through `run` and `run_bytes`.
macro_rules! expansion {
    ($name:ident) => {
        include!(concat!("../expansions/", stringify!($name), ".rs"));

        #[test]
        fn $name() {
            use $name as m;
            let typed = m::run(&m::Inputs::zeroed());
            let inputs: Vec<Vec<u8>> = m::INPUT_BYTES.iter().map(|&n| vec![0; n]).collect();
            let mut outputs: Vec<Vec<u8>> = m::OUTPUT_BYTES.iter().map(|&n| vec![0; n]).collect();
            let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
            let mut output_refs: Vec<&mut [u8]> =
                outputs.iter_mut().map(Vec::as_mut_slice).collect();
            m::run_bytes(&input_refs, &mut output_refs).expect("run_bytes on zeroed inputs");
            assert_eq!(outputs.len(), m::OUTPUT_NAMES.len());
            // Both entry points agree on zeroed inputs.
            let mut again = m::Outputs::zeroed();
            m::run_into(&m::Inputs::zeroed(), &mut again);
            assert_eq!(typed, again);
        }
    };
}

expansion!(argmax_1);
expansion!(argmax_11);
expansion!(argmax_12);
expansion!(argmax_13_bf16);
expansion!(argmin_13_i16);
expansion!(reducemax_1);
expansion!(reducemax_13_i8);
expansion!(reducemax_13_i64);
expansion!(reducemax_18_axes_initializer);
expansion!(reducemax_18_bound_axes);
expansion!(reducemax_18_noop);
expansion!(reducemax_20_bool);
expansion!(reducemin_13_u8);
expansion!(reducemin_13_u64);
expansion!(hardmax_1);
expansion!(hardmax_11_f16);
expansion!(hardmax_13_middle_axis);
expansion!(onnx_aot_hardmax);
expansion!(multi_node);
expansion!(exporter_pytorch);
