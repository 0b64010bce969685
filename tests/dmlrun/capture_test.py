#!/usr/bin/env python3
"""Capture and replay (FREEDML_CAPTURE, dmlrun --check, dmlrun --compare-adapters).

Every example model (run by dmlrun, itself a DirectML program) and every sample program given is
captured, and the capture replayed: each output must equal the captured one bit for bit. Then the
edges: a capture limited to N executions, data left out past the size limit, a directory that
cannot be written, damaged captures (refused with the file and the reason), an edited input (found
by --check), and a perturbed kernel that --compare-adapters must name.

Usage: capture_test.py DMLRUN MODELS_DIR [SAMPLE...]
(FREEDML_CAPTURE_TEST_ADAPTER=cuda: capture and replay on the GPU instead of the CPU.)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def run(command, env=None, cwd=None):
    full_env = dict(os.environ)
    for key in ("FREEDML_CAPTURE", "FREEDML_CAPTURE_LIMIT", "FREEDML_CAPTURE_FIRST", "FREEDML_TEST_PERTURB", "FREEDML_TRACE"):
        full_env.pop(key, None)
    # FREEDML_CAPTURE_TEST_ADAPTER=cuda runs the captures and replays on a GPU.
    full_env["FREEDML_ADAPTER"] = os.environ.get("FREEDML_CAPTURE_TEST_ADAPTER", "cpu")
    full_env.update(env or {})
    return subprocess.run(command, env=full_env, cwd=cwd, capture_output=True, text=True, timeout=300)


def dispatch_count(model_path):
    with open(model_path) as f:
        return len(re.findall(r'"type"\s*:\s*"dispatch"', f.read()))


def check(dmlrun, capture_dir, expected_outputs=None, what=""):
    result = run([dmlrun, "--check", os.path.join(capture_dir, "model.json")])
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    match = re.match(r"(\d+) of (\d+) captured outputs match bit for bit", last)
    if result.returncode != 0 or not match or match.group(1) != match.group(2) or match.group(1) == "0":
        fail(f"{what}: --check did not match every output (rc {result.returncode}): {result.stdout}{result.stderr}")
        return None
    if expected_outputs is not None and int(match.group(1)) != expected_outputs:
        fail(f"{what}: --check compared {match.group(1)} outputs, expected {expected_outputs}")
    return result


def main():
    dmlrun, models_dir, samples = sys.argv[1], sys.argv[2], sys.argv[3:]
    work = tempfile.mkdtemp(prefix="freedml-capture-test-")
    try:
        # Every example model, captured through dmlrun and replayed bit for bit.
        for name in sorted(os.listdir(models_dir)):
            if not name.endswith(".json"):
                continue
            model = os.path.join(models_dir, name)
            capture_dir = os.path.join(work, name[:-5])
            plain = run([dmlrun, "-q", model], cwd=work)
            captured = run([dmlrun, "-q", model], env={"FREEDML_CAPTURE": capture_dir}, cwd=work)
            if captured.returncode != 0 or captured.stdout != plain.stdout:
                fail(f"{name}: capturing changed the program's run (rc {captured.returncode}): {captured.stderr}")
                continue
            with open(os.path.join(capture_dir, "model.json")) as f:
                capture = json.load(f)
            if capture["$capture"]["version"] != 1 or len(capture["commands"]) != dispatch_count(model):
                fail(f"{name}: the capture holds {len(capture['commands'])} dispatches, the model has {dispatch_count(model)}")
            check(dmlrun, capture_dir, what=name)

        # Sample programs: the same, and the program's output is unchanged by capturing.
        for sample in samples:
            name = os.path.basename(sample)
            capture_dir = os.path.join(work, "sample_" + name)
            plain = run([sample], cwd=work)
            captured = run([sample], env={"FREEDML_CAPTURE": capture_dir}, cwd=work)
            if captured.returncode != plain.returncode or captured.stdout != plain.stdout:
                fail(f"{name}: capturing changed the program's output")
            if os.path.exists(os.path.join(capture_dir, "model.json")):
                check(dmlrun, capture_dir, what=name)
            elif name != "d3d12_copy":  # the one sample with no DirectML dispatch
                fail(f"{name}: nothing was captured")

        chain = os.path.join(models_dir, "chain.json")

        # FREEDML_CAPTURE_FIRST: only the first executions.
        first_dir = os.path.join(work, "first")
        run([dmlrun, "-q", chain], env={"FREEDML_CAPTURE": first_dir, "FREEDML_CAPTURE_FIRST": "1"}, cwd=work)
        with open(os.path.join(first_dir, "model.json")) as f:
            commands = json.load(f)["commands"]
        if len(commands) != 1 or commands[0]["dispatchable"] != "layer1":
            fail(f"FREEDML_CAPTURE_FIRST=1 captured {commands}")
        check(dmlrun, first_dir, expected_outputs=1, what="FREEDML_CAPTURE_FIRST=1")

        # Many executions: model.json is written at most once a second after the first 64, and
        # completed when the program exits.
        many_dir = os.path.join(work, "many")
        hello = os.path.join(models_dir, "hello_directml.json")
        run([dmlrun, "-q", "--iterations", "150", hello], env={"FREEDML_CAPTURE": many_dir}, cwd=work)
        with open(os.path.join(many_dir, "model.json")) as f:
            many = json.load(f)
        if len(many["commands"]) != 150 or len(many["dispatchables"]) != 1:
            fail(f"150 executions captured as {len(many['commands'])} commands")
        check(dmlrun, many_dir, expected_outputs=150, what="150 executions")

        # Past FREEDML_CAPTURE_LIMIT data is left out: said once, replaced by seeded random values,
        # and --check says what it could not compare.
        limit_dir = os.path.join(work, "limit")
        limited = run([dmlrun, "-q", chain], env={"FREEDML_CAPTURE": limit_dir, "FREEDML_CAPTURE_LIMIT": "0"}, cwd=work)
        if limited.returncode != 0 or limited.stderr.count("FREEDML_CAPTURE_LIMIT") != 1:
            fail(f"the size limit was not reported exactly once: {limited.stderr}")
        with open(os.path.join(limit_dir, "model.json")) as f:
            text = f.read()
        if "randomSeed" not in text or [n for n in os.listdir(limit_dir) if n.endswith(".npy")]:
            fail("with a limit of 0 bytes, data was written or not marked as left out")
        replay = run([dmlrun, "--check", os.path.join(limit_dir, "model.json")])
        if replay.returncode != 0 or "not compared (the capture left out" not in replay.stdout:
            fail(f"--check of a capture with data left out: rc {replay.returncode}: {replay.stdout}{replay.stderr}")

        # A directory that cannot be made: said once, the program goes on as without capture.
        plain = run([dmlrun, "-q", chain], cwd=work)
        blocked = run([dmlrun, "-q", chain], env={"FREEDML_CAPTURE": "/proc/freedml-capture/x"}, cwd=work)
        if blocked.returncode != 0 or blocked.stdout != plain.stdout or blocked.stderr.count("Capture:") != 1:
            fail(f"an unwritable capture directory: rc {blocked.returncode}, stderr {blocked.stderr!r}")

        # An edited input: the replay no longer matches, and --check says where.
        base = os.path.join(work, "chain")
        edited = os.path.join(work, "edited")
        shutil.copytree(base, edited)
        with open(os.path.join(edited, "model.json")) as f:
            model = json.load(f)
        model["resources"]["d2_BTensor"] = {"initialValuesDataType": "FLOAT32", "initialValues": [-1, 1, 0.5, -0.25]}
        with open(os.path.join(edited, "model.json"), "w") as f:
            json.dump(model, f)
        result = run([dmlrun, "--check", os.path.join(edited, "model.json")])
        if result.returncode != 4 or "commands[2] 'residual' (DML_OPERATOR_ELEMENT_WISE_ADD1) OutputTensor: differs" not in result.stdout:
            fail(f"an edited input was not found by --check: rc {result.returncode}: {result.stdout}{result.stderr}")

        # Damaged captures are refused with the file and the reason (exit status 1).
        damaged = os.path.join(work, "damaged")
        shutil.copytree(base, damaged)
        data = sorted(n for n in os.listdir(damaged) if n.endswith(".npy"))
        os.remove(os.path.join(damaged, data[0]))
        result = run([dmlrun, "--check", os.path.join(damaged, "model.json")])
        if result.returncode != 1 or data[0] not in result.stderr or "model.json" not in result.stderr:
            fail(f"a missing data file: rc {result.returncode}: {result.stderr}")
        shutil.rmtree(damaged)
        shutil.copytree(base, damaged)
        with open(os.path.join(damaged, data[1]), "r+b") as f:
            f.truncate(40)
        result = run([dmlrun, "--check", os.path.join(damaged, "model.json")])
        if result.returncode != 1 or data[1] not in result.stderr:
            fail(f"a truncated data file: rc {result.returncode}: {result.stderr}")
        shutil.rmtree(damaged)
        shutil.copytree(base, damaged)
        with open(os.path.join(damaged, "model.json")) as f:
            text = f.read()
        with open(os.path.join(damaged, "model.json"), "w") as f:
            f.write(text.replace('"version": 1', '"version": 99'))
        result = run([dmlrun, "--check", os.path.join(damaged, "model.json")])
        if result.returncode != 1 or "format version 99" not in result.stderr:
            fail(f"a newer format version: rc {result.returncode}: {result.stderr}")
        with open(os.path.join(damaged, "model.json"), "w") as f:
            f.write(text[: len(text) // 2])
        result = run([dmlrun, "--check", os.path.join(damaged, "model.json")])
        if result.returncode != 1 or "model.json" not in result.stderr:
            fail(f"a cut model.json: rc {result.returncode}: {result.stderr}")

        # --compare-adapters: the CPU adapter against itself agrees; with one kernel perturbed on
        # the second device, the comparison names the dispatch of that kernel, not a later one.
        same = run([dmlrun, "--compare-adapters", "cpu,cpu", chain], cwd=work)
        if same.returncode != 0 or "agree on all 3 dispatches" not in same.stdout:
            fail(f"cpu against cpu: rc {same.returncode}: {same.stdout}{same.stderr}")
        for perturbed, named in (("ELEMENT_WISE_ADD1", "commands[2] 'residual'"), ("GEMM", "commands[0] 'layer1'")):
            result = run([dmlrun, "--compare-adapters", "cpu,cpu", chain], env={"FREEDML_TEST_PERTURB": perturbed + "@2"}, cwd=work)
            expected = f"The first dispatch where cpu and cpu disagree: {named}"
            if result.returncode != 4 or expected not in result.stdout:
                fail(f"perturbed {perturbed}: rc {result.returncode}: {result.stdout}{result.stderr}")
            elif not re.search(r"largest absolute difference (1|0\.9999999\d*),", result.stdout):
                fail(f"perturbed {perturbed}: the difference of 1 is not reported: {result.stdout}")
        # A perturbed kernel on the first device of a capture: the replay finds it bit for bit.
        result = run([dmlrun, "--check", os.path.join(base, "model.json")], env={"FREEDML_TEST_PERTURB": "ELEMENT_WISE_ADD1@1"})
        if (result.returncode != 4 or "2 of 3 captured outputs match" not in result.stdout
                or "commands[2] 'residual' (DML_OPERATOR_ELEMENT_WISE_ADD1) OutputTensor: differs" not in result.stdout):
            fail(f"--check with a perturbed kernel: rc {result.returncode}: {result.stdout}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("capture, replay and compare: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
