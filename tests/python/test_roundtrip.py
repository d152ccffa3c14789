"""Round trips between Python and the C++ CLI: programs built or compiled in Python run by
`cubekit run`, and programs compiled by `cubekit compile` run from Python, with the same results."""
import json
import subprocess

import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels
from conftest import CLI, matmul_ref, run_cli, run_cli_json
from test_programs import build_axpy

# What a report has that does not depend on how the program was loaded (file name, source lines).
SAME_KEYS = ("cycles", "pipes", "ratios", "bytes", "blocks", "cores", "instructions", "l2", "roofline", "per_core")


def assert_same_report(py, cli):
    for key in SAME_KEYS:
        assert py[key] == cli[key], key


def test_builder_program_runs_in_the_cli(tmp_path, rng):
    """Built in Python, saved, run by `cubekit run --input/--output`: the same output and report as run()."""
    p = build_axpy(rows=3)
    path = tmp_path / "axpy.s"
    p.save(str(path))
    xs = rng.standard_normal((3, 256)).astype(np.float16)
    ys = rng.standard_normal((3, 256)).astype(np.float16)
    np.save(tmp_path / "x.npy", xs)
    np.save(tmp_path / "y.npy", ys)
    cli = run_cli_json("run", path, "--input", f"X={tmp_path / 'x.npy'}", "--input", f"Y={tmp_path / 'y.npy'}",
                       "--output", f"Z={tmp_path / 'z.npy'}")
    z_cli = np.load(tmp_path / "z.npy")
    out, report = ck.run(p, {"X": xs, "Y": ys})
    assert z_cli.dtype == np.float16 and out["Z"].dtype == np.float16
    np.testing.assert_array_equal(z_cli, out["Z"])
    np.testing.assert_array_equal(out["Z"], xs * np.float16(2) + ys)  # and both are right
    assert_same_report(report, cli)
    assert cli["kernel"] == report["kernel"] == "axpy"


def test_builder_program_with_inout_and_blocks_in_the_cli(tmp_path, rng):
    b = ck.Builder("accumulate")
    b.tensor("X", "f32", [64], "in")
    b.tensor("Y", "f32", [64], "inout")
    b.emit("copy_gm_ub", ck.mem("ub", 0), ck.mem("X", 0), ck.kw("len", ck.imm(8)))
    b.emit("copy_gm_ub", ck.mem("ub", 256), ck.mem("Y", 0), ck.kw("len", ck.imm(8)))
    b.emit("set_flag", ck.name("MTE2"), ck.name("V"), ck.imm(0))
    b.emit("wait_flag", ck.name("MTE2"), ck.name("V"), ck.imm(0))
    b.emit("vadd.f32", ck.mem("ub", 256), ck.mem("ub", 256), ck.mem("ub", 0))
    b.emit("set_flag", ck.name("V"), ck.name("MTE3"), ck.imm(0))
    b.emit("wait_flag", ck.name("V"), ck.name("MTE3"), ck.imm(0))
    b.emit("copy_ub_gm", ck.mem("Y", 0), ck.mem("ub", 256), ck.kw("len", ck.imm(8)))
    b.emit("end")
    p = b.finish()
    p.save(str(tmp_path / "acc.s"))
    xs, ys = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    np.save(tmp_path / "x.npy", xs)
    np.save(tmp_path / "y.npy", ys)
    cli = run_cli_json("run", tmp_path / "acc.s", "--input", f"X={tmp_path / 'x.npy'}", "--input",
                       f"Y={tmp_path / 'y.npy'}", "--output", f"Y={tmp_path / 'y2.npy'}", "--blocks", 1, "--threads", 1)
    out, report = ck.run(p, {"X": xs, "Y": ys}, blocks=1, threads=1)
    np.testing.assert_array_equal(np.load(tmp_path / "y2.npy"), out["Y"])
    np.testing.assert_array_equal(out["Y"], xs + ys)
    assert_same_report(report, cli)


def test_timing_only_and_trace_agree_with_the_cli(tmp_path):
    p = build_axpy(rows=2)
    p.save(str(tmp_path / "axpy.s"))
    cli = run_cli_json("run", tmp_path / "axpy.s", "--timing-only", "--trace", tmp_path / "cli.json")
    _, report = ck.run(p, timing_only=True, trace=str(tmp_path / "py.json"))
    assert cli["timing_only"] is True and report["timing_only"] is True
    assert_same_report(report, cli)
    spans = lambda path: [(e["pid"], e["tid"], e["name"], e["ts"], e["dur"])  # noqa: E731
                          for e in json.loads(path.read_text())["traceEvents"] if e["ph"] == "X"]
    assert spans(tmp_path / "py.json") == spans(tmp_path / "cli.json")


def test_compiled_func_runs_in_the_cli(tmp_path, rng):
    """A DSL Func compiled in Python, saved, run by the CLI: the same as Func.run()."""
    X = ck.Input("X", "f16", [8, 128])
    r, c = ck.Var("r"), ck.Var("c")
    k = ck.RDom(0, 128, "k")
    F = ck.Func("norm")
    F[r, c] = ck.cast("f16", ck.cast("f32", X[r, c]) / ck.sum(ck.abs(ck.cast("f32", X[r, k]))))
    F.cores([r]).double_buffer()
    p = ck.compile(F)
    p.save(str(tmp_path / "norm.s"))
    xs = rng.standard_normal((8, 128)).astype(np.float16)
    np.save(tmp_path / "x.npy", xs)
    cli = run_cli_json("run", tmp_path / "norm.s", "--input", f"X={tmp_path / 'x.npy'}", "--output",
                       f"norm={tmp_path / 'out.npy'}")
    out, report = F.run({"X": xs})
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), out)
    x32 = xs.astype(np.float32)
    np.testing.assert_allclose(out.astype(np.float32), x32 / np.abs(x32).sum(1, keepdims=True), rtol=2e-3, atol=1e-4)
    assert_same_report(report, cli)


@pytest.mark.parametrize("args,options", [
    ((), {}),
    (("--schedule", "naive"), {"schedule": "naive"}),
    (("--l1-copies", 2, "--stagger", "off"), {"l1_copies": 2, "stagger": False}),
    (("--epilogue", "bias,relu", "--out", "f16"), {"epilogue": ["bias", "relu"], "out": "f16"}),
])
def test_cli_compiled_matmul_is_what_python_compiles(tmp_path, rng, args, options):
    """`cubekit compile matmul` writes the program cubekit.kernels builds; loaded and run in Python it gives A x B."""
    M, N, K = 64, 48, 96
    run_cli("compile", "matmul", "--m", M, "--n", N, "--k", K, *args, "-o", tmp_path / "mm.s")
    p = ck.load(str(tmp_path / "mm.s"))
    o = ck._cubekit.MatmulOptions()
    o.m, o.n, o.k = M, N, K
    for key, value in options.items():
        setattr(o, key, value)
    func, _, _ = ck._cubekit.matmul_func(o, ck.chip())
    strip = lambda text: [line for line in text.splitlines() if not line.lstrip().startswith("#")]  # noqa: E731
    assert strip(p.text()) == strip(ck.compile(func).text())
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    inputs = {"A": a, "B": b}
    bias = rng.standard_normal(N).astype(np.float32)
    if "bias" in options.get("epilogue", []):
        inputs["bias"] = bias
    out, report = ck.run(p, inputs)
    kwargs = dict(options, bias=bias) if "bias" in options.get("epilogue", []) else options
    c, kreport = kernels.matmul(a, b, **kwargs)
    (name,) = [t["name"] for t in p.tensors if t["role"] == "out"]
    np.testing.assert_array_equal(out[name], c)
    assert report["cycles"] == kreport["cycles"]
    expected = matmul_ref(a, b)
    if "bias" in options.get("epilogue", []):
        expected = np.maximum(expected + bias, 0)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=2e-3 if c.dtype == np.float16 else 1e-5, atol=2e-3)


def test_cli_compiled_attention_writes_every_output(tmp_path):
    """`cubekit compile attention --lse --mask ...` writes a program with the mask as an input and the
    logsumexp as an output beside O (the second output is not dropped on the way to the file)."""
    run_cli("compile", "attention", "--seq-q", 64, "--dim", 64, "--lse", "--mask", "64,64", "-o", tmp_path / "a.s")
    p = ck.load(str(tmp_path / "a.s"))
    tensors = [line.split()[1:] for line in p.text().splitlines() if line.startswith(".tensor")]
    roles = {t[0]: t[-1] for t in tensors}
    assert roles.get("attention") == "out" and roles.get("attention_lse") == "out" and roles.get("mask") == "in", roles


def test_a_compiled_program_piped_into_run():
    """`cubekit compile ... -o -` into `cubekit run -`: the program read from standard input runs as from its file."""
    program = run_cli("compile", "add", "--rows", "64", "--cols", "64", "-o", "-").stdout
    piped = subprocess.run([CLI, "run", "-", "--json"], input=program, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    report = json.loads(piped.stdout)
    assert report["kernel"] == "add" and report["diagnostics"] == [] and report["cycles"] > 0
