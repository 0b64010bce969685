#!/usr/bin/env python3
"""dmlrun's command line and error paths: every case runs dmlrun and checks its exit status and
that its output contains the expected text (messages name the JSON path, the line and what was
expected; DirectML's refusals carry FreeDML's own messages).

    cli_test.py DMLRUN MODELS_DIR [CASE_NAME_SUBSTRING]

Exit status 1 lists the failed cases.
"""
import copy
import json
import os
import pathlib
import subprocess
import sys
import tempfile

DMLRUN = os.path.abspath(sys.argv[1])
MODELS = pathlib.Path(sys.argv[2]).resolve()

GEMM = {
    "resources": {
        "A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4, 5, 6]},
        "B": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 0, 0, 1, 1, 1]},
        "Out": {"initialValuesDataType": "FLOAT32", "initialValues": {"valueCount": 4, "value": 0}},
    },
    "dispatchables": {
        "gemm": {
            "type": "DML_OPERATOR_GEMM",
            "desc": {
                "ATensor": {"DataType": "FLOAT32", "Sizes": [2, 3]},
                "BTensor": {"DataType": "FLOAT32", "Sizes": [3, 2]},
                "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2, 2]},
                "TransA": "NONE", "TransB": "NONE", "Alpha": 1, "Beta": 0,
            },
        }
    },
    "commands": [
        {"type": "dispatch", "dispatchable": "gemm",
         "bindings": {"ATensor": "A", "BTensor": "B", "OutputTensor": "Out"}},
        {"type": "print", "resource": "Out"},
    ],
}

JOIN = json.loads((MODELS / "join.json").read_text())
MATH = json.loads((MODELS / "element_wise_math.json").read_text())
GRAPH = json.loads((MODELS / "graph_mlp.json").read_text())


def MATH_FILL(delta):
    """element_wise_math.json with FILL_VALUE_SEQUENCE's ValueDelta replaced."""
    model = copy.deepcopy(MATH)
    model["dispatchables"]["fill"]["desc"]["ValueDelta"] = delta
    return model


def edit(model, change):
    """A copy of `model` with `change(copy)` applied."""
    result = copy.deepcopy(model)
    change(result)
    return result


def desc(model):
    return model["dispatchables"]["gemm"]["desc"]


# name: (model (dict, text, or None for no model), extra arguments, exit status,
#        [texts expected in stderr], [texts expected in stdout])
CASES = {
    # ---- the command line ----
    "no arguments": (None, [], 2, ["no model given"], []),
    "unknown option": (None, ["--frobnicate", "m.json"], 2, ["unknown option '--frobnicate'"], []),
    "iterations zero": (GEMM, ["--iterations", "0"], 2, ["--iterations takes a whole number"], []),
    "iterations not a number": (GEMM, ["-i", "many"], 2, ["--iterations takes a whole number from 1"], []),
    "adapter bad form": (GEMM, ["--adapter", "gpu"], 2, ["--adapter takes cpu, cuda or cuda:N"], []),
    "quiet and verbose": (GEMM, ["-q", "-v"], 2, ["contradict"], []),
    "two models": (None, ["a.json", "b.json"], 2, ["only one model"], []),
    "compare one adapter": (GEMM, ["--compare-adapters", "cpu"], 2, ["--compare-adapters takes two adapters"], []),
    "compare and check": (GEMM, ["--check", "--compare-adapters", "cpu,cpu"], 2, ["two different runs"], []),
    "tolerance negative": (GEMM, ["--compare-adapters", "cpu,cpu", "--tolerance", "-1"], 2,
                           ["--tolerance takes a number of 0 or more"], []),
    "check a model that is no capture": (GEMM, ["--check"], 1, ["is not a FreeDML capture"], []),
    "compare cpu with cpu": (GEMM, ["--compare-adapters", "cpu,cpu"], 0, [],
                             ["commands[0] 'gemm' (DML_OPERATOR_GEMM) OutputTensor: identical (4 elements)",
                              "cpu and cpu agree on all 1 dispatches."]),
    "help": (None, ["--help"], 0, [], ["Usage: dmlrun [OPTIONS] MODEL.json", "--iterations", "Exit status"]),
    "version": (None, ["--version"], 0, [], ["dmlrun (FreeDML)"]),
    "list operators": (None, ["--list-operators"], 0, [], ["* DML_OPERATOR_GEMM", "* DML_OPERATOR_JOIN",
                                                            "DML_OPERATOR_ACTIVATION_RELU"]),
    "list adapters": (None, ["--list-adapters"], 0, [], ["FreeDML CPU (software)"]),
    "missing file": (None, ["/nonexistent/model.json"], 1, ["cannot open '/nonexistent/model.json'"], []),
    "directory": (None, ["/"], 1, ["cannot read '/'"], []),
    "adapter that does not exist": (GEMM, ["--adapter", "cuda:7"], 3, ["D3D12CreateDevice failed", "cuda:7"], []),

    # ---- running ----
    "runs": (GEMM, [], 0, [], ["Running on 'FreeDML CPU'", "Dispatch 'gemm': 1 iterations,",
                               "Resource 'Out': 4, 5, 10, 11"]),
    "quiet": (GEMM, ["-q"], 0, [], ["Resource 'Out': 4, 5, 10, 11"]),
    "iterations": (GEMM, ["-i", "5"], 0, [], ["Dispatch 'gemm': 5 iterations, ", "ms median (CPU), ", "ms min, ",
                                              "ms max (the first iteration excluded)"]),
    "print all": (GEMM, ["-q", "--print-all"], 0, [], ["Resource 'A': 1, 2, 3, 4, 5, 6",
                                                       "Resource 'B': 1, 0, 0, 1, 1, 1", "Resource 'Out': 4, 5, 10, 11"]),
    "verbose": (GEMM, ["-v"], 0, ["dmlrun: uploading resource 'A' (24 bytes)",
                                  "dmlrun: creating and compiling dispatchable 'gemm' (DML_OPERATOR_GEMM)"], []),
    "adapter cpu": (GEMM, ["--adapter", "cpu"], 0, [], ["Running on 'FreeDML CPU'"]),
    "comments and trailing commas": (
        '{ // DxDispatch accepts comments and trailing commas\n'
        '"resources": { "A": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, /* three */ 3,], }, },\n'
        '"dispatchables": {}, "commands": [ { "type": "print", "resource": "A" }, ], }',
        ["-q"], 0, [], ["Resource 'A': 1, 2, 3"]),
    "printing every data type": (
        {"resources": {
            "h": {"initialValuesDataType": "FLOAT16", "initialValues": [65504, -2, 0.5, "nan", "inf", "-inf"]},
            "f": {"initialValuesDataType": "FLOAT32", "initialValues": [1e-7, 1234567, 0.1, -0.0]},
            "d": {"initialValuesDataType": "DML_TENSOR_DATA_TYPE_FLOAT64", "initialValues": [3.141592653589793]},
            "u8": {"initialValuesDataType": "UINT8", "initialValues": [0, 255]},
            "i8": {"initialValuesDataType": "INT8", "initialValues": [-128, 127]},
            "i64": {"initialValuesDataType": "INT64", "initialValues": [-9223372036854775808]},
            "u64": {"initialValuesDataType": "UINT64", "initialValues": [18446744073709551615]},
            "seq": {"initialValuesDataType": "UINT8", "initialValues": {"valueCount": 4, "valueStart": 254, "valueDelta": 1}},
            "v": {"initialValuesDataType": "INT16", "initialValues": [5, -1]}},
         "dispatchables": {},
         "commands": [{"type": "print", "resource": r} for r in ["h", "f", "d", "u8", "i8", "i64", "u64", "seq"]]
                     + [{"type": "print", "resource": "v", "verbose": True}]},
        ["-q"], 0, [],
        ["Resource 'h': 65504, -2, 0.5, nan, inf, -inf", "Resource 'f': 1e-07, 1.23457e+06, 0.1, -0",
         "Resource 'd': 3.14159", "Resource 'u8': 0, 255", "Resource 'i8': -128, 127",
         "Resource 'i64': -9223372036854775808", "Resource 'u64': 18446744073709551615",
         "Resource 'seq': 254, 255, 0, 1", "Resource 'v':\n[0] 5 (0x   5)\n[1] -1 (0xFFFF)\n"]),
    "write files": (
        edit(GEMM, lambda m: m["commands"].extend([
            {"type": "writeFile", "resource": "Out", "targetPath": "out/gemm.npy", "dimensions": [2, 2]},
            {"type": "writeFile", "resource": "Out", "targetPath": "out/gemm.bin"}])),
        [], 0, [], ["Resource 'Out' written to 'out/gemm.npy'", "Resource 'Out' written to 'out/gemm.bin'"]),

    # ---- invalid JSON and model structure ----
    "invalid JSON": ('{\n  "resources": {\n    "A": [1, 2,, 3]\n  }\n}\n', [], 1,
                     ["model.json:3:16: invalid JSON: syntax error while parsing value"], []),
    "empty file": ("", [], 1, ["invalid JSON"], []),
    "number overflow": ('{"resources": {"A": {"initialValuesDataType": "FLOAT64",\n "initialValues": [1, 1e309]}}}', [], 1,
                        ["model.json:2:23: invalid JSON: number overflow parsing '1e309'"], []),
    "not an object": ("[1, 2, 3]", [], 1, ["model.json:1:1: expected a model"], []),
    "deep nesting": ("[" * 100000 + "]" * 100000, [], 1, ["expected a model"], []),
    "missing commands": (edit(GEMM, lambda m: m.pop("commands")), [], 1, ["missing \"commands\""], []),
    "commands not an array": (edit(GEMM, lambda m: m.update(commands={})), [], 1,
                              ["commands: expected an array of commands, found an object"], []),
    "unknown command": (edit(GEMM, lambda m: m["commands"].append({"type": "draw"})), [], 1,
                        ["commands[2].type: expected a command type of dispatch, print or writeFile"], []),
    "print unknown resource": (edit(GEMM, lambda m: m["commands"].append({"type": "print", "resource": "Z"})), [], 1,
                               ["commands[2].resource: no resource is named 'Z' (the resources are 'A', 'B', 'Out')"], []),
    "write an image": (edit(GEMM, lambda m: m["commands"].append(
        {"type": "writeFile", "resource": "Out", "targetPath": "x.png"})), [], 1, ["images are not supported"], []),

    # ---- resources ----
    "wrong value type": (edit(GEMM, lambda m: m["resources"]["A"].update(initialValues=[1, "two", 3])), [], 1,
                         ["resources.A.initialValues[1]: expected a number (or \"nan\", \"inf\", \"-inf\") for FLOAT32, "
                          "found the string \"two\""], []),
    "unknown data type": (edit(GEMM, lambda m: m["resources"]["A"].update(initialValuesDataType="FLOAT8")), [], 1,
                          ["resources.A.initialValuesDataType: expected a DML_TENSOR_DATA_TYPE name (", "FLOAT32",
                           "found the string \"FLOAT8\""], []),
    "integer out of range": (edit(GEMM, lambda m: m["resources"].update(
        I={"initialValuesDataType": "UINT8", "initialValues": [1, 256]})), [], 1,
        ["resources.I.initialValues[1]: expected an integer from 0 to 255 for UINT8, found the number 256"], []),
    "fraction for an integer": (edit(GEMM, lambda m: m["resources"].update(
        I={"initialValuesDataType": "INT32", "initialValues": [1.5]})), [], 1,
        ["expected an integer from -2147483648 to 2147483647 for INT32, found the number 1.5"], []),
    "float16 out of range": (edit(GEMM, lambda m: m["resources"].update(
        H={"initialValuesDataType": "FLOAT16", "initialValues": [70000]})), [], 1,
        ["resources.H.initialValues[0]: expected a FLOAT16 value (magnitude at most 65504)"], []),
    "huge constant": (edit(GEMM, lambda m: m["resources"].update(
        H={"initialValuesDataType": "FLOAT64", "initialValues": {"valueCount": 4000000000, "value": 1}})), [], 1,
        ["resources.H.initialValues.valueCount: the initial values would take 32000000000 bytes",
         "more than dmlrun's limit of 4294967296 bytes (raise it with --max-memory MiB)"], []),
    "memory limit option": (GEMM, ["--max-memory", "1", "-q"], 0, [], ["Resource 'Out'"]),
    "huge sizeInBytes": (edit(GEMM, lambda m: m["resources"]["Out"].update(sizeInBytes=1 << 62)), [], 1,
                         ["resources.Out: the buffer would take", "more than dmlrun's limit"], []),
    "sizeInBytes too small": (edit(GEMM, lambda m: m["resources"]["A"].update(sizeInBytes=8)), [], 1,
                              ["resources.A.sizeInBytes: the buffer (8 bytes) is too small for its initial values "
                               "(24 bytes at offset 0)"], []),
    "empty initial values": (edit(GEMM, lambda m: m["resources"]["A"].update(initialValues=[])), [], 1,
                             ["resources.A.initialValues: the initial values are empty"], []),
    "two generators": (edit(GEMM, lambda m: m["resources"]["A"].update(
        initialValues={"value": 1, "valueStart": 0, "valueDelta": 1, "valueCount": 2})), [], 1,
        ["needs exactly one of \"value\""], []),
    "sequence without delta": (edit(GEMM, lambda m: m["resources"]["A"].update(
        initialValues={"valueStart": 0, "valueCount": 2})), [], 1,
        ["resources.A.initialValues: missing \"valueDelta\""], []),
    "missing data type": (edit(GEMM, lambda m: m["resources"]["A"].pop("initialValuesDataType")), [], 1,
                          ["resources.A: these initialValues need an initialValuesDataType"], []),
    "missing source file": (edit(GEMM, lambda m: m["resources"]["A"].update(
        initialValues={"sourcePath": "nothing_here.npy"})), [], 1,
        ["resources.A.initialValues.sourcePath: cannot open 'nothing_here.npy'"], []),
    "not a npy file": (edit(GEMM, lambda m: m["resources"]["A"].update(initialValues={"sourcePath": "model.json"},
                                                                        initialValuesDataType="UNKNOWN")), [], 1,
                       ["resources.A: a raw file needs an initialValuesDataType"], []),
    "deferred": (edit(GEMM, lambda m: m["resources"]["A"].update(initialValues="deferred")), [], 1,
                 ["commands[0].bindings.ATensor: resource 'A' is deferred: only an ONNX dispatchable's output gives a "
                  "deferred resource its type and shape, and DML_OPERATOR_GEMM is not one."], []),

    # ---- dispatchables ----
    "unknown operator": (edit(GEMM, lambda m: m["dispatchables"]["gemm"].update(type="DML_OPERATOR_FROBNICATE")), [], 1,
                         ["dispatchables.gemm.type: 'DML_OPERATOR_FROBNICATE' is not a DirectML operator type FreeDML "
                          "knows; FreeDML runs", "GEMM"], []),
    "graph edge to a missing node": (edit(GRAPH, lambda m: m["dispatchables"]["mlp"]["edges"].append(
        {"from": "x", "to": "layer3.ATensor"})), [], 1,
        ["dispatchables.mlp.edges[9].to: 'layer3.ATensor' is neither a graph output nor NODE.INPUT of an operator node"], []),
    "graph edge to a field the node lacks": (edit(GRAPH, lambda m: m["dispatchables"]["mlp"]["edges"].__setitem__(
        0, {"from": "x", "to": "layer1.XTensor"})), [], 1,
        ["node 'layer1' (DML_OPERATOR_GEMM) has no input 'XTensor'", "ATensor, BTensor"], []),
    "graph rule broken": (edit(GRAPH, lambda m: m["dispatchables"]["mlp"]["edges"].append(
        {"from": "x", "to": "layer1.ATensor"})), [], 1,
        ["IDMLDevice1::CompileGraph", "(G5)"], []),
    "unknown compile type": (edit(GEMM, lambda m: m["dispatchables"]["gemm"].update(dmlCompileType="DmlCompileJit")), [], 1,
                             ["dispatchables.gemm.dmlCompileType: expected DmlCompileOp or DmlCompileGraph, found "
                              "'DmlCompileJit'"], []),
    "hlsl": (edit(GEMM, lambda m: m["dispatchables"].update(
        add={"type": "hlsl", "sourcePath": "a.hlsl", "compiler": "dxc", "compilerArgs": []})), [], 1,
        ["dispatchables.add.type: \"hlsl\" dispatchables are not supported"], []),
    # The model file itself read as a serialized graph: its first bytes make no root offset.
    "damaged serialized graph": (edit(GEMM, lambda m: m["dispatchables"].update(
        g={"type": "dmlSerializedGraph", "sourcePath": "model.json"})), [], 1,
        ["dispatchables.g.sourcePath: 'model.json' is not a graph dmlrun can read:", "past the end of the file"], []),
    "serialized graph field": (edit(GEMM, lambda m: m["dispatchables"].update(
        g={"type": "dmlSerializedGraph", "sourcePath": "model.json", "compiler": "dxc"})), [], 1,
        ["dispatchables.g.compiler: a dmlSerializedGraph dispatchable has no field \"compiler\""], []),
    "unknown desc field": (edit(GEMM, lambda m: desc(m).update(Alpah=2)), [], 1,
                           ["dispatchables.gemm.desc.Alpah: DML_GEMM_OPERATOR_DESC has no field 'Alpah'; its fields are "
                            "ATensor, BTensor, CTensor, OutputTensor, TransA, TransB, Alpha, Beta, FusedActivation."], []),
    "missing desc field": (edit(GEMM, lambda m: desc(m).pop("TransB")), [], 1,
                           ["dispatchables.gemm.desc: the desc has no TransB (an enum value), which "
                            "DML_GEMM_OPERATOR_DESC requires."], []),
    "bad enum value": (edit(GEMM, lambda m: desc(m).update(TransA="SIDEWAYS")), [], 1,
                       ["dispatchables.gemm.desc.TransA: expected a DML_MATRIX_TRANSFORM value (NONE, TRANSPOSE, with or "
                        "without the prefix DML_MATRIX_TRANSFORM_), found the string \"SIDEWAYS\"."], []),
    "string for a float": (edit(GEMM, lambda m: desc(m).update(Alpha="one")), [], 1,
                           ["dispatchables.gemm.desc.Alpha: expected a number"], []),
    "negative size": (edit(GEMM, lambda m: desc(m)["ATensor"].update(Sizes=[2, -3])), [], 1,
                      ["dispatchables.gemm.desc.ATensor.Sizes[1]: expected an integer from 0 to 4294967295 for a UINT, "
                       "found the number -3."], []),
    "tensor without sizes": (edit(GEMM, lambda m: desc(m)["ATensor"].pop("Sizes")), [], 1,
                             ["dispatchables.gemm.desc.ATensor: the tensor desc has no Sizes"], []),
    "dimension count disagrees": (edit(GEMM, lambda m: desc(m)["ATensor"].update(DimensionCount=3)), [], 1,
                                  ["dispatchables.gemm.desc.ATensor.DimensionCount: DimensionCount is 3 but Sizes has 2"], []),
    "strides length": (edit(GEMM, lambda m: desc(m)["ATensor"].update(Strides=[1])), [], 1,
                       ["dispatchables.gemm.desc.ATensor.Strides: Strides has 1 values; Sizes has 2."], []),
    "bad tensor flag": (edit(GEMM, lambda m: desc(m)["ATensor"].update(Flags="SHINY")), [], 1,
                        ["expected a DML_TENSOR_FLAG value (NONE, OWNED_BY_DML"], []),
    "bad execution flag": (edit(GEMM, lambda m: m["dispatchables"]["gemm"].update(executionFlags=["FAST"])), [], 1,
                           ["dispatchables.gemm.executionFlags[0]: expected a DML_EXECUTION_FLAGS value"], []),
    "execution flags": (edit(GEMM, lambda m: m["dispatchables"]["gemm"].update(
        executionFlags=["DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", "ALLOW_HALF_PRECISION_COMPUTATION"])),
        ["-q"], 0, [], ["Resource 'Out': 4, 5, 10, 11"]),
    "inline desc": ({**GEMM, "dispatchables": {"gemm": {"type": "GEMM", **desc(GEMM)}}}, ["-q"], 0, [],
                    ["Resource 'Out': 4, 5, 10, 11"]),
    "fused activation with a tensor": (edit(GEMM, lambda m: desc(m).update(
        FusedActivation={"Type": "ACTIVATION_RELU", "InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}})), [], 1,
        ["dispatchables.gemm.desc.FusedActivation.InputTensor: a fused activation has no tensors of its own"], []),
    "fused activation that is no activation": (edit(GEMM, lambda m: desc(m).update(
        FusedActivation={"Type": "GEMM"})), [], 1, ["DML_OPERATOR_GEMM cannot be a fused activation"], []),
    "join count disagrees": (edit(JOIN, lambda m: m["dispatchables"]["join"]["desc"].update(InputCount=2)), [], 1,
                             ["dispatchables.join.desc.InputTensors: InputTensors has 3 values, but InputCount is 2; "
                              "InputCount counts both."], []),
    "owned input without initialization binding": (edit(GEMM, lambda m: desc(m)["BTensor"].update(Flags="OWNED_BY_DML")),
                                                   [], 1, ["dispatchables.gemm: BTensor is flagged OWNED_BY_DML"], []),
    "initialization binding of a plain input": (edit(GEMM, lambda m: m["dispatchables"]["gemm"].update(
        bindings={"ATensor": "A"})), [], 1, ["dispatchables.gemm.bindings.ATensor: only inputs flagged OWNED_BY_DML"], []),

    "scalar union of the wrong member": (MATH_FILL({"Float32": 1}), [], 1,
                                          ["dispatchables.fill.desc.ValueDelta.Float32: ValueDataType is INT32, so the value "
                                           "is not a Float32."], []),
    "scalar union out of range": (MATH_FILL(3000000000), [], 1,
                                  ["dispatchables.fill.desc.ValueDelta: expected an integer from -2147483648 to 2147483647 "
                                   "for INT32"], []),

    # ---- bindings ----
    "unknown bind point": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(CTensr="A")), [], 1,
                           ["commands[0].bindings.CTensr: DML_OPERATOR_GEMM has no tensor named 'CTensr'; its tensors "
                            "are ATensor, BTensor, CTensor, OutputTensor."], []),
    "binding an absent tensor": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(CTensor="A")), [], 1,
                                 ["commands[0].bindings.CTensor: CTensor is not in the operator's desc"], []),
    "nothing bound": (edit(GEMM, lambda m: m["commands"][0]["bindings"].pop("OutputTensor")), [], 1,
                      ["commands[0].bindings: nothing is bound to OutputTensor"], []),
    "unknown resource bound": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(ATensor="Q")), [], 1,
                               ["commands[0].bindings.ATensor: no resource is named 'Q'"], []),
    "unknown dispatchable": (edit(GEMM, lambda m: m["commands"][0].update(dispatchable="gemn")), [], 1,
                             ["commands[0].dispatchable: no dispatchable is named 'gemn' (they are 'gemm')"], []),
    "too many resources": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(ATensor=["A", "B"])), [], 1,
                           ["commands[0].bindings.ATensor: ATensor takes 1 resource, but 2 are bound."], []),
    "join with too few resources": (edit(JOIN, lambda m: m["commands"][0]["bindings"]["InputTensors"].pop()), [], 1,
                                    ["commands[0].bindings.InputTensors: InputTensors takes 3 resources, but 2 are bound."], []),
    "offset past the end": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(
        ATensor={"name": "A", "elementOffset": 7})), [], 1,
        ["commands[0].bindings.ATensor: elementOffset 7 (of 4-byte elements) is past the end of 'A' (24 bytes)."], []),
    "unknown binding field": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(
        ATensor={"name": "A", "offset": 4})), [], 1, ["commands[0].bindings.ATensor.offset: a binding has no field 'offset'"], []),

    # ---- what FreeDML itself refuses (its messages are shown) ----
    "operator FreeDML refuses": (edit(GEMM, lambda m: desc(m)["BTensor"].update(Sizes=[2, 2])), [], 1,
                                 ["dispatchables.gemm: IDMLDevice::CreateOperator for dispatchable 'gemm' failed "
                                  "(E_INVALIDARG", "FreeDML says:", "disagree on K"], []),
    "buffer too small for its tensor": (edit(GEMM, lambda m: m["commands"][0]["bindings"].update(
        ATensor={"name": "A", "elementCount": 2})), [], 1, ["commands[0]: ", "FreeDML says:"], []),
}

# Line and column: the error points at the value in the file.
LINED = (
    '{\n'
    '  "resources": { "A": { "initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4, 5, 6] } },\n'
    '  "dispatchables": {\n'
    '    "gemm": {\n'
    '      "type": "DML_OPERATOR_GEMM",\n'
    '      "desc": {\n'
    '        "ATensor": { "DataType": "FLOAT32", "Sizes": [1, 2, -3] },\n'
    '        "BTensor": { "DataType": "FLOAT32", "Sizes": [3, 2] }\n'
    '      }\n'
    '    }\n'
    '  },\n'
    '  "commands": []\n'
    '}\n')
CASES["line and column"] = (LINED, [], 1, ["model.json:7:61: dispatchables.gemm.desc.ATensor.Sizes[2]: expected an "
                                           "integer from 0 to 4294967295"], [])
CASES["line of a missing field"] = (LINED.replace("-3", "3"), [], 1,
                                    ["model.json:6:15: dispatchables.gemm.desc: the desc has no OutputTensor"], [])


def run_case(name, case, directory):
    model, arguments, status, stderr_texts, stdout_texts = case
    command = [DMLRUN] + arguments
    if model is not None:
        path = directory / "model.json"
        path.write_text(model if isinstance(model, str) else json.dumps(model, indent=2))
        command.append("model.json")
    run = subprocess.run(command, capture_output=True, text=True, cwd=directory, timeout=300)
    problems = []
    if run.returncode != status:
        problems.append(f"exit status {run.returncode}, expected {status}")
    if run.returncode < 0 or "internal error" in run.stderr or "AddressSanitizer" in run.stderr:
        problems.append("crashed")
    for text in stderr_texts:
        if text not in run.stderr:
            problems.append(f"stderr lacks {text!r}")
    for text in stdout_texts:
        if text not in run.stdout:
            problems.append(f"stdout lacks {text!r}")
    if problems:
        return f"FAIL {name}: " + "; ".join(problems) + f"\n  stdout: {run.stdout!r}\n  stderr: {run.stderr!r}"
    return None


def main():
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    failures = []
    count = 0
    for name, case in CASES.items():
        if only not in name:
            continue
        count += 1
        with tempfile.TemporaryDirectory() as directory:
            failure = run_case(name, case, pathlib.Path(directory))
        if failure:
            failures.append(failure)
    for failure in failures:
        print(failure)
    print(f"{count - len(failures)} of {count} cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
