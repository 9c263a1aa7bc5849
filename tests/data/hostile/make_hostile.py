"""Writes the hostile models of tests/tests/hostile.rs: files that untrusted or broken sources
could hand to the loader. Every one must yield an `Err` with a clear message (or, for the few
valid-but-odd ones, generate), never a panic, a hang, a stack overflow or a huge allocation.

The expected messages live in the table of tests/tests/hostile.rs; this script only writes the
bytes. Big cases (thousands of nodes, deep value chains, rank and nesting bombs) are built at
test time in Rust instead of being checked in.

Regenerate with `pip install onnx` and, from this folder, `python3 make_hostile.py`. The output
is deterministic. `onnx.checker` is not run on purpose: these models are invalid.
"""
import os

import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
HERE = os.path.dirname(os.path.abspath(__file__))
written = []


# --- raw protobuf encoding, for what the onnx package refuses to write -----------------------

def varint(n):
    """Base-128 varint; negative numbers as 64-bit two's complement (10 bytes)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def ld(field, payload):
    """A length-delimited field (wire type 2)."""
    return key(field, 2) + varint(len(payload)) + payload


def vi(field, n):
    """A varint field (wire type 0)."""
    return key(field, 0) + varint(n)


def s(text):
    return text.encode("utf-8")


# --- models ----------------------------------------------------------------------------------

def write(name, data):
    if isinstance(data, onnx.ModelProto):
        data = data.SerializeToString()
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(data)
    written.append((name, len(data)))


def model(nodes, inputs, outputs, initializer=(), opset=13, opsets=None, ir_version=8):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializer))
    imports = opsets if opsets is not None else [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=imports, ir_version=ir_version)


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def raw_tensor(name, elem, dims, floats=(), raw=b""):
    """A TensorProto with whatever dims and data (make_tensor checks that they agree)."""
    t = TensorProto()
    t.name = name
    t.data_type = elem
    t.dims.extend(dims)
    t.float_data.extend(floats)
    t.raw_data = raw
    return t


def top1(x="x", y="y"):
    """The valid base: ArgMax over the last axis of a [2, 3] float input."""
    return model(
        [helper.make_node("ArgMax", [x], [y], name="top1", axis=1, keepdims=0)],
        [tensor(x, F, [2, 3])],
        [tensor(y, I64, [2])],
    )


GOOD = top1().SerializeToString()


def with_graph_extra(extra):
    """The base model with `extra` merged into its graph (a second field 7 merges into the
    first, as protobuf merges repeated occurrences of a singular message field)."""
    return GOOD + ld(7, extra)


def raw_input(name, dims_bytes, elem=F):
    """A graph input (GraphProto field 11) whose TensorShapeProto is given as raw bytes."""
    tensor_type = vi(1, elem) + ld(2, dims_bytes)
    return ld(11, ld(1, s(name)) + ld(2, ld(1, tensor_type)))


def dim_value(n):
    return ld(1, vi(1, n))


# Decoding: empty, not protobuf, truncated, wrong wire types, bad lengths.
write("empty", b"")
write("not_protobuf", bytes([0xFF] * 16))
write("truncated_half", GOOD[: len(GOOD) // 2])
write("truncated_last_byte", GOOD[:-1])
write("truncated_in_varint", GOOD + b"\x08\xff\xff")
write("truncated_in_key", GOOD + b"\x80")
write("varint_too_long", GOOD + b"\x08" + b"\xff" * 10 + b"\x01")
write("wrong_wire_type_graph", vi(1, 8) + vi(7, 1))  # graph (a message) as a varint
write("wrong_wire_type_ir_version", ld(1, b"\x08") + GOOD)  # an int64 as bytes
write("wrong_wire_type_dim_value", with_graph_extra(
    raw_input("z", ld(1, key(1, 1) + (3).to_bytes(8, "little")))  # dim_value as fixed64
))
write("wrong_wire_type_node_input", with_graph_extra(
    ld(1, key(1, 5) + b"\x00\x00\x00\x00" + ld(4, s("Identity")))  # input name as fixed32
))
write("wrong_wire_type_float_data", with_graph_extra(
    ld(5, ld(8, s("w")) + vi(2, F) + vi(1, 1) + key(4, 1) + bytes(8))  # float as fixed64
))
write("invalid_wire_type_6", GOOD + key(20, 6) + b"\x00")
write("end_group_unopened", GOOD + key(20, 4))
write("field_number_zero", GOOD + key(0, 0) + b"\x00")
write("invalid_utf8_name", with_graph_extra(ld(2, b"g\xff\xfe")))
# An initializer whose raw_data declares 2^40 bytes and carries 16.
# The declared lengths of the enclosing graph and initializer are right; the last field is not.
init = ld(8, s("w")) + vi(2, F) + vi(1, 4) + key(9, 2) + varint(1 << 40) + bytes(16)
write("huge_length_raw_data", with_graph_extra(ld(5, init)))
write("huge_length_graph", vi(1, 8) + key(7, 2) + varint(1 << 62) + GOOD)
write("length_u64_max", vi(1, 8) + key(7, 2) + varint((1 << 64) - 1) + bytes(8))
write("huge_packed_dims", with_graph_extra(
    ld(5, ld(8, s("w")) + vi(2, F) + key(1, 2) + varint(1 << 40) + b"\x01\x02")
))
write("no_graph", vi(1, 8) + ld(2, s("hostile")))
write("graph_empty", vi(1, 8) + ld(7, b"") + ld(8, vi(2, 13)))

# Recursion: a bomb of nested groups in an unknown field (prost must stop at its limit), and
# ONNX's own nesting (a graph attribute holding a graph holding a graph ...), 2000 deep, which
# onnx-aot's decoder skips as bytes and then reports as an unsupported attribute.
depth = 20000
write("recursion_groups", GOOD + key(15, 3) * depth + key(15, 4) * depth)
inner = b""
for level in range(2000):
    attribute = ld(1, s("then_branch")) + vi(20, 5) + ld(6, inner)
    node = ld(1, s("x")) + ld(2, s("y")) + ld(4, s("If")) + ld(5, attribute)
    inner = ld(1, node) + ld(2, s("g%d" % level))
write("recursion_nested_graphs", with_graph_extra(ld(1, ld(4, s("Identity")) + ld(1, s("x"))
    + ld(2, s("n")) + ld(5, ld(1, s("then_branch")) + vi(20, 5) + ld(6, inner)))))

# Shapes: negative, huge, overflowing, beyond what arrays can hold.
m = top1()
m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = -1
write("negative_dim_input", m)
m = top1()
m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = -2
write("negative_dim_output", m)
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [-5]))
write("negative_dim_initializer", m)
write("huge_dim_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [(1 << 63) - 1])], [tensor("y", F, [(1 << 63) - 1])]))
write("overflow_product_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [1 << 40, 1 << 40])], [tensor("y", F, [1 << 40, 1 << 40])]))
write("overflow_product_five_dims", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", TensorProto.UINT8, [1 << 16] * 5)], [tensor("y", TensorProto.UINT8, [1 << 16] * 5)]))
write("overflow_bytes_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [1 << 62])], [tensor("y", F, [1 << 62])]))
write("exceeds_isize_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [1 << 61])], [tensor("y", F, [1 << 61])]))
write("exceeds_isize_bool_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", TensorProto.BOOL, [1 << 62, 3])], [tensor("y", TensorProto.BOOL, [1 << 62, 3])]))
write("exceeds_rustc_bound_input", model(
    [helper.make_node("ReduceMax", ["x"], ["y"], keepdims=0)],
    [tensor("x", F, [1 << 59])], [tensor("y", F, [])]))
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [1 << 40, 1 << 40], [1.0]))
write("overflow_product_initializer", m)
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [1 << 40]))
write("huge_initializer_no_data", m)
m = top1()
m.graph.initializer.append(raw_tensor("w", TensorProto.BOOL, [1 << 62]))
write("huge_bool_initializer_no_data", m)
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [1 << 61]))
write("exceeds_isize_initializer", m)
write("huge_constant_no_data", model(
    [helper.make_node("Constant", [], ["c"], value=raw_tensor("v", F, [1 << 40])),
     helper.make_node("Identity", ["c"], ["y"])],
    [], [tensor("y", F, [1 << 40])]))
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [1000], raw=bytes(4)))
write("raw_data_short", m)
m = top1()
m.graph.initializer.append(raw_tensor("w", F, [2], [1.0, 2.0, 3.0]))
write("float_data_long", m)

# Names: control characters (in messages they must come out escaped), empty, duplicates.
EVIL = "evil\n\x1b[2J\x07\r\x00error: none"
write("control_chars_input", model(
    [helper.make_node("Identity", [EVIL], ["y"])],
    [tensor(EVIL, F, [-1, 3])], [tensor("y", F, [2, 3])]))
write("control_chars_op_type", model(
    [helper.make_node("Bad\n\x1b[31mOp", ["x"], ["y"], name=EVIL)],
    [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])]))
write("control_chars_domain", model(
    [helper.make_node("Op\n\x1b[31m", ["x"], ["y"], name=EVIL, domain="dom\n\x1b[0m")],
    [tensor("x", F, [2, 3])], [tensor("y", F, [2, 3])]))
write("control_chars_output", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [2, 3])], [tensor(EVIL, F, [2, 3])]))
write("control_chars_valid", model(
    [helper.make_node("ArgMax", [EVIL], [EVIL + "\t2"], name=EVIL, axis=1, keepdims=0,
                      doc_string=EVIL)],
    [tensor(EVIL, F, [2, 3])], [tensor(EVIL + "\t2", I64, [2])]))
write("empty_input_name", model(
    [helper.make_node("Identity", [""], ["y"])],
    [tensor("", F, [2])], [tensor("y", F, [2])]))
write("duplicate_input", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [2]), tensor("x", F, [3])], [tensor("y", F, [2])]))
m = top1()
m.graph.initializer.extend([helper.make_tensor("w", F, [1], [1.0]),
                            helper.make_tensor("w", F, [1], [2.0])])
write("duplicate_initializer", m)
m = top1()
m.graph.output.append(m.graph.output[0])
write("duplicate_output", m)
write("duplicate_node_output", model(
    [helper.make_node("Identity", ["x"], ["y"], name="a"),
     helper.make_node("Identity", ["x"], ["y"], name="b")],
    [tensor("x", F, [2])], [tensor("y", F, [2])]))
write("node_overwrites_input", model(
    [helper.make_node("Identity", ["x"], ["x"])],
    [tensor("x", F, [2])], [tensor("x", F, [2])]))
m = top1()
m.opset_import.append(helper.make_opsetid("ai.onnx", 11))
write("duplicate_opset", m)
m = top1()
m.graph.node[0].attribute.append(helper.make_attribute("axis", 0))
write("duplicate_attribute", m)
write("duplicate_sanitized_names_valid", model(
    [helper.make_node("Identity", ["a.b"], ["A_B"]), helper.make_node("Identity", ["a_b"], ["a-b"])],
    [tensor("a.b", F, [2]), tensor("a_b", F, [2])], [tensor("A_B", F, [2]), tensor("a-b", F, [2])]))

# Numbers at the edges.
write("opset_i64_max", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [2])], [tensor("y", F, [2])], opset=(1 << 63) - 1))
write("opset_negative", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", F, [2])], [tensor("y", F, [2])], opset=-(1 << 63)))
write("axis_i64_min", model(
    [helper.make_node("ArgMax", ["x"], ["y"], axis=-(1 << 63))],
    [tensor("x", F, [2, 3])], [tensor("y", I64, [1, 3])]))
write("axes_i64_extremes", model(
    [helper.make_node("ReduceMax", ["x"], ["y"], axes=[(1 << 63) - 1, -(1 << 63)])],
    [tensor("x", F, [2, 3])], [tensor("y", F, [1, 1])]))
write("elem_type_unknown", model(
    [helper.make_node("Identity", ["x"], ["y"])],
    [tensor("x", 1 << 30, [2])], [tensor("y", F, [2])]))

total = sum(n for _, n in written)
assert total < 512 * 1024, total
for name, n in written:
    print("%-36s %7d bytes" % (name, n))
print("total %d bytes in %d files" % (total, len(written)))
