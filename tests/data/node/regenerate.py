#!/usr/bin/env python3
"""Regenerate the official ONNX backend node tests of the ops onnx-aot supports.

The ONNX project ships its node tests as Python case generators inside the
`onnx` package (`onnx.backend.test.case.node`); recent releases no longer ship
the generated files. This script runs those generators and writes the cases
this project uses, in the layout of onnx's own `backend-test-tools generate-data`:

    <out>/test_<name>/model.onnx
    <out>/test_<name>/test_data_set_<i>/input_<k>.pb     (serialized TensorProto)
    <out>/test_<name>/test_data_set_<i>/output_<k>.pb

Setup (the committed data was made with onnx 1.23.2; other versions can add,
drop or change cases):

    python3 -m venv /tmp/onnxenv
    /tmp/onnxenv/bin/pip install onnx==1.23.2 numpy

Usage:

    python3 regenerate.py [--out DIR] [--ops OP[,OP...]] [--only-new] [--any-other-ops]

  --out DIR        where to write the case directories (default: the directory
                   holding this script, i.e. tests/data/node).
  --ops OPS        comma-separated op types; a case is selected when one of the
                   nodes of its model has one of these op types (the model is
                   checked, not the case's name). Default: SUPPORTED_OPS.
  --only-new       skip cases whose directory already exists under --out, so a
                   run that adds an op's cases leaves the committed ones alone.
  --any-other-ops  also select models that use op types beyond SUPPORTED_OPS
                   and --ops. By default such models are skipped: the
                   "_expanded" cases of other ops (Softmax, LogSoftmax,
                   Attention, DynamicQuantizeLinear, ...) contain ReduceMax or
                   ReduceMin next to ops the project cannot compile.

Existing case directories that are not skipped are replaced as a whole.

Determinism: onnx runs every generator (`export*` static method) at import
time, and its `_Exporter` metaclass calls `np.random.seed(0)` right before
each one, so "random" cases come out the same on every run with the same onnx
and numpy versions. The script cannot seed more finely than that (the
generators have already run when `collect_testcases()` returns); it seeds
once more before collecting, which changes nothing but makes the intent plain.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

# Op types onnx-aot compiles (codegen/src/ops/registry.rs). This list grows
# with the project's registry: add an op here when it is registered, then run
# `python3 regenerate.py --ops <Op> --only-new` to add its official cases.
SUPPORTED_OPS = [
    "ArgMax",
    "ArgMin",
    "Hardmax",
    "ReduceMax",
    "ReduceMin",
    "GlobalMaxPool",
]

# The glue ops of issue 15, whose cases go to tests/data/node_glue (see GLUE_COMMAND).
GLUE_OPS = [
    "Cast", "CastLike", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Slice",
    "Shape", "Gather", "Concat", "ConstantOfShape", "Add", "Sub", "Mul", "Div", "MaxPool",
    "Identity", "Constant",
]

# How tests/data/node_glue was made (from this directory):
GLUE_COMMAND = (
    "python3 regenerate.py --out ../node_glue --ops " + ",".join(GLUE_OPS)
    + " --exclude test_maxpool_3d_default,test_maxpool_3d_dilations_use_ref_impl_large"
)

ONNX_VERSION_USED = "1.23.2"


def collect_cases() -> list:
    """All node test cases of the installed onnx, as TestCase objects
    (`.name`, `.model`, `.data_sets`, `.kind`)."""
    from onnx.backend.test.case import node as node_cases

    np.random.seed(0)
    # onnx >= 1.1x: collect_testcases(op_type=None) -> list[TestCase].
    return list(node_cases.collect_testcases())


def model_op_types(model: onnx.ModelProto) -> set[str]:
    """Op types of every node of the model, subgraphs (If/Loop/Scan bodies)
    included."""
    found: set[str] = set()

    def walk(graph: onnx.GraphProto) -> None:
        for node in graph.node:
            found.add(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    for g in attr.graphs:
                        walk(g)

    walk(model.graph)
    return found


def serialize_value(value, value_info: onnx.ValueInfoProto) -> bytes:
    """One input or output as the bytes of its .pb file, named after the
    graph's input/output as in onnx's own generate-data."""
    name = value_info.name
    kind = value_info.type.WhichOneof("value")
    if kind == "map_type":
        return numpy_helper.from_dict(value, name).SerializeToString()
    if kind == "sequence_type":
        return numpy_helper.from_list(value, name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def write_case(case, out_dir: str) -> str:
    case_dir = os.path.join(out_dir, case.name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        set_dir = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(set_dir)
        for k, value in enumerate(inputs):
            with open(os.path.join(set_dir, f"input_{k}.pb"), "wb") as f:
                f.write(serialize_value(value, graph.input[k]))
        for k, value in enumerate(outputs):
            with open(os.path.join(set_dir, f"output_{k}.pb"), "wb") as f:
                f.write(serialize_value(value, graph.output[k]))
    return case_dir


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description="Write the official ONNX node tests of the given ops.",
    )
    parser.add_argument("--out", default=here, help="output directory (default: %(default)s)")
    parser.add_argument(
        "--ops",
        default=",".join(SUPPORTED_OPS),
        help="comma-separated op types (default: %(default)s)",
    )
    parser.add_argument(
        "--only-new", action="store_true", help="skip cases whose directory exists"
    )
    parser.add_argument(
        "--exclude",
        default="",
        help="comma-separated case names to leave out (large data sets)",
    )
    parser.add_argument(
        "--any-other-ops",
        action="store_true",
        help="also select models that use ops outside SUPPORTED_OPS and --ops",
    )
    args = parser.parse_args(argv)

    ops = {op.strip() for op in args.ops.split(",") if op.strip()}
    excluded = {c.strip() for c in args.exclude.split(",") if c.strip()}
    if not ops:
        parser.error("--ops is empty")
    allowed = set(SUPPORTED_OPS) | ops

    if onnx.__version__ != ONNX_VERSION_USED:
        print(
            f"warning: onnx {onnx.__version__} installed; the committed cases "
            f"were generated with onnx {ONNX_VERSION_USED}",
            file=sys.stderr,
        )

    os.makedirs(args.out, exist_ok=True)
    written = skipped = 0
    matched_ops: set[str] = set()
    for case in sorted(collect_cases(), key=lambda c: c.name):
        if case.kind != "node" or case.model is None or not case.data_sets:
            continue
        if case.name in excluded:
            continue
        used = model_op_types(case.model)
        if not used & ops:
            continue
        if not args.any_other_ops and not used <= allowed:
            continue
        matched_ops |= used & ops
        if args.only_new and os.path.exists(os.path.join(args.out, case.name)):
            skipped += 1
            continue
        write_case(case, args.out)
        written += 1
        print(f"wrote {case.name}")

    for op in sorted(ops - matched_ops):
        print(f"warning: no case of onnx {onnx.__version__} uses {op}", file=sys.stderr)
    print(f"{written} case(s) written, {skipped} existing skipped, into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
