"""kernels.conv2d against a numpy convolution written here (torch.nn.functional.conv2d's meaning):
strides, padding (numbers, pairs, 'same', 'valid'), dilation, groups (depthwise included), the
fused batch norm, residual and ReLU, f16 and int8, on every chip preset; its option errors."""
import numpy as np
import pytest

import cubekit as ck

PRESETS = ["ascend910", "ascend910b2", "ascend950pr"]


def conv_numpy(x, w, stride=(1, 1), pad=(0, 0), dilation=(1, 1), groups=1):
    """NCHW x, (K, C / groups, KH, KW) w, in float64: a sum over the window's shifted slices."""
    n, c, h, wd = x.shape
    k, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, pad, dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    y = np.zeros((n, k, oh, ow))
    kg = k // groups
    for g in range(groups):
        xs, ws = xp[:, g * cg:(g + 1) * cg], w[g * kg:(g + 1) * kg].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                y[:, g * kg:(g + 1) * kg] += np.einsum("nchw,kc->nkhw", patch, ws[:, :, i, j])
    return y


def halves(rng, shape):
    return rng.uniform(-1, 1, shape).astype(np.float16)


CASES = [  # (x shape, w shape, stride, padding, dilation, groups)
    ((1, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1, 1),
    ((2, 20, 9, 11), (24, 20, 3, 3), (2, 1), 1, 1, 1),
    ((1, 8, 12, 10), (16, 8, 3, 3), 1, (2, 1), (2, 1), 1),
    ((1, 3, 30, 30), (8, 3, 7, 7), 2, 3, 1, 1),
    ((1, 64, 7, 7), (32, 64, 1, 1), 1, 0, 1, 1),
    ((2, 8, 9, 9), (12, 4, 3, 3), 2, 1, 1, 2),
    ((1, 12, 7, 7), (12, 1, 3, 3), 1, 1, 1, 12),
    ((1, 4, 6, 6), (8, 4, 3, 3), 1, (1, 0), 1, 1),  # no width padding: 0 is 0, not "as the height"
]


@pytest.mark.parametrize("chip", PRESETS)
@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", CASES)
def test_matches_numpy(rng, chip, xs, ws, stride, padding, dilation, groups):
    x, w = halves(rng, xs), halves(rng, ws)
    pair = lambda v: v if isinstance(v, tuple) else (v, v)  # noqa: E731
    y, report = ck.kernels.conv2d(x, w, stride=stride, padding=padding, dilation=dilation, groups=groups, chip=chip)
    want = conv_numpy(x, w, pair(stride), pair(padding), pair(dilation), groups)
    assert y.shape == want.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-3)
    assert report["diagnostics"] == []
    assert any("TransData" in h for h in report["host"])


def test_same_padding_of_a_one_wide_kernel_pads_only_the_height(rng):
    x, w = halves(rng, (1, 3, 5, 2)), halves(rng, (4, 3, 3, 1))
    y, _ = ck.kernels.conv2d(x, w, padding="same")
    assert y.shape == (1, 4, 5, 2)
    np.testing.assert_allclose(y, conv_numpy(x, w, pad=(1, 0)), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("chip", PRESETS)
def test_fused_batch_norm_residual_relu(rng, chip):
    x, w = halves(rng, (2, 16, 8, 8)), halves(rng, (24, 16, 3, 3))
    scale, shift = rng.uniform(0.5, 1.5, 24).astype(np.float32), rng.uniform(-1, 1, 24).astype(np.float32)
    residual = halves(rng, (2, 24, 8, 8))
    y, report = ck.kernels.conv2d(x, w, padding=1, bn=(scale, shift), residual=residual, relu=True, out="f16", chip=chip)
    conv = conv_numpy(x, w, pad=(1, 1))
    want = np.maximum(conv * scale[None, :, None, None] + shift[None, :, None, None] + residual, 0)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=2e-2, atol=2e-2)
    assert report["diagnostics"] == []


def test_batch_norm_alone_and_relu_alone(rng):
    x, w = halves(rng, (1, 8, 6, 6)), halves(rng, (20, 8, 1, 1))
    scale, shift = rng.uniform(-2, 2, 20).astype(np.float32), rng.uniform(-1, 1, 20).astype(np.float32)
    conv = conv_numpy(x, w)
    y, _ = ck.kernels.conv2d(x, w, bn=(scale, shift))
    np.testing.assert_allclose(y, conv * scale[None, :, None, None] + shift[None, :, None, None], rtol=1e-3, atol=1e-3)
    y, _ = ck.kernels.conv2d(x, w, relu=True)
    np.testing.assert_allclose(y, np.maximum(conv, 0), rtol=1e-3, atol=1e-3)


def test_int8_inference_is_exact(rng):
    x = rng.integers(-128, 128, (1, 40, 8, 8), dtype=np.int8)
    w = rng.integers(-128, 128, (16, 40, 3, 3), dtype=np.int8)
    y, _ = ck.kernels.conv2d(x, w, padding="same")
    assert y.dtype == np.int32
    np.testing.assert_array_equal(y, conv_numpy(x, w, pad=(1, 1)).astype(np.int64))


def test_valid_padding_and_schedule_overrides(rng):
    x, w = halves(rng, (1, 32, 10, 10), ), halves(rng, (48, 32, 3, 3))
    want = conv_numpy(x, w)
    for overrides in ({"rows": 1, "tn": 16, "channels": 16}, {"double_buffer": False, "use_cores": False}, {"l1_copies": 1}):
        y, report = ck.kernels.conv2d(x, w, padding="valid", **overrides)
        np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-3)
        assert report["diagnostics"] == []
    y, naive = ck.kernels.conv2d(x, w, schedule="naive")
    _, default = ck.kernels.conv2d(x, w)
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-3)
    assert default["cycles"] < naive["cycles"]


@pytest.mark.parametrize("call,message", [
    (lambda x, w: ck.kernels.conv2d(x[0], w), "4-D"),
    (lambda x, w: ck.kernels.conv2d(x, w.astype(np.float32)), "one type"),
    (lambda x, w: ck.kernels.conv2d(x, w, groups=3), "groups=3"),
    (lambda x, w: ck.kernels.conv2d(x, w, stride=0), "stride must be an integer or a pair of integers"),
    (lambda x, w: ck.kernels.conv2d(x, w, padding="full"), "'valid' or 'same'"),
    (lambda x, w: ck.kernels.conv2d(x, w, padding="same", stride=2), "stride 1"),
    (lambda x, w: ck.kernels.conv2d(x, w, bn=np.ones(8, np.float32)), "bn must be a pair"),
    (lambda x, w: ck.kernels.conv2d(x, w, bn=(np.ones(7, np.float32), np.ones(8, np.float32))), "it needs \\(8,\\)"),
    (lambda x, w: ck.kernels.conv2d(x, w, residual=np.ones((1, 8, 2, 2), np.float32)), "shaped as the output"),
    (lambda x, w: ck.kernels.conv2d(x, w, tiles=4), "unknown option 'tiles'"),
    (lambda x, w: ck.kernels.conv2d(x, np.repeat(w, 5, axis=0), tn=24), "multiple of 16"),
    (lambda x, w: ck.kernels.conv2d(x, w[:, :, :, :1].repeat(9, axis=3)), "larger than"),
    (lambda x, w: ck.kernels.conv2d(x[:, :3], w[:, :1], groups=2), "groups=2 must divide the input channels \\(x has 3\\)"),
    # An int8 convolution's s32 used to come back for out="f32" (the default), silently.
    (lambda x, w: ck.kernels.conv2d(x.astype(np.int8), w.astype(np.int8), out="f32"),
     "an int8 convolution gives s32 \\(the INT8 inference mode\\), not out='f32'"),
])
def test_errors(rng, call, message):
    x, w = halves(rng, (1, 4, 6, 6)), halves(rng, (8, 4, 3, 3))
    with pytest.raises(ck.Error, match=message):
        call(x, w)


def test_a_convolution_written_in_the_dsl(rng):
    """A user's own conv Func: recognised, scheduled by default_schedule, run with NCHW arrays."""
    I, W = ck.Input("I", "f16", [1, 4, 6, 6]), ck.Input("W", "f16", [8, 4, 3, 3])
    n, k, y, x = ck.Var("n"), ck.Var("k"), ck.Var("y"), ck.Var("x")
    r = ck.RDom([(0, 4), (0, 3), (0, 3)], "r")
    P = ck.constant_exterior(I, 0)
    O = ck.Func("O")
    O[n, k, y, x] = ck.sum(ck.cast("f32", P[n, r.x, y + r.y - 1, x + r.z - 1]) * ck.cast("f32", W[k, r.x, r.y, r.z]))
    O.bound(y, 0, 6).bound(x, 0, 6)
    xi, wi = halves(rng, (1, 4, 6, 6)), halves(rng, (8, 4, 3, 3))
    out, report = O.run({"I": xi, "W": wi}, schedule=ck.default_schedule(O))
    np.testing.assert_allclose(out, conv_numpy(xi, wi, pad=(1, 1)), rtol=1e-3, atol=1e-3)
    assert report["diagnostics"] == []
    layouts = ck.compile(O, schedule=ck.default_schedule(O)).layouts
    assert any("NC1HWC0" in s for s in layouts) and any("FRACTAL_Z" in s for s in layouts)


def test_a_hand_written_conv_schedule(rng):
    """docs/schedules.md's conv schedule: rows, channels and input channels per tile, cores, L1 copies."""
    C, K = 80, 128
    I, W = ck.Input("I", "f16", [2, C, 8, 8]), ck.Input("W", "f16", [K, C, 3, 3])
    n, k, y, x = ck.Var("n"), ck.Var("k"), ck.Var("y"), ck.Var("x")
    r = ck.RDom([(0, C), (0, 3), (0, 3)], "r")
    O = ck.Func("O")
    O[n, k, y, x] = ck.sum(ck.cast("f32", ck.constant_exterior(I, 0)[n, r.x, y + r.y - 1, x + r.z - 1])
                           * ck.cast("f32", W[k, r.x, r.y, r.z]))
    O.bound(y, 0, 8).bound(x, 0, 8)
    yo, yi, ko, ki, rco, rci = ck.Var("yo"), ck.Var("yi"), ck.Var("ko"), ck.Var("ki"), ck.RVar("rco"), ck.RVar("rci")
    O.split(y, yo, yi, 2).split(k, ko, ki, 64).split(r.x, rco, rci, 64).reorder([x, yi, ki, ko, yo, n])
    O.cores([n, yo, ko]).double_buffer().multi_buffer(ck.Level.L1, 4)
    xi, wi = halves(rng, (2, C, 8, 8)), halves(rng, (K, C, 3, 3))
    out, report = O.run({"I": xi, "W": wi})
    np.testing.assert_allclose(out, conv_numpy(xi, wi, pad=(1, 1)), rtol=1e-3, atol=1e-3)
    assert report["diagnostics"] == [] and report["cores"] == 2 * 4 * 2


@pytest.mark.parametrize("chip", PRESETS)
def test_subsampled_second_output(rng, chip):
    """subsampled=2: the kernel also writes y[:, :, ::2, ::2] (the strided-write fusion)."""
    x, w = halves(rng, (2, 32, 9, 10)), halves(rng, (48, 32, 1, 1))
    scale, shift = rng.uniform(0.5, 1.5, 48).astype(np.float32), rng.uniform(-1, 1, 48).astype(np.float32)
    y, ys, report = ck.kernels.conv2d(x, w, bn=(scale, shift), relu=True, out="f16", subsampled=2, chip=chip)
    want = np.maximum(conv_numpy(x, w) * scale[None, :, None, None] + shift[None, :, None, None], 0)
    np.testing.assert_allclose(y, want, rtol=1e-2, atol=1e-2)
    assert ys.shape == (2, 48, 5, 5) and ys.dtype == np.float16
    np.testing.assert_array_equal(ys, y[:, :, ::2, ::2])
    assert report["diagnostics"] == [] and "also" not in report


def test_subsampled_needs_a_16_bit_result(rng):
    x, w = halves(rng, (1, 16, 4, 4)), halves(rng, (16, 16, 1, 1))
    with pytest.raises(ck.Error, match="so it needs a 16-bit output: give out f16 or bf16"):
        ck.kernels.conv2d(x, w, subsampled=2)
