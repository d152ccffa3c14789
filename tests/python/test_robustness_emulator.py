"""The run's bounds through the binding (issue 10, items 7 and 16): block counts, work, trace size."""
import numpy as np
import pytest

import cubekit as ck

SLICES = """.kernel slices
.block_dim 4
.tensor X f16 [512] in
.tensor Y f16 [512] out
    block_idx x1
    mul x1, x1, 256
    copy_gm_ub ub[0], X[x1], len=8
    set_flag MTE2, MTE3, 0
    wait_flag MTE2, MTE3, 0
    copy_ub_gm Y[x1], ub[0], len=8
    end
"""

SPIN = ".kernel spin\n.block_dim 32\ntop:\n    add x1, x1, 1\n    jmp top\n    end\n"


@pytest.fixture(scope="module")
def slices():
    return ck.assemble(SLICES)


def test_a_million_blocks_is_an_error(slices):
    x = np.arange(512, dtype=np.float16)
    with pytest.raises(ck.Error, match=r"a launch of 1000000 blocks is more than a launch can have: 1\.\.65535"):
        ck.run(slices, {"X": x}, blocks=10**6)


def test_blocks_beyond_the_tensors_is_an_error(slices):
    x = np.arange(512, dtype=np.float16)
    with pytest.raises(ck.Error, match=r"block 4 would access .* launch at most 4 blocks"):
        ck.run(slices, {"X": x}, blocks=5)


def test_the_declared_blocks_run_and_report_their_work(slices):
    x = np.arange(512, dtype=np.float16)
    out, report = ck.run(slices, {"X": x})
    np.testing.assert_array_equal(out["Y"], x)
    # 4 blocks of 7 instructions, each moving 256 bytes twice (4 units per copy, and 24 for the
    # timing model's time of each of the 2 copies).
    assert report["work"] == 4 * (7 + 2 * 256 // 64 + 2 * 24)


def test_max_work_stops_an_endless_loop():
    with pytest.raises(ck.Error, match=r"work bound of 100000 units.*max_work="):
        ck.run(ck.assemble(SPIN), timing_only=True, max_work=100000)


def test_max_work_must_be_positive(slices):
    with pytest.raises(ck.Error, match=r"max_work must be positive, got 0"):
        ck.run(slices, {"X": np.zeros(512, np.float16)}, max_work=0)


def test_max_trace_events(slices, tmp_path):
    x = np.zeros(512, np.float16)
    with pytest.raises(ck.Error, match=r"the trace reached its bound of 3 events.*max_trace_events="):
        ck.run(slices, {"X": x}, trace=str(tmp_path / "t.json"), max_trace_events=3)
