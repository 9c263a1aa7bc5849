//! `run_ndarray` (runtime feature `ndarray`, enabled by this test crate): views of any
//! dimensionality and layout in, owned arrays out, shapes checked at run time.

use ndarray::{Array3, ArrayView, IxDyn};

onnx_aot::model! {
    mod head = "../examples/models/head.onnx" {
        dims: { batch = 2 },
        inputs: { axes = [1] },
    }
}

fn features() -> Array3<f32> {
    Array3::from_shape_fn((2, 4, 8), |(b, p, c)| {
        ((b * 7 + p * 3 + c * 5) % 11) as f32 - 5.0
    })
}

#[test]
fn agrees_with_run_and_returns_owned_arrays() {
    let x = features();
    let out = head::run_ndarray(x.view()).expect("shapes match");
    let mut inputs = head::Inputs::zeroed();
    for ((b, p, c), v) in x.indexed_iter() {
        inputs.features[b][p][c] = *v;
    }
    let plain = head::run(&inputs);
    assert_eq!(out.one_hot.shape(), &[2, 8]);
    assert_eq!(out.class.shape(), &[2]);
    assert_eq!(
        out.one_hot.as_slice().unwrap(),
        plain.one_hot.as_flattened()
    );
    assert_eq!(out.class.as_slice().unwrap(), &plain.class[..]);
}

#[test]
fn accepts_dynamic_rank_and_non_contiguous_views() {
    let x = features();
    // The same data stored transposed, viewed back in the model's axis order.
    let stored = Array3::from_shape_fn((8, 4, 2), |(c, p, b)| x[[b, p, c]]);
    let view = stored.view().permuted_axes([2, 1, 0]);
    assert!(!view.is_standard_layout());
    let dynamic: ArrayView<f32, IxDyn> = x.view().into_dyn();
    assert_eq!(
        head::run_ndarray(view).unwrap(),
        head::run_ndarray(dynamic).unwrap()
    );
}

#[test]
fn wrong_shapes_are_errors() {
    let x = Array3::<f32>::zeros((2, 8, 4));
    let e = head::run_ndarray(x.view()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "input 0 (\"features\") must have shape [2, 4, 8], got [2, 8, 4]"
    );
}
