#!/usr/bin/env python3
"""Writes the serialized graphs of dml_serialized_graph.json: DirectML's binary graph serialization
(a FlatBuffers buffer whose root is a DmlGraphDesc table; tools/dmlrun/serialized_graph.h gives the
layout), written here by a small FlatBuffers writer of our own.

    python3 models/serialized/write_graphs.py

The graph, "layer": Y = 2 * leaky_relu(X W + b, 0.125) - 1 with X [2, 4] a graph input, W [4, 3] a
named constant (layer_weights.bin beside the graph), b [3] a raw-data constant read broadcast over
the rows. Its nodes: GEMM (C = b), ACTIVATION_LEAKY_RELU, ELEMENT_WISE_IDENTITY with a ScaleBias.
"""
import pathlib
import struct

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


class Table:
    def __init__(self, *fields):
        self.fields = fields  # (slot, kind, value): kind u8, u32, u64, or ref (a String, Vector, Table, Struct)


class String:
    def __init__(self, text):
        self.text = text.encode()


class Vector:
    def __init__(self, kind, items):
        self.kind, self.items = kind, items  # kind u8, u32, f32, i32, or ref


class Struct:
    def __init__(self, data, align=4):
        self.data, self.align = data, align


SIZES = {"u8": 1, "u32": 4, "i32": 4, "f32": 4, "u64": 8}
FORMATS = {"u8": "<B", "u32": "<I", "i32": "<i", "f32": "<f", "u64": "<Q"}


class Writer:
    """Writes objects front to back: every reference points forward, as FlatBuffers' unsigned offsets must."""

    def __init__(self):
        self.buf = bytearray()

    def align(self, n):
        while len(self.buf) % n:
            self.buf.append(0)

    def patch(self, at, target):
        struct.pack_into("<I", self.buf, at, target - at)

    def write(self, obj):
        if isinstance(obj, String):
            self.align(4)
            at = len(self.buf)
            self.buf += struct.pack("<I", len(obj.text)) + obj.text + b"\0"
            return at
        if isinstance(obj, Struct):
            self.align(obj.align)
            at = len(self.buf)
            self.buf += obj.data
            return at
        if isinstance(obj, Vector):
            self.align(8 if obj.kind == "u64" else 4)
            at = len(self.buf)
            self.buf += struct.pack("<I", len(obj.items))
            if obj.kind == "ref":
                slots = []
                for _ in obj.items:
                    slots.append(len(self.buf))
                    self.buf += b"\0\0\0\0"
                for slot, item in zip(slots, obj.items):
                    self.patch(slot, self.write(item))
            else:
                for item in obj.items:
                    self.buf += struct.pack(FORMATS[obj.kind], item)
            return at
        # A table: its vtable, then the table (a signed offset back to the vtable, then the fields).
        slots = max((slot for slot, _, _ in obj.fields), default=-1) + 1
        layout, size = {}, 4
        for slot, kind, _ in obj.fields:
            width = 4 if kind == "ref" else SIZES[kind]
            size = (size + width - 1) // width * width
            layout[slot] = size
            size += width
        self.align(4)
        vtable = len(self.buf)
        self.buf += struct.pack("<HH", 4 + 2 * slots, size)
        for slot in range(slots):
            self.buf += struct.pack("<H", layout.get(slot, 0))
        self.align(8)
        at = len(self.buf)
        self.buf += bytes(size)
        struct.pack_into("<i", self.buf, at, at - vtable)
        children = []
        for slot, kind, value in obj.fields:
            if kind == "ref":
                children.append((at + layout[slot], value))
            else:
                struct.pack_into(FORMATS[kind], self.buf, at + layout[slot], value)
        for field, child in children:
            self.patch(field, self.write(child))
        return at

    def finish(self, root):
        self.buf += bytes(8)  # the root offset, then padding
        self.patch(0, self.write(root))
        return bytes(self.buf)


def tensor(sizes, strides=None, total=None):
    fields = [(0, "ref", String("DML_TENSOR_DATA_TYPE_FLOAT32")), (1, "ref", Vector("u32", sizes))]
    if strides is not None:
        fields.append((2, "ref", Vector("u32", strides)))
    fields.append((3, "u64", total if total is not None else 4 * int(np.prod(sizes))))
    return Table(*fields)


def attribute(name, variant=0, value=None):
    fields = [(0, "ref", String(name)), (1, "u8", variant)]
    if value is not None:
        fields.append((2, "ref", value))
    return Table(*fields)


def uint32(v):
    return Struct(struct.pack("<I", v))


def float32(v):
    return Struct(struct.pack("<f", v))


def operator(op_type, inputs, outputs, attributes):
    return Table((0, "ref", String(op_type)), (1, "ref", Vector("ref", inputs)), (2, "ref", Vector("ref", outputs)),
                 (3, "ref", Vector("ref", attributes)))


def node(kind, desc, name, input_names, output_names):
    return Table((0, "u8", kind), (1, "ref", desc), (2, "ref", String(name)),
                 (3, "ref", Vector("ref", [String(n) for n in input_names])),
                 (4, "ref", Vector("ref", [String(n) for n in output_names])))


def layer_graph(bias):
    gemm = operator("DML_OPERATOR_GEMM",
                    [tensor([1, 1, 2, 4]), tensor([1, 1, 4, 3]), tensor([1, 1, 2, 3], [0, 0, 0, 1], 12)],
                    [tensor([1, 1, 2, 3])],
                    [attribute("TransA", 3, uint32(0)), attribute("TransB", 3, uint32(0)),
                     attribute("Alpha", 6, float32(1.0)), attribute("Beta", 6, float32(1.0)),
                     attribute("FusedActivation")])
    leaky = operator("DML_OPERATOR_ACTIVATION_LEAKY_RELU", [tensor([1, 1, 2, 3])], [tensor([1, 1, 2, 3])],
                     [attribute("Alpha", 6, float32(0.125))])
    scale = operator("DML_OPERATOR_ELEMENT_WISE_IDENTITY", [tensor([1, 1, 2, 3])], [tensor([1, 1, 2, 3])],
                     [attribute("ScaleBias", 10, Struct(struct.pack("<ff", 2.0, -1.0)))])
    weights = Table((0, "u8", 1), (1, "ref", Table((0, "ref", String("layer_weights")))))
    raw = Table((0, "u8", 2), (1, "ref", Table((0, "ref", Vector("u8", list(bias.astype("<f4").tobytes()))))))
    nodes = [
        node(2, weights, "weights", [], ["weights_out"]),
        node(2, raw, "bias", [], ["bias_out"]),
        node(1, gemm, "fc", ["X", "weights_out", "bias_out"], ["fc_out"]),
        node(1, leaky, "act", ["fc_out"], ["act_out"]),
        node(1, scale, "scale", ["act_out"], ["Y"]),
    ]
    return Table((0, "ref", Vector("ref", nodes)), (1, "ref", Vector("ref", [String("X")])),
                 (2, "ref", Vector("ref", [String("Y")])))


# The values the model and models/expected/generate.py share.
WEIGHTS = (np.arange(12, dtype=np.float32).reshape(4, 3) - 5.0) * 0.25
BIAS = np.array([0.5, -1.0, 2.0], dtype=np.float32)

if __name__ == "__main__":
    (HERE / "layer.bin").write_bytes(Writer().finish(layer_graph(BIAS)))
    WEIGHTS.astype("<f4").tofile(HERE / "layer_weights.bin")
