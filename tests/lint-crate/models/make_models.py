"""Writes the models of the lint check (tests/lint-crate): a model reading large constants at
run time (one of them equal to pi), one whose names collide with generated ones and whose doc
strings hold code, and one over bool and float16. Run with `pip install onnx` from this folder;
the .onnx files are checked in."""
import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

node = helper.make_node


def save(name, nodes, inputs, outputs, opset=13, doc="", initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    graph.doc_string = doc
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    model.doc_string = doc
    onnx.checker.check_model(model)
    onnx.save(model, name + ".onnx")


vi = helper.make_tensor_value_info
F32, I64, F16, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.FLOAT16, TensorProto.BOOL

table = np.full((3, 70), math.pi, dtype=np.float32)
table[1, 5] = 4.0
table[2, 69] = 7.0
save(
    "constants",
    [
        node("Constant", [], ["table"], value=numpy_helper.from_array(table, "table")),
        node("ArgMax", ["table"], ["best"], axis=1, keepdims=0),
        node("ReduceMax", ["x"], ["m"], axes=[1], keepdims=0),
        node("Identity", ["table"], ["copy"]),
    ],
    [vi("x", F32, [4, 70])],
    [vi("best", I64, [3]), vi("m", F32, [4]), vi("copy", F32, [3, 70])],
)

doc = "Usage:\n\n    let y = run(x);\n\n```rust\nfn main() { panic!() }\n```\n<b>bold</b> | `tick`"
save(
    "names",
    [
        node("ArgMax", ["compute"], ["type"], axis=1, keepdims=0, doc_string=doc),
        node("ArgMin", ["in_compute"], ["Self"], axis=1, keepdims=0),
        node("ReduceMax", ["x"], ["inputs"], axes=[1], keepdims=0),
        node("Hardmax", ["in_x"], ["outputs"], axis=1),
    ],
    [vi("compute", F32, [2, 3]), vi("in_compute", F32, [2, 3]), vi("x", F32, [2, 3]),
     vi("in_x", F32, [2, 3])],
    [vi("type", I64, [2]), vi("Self", I64, [2]), vi("inputs", F32, [2]), vi("outputs", F32, [2, 3])],
    doc=doc,
)

save(
    "types",
    [
        node("ReduceMax", ["flags"], ["any"], keepdims=0),
        node("Hardmax", ["h"], ["one_hot"], axis=-1),
        node("ReduceMin", ["h"], ["low"], noop_with_empty_axes=1),
    ],
    [vi("flags", BOOL, [3, 5]), vi("h", F16, [2, 8])],
    [vi("any", BOOL, []), vi("one_hot", F16, [2, 8]), vi("low", F16, [2, 8])],
    opset=20,
)

I32, U8 = TensorProto.INT32, TensorProto.UINT8
save(
    "glue",
    [
        node("Cast", ["x"], ["h"], to=F16),
        node("ArgMax", ["h"], ["top"], axis=1, keepdims=0),
        node("ArgMin", ["x"], ["low"], axis=0, keepdims=0),
        node("Cast", ["low"], ["low8"], to=U8),
        node("ArgMax", ["x"], ["top_i"], axis=1, keepdims=0),
        node("Cast", ["top_i"], ["top32"], to=I32),
        node("MaxPool", ["maps"], ["pooled", "where"], kernel_shape=[3, 4], storage_order=1),
        node("Transpose", ["maps"], ["t"], perm=[0, 2, 3, 1]),
        node("ReduceMax", ["t"], ["peak"], axes=[3], keepdims=0),
        node("Cast", ["peak"], ["peak64"], to=TensorProto.DOUBLE),
    ],
    [vi("x", F32, [6, 40]), vi("maps", F32, [2, 5, 3, 4])],
    [vi("top", I64, [6]), vi("low8", U8, [40]), vi("top32", I32, [6]), vi("pooled", F32, [2, 5, 1, 1]),
     vi("where", I64, [2, 5, 1, 1]), vi("peak64", TensorProto.DOUBLE, [2, 3, 4])],
    opset=13,
)
