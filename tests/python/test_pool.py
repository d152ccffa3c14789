"""kernels.max_pool2d, avg_pool2d and adaptive_avg_pool2d against numpy loops written here, with
torch.nn.functional's meaning, and their errors."""
import numpy as np
import pytest

import cubekit as ck
from cubekit import kernels


def _windows(x, k, s, p, d, fill):
    """(N, C, OH, OW, KH*KW) of x's windows, padding = fill (numpy, float64)."""
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * p[0], w + 2 * p[1]), fill, np.float64)
    xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    taps = [xp[:, :, i * d[0]:i * d[0] + s[0] * (oh - 1) + 1:s[0], j * d[1]:j * d[1] + s[1] * (ow - 1) + 1:s[1]]
            for i in range(k[0]) for j in range(k[1])]
    return np.stack(taps, axis=-1)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def numpy_max_pool(x, k, s=None, p=0, d=1):
    k, p, d = _pair(k), _pair(p), _pair(d)
    s = k if s is None else _pair(s)
    return _windows(x, k, s, p, d, -np.inf).max(axis=-1).astype(x.dtype)


def numpy_avg_pool(x, k, s=None, p=0):
    k, p = _pair(k), _pair(p)
    s = k if s is None else _pair(s)
    return _windows(x.astype(np.float32), k, s, p, (1, 1), 0).mean(axis=-1).astype(x.dtype)


@pytest.mark.parametrize("shape,k,s,p,d,dtype,chip", [
    ((1, 64, 28, 28), 3, 2, 1, 1, np.float16, "ascend910"),   # ResNet's stem pool, smaller
    ((2, 20, 13, 11), 3, 2, 1, 1, np.float16, "ascend910b2"),
    ((1, 8, 9, 12), (2, 3), (1, 2), (1, 1), 1, np.float32, "ascend950pr"),
    ((1, 16, 12, 12), 3, 1, 2, 2, np.float16, "ascend910"),
    ((1, 16, 8, 8), 2, None, 0, 1, np.float16, "ascend910b2"),
    ((1, 3, 2, 1), (1, 3), (1, 3), (0, 1), 1, np.float32, "ascend910"),  # a window wider than the map
])
def test_max_pool2d_matches_numpy(rng, shape, k, s, p, d, dtype, chip):
    x = rng.uniform(-4, 4, shape).astype(dtype)
    y, report = kernels.max_pool2d(x, k, s, p, d, chip=chip)
    want = numpy_max_pool(x, k, s, p, d)
    assert y.shape == want.shape and y.dtype == x.dtype
    np.testing.assert_array_equal(y, want)
    assert report["diagnostics"] == [] and report["launched"]
    assert any("NC1HWC0" in h for h in report["host"])  # TransData on the vector unit, or the host for f32


def test_max_pool2d_pads_with_minus_infinity(rng):
    x = -rng.uniform(1, 4, (1, 16, 6, 6)).astype(np.float16)  # all negative: zero padding would show
    y, _ = kernels.max_pool2d(x, 3, 2, 1)
    np.testing.assert_array_equal(y, numpy_max_pool(x, 3, 2, 1))
    assert (y < 0).all()


@pytest.mark.parametrize("shape,k,s,p,dtype,chip", [
    ((1, 16, 9, 9), 3, 2, 1, np.float16, "ascend910"),
    ((2, 40, 8, 6), 2, None, 0, np.float16, "ascend910b2"),
    ((1, 8, 7, 7), 3, 1, 1, np.float32, "ascend950pr"),
    ((1, 17, 3, 1), 3, None, (0, 1), np.float16, "ascend910b2"),  # a window wider than the map
])
def test_avg_pool2d_matches_numpy(rng, shape, k, s, p, dtype, chip):
    x = rng.uniform(-4, 4, shape).astype(dtype)
    y, report = kernels.avg_pool2d(x, k, s, p, chip=chip)
    want = numpy_avg_pool(x, k, s, p)
    np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=2e-3 if dtype == np.float16 else 1e-6,
                               atol=2e-3 if dtype == np.float16 else 1e-6)
    assert report["diagnostics"] == []


@pytest.mark.parametrize("shape,dtype", [((2, 64, 7, 7), np.float16), ((1, 24, 5, 6), np.float32)])
def test_adaptive_avg_pool2d_is_the_global_average(rng, shape, dtype):
    x = rng.uniform(-4, 4, shape).astype(dtype)
    y, report = kernels.adaptive_avg_pool2d(x, 1, chip="ascend910b2")
    want = x.astype(np.float32).mean(axis=(2, 3), keepdims=True).astype(dtype)
    assert y.shape == shape[:2] + (1, 1)
    np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)
    assert report["diagnostics"] == []


def test_a_wide_global_average_runs_single_buffered(rng):
    """48 x 48 f16 on the 910: a row's tile does not fit UB twice, so the default schedule takes one
    copy (it was refused as 'too wide ... drop double_buffer()'); asked for, double buffering is refused."""
    x = rng.uniform(-4, 4, (1, 16, 48, 48)).astype(np.float16)
    y, report = kernels.adaptive_avg_pool2d(x, 1, chip="ascend910")
    want = x.astype(np.float32).mean(axis=(2, 3), keepdims=True).astype(np.float16)
    np.testing.assert_allclose(y.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)
    assert report["diagnostics"] == []
    with pytest.raises(ck.Error, match="needs 295040 bytes of UB but ascend910 has 262144"):
        kernels.adaptive_avg_pool2d(x, 1, chip="ascend910", double_buffer=True)


def test_overrides_are_schedules_of_the_same_result(rng):
    x = rng.uniform(-4, 4, (1, 32, 17, 17)).astype(np.float16)
    a, ra = kernels.max_pool2d(x, 3, 2, 1)
    b, rb = kernels.max_pool2d(x, 3, 2, 1, rows=2, double_buffer=False, use_cores=False)
    np.testing.assert_array_equal(a, b)
    assert rb["cores"] == 1 and ra["cores"] > 1


@pytest.mark.parametrize("call,message", [
    (lambda x: kernels.max_pool2d(x, 3, 2, 2), r"^max_pool2d: padding 2 along the height is more than half the window"),
    (lambda x: kernels.max_pool2d(x, 4, ceil_mode=True), r"^max_pool2d: ceil_mode=True is not supported where it adds "
                                                          r"partial windows at the end \(here 1 x 1 outputs become 2 x 2\)"),
    (lambda x: kernels.max_pool2d(x, 3, return_indices=True), r"^max_pool2d: return_indices=True is not supported"),
    (lambda x: kernels.max_pool2d(x, 9), r"^max_pool2d: the 9 x 9 window .* is larger than the 6 x 6 input"),
    (lambda x: kernels.max_pool2d(x, 0), r"^max_pool2d: kernel_size must be an integer or a pair"),
    (lambda x: kernels.max_pool2d(x.astype(np.int32), 3), r"^max_pool2d: the vector unit pools float16 and float32"),
    (lambda x: kernels.max_pool2d(x[0], 3), r"^max_pool2d: x must be NCHW \(4-D\), got 3-D"),
    (lambda x: kernels.avg_pool2d(x, 2, padding=1, count_include_pad=False),
     r"^avg_pool2d: count_include_pad=False is not supported with padding"),
    (lambda x: kernels.avg_pool2d(x, 2, divisor_override=3), r"^avg_pool2d: divisor_override is not supported"),
    (lambda x: kernels.adaptive_avg_pool2d(x, 2), r"^adaptive_avg_pool2d: only output_size=1"),
    (lambda x: kernels.max_pool2d(x, 3, rows=-1), r"max_pool2d: rows must be at least 1"),
    (lambda x: kernels.max_pool2d(x, 3, tiles=2), r"^max_pool2d: unknown option 'tiles'"),
    (lambda x: kernels.max_pool2d(np.zeros((1, 4, 0, 5), np.float16), 3), r"^max_pool2d: x has an empty map"),
])
def test_errors_say_what_is_wrong(call, message):
    x = np.ones((1, 4, 6, 6), np.float16)
    with pytest.raises(ck.Error, match=message):
        call(x)


def test_the_reports_count_transdata_on_the_vector_unit(rng):
    x = rng.uniform(-4, 4, (2, 32, 14, 14)).astype(np.float16)
    _, report = kernels.max_pool2d(x, 3, 2, 1)
    assert [t["direction"] for t in report["transdata"]] == ["in", "out"]
    assert all(t["cycles"] > 0 for t in report["transdata"]) and report["host_conversions"] == []
    assert all(t["checked"] for t in report["transdata"])  # run with the data: the host's conversion, bit for bit
    _, report = kernels.max_pool2d(x, 3, 2, 1, timing_only=True)
    assert [t["checked"] for t in report["transdata"]] == [False, False] and all(t["cycles"] > 0 for t in report["transdata"])
    _, report = kernels.max_pool2d(x.astype(np.float32), 3, 2, 1)  # no 32-bit transpose: the host converts
    assert report["transdata"] == [] and len(report["host_conversions"]) == 2


def test_ceil_mode_and_count_include_pad_where_they_change_nothing(rng):
    """ceil_mode=True where the windows fit the input exactly, count_include_pad=False without
    padding: torch's same result, which the kernel computes (they were refused)."""
    x = rng.uniform(-4, 4, (1, 16, 6, 6)).astype(np.float16)
    a, _ = kernels.max_pool2d(x, 2, 2, ceil_mode=True)
    np.testing.assert_array_equal(a, x.reshape(1, 16, 3, 2, 3, 2).max(axis=(3, 5)))
    b, _ = kernels.avg_pool2d(x, 3, 3, ceil_mode=True, count_include_pad=False)
    want = x.astype(np.float32).reshape(1, 16, 2, 3, 2, 3).mean(axis=(3, 5)).astype(np.float16)
    np.testing.assert_allclose(b.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=2e-3)
