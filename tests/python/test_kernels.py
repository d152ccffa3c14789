"""cubekit.kernels: every one-call kernel against numpy (and its cycles against the C++ CLI)."""
import numpy as np
import pytest

import cubekit
from cubekit import kernels
from conftest import assert_report, f32, gelu_ref, matmul_ref, run_cli, run_cli_json

M, N, K = 64, 48, 96


@pytest.fixture
def ab(rng):
    return rng.uniform(-1, 1, (M, K)).astype(np.float16), rng.uniform(-1, 1, (K, N)).astype(np.float16)


def test_kernel_names():
    assert sorted(kernels.names) == ["adaptive_avg_pool2d", "add", "attention", "avg_pool2d", "cast", "conv2d", "div", "exp", "gelu",
                                     "layernorm", "matmul", "max", "max_pool2d", "maximum", "mean", "min", "minimum",
                                     "mul", "relu", "rmsnorm", "sigmoid", "silu", "softmax", "sub", "sum", "tanh"]


# ---- matmul ----

def test_matmul_f16(ab):
    a, b = ab
    c, report = kernels.matmul(a, b)
    assert c.dtype == np.float32 and c.shape == (M, N)
    np.testing.assert_allclose(c, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert_report(report)
    assert report["diagnostics"] == [] and report["pipes"]["M"]["instructions"] > 0
    assert 0 < report["ratios"]["mac_ratio"] <= 1


def test_matmul_matches_the_cli(ab):
    """The same kernel through the C++ CLI takes the same cycles."""
    a, b = ab
    _, report = kernels.matmul(a, b)
    cli = run_cli_json("kernel", "matmul", "--m", M, "--n", N, "--k", K, "--timing-only")
    assert cli["cycles"] == report["cycles"]
    assert cli["ratios"] == pytest.approx(report["ratios"])
    _, naive = kernels.matmul(a, b, schedule="naive")
    cli = run_cli_json("kernel", "matmul", "--m", M, "--n", N, "--k", K, "--schedule", "naive", "--timing-only")
    assert cli["cycles"] == naive["cycles"]


def test_matmul_out_f16(ab):
    a, b = ab
    c, _ = kernels.matmul(a, b, out="f16")
    assert c.dtype == np.float16
    np.testing.assert_allclose(f32(c), matmul_ref(a, b), rtol=1e-3, atol=2e-3)


def test_matmul_s8(rng):
    a = rng.integers(-128, 128, (M, K)).astype(np.int8)
    bt = rng.integers(-128, 128, (N, K)).astype(np.int8)  # s8 takes B as n x k
    c, report = kernels.matmul(a, bt, transpose_b=True)
    assert c.dtype == np.int32
    np.testing.assert_array_equal(c, a.astype(np.int32) @ bt.astype(np.int32).T)
    assert_report(report)


@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)])
def test_matmul_transposes(ab, ta, tb):
    a, b = ab
    c, _ = kernels.matmul(np.ascontiguousarray(a.T) if ta else a, np.ascontiguousarray(b.T) if tb else b,
                          transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(c, matmul_ref(a, b), rtol=1e-5, atol=1e-5)


def test_matmul_batch(rng):
    a = rng.uniform(-1, 1, (3, 32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (3, 64, 40)).astype(np.float16)
    c, report = kernels.matmul(a, b)
    assert c.shape == (3, 32, 40)
    np.testing.assert_allclose(c, matmul_ref(a, b), rtol=1e-5, atol=1e-5)
    assert_report(report)


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2", "ascend950pr"])
@pytest.mark.parametrize("epilogue", [("bias",), ("relu",), ("gelu",), ("scale",), ("bias", "relu"),
                                      ("scale", "bias", "gelu")])
def test_matmul_epilogues(ab, rng, epilogue, chip):
    """On every preset: the split chips fuse ReLU into the FixPipe and run the rest on the vector cores."""
    a, b = ab
    bias = rng.standard_normal(N).astype(np.float32)
    kwargs = {"bias": bias} if "bias" in epilogue else {}
    if "scale" in epilogue:
        kwargs["scale"] = 0.25
    c, report = kernels.matmul(a, b, epilogue=list(epilogue), chip=chip, **kwargs)
    x = matmul_ref(a, b).astype(np.float64)
    if "scale" in epilogue:
        x = 0.25 * x
    if "bias" in epilogue:
        x = x + bias
    if "relu" in epilogue:
        x = np.maximum(x, 0)
    if "gelu" in epilogue:
        x = gelu_ref(x)
    assert c.dtype == np.float32
    np.testing.assert_allclose(c, x, rtol=1e-5, atol=1e-5)
    assert_report(report)


def test_matmul_epilogue_with_f16_out(ab, rng):
    a, b = ab
    bias = rng.standard_normal(N).astype(np.float32)
    c, _ = kernels.matmul(a, b, epilogue=("bias", "relu"), bias=bias, out="f16")
    assert c.dtype == np.float16
    np.testing.assert_allclose(f32(c), np.maximum(matmul_ref(a, b) + bias, 0), rtol=1e-3, atol=2e-3)


def test_matmul_naive_and_overrides(ab):
    a, b = ab
    ref = matmul_ref(a, b)
    c0, default = kernels.matmul(a, b)
    c1, naive = kernels.matmul(a, b, schedule="naive")
    c2, tuned = kernels.matmul(a, b, l1_copies=2, stagger=False, tm=32, tn=16, tk_l0=32, tk_l1=64, core_group=1,
                               double_buffer=True, use_cores=True)
    c3, one_core = kernels.matmul(a, b, use_cores=False, double_buffer=False)
    for c in (c0, c1, c2, c3):
        np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)
    assert naive["cores"] == 1 and one_core["cores"] == 1
    assert default["cores"] > 1 and tuned["cores"] == (M // 32) * (N // 16)
    assert naive["cycles"] > default["cycles"]


def test_matmul_trace(ab, tmp_path):
    import json
    a, b = ab
    kernels.matmul(a, b, trace=str(tmp_path / "mm.json"))
    assert json.loads((tmp_path / "mm.json").read_text())["traceEvents"]


# ---- vector kernels ----

@pytest.fixture(params=[np.float16, np.float32], ids=["f16", "f32"])
def xy(request, rng):
    t = request.param
    return rng.standard_normal((8, 256)).astype(t), rng.standard_normal((8, 256)).astype(t)


def test_add_mul_relu(xy):
    x, y = xy
    out, report = kernels.add(x, y)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, x + y)
    assert_report(report)
    assert report["pipes"]["V"]["instructions"] > 0 and report["pipes"]["M"]["instructions"] == 0
    np.testing.assert_array_equal(kernels.mul(x, y)[0], x * y)
    np.testing.assert_array_equal(kernels.relu(x)[0], np.maximum(x, 0))


def test_gelu(xy):
    x, _ = xy
    out, _ = kernels.gelu(x)
    tol = 2e-3 if x.dtype == np.float16 else 1e-5
    np.testing.assert_allclose(f32(out), gelu_ref(x), rtol=tol, atol=tol)


@pytest.mark.parametrize("to", ["f32", np.float16, "s32", "f16"])
def test_cast(rng, to):
    x = (rng.standard_normal((4, 128)) * 100).astype(np.float32)
    if to in ("f16", np.float16):
        x = x.astype(np.float16) if to == "f16" else x
    out, _ = kernels.cast(x, to)
    expected_type = {"f32": np.float32, "f16": np.float16, "s32": np.int32}.get(to, to)
    assert out.dtype == expected_type
    if expected_type == np.int32:
        np.testing.assert_array_equal(out, x.astype(np.int32))  # towards zero, as numpy (and Halide) cast
    else:
        np.testing.assert_array_equal(out, x.astype(expected_type))


def softmax_ref(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("chip, cores", [("ascend910b2", 48), ("ascend950pr", 64)])
def test_vector_kernels_on_the_split_chips(rng, chip, cores):
    """The vector kernels run on the split chips' vector cores. These chips start a launch's cores
    one after another, and the compiler starts no more of them than pay off: 128 rows spread over
    every core (in tiles of ceil(128 / cores) rows) take longer than its choice."""
    x = rng.uniform(-3, 3, (128, 70)).astype(np.float16)
    y, report = kernels.softmax(x, chip=chip)
    e = np.exp(f32(x) - f32(x).max(-1, keepdims=True))
    np.testing.assert_allclose(f32(y), e / e.sum(-1, keepdims=True), rtol=1e-2, atol=1e-3)
    assert report["chip"] == chip and report["diagnostics"] == []
    assert 1 < report["blocks"] < cores
    _, spread = kernels.softmax(x, chip=chip, tile_rows=-(-128 // cores), timing_only=True)
    assert spread["blocks"] == -(-128 // -(-128 // cores))
    assert report["cycles"] < spread["cycles"]
    s, _ = kernels.sum(x.astype(np.float32), axis=-1, chip=chip)
    np.testing.assert_allclose(s, x.astype(np.float64).sum(-1), rtol=1e-4, atol=1e-3)


def test_softmax(xy):
    x, _ = xy
    out, report = kernels.softmax(x)
    assert out.dtype == x.dtype
    np.testing.assert_allclose(f32(out), softmax_ref(x), atol=1e-3 if x.dtype == np.float16 else 1e-6)
    assert_report(report)


def test_softmax_3d_naive_and_tile_rows(rng):
    x = rng.standard_normal((2, 3, 64)).astype(np.float32)
    for kwargs in ({"schedule": "naive"}, {"tile_rows": 2}, {"schedule": "naive", "tile_rows": 3}):
        out, report = kernels.softmax(x, **kwargs)
        np.testing.assert_allclose(out, softmax_ref(x), atol=1e-6)
        if kwargs.get("schedule") == "naive":
            assert report["cores"] == 1


def test_layernorm_and_rmsnorm(xy, rng):
    x, _ = xy
    gamma = rng.standard_normal(256).astype(x.dtype)
    beta = rng.standard_normal(256).astype(x.dtype)
    xd = x.astype(np.float64)
    tol = 1e-2 if x.dtype == np.float16 else 1e-5
    out, report = kernels.layernorm(x, gamma, beta, eps=1e-3)
    mu, var = xd.mean(-1, keepdims=True), xd.var(-1, keepdims=True)
    np.testing.assert_allclose(f32(out), (xd - mu) / np.sqrt(var + 1e-3) * gamma + beta, rtol=tol, atol=tol)
    assert_report(report)
    out, _ = kernels.rmsnorm(x, gamma)
    rms = np.sqrt((xd ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(f32(out), xd / rms * gamma, rtol=tol, atol=tol)


def test_vector_naive_schedule_and_cli(rng):
    x = rng.standard_normal((8, 256)).astype(np.float16)
    out, naive = kernels.relu(x, schedule="naive")
    np.testing.assert_array_equal(out, np.maximum(x, 0))
    assert naive["cores"] == 1
    _, default = kernels.softmax(x)
    cli = run_cli_json("kernel", "softmax", "--rows", 8, "--cols", 256, "--timing-only")
    assert cli["cycles"] == default["cycles"]


def test_vector_kernels_on_a_config_and_trace(rng, tmp_path):
    import json
    x = rng.standard_normal((8, 256)).astype(np.float32)
    out, report = kernels.gelu(x, chip=cubekit.chip("ascend910"), trace=tmp_path / "g.json")
    np.testing.assert_allclose(out, gelu_ref(x), rtol=1e-5, atol=1e-5)
    assert json.loads((tmp_path / "g.json").read_text())["otherData"]["cycles"] == report["cycles"]


@pytest.mark.parametrize("chip", ["ascend910", "ascend910b2"])
def test_gm_bytes_counts_every_path_to_or_from_gm(rng, chip):
    """report["gm_bytes"]: every path with GM at one end; on a split chip the result leaves L0C for
    GM directly, which the bench's count left out (a bench probe: less than A + B + C)."""
    a, b = rng.standard_normal((128, 128)).astype(np.float16), rng.standard_normal((128, 128)).astype(np.float16)
    c, report = kernels.matmul(a, b, chip=chip)
    assert report["gm_bytes"] == sum(v for path, v in report["bytes"].items() if "GM" in path.split("->"))
    assert report["gm_bytes"] >= a.nbytes + b.nbytes + c.nbytes


def test_matmul_epilogue_as_the_cli_writes_it(rng):
    """"bias,relu" is the list ["bias", "relu"] (a bias given with it was refused as 'the epilogue has
    no bias'), and epilogue=None is none."""
    a, b = rng.standard_normal((16, 32)).astype(np.float16), rng.standard_normal((32, 16)).astype(np.float16)
    bias = rng.standard_normal(16).astype(np.float32)
    y, _ = kernels.matmul(a, b, epilogue="bias,relu", bias=bias)
    want = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-3)
    y, _ = kernels.matmul(a, b, epilogue=None)
    np.testing.assert_allclose(y, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-3, atol=1e-3)


def test_timing_only_neither_copies_nor_converts_the_inputs():
    """A timing-only run reads no data (issue 14): zero-stride broadcasts, transposed views and moved axes
    stay views. Copied, these inputs would take 16 MB (matmul) and 32 MB (the sum and the softmax); numpy
    reports its arrays to tracemalloc, so a copy shows in the peak (the softmax's result, 32 MB of zeros
    the pages of which are never touched, counts whole). The functional runs copy and give numpy's values."""
    import tracemalloc
    a = np.broadcast_to(np.float16(1), (256, 16384))
    b = np.broadcast_to(np.float16(1), (16384, 256))
    x = np.broadcast_to(np.float16(1), (16384, 1024))
    runs = [("matmul", lambda: kernels.matmul(a, b, timing_only=True), 4 << 20),
            ("sum", lambda: kernels.sum(x, axis=0, timing_only=True), 4 << 20),
            ("softmax", lambda: kernels.softmax(x, axis=0, timing_only=True), (32 << 20) + (4 << 20))]
    tracemalloc.start()
    try:
        for name, run, bound in runs:
            tracemalloc.reset_peak()
            run()
            peak = tracemalloc.get_traced_memory()[1]
            assert peak < bound, f"a timing-only {name} allocated {peak} bytes on the host"
    finally:
        tracemalloc.stop()
    c, _ = kernels.matmul(a[:32, :64], b[:64, :32])
    np.testing.assert_array_equal(c, np.full((32, 32), 64, np.float32))
    s, _ = kernels.sum(x[:64, :32], axis=0)
    np.testing.assert_allclose(s, np.full(32, 64), rtol=1e-3)


def test_matmul_k_or_batch_that_differ_are_named():
    """a's k against b's, and the batches: not "input 'B' has shape .. but the tensor has .." of a
    tensor shaped from a."""
    with pytest.raises(cubekit.Error, match=r"matmul: a \(16, 8\) has k = 8 but b \(16, 16\) has k = 16; a's columns and "
                                       r"b's rows must be as many"):
        kernels.matmul(np.ones((16, 8), np.float16), np.ones((16, 16), np.float16))
    with pytest.raises(cubekit.Error, match=r"b \(16, 16\) \(transposed\) has k = 16"):
        kernels.matmul(np.ones((16, 8), np.float16), np.ones((16, 16), np.float16), transpose_b=True)
    with pytest.raises(cubekit.Error, match=r"matmul: a \(2, 16, 8\) and b \(3, 8, 16\) have batches 2 and 3"):
        kernels.matmul(np.ones((2, 16, 8), np.float16), np.ones((3, 8, 16), np.float16))


# ---- reports name the ready kernel ----

def test_reports_name_the_ready_kernel_and_the_program(rng):
    """report["kernel"] is the kernel called (as an empty input's report says), in Python and in the CLI's
    JSON; report["program"] is the program's own name (its output's)."""
    a = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    x = rng.uniform(-1, 1, (1, 16, 8, 8)).astype(np.float16)
    w = rng.uniform(-1, 1, (16, 16, 3, 3)).astype(np.float16)
    q = rng.uniform(-1, 1, (1, 1, 64, 64)).astype(np.float16)
    calls = {"matmul": lambda: kernels.matmul(a, a, timing_only=True),
             "conv2d": lambda: kernels.conv2d(x, w, timing_only=True),
             "max_pool2d": lambda: kernels.max_pool2d(x, 2, timing_only=True),
             "avg_pool2d": lambda: kernels.avg_pool2d(x, 2, timing_only=True),
             "adaptive_avg_pool2d": lambda: kernels.adaptive_avg_pool2d(x, 1, timing_only=True),
             "attention": lambda: kernels.attention(q, q, q, timing_only=True),
             "add": lambda: kernels.add(a, a, timing_only=True)}
    for name, call in calls.items():
        _, report = call()
        assert report["kernel"] == name, name
    _, empty = kernels.conv2d(np.zeros((0, 16, 8, 8), np.float16), w)
    assert empty["kernel"] == "conv2d"
    for args, name, program in ((["matmul", "--m", "32", "--n", "32", "--k", "32"], "matmul", "C"),
                                (["conv2d", "--c", "16", "--h", "8", "--w", "8", "--k", "16"], "conv2d", "Y"),
                                (["max_pool2d", "--c", "16", "--h", "8", "--w", "8"], "max_pool2d", "Y"),
                                (["global_avg_pool2d", "--c", "16", "--h", "8", "--w", "8"], "global_avg_pool2d", "Y"),
                                (["softmax", "--rows", "8", "--cols", "8"], "softmax", "softmax")):
        cli = run_cli_json("kernel", *args, "--timing-only")
        assert (cli["kernel"], cli["program"]) == (name, program), args


def test_the_clis_cast_to_an_integer_is_checked_over_the_types_range():
    """On inputs in [-1, 1) every s8 result was 0: the check compared zeros. They now span the type's range
    and half as much again, so that the rounding and the saturation are checked against Halide."""
    for to, scale in (("s8", "192"), ("u8", "382.5"), ("s32", "65504")):
        out = run_cli("kernel", "cast", "--rows", "32", "--cols", "32", "--to", to).stdout
        assert f"cast [32, 32] f16 -> {to}, inputs in [-{scale}, {scale})" in out, out
        assert "(bit-exact): PASS" in out, out


def test_the_clis_json_says_how_the_kernel_was_configured():
    """Two runs that differ in a type, an epilogue or a window gave the same JSON but for the cycles."""
    mm = run_cli_json("kernel", "matmul", "--m", "40", "--n", "40", "--k", "40", "--epilogue", "bias,gelu", "--out", "f16",
                      "--transpose-a", "--timing-only")
    assert (mm["dtype"], mm["out"], mm["epilogue"], mm["transpose_a"], mm["transpose_b"]) == ("f16", "f16", ["bias", "gelu"], True, False)
    assert mm["headline"] == "matmul 40x40x40 f16 -> f16, A transposed, epilogue bias,gelu"
    assert 0 < mm["program_instructions"] < mm["instructions"]  # the program's length; those run, loops counted
    pool = run_cli_json("kernel", "avg_pool2d", "--c", "16", "--h", "9", "--w", "9", "--kernel", "3", "--stride", "2", "--pad", "1",
                        "--timing-only")
    assert {k: pool["shape"][k] for k in ("kernel", "stride", "pad", "oh", "ow")} == {"kernel": 3, "stride": 2, "pad": 1, "oh": 5, "ow": 5}
    cast = run_cli_json("kernel", "cast", "--rows", "4", "--cols", "4", "--to", "s8", "--timing-only")
    assert (cast["dtype"], cast["to"]) == ("f16", "s8")
    add = run_cli_json("kernel", "add", "--rows", "4", "--cols", "4", "--y-shape", "4,1", "--timing-only")
    assert add["y_shape"] == [4, 1] and "scalar" not in add
