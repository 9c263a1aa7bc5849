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
expansion!(reducemin_13_alternating);
expansion!(hardmax_1);
expansion!(hardmax_11_f16);
expansion!(hardmax_13_middle_axis);
expansion!(onnx_aot_hardmax);
expansion!(multi_node);
expansion!(chain_chunked);
expansion!(chain_planes);
expansion!(siblings_torch_max);
expansion!(siblings_rows);
expansion!(siblings_in_scratch);
expansion!(glue_reshape);
expansion!(glue_shape_math);
expansion!(glue_detector_head);
expansion!(hostile_text);
expansion!(constant_blob);
expansion!(exporter_pytorch);

/// ReduceMax over rows of two of `[521, 32, 2]`, then ArgMax of the maxima along axis 1, run in
/// chunks of axis 0 (the maxima never whole; four of 128 positions and a last one of 9), against
/// plain loops over the whole tensor: NaN in some rows, ties (the first maximum wins), ±0, fresh
/// values each call.
#[test]
fn a_chunked_chain_computes_what_the_whole_nodes_do() {
    use chain_chunked as m;
    for round in 0..3usize {
        let mut inputs = m::Inputs::zeroed();
        for (a, block) in inputs.x.iter_mut().enumerate() {
            for (b, pair) in block.iter_mut().enumerate() {
                for (c, v) in pair.iter_mut().enumerate() {
                    let k = a * 64 + b * 2 + c + round * 5;
                    *v = match k % 89 {
                        3 if a % 7 == 0 => f32::NAN,
                        _ if k % 13 == 0 => -0.0,
                        _ => ((k * 31) % 23) as f32 - 11.0 + round as f32,
                    };
                }
            }
        }
        let out = m::run(&inputs);
        for (a, block) in inputs.x.iter().enumerate() {
            // The maxima (NaN wins), then the first position of their maximum (or first NaN).
            let maxima: Vec<f32> = block
                .iter()
                .map(|p| {
                    if p[0].is_nan() || p[1].is_nan() {
                        f32::NAN
                    } else {
                        p[0].max(p[1])
                    }
                })
                .collect();
            let mut at = 0;
            for (b, &v) in maxima.iter().enumerate() {
                let best = maxima[at];
                if !best.is_nan() && (v.is_nan() || v > best) {
                    at = b;
                }
            }
            assert_eq!(
                out.y[a][0][0], at as i64,
                "round {round} block {a}: {maxima:?}"
            );
        }
    }
}

/// ReduceMin over axes 0, 2 and 4 of `[2, 3, 4, 5, 6]`, whose nest folds into its output block
/// by block, against plain loops: NaN in some outputs' elements, ±0, fresh values each call
/// (a second call must not fold into the first call's outputs).
#[test]
fn alternating_axes_fold_like_a_plain_loop() {
    use reducemin_13_alternating as m;
    for round in 0..3usize {
        let mut inputs = m::Inputs::zeroed();
        let mut flat = Vec::new();
        for a in 0..2 {
            for b in 0..3 {
                for c in 0..4 {
                    for d in 0..5 {
                        for e in 0..6 {
                            let k = a * 360 + b * 120 + c * 30 + d * 6 + e + round * 7;
                            let v = match (b, d, k % 97) {
                                (1, 2, 40..=43) => f32::NAN,
                                _ if k % 11 == 0 => -0.0,
                                _ => ((k * 37) % 101) as f32 - 50.0 + round as f32,
                            };
                            inputs.x[a][b][c][d][e] = v;
                            flat.push(v);
                        }
                    }
                }
            }
        }
        let out = m::run(&inputs);
        for b in 0..3 {
            for d in 0..5 {
                let mut want = f32::INFINITY;
                for a in 0..2 {
                    for c in 0..4 {
                        for e in 0..6 {
                            let v = flat[a * 360 + b * 120 + c * 30 + d * 6 + e];
                            if !want.is_nan() && (v.is_nan() || v < want) {
                                want = v;
                            }
                        }
                    }
                }
                let got = out.y[b][d];
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "round {round} [{b}][{d}]: {got} vs {want}"
                );
            }
        }
    }
}

/// The first index of the largest element (a NaN beats every number), and that element.
fn plain_max(column: &[f32]) -> (f32, i64) {
    let mut best = 0;
    for (k, &v) in column.iter().enumerate() {
        let b = column[best];
        if !b.is_nan() && (v.is_nan() || v > b) {
            best = k;
        }
    }
    (column[best], best as i64)
}

#[test]
fn fused_max_and_argmax_agree_with_a_plain_loop() {
    use siblings_torch_max as m;
    let mut inputs = m::Inputs::zeroed();
    for (a, plane) in inputs.x.iter_mut().enumerate() {
        for (b, row) in plane.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                // Few distinct values (ties), -0.0 beside 0.0.
                *v = match (a * 7 + b * 5 + c * 3) % 5 {
                    0 => -0.0,
                    k => k as f32 - 2.0,
                };
            }
        }
    }
    // A NaN in one column, two in another (the first wins).
    inputs.x[1][3][2] = f32::NAN;
    inputs.x[0][2][16] = f32::NAN;
    inputs.x[0][5][16] = f32::NAN;
    let out = m::run(&inputs);
    assert!(out.v[1][2].is_nan() && out.i[0][16] == 2);
    for a in 0..2 {
        for c in 0..17 {
            let column: Vec<f32> = (0..6).map(|b| inputs.x[a][b][c]).collect();
            let (value, index) = plain_max(&column);
            assert_eq!(out.i[a][c], index, "argmax at [{a}, :, {c}]");
            assert!(
                out.v[a][c] == value || (value.is_nan() && out.v[a][c].is_nan()),
                "max at [{a}, :, {c}]: {} vs {value}",
                out.v[a][c]
            );
        }
    }
}

#[test]
fn fused_rows_agree_with_a_plain_loop() {
    use siblings_rows as m;
    let mut inputs = m::Inputs::zeroed();
    for (a, row) in inputs.x.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            *v = match (a * 7 + c * 3) % 6 {
                0 => -0.0,
                k => k as f32 - 2.0,
            };
        }
    }
    inputs.x[4][7] = f32::NAN;
    inputs.x[6][3] = f32::NAN;
    inputs.x[6][15] = f32::NAN;
    let out = m::run(&inputs);
    assert!(out.v[4].is_nan() && out.i[4] == 7 && out.i[6] == 3);
    for (a, row) in inputs.x.iter().enumerate() {
        let (value, index) = plain_max(row);
        assert_eq!(out.i[a], index, "argmax of row {a}");
        assert!(
            out.v[a] == value || (value.is_nan() && out.v[a].is_nan()),
            "max of row {a}: {} vs {value}",
            out.v[a]
        );
    }
}

#[test]
fn glue_reshape_agrees_with_a_plain_loop() {
    use glue_reshape as m;
    let mut inputs = m::Inputs::zeroed();
    for (k, v) in inputs
        .x
        .as_flattened_mut()
        .as_flattened_mut()
        .iter_mut()
        .enumerate()
    {
        *v = ((k * 7) % 11) as f32;
    }
    let flat: Vec<f32> = inputs.x.as_flattened().as_flattened().to_vec();
    let out = m::run(&inputs);
    // x.argmax() over all 24 elements: the first 10.
    assert_eq!(out.top, plain_max(&flat).1);
    // The max of each row of 4, as [1, 2, 3], one-hot along the last axis.
    let maxes: Vec<f32> = flat.chunks(4).map(|r| plain_max(r).0).collect();
    for (b, row) in maxes.chunks(3).enumerate() {
        let at = plain_max(row).1 as usize;
        for (c, &m) in out.mask[0][b].iter().enumerate() {
            assert_eq!(m, if c == at { 1.0 } else { 0.0 });
        }
    }
}

#[test]
fn glue_shape_math_agrees_with_a_plain_loop() {
    use glue_shape_math as m;
    let mut inputs = m::Inputs::zeroed();
    for (k, v) in inputs
        .x
        .as_flattened_mut()
        .as_flattened_mut()
        .iter_mut()
        .enumerate()
    {
        *v = ((k * 5) % 13) as f32;
    }
    let flat: Vec<f32> = inputs.x.as_flattened().as_flattened().to_vec();
    let out = m::run(&inputs);
    let want: Vec<i32> = flat.chunks(12).map(|r| plain_max(r).1 as i32).collect();
    assert_eq!(out.label.to_vec(), want);
}

#[test]
fn glue_detector_head_agrees_with_a_plain_loop() {
    use glue_detector_head as m;
    let mut inputs = m::Inputs::zeroed();
    for (k, v) in inputs
        .p
        .as_flattened_mut()
        .as_flattened_mut()
        .iter_mut()
        .enumerate()
    {
        *v = ((k * 7) % 10) as f32;
    }
    inputs.p[0][6][2] = f32::NAN;
    for (k, v) in inputs
        .m
        .as_flattened_mut()
        .as_flattened_mut()
        .as_flattened_mut()
        .iter_mut()
        .enumerate()
    {
        *v = ((k * 3) % 17) as f32 - 8.0;
    }
    let out = m::run(&inputs);
    // For each anchor a, the max and argmax over the classes 4..9 of p[0, :, a].
    for a in 0..6 {
        let classes: Vec<f32> = (4..9).map(|c| inputs.p[0][c][a]).collect();
        let (value, index) = plain_max(&classes);
        assert_eq!(out.cls[0][a], index, "anchor {a}");
        assert!(out.conf[0][a] == value || (value.is_nan() && out.conf[0][a].is_nan()));
    }
    for c in 0..2 {
        let map: Vec<f32> = inputs.m[0][c].as_flattened().to_vec();
        assert_eq!(out.pooled[0][c][0][0], plain_max(&map).0);
    }
}

#[test]
fn hostile_model_text_is_inert_in_the_docs() {
    let code = include_str!("../expansions/hostile_text.rs");
    // The doc string sits in one fenced `text` block, longer than any fence in it.
    let fence = code
        .lines()
        .position(|l| l.trim() == "/// ````text")
        .expect("a text block");
    let close = code
        .lines()
        .skip(fence + 1)
        .position(|l| l.trim() == "/// ````")
        .unwrap();
    let inside: Vec<&str> = code.lines().skip(fence + 1).take(close).collect();
    assert!(inside.iter().any(|l| l.contains("std::process::abort();")));
    // Outside it no doc line opens a code block or holds raw HTML or the bidi character.
    for (k, line) in code.lines().enumerate() {
        if (fence..=fence + close + 1).contains(&k) {
            continue;
        }
        let doc = line.trim_start();
        if let Some(text) = doc.strip_prefix("///").or_else(|| doc.strip_prefix("//!")) {
            assert!(!text.trim_start().starts_with("```"), "line {k}: {line}");
            assert!(
                !text.starts_with("     "),
                "indented code at line {k}: {line}"
            );
        }
        assert!(!line.contains('\u{202e}'), "bidi character at line {k}");
    }
    assert!(
        code.contains("`x\\u{202e}y`"),
        "the bidi character is written as its escape"
    );
}

#[test]
fn constants_decoded_from_byte_strings_hold_their_values() {
    let out = constant_blob::run(&constant_blob::Inputs {});
    let w: Vec<f32> = (0..120).map(|k| ((k * 37) % 101) as f32 - 50.0).collect();
    for r in 0..3 {
        assert_eq!(out.i[r][0], plain_max(&w[r * 40..(r + 1) * 40]).1);
    }
    assert_eq!(out.m, 7.25);
    let code = include_str!("../expansions/constant_blob.rs");
    assert!(
        code.contains("::onnx_aot::__private::bytes::le_f32::<") && code.contains("b\"\\0\\0H")
    );
    assert!(
        code.contains("[1.5f32, -2.0f32, 7.25f32, 0.0f32]"),
        "small constants stay literals"
    );
}

/// ReduceMax over axis 0 of `[2, 512, 32]` (two planes), then ArgMax of the maxima along the last
/// axis, run in chunks of axis 1 with each plane's part read in place, against plain loops over
/// the whole tensor: NaN in either plane, ties (the first maximum wins), ±0, fresh values each
/// call.
#[test]
fn a_chain_over_planes_computes_what_the_whole_nodes_do() {
    use chain_planes as m;
    for round in 0..3usize {
        let mut inputs = m::Inputs::zeroed();
        for (p, plane) in inputs.x.iter_mut().enumerate() {
            for (r, row) in plane.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    let k = p * 7 + r * 32 + c + round * 5;
                    *v = match k % 97 {
                        3 if r % 5 == p => f32::NAN,
                        _ if k % 13 == 0 => -0.0,
                        _ => ((k * 31) % 23) as f32 - 11.0 + round as f32,
                    };
                }
            }
        }
        let out = m::run(&inputs);
        for r in 0..512 {
            // The maxima of the two planes (NaN wins), then the first position of their
            // maximum, or of their first NaN.
            let maxima: Vec<f32> = (0..32)
                .map(|c| {
                    let (a, b) = (inputs.x[0][r][c], inputs.x[1][r][c]);
                    if a.is_nan() || b.is_nan() {
                        f32::NAN
                    } else if b > a {
                        b
                    } else {
                        a
                    }
                })
                .collect();
            let want = match maxima.iter().position(|v| v.is_nan()) {
                Some(k) => k,
                None => {
                    let best = maxima.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    maxima.iter().position(|&v| v == best).unwrap()
                }
            };
            assert_eq!(
                out.y[0][r][0], want as i64,
                "round {round}, row {r}: {maxima:?}"
            );
        }
    }
}
