"""What a probe of the Python API as a new user found, each once a crash, a silently different
problem or a message that pointed the wrong way: default_schedule with negative tiles (a division
by zero killed the interpreter), tune(batch=) (the suite's keyword took it: batch 1 was tuned and
stored), bf16 arithmetic in a Func (an internal error), run's step bound (named only as a CLI flag),
help(cubekit.kernels) (it left out conv2d, attention and the poolings), and options named by the
C++ tensors (R, A) or kernel (global_avg_pool2d) instead of the arguments given."""
import pydoc
import re

import numpy as np
import pytest

import cubekit as ck


def _contraction(name):
    a, b = ck.Input("A", "f16", [96, 64]), ck.Input("B", "f16", [64, 80])
    m, n, k = ck.Var("m"), ck.Var("n"), ck.RDom(0, 64, "k")
    c = ck.Func(name)
    c[m, n] = ck.sum(ck.cast("f32", a[m, k]) * ck.cast("f32", b[k, n]))
    return c


@pytest.mark.parametrize("override", ["tm", "tn", "tk_l0", "tk_l1"])
def test_default_schedule_refuses_negative_tiles(override):
    with pytest.raises(ck.Error, match=rf"default_schedule\(C\): {override} must be at least 1 \(or 0"):
        ck.default_schedule(_contraction("C"), **{override: -16})


def test_tune_takes_batch_as_the_problems():
    att = ck.tune("attention", batch=4, heads=2, seq_q=64, dim=32, budget=2, db="off")
    assert att["problem"]["batch"] == 4 and att["shape"].startswith("b4 ")
    mm = ck.tune("matmul", batch=3, m=64, n=64, k=64, budget=2, db="off")
    assert mm["problem"]["batch"] == 3


def test_bf16_arithmetic_is_a_user_error():
    x = ck.Input("X", "bf16", [8, 32])
    r, c = ck.Var("r"), ck.Var("c")
    g = ck.Func("G")
    g[r, c] = x[r, c] + x[r, c]
    ones = ck.bf16_from_float32(np.ones((8, 32), np.float32))
    with pytest.raises(ck.Error, match="computes in bf16; the vector unit computes in f16 and f32: cast to one of them"):
        g.run({"X": ones}, chip="ascend910b2")


def test_run_takes_max_steps():
    spin = ck.assemble(".kernel spin\n  li x1, 0\nl:\n  add x1, x1, 0\n  blt x1, 8, l\n  end\n")
    _, report = ck.run(spin, max_steps=10)
    [d] = report["diagnostics"]
    assert "stopped after 10 instructions" in d["message"] and "max_steps= in Python" in d["message"]
    with pytest.raises(ck.Error, match="max_steps must be positive, got 0"):
        ck.run(spin, max_steps=0)


def test_help_of_the_kernels_lists_every_kernel():
    text = pydoc.render_doc(ck.kernels, renderer=pydoc.plaintext)
    for name in ("conv2d", "attention", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "matmul", "softmax"):
        assert re.search(rf"^\s+{name}\(", text, re.M), name


def test_options_are_named_as_given():
    x = np.ones((1, 16, 6, 6), np.float16)
    w = np.ones((16, 16, 3, 3), np.float16)
    with pytest.raises(ck.Error, match=r"conv2d: residual is float16; it is added to the output, which is f32"):
        ck.kernels.conv2d(x, w, padding=1, residual=np.ones((1, 16, 6, 6), np.float16))
    with pytest.raises(ck.Error, match=r"matmul: a and b are float32; the cube multiplies float16"):
        ck.kernels.matmul(np.ones((16, 16), np.float32), np.ones((16, 16), np.float32))
    with pytest.raises(ck.Error, match=r"adaptive_avg_pool2d: rows must be at least 1 \(or 0"):
        ck.kernels.adaptive_avg_pool2d(x, 1, rows=-3)


def test_a_row_too_long_names_the_vector_kernels_way_out():
    with pytest.raises(ck.Error, match=r"or schedule=\"naive\" for the vector kernels"):
        ck.kernels.softmax(np.ones((2, 17441), np.float16))


def test_compile_writes_to_standard_output_and_names_its_chip():
    """`-o -` wrote a file named '-'; a compiled program did not say which chip it was made for."""
    import subprocess
    from conftest import CLI
    done = subprocess.run([CLI, "compile", "add", "--rows", "64", "--cols", "64", "--chip", "ascend910b2", "-o", "-"],
                          capture_output=True, text=True, env={"CUBEKIT_TUNING_DB": "off"})
    assert done.returncode == 0, done.stderr
    assert "wrote the program to standard output" in done.stderr
    assert "# for chip ascend910b2 (run it with --chip ascend910b2)" in done.stdout
    out, report = ck.run(ck.assemble(done.stdout), {"X": np.ones((64, 64), np.float16), "Y": np.ones((64, 64), np.float16)},
                         chip="ascend910b2")
    np.testing.assert_array_equal(out["add"], np.full((64, 64), 2, np.float16))
    assert not report["diagnostics"]


def test_time_alone_enumerates_a_small_space():
    """With time= alone a 31-point space went to the local search, which stopped at 31 of 37 and read as unfinished."""
    best = ck.tune("softmax", shape=[256, 256], time=5, db="off")
    assert best["strategy"] == "exhaustive" and best["evaluated"] == best["space"]


# ---- a second probe (conv, pooling, layouts, tuning) ----

def test_a_stride_with_one_output_position_is_no_limit(rng):
    """One output position along an axis never steps: a stride past load3d's 63 or the vector unit's
    block strides then runs (it was refused), and the result is numpy's."""
    x = rng.standard_normal((1, 16, 32, 32)).astype(np.float32)
    y, report = ck.kernels.avg_pool2d(x, 32)
    np.testing.assert_allclose(y[:, :, 0, 0], x.mean(axis=(2, 3)), rtol=1e-5, atol=1e-6)
    assert y.shape == (1, 16, 1, 1) and not report["diagnostics"]
    x = rng.standard_normal((1, 16, 9, 9)).astype(np.float16)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float16)
    for stride, padding in ((64, 0), (100, 1)):
        y, report = ck.kernels.conv2d(x, w, stride=stride, padding=padding)
        xp = np.pad(x.astype(np.float32), ((0, 0), (0, 0), (padding,) * 2, (padding,) * 2))
        want = np.einsum("nchw,kchw->nk", xp[:, :, :3, :3], w.astype(np.float32))
        assert y.shape == (1, 16, 1, 1) and not report["diagnostics"]
        np.testing.assert_allclose(y[:, :, 0, 0], want, rtol=2e-3, atol=2e-2)
    with pytest.raises(ck.Error, match=r"stride 64 along row is more than load3d's 63"):  # two rows: it steps
        ck.kernels.conv2d(np.zeros((1, 16, 70, 9), np.float16), w, stride=64)


def test_numpy_habits_of_the_second_probe(tmp_path):
    """A big-endian residual is the float32 it holds (it was refused as another type); set_tuning_db
    takes a pathlib.Path as tune(db=) does; float64 is named with the type to convert it to."""
    x, w = np.ones((1, 16, 4, 4), np.float16), np.ones((16, 16, 1, 1), np.float16)
    y, _ = ck.kernels.conv2d(x, w, residual=np.full((1, 16, 4, 4), 2, ">f4"))
    np.testing.assert_array_equal(y, np.full((1, 16, 4, 4), 18, np.float32))
    ck.set_tuning_db(tmp_path / "t.db")
    try:
        assert ck.tuning_db() == str(tmp_path / "t.db")
    finally:
        ck.set_tuning_db("off")
    with pytest.raises(ck.Error, match=r"float64 has no AI Core type: .* convert the array with \.astype\(numpy\.float32\)"):
        ck.nchw_to_nc1hwc0(np.zeros((1, 3, 2, 2)))


def test_a_compiled_convolution_run_with_nchw_arrays_says_what_converts():
    i, w = ck.Input("I", "f16", [1, 20, 8, 8]), ck.Input("W", "f16", [24, 20, 3, 3])
    n, k, y, x = ck.Var("n"), ck.Var("k"), ck.Var("y"), ck.Var("x")
    r = ck.RDom([(0, 20), (0, 3), (0, 3)], "r")
    o = ck.Func("O")
    o[n, k, y, x] = ck.sum(ck.cast("f32", ck.constant_exterior(i, 0)[n, r.x, y + r.y - 1, x + r.z - 1])
                           * ck.cast("f32", w[k, r.x, r.y, r.z]))
    o.bound(y, 0, 8).bound(x, 0, 8)
    p = ck.compile(o)
    with pytest.raises(ck.Error, match=r"input 'I': the array has shape \(1, 20, 8, 8\) but the tensor has shape "
                                       r"\(1, 2, 8, 8, 16\); the program holds I: NCHW \[1, 20, 8, 8\] as NC1HWC0 "
                                       r"\(C0 16\): convert the array with cubekit\.nchw_to_nc1hwc0, or run the Func "
                                       r"with Func\.run"):
        ck.run(p, {"I": np.zeros((1, 20, 8, 8), np.float16), "W": np.zeros((24, 20, 3, 3), np.float16)})


# ---- a probe of the command line, reports and traces ----

def test_cli_refuses_two_results_into_one_file_and_names_no_bound_without_work(tmp_path, source_dir):
    from conftest import run_cli
    program = source_dir / "examples" / "asm" / "matmul_f16.s"
    same = tmp_path / "same.npy"
    r = run_cli("run", program, "--output", f"C={same}", "--trace", same, check=False)
    assert r.returncode == 2 and f"--output C={same} and --trace {same} write the same file; give each its own" in r.stderr
    assert not same.exists()
    loop = tmp_path / "loop.s"
    loop.write_text(".kernel loop\n.tensor X f16 [16] in\n    li x1, 3\ntop:\n    sub x1, x1, 1\n    bne x1, 0, top\n    end\n")
    r = run_cli("run", loop)
    assert "roofline: no cube, vector or HBM work" in r.stdout and "-bound at 0 cycles" not in r.stdout


def test_cli_headline_names_both_types_of_a_mixed_binary_kernel():
    from conftest import run_cli
    r = run_cli("kernel", "div", "--rows", "7", "--cols", "33", "--y-shape", "7,1", "--y-dtype", "f32")
    assert r.stdout.startswith("div [7, 33] f16 with [7, 1] f32 -> f32, default schedule")
    r = run_cli("kernel", "add", "--rows", "7", "--cols", "33")
    assert r.stdout.startswith("add [7, 33] f16, default schedule")
    # An override of 0 is the schedule's choice: the line claims no override.
    r = run_cli("kernel", "softmax", "--rows", "64", "--cols", "256", "--tile-rows", "0", "--timing-only")
    assert r.stdout.startswith("softmax [64, 256] f16, default schedule:")


# ---- a probe of attention and the tuner ----

def test_cli_tune_refuses_what_it_would_silently_drop(tmp_path):
    """--batch before the kernel's name (the suite's: the kernel tuned batch 1), and a tune with no
    database because HOME is unset (it threw its results away, blaming '--db off')."""
    import os
    import subprocess
    from conftest import CLI, run_cli
    shape = ["--seq-q", "64", "--dim", "64", "--budget", "2"]
    r = run_cli("tune", "--batch", "4", "attention", *shape, "--db", "off", check=False)
    assert r.returncode == 2 and "--batch before the kernel's name is a suite's batch" in r.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME", "CUBEKIT_TUNING_DB")}
    r = subprocess.run([CLI, "tune", "attention", *shape], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and "neither HOME nor XDG_CACHE_HOME is set" in r.stderr and "--db FILE" in r.stderr
    db = tmp_path / "t.db"
    r = subprocess.run([CLI, "tune", "attention", *shape, "--db", str(db)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and db.exists(), r.stderr


def test_tune_refuses_attentions_preload_and_a_one_key_mask_says_how_to_expand(rng):
    # preload is the tuner's to choose: given, it skewed the default's baseline the database keeps.
    with pytest.raises(ck.Error, match=r"tune: preload is a schedule parameter, which the tuner chooses"):
        ck.tune("attention", seq_q=64, dim=64, preload=1, db="off", budget=2)
    q, k, v = (rng.standard_normal((1, 1, 20 if i == 0 else 30, 64)).astype(np.float16) for i in range(3))
    with pytest.raises(ck.Error, match=r"has one key; .* expand it to every key \(numpy\.broadcast_to"):
        ck.kernels.attention(q, k, v, attn_mask=np.ones((1, 1, 20, 1), bool))


def test_a_global_average_takes_no_rows_past_its_one():
    x = np.ones((1, 16, 8, 8), np.float16)
    with pytest.raises(ck.Error, match=r"adaptive_avg_pool2d: rows must be at most 1: the global average has one output row, got 2"):
        ck.kernels.adaptive_avg_pool2d(x, 1, rows=2)
