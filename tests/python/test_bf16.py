"""bf16 from Python: numpy has no bfloat16, so bf16 tensors take and give numpy.uint16 bit patterns,
and cubekit.bf16_from_float32 / bf16_to_float32 convert with the emulator's rounding. Checked
against a reference written here in numpy (nearest even by comparing the two neighbours)."""
import numpy as np
import pytest

import cubekit

# Y = bf16(X) and Z = f32(W) (W bf16 bits in, f32 out), 64 elements each, on the vector unit.
CONVERT_TEXT = """\
.kernel to_bf16
.tensor X f32 [64] in
.tensor W bf16 [64] in
.tensor Y bf16 [64] out
.tensor Z f32 [64] out
    copy_gm_ub ub[0], X[0], len=8
    copy_gm_ub ub[1024], W[0], len=4
    set_flag MTE2, V, 0
    wait_flag MTE2, V, 0
    vconv.bf16.f32 ub[256], ub[0]
    vconv.f32.bf16 ub[2048], ub[1024]
    set_flag V, MTE3, 0
    wait_flag V, MTE3, 0
    copy_ub_gm Y[0], ub[256], len=4
    copy_ub_gm Z[0], ub[2048], len=8
    end
"""


def reference_bf16(values):
    """Nearest bf16 (ties to even) of float32 values, as uint16 bits, from the two neighbours."""
    v = np.asarray(values, dtype=np.float32)
    bits = v.view(np.uint32)
    lo = (bits & 0xFFFF0000).view(np.float32).astype(np.float64)  # toward zero
    hi_bits = (bits & 0xFFFF0000) + 0x10000
    hi = hi_bits.view(np.float32).astype(np.float64)
    # Past the largest finite bf16 the upper neighbour is infinity, at distance as if 2^128.
    hi = np.where(np.isinf(hi), np.sign(lo) * 2.0 ** 128, hi)
    a = np.abs(v.astype(np.float64))
    d_lo, d_hi = a - np.abs(lo), np.abs(hi) - a
    lo_even = ((bits >> 16) & 1) == 0
    up = (d_hi < d_lo) | ((d_hi == d_lo) & ~lo_even)
    return np.where(up, hi_bits >> 16, bits >> 16).astype(np.uint16)


def test_bf16_conversions_match_the_reference(rng):
    x = rng.uniform(-1000, 1000, 4096).astype(np.float32)
    # Ties and their neighbours: the dropped half 0x7fff, 0x8000, 0x8001 on random upper halves.
    ties = (rng.integers(0, 0x7F7F, 4096, dtype=np.uint32) << 16) | rng.choice([0x7FFF, 0x8000, 0x8001], 4096)
    x = np.concatenate([x, ties.astype(np.uint32).view(np.float32)])
    got = cubekit.bf16_from_float32(x)
    assert got.dtype == np.uint16 and got.shape == x.shape
    np.testing.assert_array_equal(got, reference_bf16(x))
    back = cubekit.bf16_to_float32(got)
    assert back.dtype == np.float32
    np.testing.assert_array_equal(back.view(np.uint32), got.astype(np.uint32) << 16)


def test_a_program_with_bf16_tensors(rng):
    p = cubekit.assemble(CONVERT_TEXT)
    x = rng.uniform(-10, 10, 64).astype(np.float32)
    w = cubekit.bf16_from_float32(rng.uniform(-10, 10, 64).astype(np.float32))
    out, report = cubekit.run(p, {"X": x, "W": w})
    assert report["diagnostics"] == []
    assert out["Y"].dtype == np.uint16
    np.testing.assert_array_equal(out["Y"], reference_bf16(x))
    np.testing.assert_array_equal(out["Z"].view(np.uint32), w.astype(np.uint32) << 16)


def test_a_bf16_tensor_refuses_float32(rng):
    p = cubekit.assemble(CONVERT_TEXT)
    x = np.zeros(64, np.float32)
    with pytest.raises(cubekit.Error, match="the array is float32 but the tensor is bf16"):
        cubekit.run(p, {"X": x, "W": x})


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend950pr"])
def test_vector_funcs_convert_bf16_where_the_chip_has_it(rng, chip):
    """f32 -> bf16 and bf16 -> f32 casts on the vector path (vconv f32.bf16 and bf16.f32 on the split
    chips' vector cores): they were refused as conversions the vector unit lacks (a 950 probe)."""
    x = (rng.standard_normal((8, 40)) * 3).astype(np.float32)
    y, _ = cubekit.kernels.cast(x, "bf16", chip=chip, raise_on_diagnostics=True)
    np.testing.assert_array_equal(y, reference_bf16(x))
    X = cubekit.Input("X", "bf16", [8, 40])
    r, c = cubekit.Var("r"), cubekit.Var("c")
    F = cubekit.Func("F")
    F[r, c] = cubekit.cast("f32", X[r, c]) * 2
    out, _ = F.run({"X": y}, chip=chip, raise_on_diagnostics=True)
    np.testing.assert_array_equal(out, cubekit.bf16_to_float32(y) * 2)
    with pytest.raises(cubekit.Error, match=r"converts f32 to bf16, but ascend910 has no bf16 \(the chips with bf16: "
                                            r"ascend910b2, ascend950pr\)"):
        cubekit.kernels.cast(x, "bf16", chip="ascend910")


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend950pr"])
def test_matmul_and_conv2d_take_bf16_bits(rng, chip):
    """kernels.matmul and kernels.conv2d take bf16 as numpy.uint16 bit patterns, as attention does
    (they read them as u16, which the cube does not multiply; a 950 probe): f32 results, or bf16
    bits with out="bf16", against float64 products of the bf16 values."""
    a, b = (cubekit.bf16_from_float32(rng.standard_normal(s).astype(np.float32)) for s in ((100, 72), (72, 40)))
    want = cubekit.bf16_to_float32(a).astype(np.float64) @ cubekit.bf16_to_float32(b).astype(np.float64)
    c, _ = cubekit.kernels.matmul(a, b, chip=chip, raise_on_diagnostics=True)
    assert c.dtype == np.float32
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    c, _ = cubekit.kernels.matmul(a, b, out="bf16", chip=chip, raise_on_diagnostics=True)
    assert c.dtype == np.uint16
    np.testing.assert_allclose(cubekit.bf16_to_float32(c), want, rtol=2 ** -8, atol=1e-2)
    x = cubekit.bf16_from_float32(rng.standard_normal((2, 20, 9, 9)).astype(np.float32))
    w = cubekit.bf16_from_float32(rng.standard_normal((16, 20, 3, 3)).astype(np.float32))
    y, _ = cubekit.kernels.conv2d(x, w, padding=1, chip=chip, raise_on_diagnostics=True)
    xp = np.pad(cubekit.bf16_to_float32(x).astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    wv = cubekit.bf16_to_float32(w).astype(np.float64)
    ref = sum(np.einsum("nchw,kc->nkhw", xp[:, :, i:i + 9, j:j + 9], wv[:, :, i, j]) for i in range(3) for j in range(3))
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-4)
    with pytest.raises(cubekit.Error, match="a is uint16 and b is float16; the cube multiplies one type"):
        cubekit.kernels.matmul(a, b.view(np.float16), chip=chip)
