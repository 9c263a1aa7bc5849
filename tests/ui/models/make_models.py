"""Writes the bad models of the compile-fail (trybuild) suite in tests/ui/.

Each model carries exactly the mistake its case is about; everything else is valid, so the
expected stderr shows that one error. The .onnx files are checked in; the tests need nothing but
cargo. Regenerate with `pip install onnx` and, from this folder, `python3 make_models.py`.

`onnx.checker` is not run on purpose: most of these models are invalid.
"""
import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(name, nodes, inputs, outputs, opset=13, initializer=(), value_info=(), extra_opsets=()):
    graph = helper.make_graph(
        nodes, name, inputs, outputs, initializer=list(initializer), value_info=list(value_info)
    )
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, ir_version=8)
    onnx.save(model, name + ".onnx")
    return model


# A valid model, the base of the call-site case and of the truncated file:
# ArgMax over the last axis of a [2, 3] float input.
good = save(
    "top1",
    [helper.make_node("ArgMax", ["logits"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("logits", F, [2, 3])],
    [tensor("label", I64, [2])],
)

# Not an ONNX file at all: text.
with open("not_onnx.onnx", "w") as f:
    f.write("This is a text file that someone named .onnx.\n")

# The valid model cut in the middle of its graph.
data = good.SerializeToString()
with open("truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])

# Two unsupported nodes (Relu, Softmax) around a supported one: both must be listed.
save(
    "unsupported_op",
    [
        helper.make_node("Relu", ["x"], ["r"], name="relu1"),
        helper.make_node("Softmax", ["r"], ["p"], name="probs", axis=1),
        helper.make_node("ArgMax", ["p"], ["label"], name="top1", axis=1, keepdims=0),
    ],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2])],
)

# An opset from the future.
save(
    "unsupported_opset",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2])],
    opset=30,
)

# A node of a domain the model imports but onnx-aot does not know (like com.microsoft contrib ops).
save(
    "unknown_domain",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", domain="com.example", axis=1)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2, 1])],
    extra_opsets=[("com.example", 1)],
)

# The multi-axis Hardmax of the onnx_aot domain, without importing that domain.
save(
    "domain_not_imported",
    [helper.make_node("Hardmax", ["x"], ["y"], name="onehot", domain="onnx_aot", axes=[0, 1])],
    [tensor("x", F, [2, 3])],
    [tensor("y", F, [2, 3])],
)

# `axis` written as a float (1.0) instead of an int.
save(
    "wrong_attribute_type",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1.0, keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2])],
)

# axis 2 on a rank-2 input.
save(
    "axis_out_of_range",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=2, keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2])],
)

# axes [1, -1] name the same axis of a rank-2 input.
save(
    "repeated_axes",
    [helper.make_node("ReduceMax", ["x"], ["m"], name="rowmax", axes=[1, -1], keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("m", F, [2])],
)

# ArgMax over an axis of length 0.
save(
    "argmax_empty_axis",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, [2, 0])],
    [tensor("label", I64, [2])],
)

# Hardmax on int32: Hardmax takes float, double, float16 (and bfloat16 from 13).
save(
    "type_constraint",
    [helper.make_node("Hardmax", ["x"], ["y"], name="onehot", axis=-1)],
    [tensor("x", TensorProto.INT32, [2, 3])],
    [tensor("y", TensorProto.INT32, [2, 3])],
)

# A symbolic batch dimension ("batch"), used with and without a binding.
save(
    "symbolic_batch",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, ["batch", 3])],
    [tensor("label", I64, ["batch"])],
)

# ReduceMax-18 whose axes come from a graph input "axes".
save(
    "axes_input",
    [helper.make_node("ReduceMax", ["x", "axes"], ["m"], name="rowmax", keepdims=0)],
    [tensor("x", F, [2, 3]), tensor("axes", I64, [1])],
    [tensor("m", F, [2])],
    opset=18,
)

# The graph declares its output as [3], inference gives [2].
save(
    "output_shape_mismatch",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [3])],
)

# The graph lists its output "label" twice.
save(
    "duplicate_outputs",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2]), tensor("label", I64, [2])],
)

# Two nodes write the same value "y".
save(
    "produced_twice",
    [
        helper.make_node("ReduceMax", ["x"], ["y"], name="rowmax", axes=[1], keepdims=0),
        helper.make_node("ReduceMin", ["x"], ["y"], name="rowmin", axes=[1], keepdims=0),
    ],
    [tensor("x", F, [2, 3])],
    [tensor("y", F, [2])],
)

# a -> b -> a: each Identity reads the other's output.
save(
    "cycle",
    [
        helper.make_node("Identity", ["b"], ["a"], name="first"),
        helper.make_node("Identity", ["a"], ["b"], name="second"),
        helper.make_node("ReduceMax", ["b"], ["y"], name="rowmax", axes=[1], keepdims=0),
    ],
    [tensor("x", F, [2, 3])],
    [tensor("y", F, [2])],
)

# Several independent mistakes in one model: all are reported, not only the first.
save(
    "several_errors",
    [
        helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=5, keepdims=0),
        helper.make_node("ReduceMax", ["x"], ["m"], name="rowmax", axes=[0, 0], keepdims=0),
        helper.make_node("Hardmax", ["x"], ["onehot"], name="onehot", axis=1.5),
    ],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2]), tensor("m", F, [3]), tensor("onehot", F, [2, 3])],
)

# ReduceMax-18 whose axes are an initializer that the graph also lists as an input (the IR < 4
# style): a constant that `free: [axes]` can turn into a run-time input.
save(
    "axes_initializer",
    [helper.make_node("ReduceMax", ["x", "axes"], ["m"], name="rowmax", keepdims=0)],
    [tensor("x", F, [2, 3]), tensor("axes", I64, [1])],
    [tensor("m", F, [2])],
    opset=18,
    initializer=[helper.make_tensor("axes", I64, [1], [1])],
)

# As domain_not_imported, with an ArgMax reading the Hardmax's output.
save(
    "domain_not_imported_chain",
    [
        helper.make_node("Hardmax", ["x"], ["y"], name="onehot", domain="onnx_aot", axes=[0, 1]),
        helper.make_node("ArgMax", ["y"], ["label"], name="top1", axis=1, keepdims=0),
    ],
    [tensor("x", F, [2, 3])],
    [tensor("label", I64, [2])],
)

# Symbolic batch and classes dimensions.
save(
    "two_dims",
    [helper.make_node("ArgMax", ["x"], ["label"], name="top1", axis=1, keepdims=0)],
    [tensor("x", F, ["batch", "classes"])],
    [tensor("label", I64, ["batch"])],
)
