"""The cube's convolution layouts from Python, against numpy's own padding and transposes, and the
example convolution (examples/asm/conv2d_f16.s) run on converted arrays against a numpy convolution."""
import numpy as np
import pytest

import cubekit as ck


def nc1hwc0_numpy(x, c0):
    n, c, h, w = x.shape
    c1 = -(-c // c0)
    padded = np.zeros((n, c1 * c0, h, w), x.dtype)
    padded[:, :c] = x
    return padded.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2)


def fractal_z_numpy(w, c0):
    k, c, kh, kw = w.shape
    c1, n1 = -(-c // c0), -(-k // 16)
    padded = np.zeros((n1 * 16, c1 * c0, kh, kw), w.dtype)
    padded[:k, :c] = w
    # (N1, N0, C1, C0, KH, KW) -> (C1, KH, KW, N1, N0, C0)
    t = padded.reshape(n1, 16, c1, c0, kh, kw).transpose(2, 4, 5, 0, 1, 3)
    return t.reshape(c1 * kh * kw, n1, 16, c0)


@pytest.mark.parametrize("dtype,c0", [(np.float16, 16), (np.int8, 32)])
def test_feature_maps_round_trip(rng, dtype, c0):
    x = (rng.uniform(-100, 100, (2, 21, 3, 5))).astype(dtype)
    y = ck.nchw_to_nc1hwc0(x)
    assert y.shape == (2, -(-21 // c0), 3, 5, c0) and y.dtype == dtype
    np.testing.assert_array_equal(y, nc1hwc0_numpy(x, c0))
    np.testing.assert_array_equal(ck.nc1hwc0_to_nchw(y, 21), x)


@pytest.mark.parametrize("dtype,c0", [(np.float16, 16), (np.int8, 32)])
def test_weights_in_fractal_z(rng, dtype, c0):
    w = (rng.uniform(-100, 100, (24, 20, 3, 2))).astype(dtype)
    z = ck.kchw_to_fractal_z(w)
    np.testing.assert_array_equal(z, fractal_z_numpy(w, c0))


def test_the_example_convolution_matches_numpy(rng, source_dir):
    x = rng.uniform(-1, 1, (1, 20, 8, 8)).astype(np.float16)
    w = rng.uniform(-1, 1, (24, 20, 3, 3)).astype(np.float16)
    prog = ck.load(str(source_dir / "examples" / "asm" / "conv2d_f16.s"))
    out, report = ck.run(prog, {"X": ck.nchw_to_nc1hwc0(x), "W": ck.kchw_to_fractal_z(w)})
    assert report["diagnostics"] == []
    xp = np.pad(x[0].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
    want = np.zeros((8, 8, 24))
    for i in range(3):
        for j in range(3):
            want += np.einsum("chw,kc->hwk", xp[:, i:i + 8, j:j + 8], w[:, :, i, j].astype(np.float64))
    y = out["Y"].reshape(8, 8, 32)
    np.testing.assert_allclose(y[:, :, :24], want, rtol=1e-4, atol=1e-4)
    assert not y[:, :, 24:].any()


def test_layout_errors():
    with pytest.raises(ck.Error, match=r"nchw_to_nc1hwc0: give a 4-dimensional array \(N, C, H, W\); this one has 2"):
        ck.nchw_to_nc1hwc0(np.zeros((2, 3), np.float16))
    with pytest.raises(ck.Error, match=r"the array is f32; the cube's weights are 16-bit data"):
        ck.kchw_to_fractal_z(np.zeros((16, 16, 1, 1), np.float32))
    with pytest.raises(ck.Error, match=r"nc1hwc0_to_nchw: 40 channels do not fill C1 = 2 blocks of 16; give 17 to 32"):
        ck.nc1hwc0_to_nchw(np.zeros((1, 2, 3, 3, 16), np.float16), 40)
    with pytest.raises(ck.Error, match=r"the last dimension is C0, 16 for f16 data; this array's is 8"):
        ck.nc1hwc0_to_nchw(np.zeros((1, 2, 3, 3, 8), np.float16), 20)
    with pytest.raises(ck.Error, match=r"kchw_to_fractal_z: give a numpy array"):
        ck.kchw_to_fractal_z([[1, 2]])
    # A broadcast view of 32 GiB holds no memory: refused before its copy (which crashed the interpreter).
    huge = np.broadcast_to(np.zeros((), np.float16), (131072, 131072, 1, 1))
    for convert in (ck.nchw_to_nc1hwc0, ck.kchw_to_fractal_z):
        with pytest.raises(ck.Error, match=r"would need more than 17179869184 bytes, cubekit's limit for one GM tensor"):
            convert(huge)
    with pytest.raises(ck.Error, match=r"nc1hwc0_to_nchw: .* would need more than 17179869184 bytes"):
        ck.nc1hwc0_to_nchw(np.broadcast_to(np.zeros((), np.float16), (65536, 8192, 2, 1, 16)), 131072)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_a_convolutions_32_bit_output_has_16_channels_a_block(dtype):
    """A conv2d program's Y (f32, or s32 of s8) and residual R are NC1HWC0 with C0 = 16, as L0C holds
    them: the helpers convert them both ways (they refused 32-bit data)."""
    x = np.arange(1 * 20 * 3 * 2).reshape(1, 20, 3, 2).astype(dtype)
    y = ck.nchw_to_nc1hwc0(x)
    assert y.shape == (1, 2, 3, 2, 16) and y.dtype == dtype
    for c in range(20):
        np.testing.assert_array_equal(y[:, c // 16, :, :, c % 16], x[:, c])
    assert not y[:, 1, :, :, 4:].any()
    np.testing.assert_array_equal(ck.nc1hwc0_to_nchw(y, 20), x)
