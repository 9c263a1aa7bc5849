"""Writes the glue benchmark models of issue 15 (see tests/benches/glue.rs): for each pattern
an exporter writes around a max-family node, the pattern ("glue") and the same max-family node
without it ("bare"), over the same data.

Run with `pip install onnx` and `python3 make_models.py` from this folder; the .onnx files are
checked in, so the benchmark needs nothing but cargo.
"""
import onnx
from onnx import TensorProto, helper

F32, F16, I64, I32 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64, TensorProto.INT32


def i64s(name, values, scalar=False):
    return helper.make_tensor(name, I64, [] if scalar else [len(values)], values)


def save(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers),
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, name + ".onnx")


node = helper.make_node

# x.argmax() with no dim: Reshape to [-1], then ArgMax over everything.
save("reshape_glue", [node("Reshape", ["x", "s"], ["f"]), node("ArgMax", ["f"], ["y"], keepdims=0)],
     [("x", F32, [1024, 1024])], [("y", I64, [])], [i64s("s", [-1])])
save("reshape_bare", [node("ArgMax", ["x"], ["y"], keepdims=0)],
     [("x", F32, [1048576])], [("y", I64, [])])

# .to(torch.int32) after an argmax over the classes.
save("cast_after_glue", [node("ArgMax", ["x"], ["i"], axis=1, keepdims=0),
                         node("Cast", ["i"], ["y"], to=I32)],
     [("x", F32, [4096, 256])], [("y", I32, [4096])])
save("cast_after_bare", [node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
     [("x", F32, [4096, 256])], [("y", I64, [4096])])

# x.half() before an argmax.
save("cast_before_glue", [node("Cast", ["x"], ["h"], to=F16),
                          node("ArgMax", ["h"], ["y"], axis=1, keepdims=0)],
     [("x", F32, [4096, 256])], [("y", I64, [4096])])
save("cast_before_bare", [node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
     [("x", F16, [4096, 256])], [("y", I64, [4096])])

# keepdims then Squeeze (keras writes GlobalMaxPool + Squeeze).
save("squeeze_glue", [node("ReduceMax", ["x"], ["m"], axes=[1], keepdims=1),
                      node("Squeeze", ["m", "a"], ["y"])],
     [("x", F32, [4096, 256])], [("y", F32, [4096])], [i64s("a", [1])])
save("squeeze_bare", [node("ReduceMax", ["x"], ["y"], axes=[1], keepdims=0)],
     [("x", F32, [4096, 256])], [("y", F32, [4096])])

# A detector head: permute(0, 2, 1), then max and argmax over the classes.
save("transpose_glue", [node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
                        node("ReduceMax", ["t"], ["v"], axes=[2], keepdims=0),
                        node("ArgMax", ["t"], ["y"], axis=2, keepdims=0)],
     [("x", F32, [1, 84, 8400])], [("v", F32, [1, 8400]), ("y", I64, [1, 8400])])
save("transpose_bare", [node("ReduceMax", ["x"], ["v"], axes=[1], keepdims=0),
                        node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
     [("x", F32, [1, 84, 8400])], [("v", F32, [1, 8400]), ("y", I64, [1, 8400])])

# The same head's class scores p[:, 4:, :].
save("slice_glue", [node("Slice", ["x", "st", "en", "ax"], ["s"]),
                    node("ArgMax", ["s"], ["y"], axis=1, keepdims=0)],
     [("x", F32, [1, 84, 8400])], [("y", I64, [1, 8400])],
     [i64s("st", [4]), i64s("en", [84]), i64s("ax", [1])])
save("slice_bare", [node("ArgMax", ["x"], ["y"], axis=1, keepdims=0)],
     [("x", F32, [1, 80, 8400])], [("y", I64, [1, 8400])])

# Adaptive max pooling to 1: a MaxPool whose window is the whole map.
save("maxpool_glue", [node("MaxPool", ["x"], ["y"], kernel_shape=[32, 32])],
     [("x", F32, [1, 512, 32, 32])], [("y", F32, [1, 512, 1, 1])])
save("maxpool_bare", [node("GlobalMaxPool", ["x"], ["y"])],
     [("x", F32, [1, 512, 32, 32])], [("y", F32, [1, 512, 1, 1])])
