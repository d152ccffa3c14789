"""Programs: assemble, Builder, text/str/save/load, and run() with numpy arrays."""
import json

import numpy as np
import pytest

import cubekit
from cubekit import flag, imm, kw, mask_bits, mask_count, mask_counter, mem, name, num, x
from conftest import assert_report, f32

# Z = max(2 X, 0) + 1 on 256 halves (512 B = 16 blocks = 2 repeats of 128), one core.
SCALE_RELU_TEXT = """\
.kernel scale_relu
.tensor X f16 [256] in
.tensor Z f16 [256] out
    copy_gm_ub ub[0], X[0], len=16
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vmuls.f16 ub[512], ub[0], 2.0, repeat=2
    barrier V
    vmaxs.f16 ub[512], ub[512], 0.0, repeat=2
    barrier V
    vadds.f16 ub[512], ub[512], 1.0, repeat=2
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm Z[0], ub[512], len=16
    end
"""


def scale_relu_ref(xs):
    return (np.maximum(xs * np.float16(2), np.float16(0)) + np.float16(1)).astype(np.float16)


def build_axpy(rows=2, cols=256):
    """Z = 2 X + Y, one row of f16 per block, with the Builder."""
    row_bytes = cols * 2
    b = cubekit.Builder("axpy")
    assert b.tensor("X", "f16", [rows, cols], "in") == 0
    assert b.tensor("Y", np.float16, [rows, cols]) == 1  # role defaults to 'in'
    assert b.tensor("Z", np.dtype("float16"), [rows, cols], "out") == 2
    b.block_dim(rows)
    assert b.emit("block_idx", x(1)) == 0
    b.emit("mul", x(2), x(1), imm(row_bytes))
    b.emit("copy_gm_ub", mem("ub", 0), mem("X", x(2)), kw("len", imm(row_bytes // 32)))
    b.emit("copy_gm_ub", mem("ub", row_bytes), mem("Y", x(2), 0), kw("len", imm(row_bytes // 32)))
    b.emit("set_flag", name("MTE2"), name("V"), imm(0))
    b.emit("wait_flag", name("MTE2"), name("V"), imm(0))
    b.emit("vmuls.f16", mem("ub", 2 * row_bytes), mem("ub", 0), num(2.0), kw("repeat", imm(row_bytes // 256)))
    b.emit("barrier", name("V"))
    b.emit("vadd.f16", mem("ub", 2 * row_bytes), mem("ub", 2 * row_bytes), mem("ub", row_bytes),
           kw("repeat", imm(row_bytes // 256)))
    b.emit("set_flag", name("V"), name("MTE3"), imm(0))
    b.emit("wait_flag", name("V"), name("MTE3"), imm(0))
    b.emit("copy_ub_gm", mem("Z", x(2)), mem("ub", 2 * row_bytes), kw("len", imm(row_bytes // 32)))
    b.emit("end")
    assert len(b) == 13
    return b.finish()


def ordered_matmul(a, b):
    """The cube's documented arithmetic: f32 accumulation in increasing k, one rounding per step."""
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    a32, b32 = f32(a), f32(b)
    for k in range(a.shape[1]):
        c = c + a32[:, k:k + 1] * b32[k:k + 1, :]
    return c


# ---- assemble / text / save / load ----

def test_assemble_and_print():
    p = cubekit.assemble(SCALE_RELU_TEXT)
    assert isinstance(p, cubekit.Program)
    assert (p.name, p.block_dim, len(p)) == ("scale_relu", 1, 12)
    assert p.tensors == [{"name": "X", "dtype": "f16", "shape": [256], "role": "in"},
                         {"name": "Z", "dtype": "f16", "shape": [256], "role": "out"}]
    text = p.text()
    assert str(p) == text
    assert repr(p) == "<Program scale_relu: 12 instructions, block_dim 1>"
    # The printed text is the source without its layout: same lines, and it assembles to itself.
    assert [line.split() for line in text.splitlines()] == [line.split() for line in SCALE_RELU_TEXT.splitlines()]
    assert cubekit.assemble(text).text() == text


def test_assemble_records_its_source_name():
    with pytest.raises(cubekit.Error, match=r"^mine\.s:2:"):
        cubekit.assemble(".kernel k\n    nope\n", "mine.s")


# A run's diagnostics point at the file a program came from, as `cubekit run` does, not at its
# kernel's name.
def test_run_diagnostics_name_the_source(tmp_path):
    text = ".kernel k\n.tensor X f16 [256] in\n    set_flag MTE2, V, 0\n    end\n"
    path = tmp_path / "flags.s"
    path.write_text(text)
    x = {"X": np.zeros(256, np.float16)}
    for program, where in ((cubekit.load(str(path)), str(path)), (cubekit.assemble(text, "mine.s"), "mine.s"),
                           (cubekit.assemble(text), "k")):
        _, report = cubekit.run(program, x)
        assert report["diagnostics"][0]["text"].startswith(where + ":3: error: sync:"), report["diagnostics"]


def test_save_and_load(tmp_path):
    p = cubekit.assemble(SCALE_RELU_TEXT)
    path = tmp_path / "scale_relu.s"
    p.save(str(path))
    assert path.read_text() == p.text()
    q = cubekit.load(str(path))
    assert (q.name, q.block_dim, q.tensors, q.text()) == (p.name, p.block_dim, p.tensors, p.text())


def test_load_an_example_program(source_dir, rng):
    """examples/asm/matmul_f16.s, loaded and run: bit-exact with the cube's arithmetic replayed in numpy."""
    p = cubekit.load(str(source_dir / "examples" / "asm" / "matmul_f16.s"))
    assert p.name == "matmul_f16"
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    out, report = cubekit.run(p, {"A": a, "B": b})
    assert list(out) == ["C"] and out["C"].dtype == np.float32 and out["C"].shape == (128, 128)
    np.testing.assert_array_equal(out["C"], ordered_matmul(a, b))
    assert_report(report, cores_at_most=1)
    assert report["diagnostics"] == []
    # The bytes the program moves follow from its shapes: A and B into L1, C out through UB.
    assert report["bytes"]["GM->L1"] == a.nbytes + b.nbytes
    assert report["bytes"]["UB->GM"] == out["C"].nbytes
    assert report["pipes"]["M"]["instructions"] == 1  # one mmad


# ---- Builder ----

def test_builder_program_matches_its_text():
    p = build_axpy()
    assert (p.name, p.block_dim, len(p)) == ("axpy", 2, 13)
    assert [t["name"] for t in p.tensors] == ["X", "Y", "Z"]
    assert [t["role"] for t in p.tensors] == ["in", "in", "out"]
    text = p.text()
    assert text.splitlines()[:2] == [".kernel axpy", ".block_dim 2"]
    assert "    copy_gm_ub ub[512], Y[x2], len=16" in text.splitlines()
    assert "    vmuls.f16 ub[1024], ub[0], 2.0, repeat=2" in text.splitlines()
    assert cubekit.assemble(text).text() == text


def test_builder_program_runs(rng):
    p = build_axpy()
    xs = rng.standard_normal((2, 256)).astype(np.float16)
    ys = rng.standard_normal((2, 256)).astype(np.float16)
    out, report = cubekit.run(p, {"X": xs, "Y": ys})
    assert out["Z"].dtype == np.float16
    np.testing.assert_array_equal(out["Z"], xs * np.float16(2) + ys)
    assert_report(report)
    assert (report["blocks"], report["cores"]) == (2, 2)


def test_builder_program_diagnostics_name_instructions_not_lines():
    """A built program has no text lines: its diagnostics name instructions alone (not 'line 0')."""
    b = cubekit.Builder("stuck")
    b.tensor("X", "f16", [16], "in")
    b.emit("set_flag", name("MTE2"), name("V"), imm(0))
    b.emit("wait_flag", name("MTE2"), name("MTE3"), imm(0))
    b.emit("end")
    _, report = cubekit.run(b.finish(), {"X": np.zeros(16, np.float16)})
    texts = [d["text"] for d in report["diagnostics"]]
    assert any("pipe MTE3 waits at instruction 1 `wait_flag MTE2, MTE3, 0`" in t for t in texts), texts
    assert all("line" not in t for t in texts), texts


def test_builder_labels_and_operand_helpers(rng):
    """A loop with a label, and every operand helper (masks, keyword, flag) printed as the assembler reads them."""
    b = cubekit.Builder("loop")
    b.tensor("X", "f32", [64], "inout")
    b.emit("copy_gm_ub", mem("ub", 0), mem("X", 0), kw("len", imm(8)))
    b.emit("set_flag", name("MTE2"), name("V"), imm(0))
    b.emit("wait_flag", name("MTE2"), name("V"), imm(0))
    b.emit("li", x(1), imm(0))
    b.label("again")
    b.emit("vadds.f32", mem("ub", 0), mem("ub", 0), num(1.5), kw("mask", mask_count(64)))
    b.emit("barrier", name("V"))
    b.emit("add", x(1), x(1), imm(1))
    b.emit("blt", x(1), imm(3), name("again"))
    b.emit("set_flag", name("V"), name("MTE3"), imm(0))
    b.emit("wait_flag", name("V"), name("MTE3"), imm(0))
    b.emit("copy_ub_gm", mem("X", 0), mem("ub", 0), kw("len", imm(8)))
    b.emit("end")
    p = b.finish()
    assert "again:" in p.text()
    xs = rng.standard_normal(64).astype(np.float32)
    keep = xs.copy()
    out, _ = cubekit.run(p, {"X": xs})
    np.testing.assert_array_equal(xs, keep)  # the inout input array is not written
    np.testing.assert_allclose(out["X"], xs + 4.5, rtol=1e-6)
    # The other operand helpers print as the assembler spells them, and parse back.
    assert repr(flag("init")) == "<Operand init>" and repr(kw("repeat", imm(2))) == "<Operand repeat>"
    b2 = cubekit.Builder("masks")
    b2.emit("vadds.f32", mem("ub", 0), mem("ub", 0), num(1.0), kw("mask", mask_bits(0, 0xFF)))
    b2.emit("vadds.f32", mem("ub", 0), mem("ub", 0), num(1.0), kw("mask", mask_counter(100)))
    b2.emit("mmad.f16", mem("l0c", 0), mem("l0a", 0), mem("l0b", 0), kw("m", imm(16)), kw("n", imm(16)),
            kw("k", imm(16)), flag("init"))
    b2.emit("end")
    text = b2.finish().text()
    assert "mask=0x0:0xff" in text.lower() and "mask=counter:100" in text and text.rstrip().endswith("end")
    assert "init" in text.splitlines()[3]
    assert cubekit.assemble(text).text() == text


# ---- run ----

def test_run_fp16_values_pass_bit_exact():
    """float16 arrays go in and come out as numpy.float16, bit for bit (copied through UB)."""
    p = cubekit.assemble(""".kernel copy
.tensor X f16 [16] in
.tensor Z f16 [16] out
    copy_gm_ub ub[0], X[0]
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Z[0], ub[0]
    end
""")
    xs = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 6e-8, 6.1e-5, np.inf, -np.inf, 0.1, 1 / 3, 1000.5,
                   2.0 ** -14, -1e-7, 3.140625], np.float16)  # zeros, extremes, subnormals, infinities
    out, _ = cubekit.run(p, {"X": xs})
    assert out["Z"].dtype == np.float16
    np.testing.assert_array_equal(out["Z"].view(np.uint16), xs.view(np.uint16))


def test_run_checks_against_numpy(rng):
    p = cubekit.assemble(SCALE_RELU_TEXT)
    xs = rng.standard_normal(256).astype(np.float16)
    out, report = cubekit.run(p, {"X": xs})
    np.testing.assert_array_equal(out["Z"], scale_relu_ref(xs))
    assert_report(report, cores_at_most=1)
    # One core: each pipe's ratio is its busy cycles over the run's cycles.
    for pipe in report["pipes"].values():
        assert pipe["ratio"] == pytest.approx(pipe["busy_cycles"] / report["cycles"])
    assert report["pipes"]["V"]["instructions"] == 3
    assert report["kernel"] == "scale_relu" and report["chip"] == "ascend910"
    assert report["timing_only"] is False
    assert report["microseconds"] == pytest.approx(report["cycles"] / report["clock_mhz"])


def test_run_options_blocks_threads_checks(rng):
    p = build_axpy(rows=4)
    xs = rng.standard_normal((4, 256)).astype(np.float16)
    ys = rng.standard_normal((4, 256)).astype(np.float16)
    expected = xs * np.float16(2) + ys
    base, rep = cubekit.run(p, {"X": xs, "Y": ys})
    for kwargs in ({"threads": 1}, {"threads": 2}, {"checks": False}, {"chip": cubekit.chip()}):
        out, r = cubekit.run(p, {"X": xs, "Y": ys}, **kwargs)
        np.testing.assert_array_equal(out["Z"], expected)
        assert r["cycles"] == rep["cycles"], kwargs  # results never depend on threads or checks
    # Fewer blocks than block_dim: only the first rows are computed.
    out, r = cubekit.run(p, {"X": xs, "Y": ys}, blocks=2)
    assert r["blocks"] == 2
    np.testing.assert_array_equal(out["Z"][:2], expected[:2])


def test_run_results_are_arrays_of_their_own(rng):
    """The results hand over GM's buffers (no copy): each array owns its bytes, outlives the run,
    is writable and shares nothing with another run's; inputs in any layout are copied in."""
    p = build_axpy(rows=4)
    xs = rng.standard_normal((4, 256)).astype(np.float16)
    ys = rng.standard_normal((4, 256)).astype(np.float16)
    expected = xs * np.float16(2) + ys
    first, _ = cubekit.run(p, {"X": xs, "Y": ys})
    z = first.pop("Z")
    del first
    second, _ = cubekit.run(p, {"X": ys, "Y": xs})
    np.testing.assert_array_equal(z, expected)  # the second run wrote elsewhere
    assert z.flags.writeable and z.flags.c_contiguous and not np.shares_memory(z, second["Z"])
    z[0, 0] = 7
    assert second["Z"][0, 0] == ys[0, 0] * np.float16(2) + xs[0, 0]
    # A strided view and the other byte order: copied into GM as the values they mean.
    wide = np.zeros((4, 512), np.float16)
    wide[:, ::2] = xs
    out, _ = cubekit.run(p, {"X": wide[:, ::2], "Y": ys.astype(">f2")})
    np.testing.assert_array_equal(out["Z"], expected)


def test_timing_only(rng):
    p = cubekit.assemble(SCALE_RELU_TEXT)
    xs = rng.standard_normal(256).astype(np.float16)
    _, full = cubekit.run(p, {"X": xs})
    out, timing = cubekit.run(p, timing_only=True)  # no inputs needed
    assert timing["timing_only"] is True
    assert timing["cycles"] == full["cycles"]
    assert timing["pipes"] == full["pipes"]
    assert set(out) == {"Z"} and out["Z"].shape == (256,)
    # With inputs given it is the same, the results zeros: no data is copied in or out.
    out, timing = cubekit.run(p, {"X": xs}, timing_only=True)
    assert timing["cycles"] == full["cycles"]
    np.testing.assert_array_equal(out["Z"], np.zeros(256, np.float16))
    # Inputs are still checked.
    with pytest.raises(cubekit.Error, match=r"input 'X': the array has shape \(255\) but the tensor has shape \(256\)"):
        cubekit.run(p, {"X": xs[:255]}, timing_only=True)


def test_trace_writes_chrome_json(tmp_path, rng):
    p = build_axpy()
    path = tmp_path / "trace.json"
    xs = rng.standard_normal((2, 256)).astype(np.float16)
    _, report = cubekit.run(p, {"X": xs, "Y": xs}, trace=str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert events
    assert trace["otherData"]["cycles"] == report["cycles"] and trace["otherData"]["kernel"] == "axpy"
    spans = [e for e in events if e.get("ph") == "X"]
    # One span per instruction executed on each core; the barrier an instant (it takes no time).
    assert report["instructions"] == 2 * len(p)
    assert sorted(e["name"] for e in spans if e["pid"] == 0) == sorted(
        line.split()[0].split(".")[0] for line in p.text().splitlines()[5:])
    assert all(e["dur"] == 0 for e in spans if e["name"] == "barrier")
    assert {e["pid"] for e in spans} == {0, 1}  # the two cores
    # Times are in microseconds; the last span ends when the run does.
    assert max(e["ts"] + e["dur"] for e in spans) == pytest.approx(report["microseconds"], rel=1e-3)
    # Each span names its instruction and the pipe (thread) it ran on: the pipe's own track, or a
    # lane beside it ("MTE2 (2)") for instructions that overlap on the pipe.
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    lines = [line.strip() for line in p.text().splitlines()[5:]]
    for e in spans:
        assert lines[e["args"]["instruction"]].split()[0].split(".")[0] == e["name"]
        assert threads[(e["pid"], e["tid"])].split(" (")[0] in report["pipes"]
    assert {threads[(e["pid"], e["tid"])].split(" (")[0] for e in spans if e["name"] in ("vmuls", "vadd")} == {"V"}
    # Slices of one track nest or follow each other (viewers drop the ones that overlap otherwise).
    tracks = {}
    for e in spans:
        tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for track in tracks.values():
        track.sort(key=lambda span: (span[0], -span[1]))
        for (s0, e0), (s1, e1) in zip(track, track[1:]):
            assert s1 >= e0 - 1e-9 or e1 <= e0 + 1e-9, (s0, e0, s1, e1)
    # A pathlib path works too.
    path2 = tmp_path / "trace2.json"
    cubekit.run(p, {"X": xs, "Y": xs}, trace=path2)
    assert json.loads(path2.read_text())["traceEvents"]


def test_cli_in_order_reports_problems_as_the_other_modes(tmp_path):
    """`run --in-order` listed its problems with no "checks: N problems" line, and its JSON
    diagnostics lacked the core, instruction, line and repeats the other modes give."""
    from conftest import run_cli
    program = tmp_path / "oob.s"
    program.write_text(".kernel oob\n.tensor X f16 [64] in\n.tensor Y f16 [64] out\n"
                       "    copy_gm_ub ub[0], X[0], len=4\n"
                       "    set_flag MTE2, MTE3, 0\n    wait_flag MTE2, MTE3, 0\n"
                       "    copy_ub_gm Y[0], ub[0], len=8\n    end\n")
    text = run_cli("run", program, "--in-order", check=False)
    assert text.returncode == 1 and "checks: 1 problem\n" in text.stdout, text.stdout
    in_order = json.loads(run_cli("run", program, "--in-order", "--json", check=False).stdout)["diagnostics"]
    simulated = json.loads(run_cli("run", program, "--json", check=False).stdout)["diagnostics"]
    assert [d["kind"] for d in in_order] == ["out-of-bounds"]
    assert set(in_order[0]) == set(simulated[0]) and in_order[0]["line"] == 7
