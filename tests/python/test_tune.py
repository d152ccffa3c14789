"""The tuner from Python and the command line: cubekit.tune, the kernels taking the tuned schedule
(and still matching numpy), `cubekit tune` then `cubekit kernel`, and 2 MPI ranks writing the same
database as one process."""
import os
import shutil
import sqlite3
import subprocess

import numpy as np
import pytest

import cubekit as ck
from conftest import CLI, f32, run_cli


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "tuning.db")
    ck.set_tuning_db(path)
    yield path
    ck.set_tuning_db("off")  # ctest runs with CUBEKIT_TUNING_DB=off; keep the kernels from any database


def test_tuned_matmul_is_taken_and_matches_numpy(db, rng):
    best = ck.tune("matmul", m=256, n=384, k=512, chip="ascend910b2", budget=16)
    assert best["evaluated"] == 16 and best["strategy"] == "local"
    assert best["cycles"] <= best["default_cycles"]
    a = rng.standard_normal((256, 512)).astype(np.float16)
    b = rng.standard_normal((512, 384)).astype(np.float16)
    c, report = ck.kernels.matmul(a, b, chip="ascend910b2")
    np.testing.assert_allclose(c, f32(a) @ f32(b), rtol=1e-3, atol=1e-2)
    if best["params"]:
        assert report["schedule"] == "tuned"
        assert report["tuned"]["params"] == best["params"] and report["tuned"]["database"] == db
        assert report["cycles"] == best["cycles"]
    _, plain = ck.kernels.matmul(a, b, chip="ascend910b2", timing_only=True, tm=64)  # an override: not tuned
    assert "tuned" not in plain


def test_vector_kernel_space_is_enumerated(db, rng):
    best = ck.tune("softmax", shape=[256, 768], chip="ascend910b2", budget=200)
    assert best["strategy"] == "exhaustive"
    x = rng.standard_normal((256, 768)).astype(np.float16)
    y, report = ck.kernels.softmax(x, chip="ascend910b2")
    e = np.exp(f32(x) - f32(x).max(axis=-1, keepdims=True))
    np.testing.assert_allclose(f32(y), e / e.sum(axis=-1, keepdims=True), atol=2e-3)
    assert report["cycles"] == best["cycles"]
    assert report.get("schedule") == ("tuned" if best["params"] else None)



def test_a_masks_leading_ones_are_one_problem(db, rng):
    """An attention tuned with a mask of (L, S) is taken for the same mask as (1, L, S) and (1, 1, L, S)
    (torch's spelling), from Python and the command line alike."""
    best = ck.tune("attention", heads=2, seq_q=128, dim=64, chip="ascend910b2", mask=[128, 128], budget=8)
    q, k, v = (rng.standard_normal((1, 2, 128, 64)).astype(np.float16) for _ in range(3))
    m = rng.random((128, 128)) > 0.2
    for mask in (m, m[None], m[None, None]):
        _, report = ck.kernels.attention(q, k, v, attn_mask=mask, chip="ascend910b2", timing_only=True)
        assert report["cycles"] == best["cycles"], mask.shape
        assert report.get("schedule") == ("tuned" if best["params"] else None), mask.shape


def test_binary_kernels_take_their_tuned_schedules(db, rng):
    """add with a row, add of two arrays and mul by a number, tuned without y_dtype (as the command
    line tunes them), are taken by the Python kernels, which always know Y's type."""
    x = rng.standard_normal((64, 2048)).astype(np.float16)
    calls = [(dict(y_shape=[2048]), lambda: ck.kernels.add(x, x[0].copy()), f32(x) + f32(x[0])),
             ({}, lambda: ck.kernels.add(x, x), f32(x) + f32(x))]
    for problem, call, want in calls:
        best = ck.tune("add", shape=[64, 2048], budget=16, **problem)
        y, report = call()
        np.testing.assert_allclose(f32(y), want, atol=2e-3)
        assert report["cycles"] == best["cycles"], problem
        assert report.get("schedule") == ("tuned" if best["params"] else None), problem
    best = ck.tune("mul", shape=[64, 2048], scalar=True, budget=16)
    _, report = ck.kernels.mul(x, 0.5)
    assert report["cycles"] == best["cycles"]
    assert report.get("schedule") == ("tuned" if best["params"] else None)

def test_tune_errors():
    with pytest.raises(ck.Error, match="no kernel 'gemm' to tune; the tunable kernels are matmul"):
        ck.tune("gemm", m=1)
    with pytest.raises(ck.Error, match="matmul has no option 'rows'"):
        ck.tune("matmul", m=64, n=64, k=64, rows=3, db="off")
    with pytest.raises(ck.Error, match="tm is a schedule parameter, which the tuner chooses"):
        ck.tune("matmul", m=64, n=64, k=64, tm=32, db="off")
    with pytest.raises(ck.Error, match="give a kernel .* or suite="):
        ck.tune()
    with pytest.raises(ck.Error, match="no suite 'vgg'"):
        ck.tune(suite="vgg", db="off")
    # The problem's fields are type-checked as the kernels' options are: no bool for an int, no 64.5.
    with pytest.raises(ck.Error, match=r"tune matmul: m must be an integer, got 64.5 \(float\)"):
        ck.tune("matmul", m=64.5, n=64, k=64, db="off")
    with pytest.raises(ck.Error, match=r"tune matmul: m must be an integer, got True \(bool\)"):
        ck.tune("matmul", m=True, n=64, k=64, db="off")
    with pytest.raises(ck.Error, match="tune: time must be a positive number of seconds, got -1"):
        ck.tune("matmul", m=64, n=64, k=64, time=-1, db="off")
    with pytest.raises(ck.Error, match=r"tune: db must be a file name \(str or path\), 'off', or None"):
        ck.tune("matmul", m=64, n=64, k=64, db=123)
    with pytest.raises(ck.Error, match="tune: db='' names no file"):
        ck.tune("matmul", m=64, n=64, k=64, db="")


def test_an_empty_file_is_an_empty_database(tmp_path):
    """A file of no bytes is what tune makes a database of: the kernels and --list read it as one
    holding nothing, not as another program's file."""
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    x = np.ones((64, 64), np.float16)
    ck.set_tuning_db(str(empty))
    try:
        y, report = ck.kernels.add(x, x)
    finally:
        ck.set_tuning_db("")
    np.testing.assert_array_equal(y, x + x)
    assert "tuned" not in report
    listed = run_cli("tune", "--list", "--db", empty)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == f"{empty}:"


def test_a_smaller_second_search_keeps_the_better_best(db):
    """A second search of the same problem with a smaller budget finds a worse best (12,532 against
    14,988 cycles when found): what the database held stays the best, and the kernels take it."""
    problem = dict(m=512, n=512, k=512, chip="ascend910b2")
    first = ck.tune("matmul", budget=48, **problem)
    second = ck.tune("matmul", budget=8, **problem)
    assert second["cycles"] == first["cycles"] and second["params"] == first["params"]
    if second["own_best_cycles"] is not None:
        assert second["own_best_cycles"] > first["cycles"]
    _, report = ck.kernels.matmul(np.zeros((512, 512), np.float16), np.zeros((512, 512), np.float16),
                                  chip="ascend910b2", timing_only=True)
    assert report["cycles"] == first["cycles"]


def test_cli_second_kernel_call_uses_the_tuned_schedule(tmp_path):
    path = str(tmp_path / "cli.db")
    shape = ["--m", "320", "--n", "256", "--k", "384", "--chip", "ascend910b2"]
    tuned = run_cli("tune", "matmul", *shape, "--budget", "12", "--db", path, "--quiet")
    assert "speedup" in tuned.stdout and "kept in " + path in tuned.stdout
    with sqlite3.connect(path) as con:
        params, cycles = con.execute("SELECT params, cycles FROM best").fetchone()
    run = run_cli("kernel", "matmul", *shape, "--db", path)
    if params != "{}":
        assert "tuned schedule" in run.stdout and f"({cycles} cycles when tuned" in run.stdout
    assert "PASS" in run.stdout
    off = run_cli("kernel", "matmul", *shape, "--db", path, "--no-tuned", "--timing-only")
    assert "tuned" not in off.stdout
    # compile takes the same schedule, and says so (its program differs from the default's).
    compiled = run_cli("compile", "matmul", *shape, "--db", path, "-o", tmp_path / "tuned.s")
    assert f"tuned schedule from {path}" in compiled.stdout
    assert "tuned" not in run_cli("compile", "matmul", *shape, "--db", "off", "-o", tmp_path / "plain.s").stdout


def _database(path):
    with sqlite3.connect(path) as con:
        candidates = con.execute("SELECT p.kernel, p.problem, c.seq, c.params, c.cycles FROM candidates c "
                                 "JOIN problems p ON p.id = c.problem ORDER BY p.kernel, p.problem, c.seq").fetchall()
        best = con.execute("SELECT p.kernel, p.problem, b.params, b.cycles, b.default_cycles, b.evaluated FROM best b "
                           "JOIN problems p ON p.id = b.problem ORDER BY p.kernel, p.problem").fetchall()
    return candidates, best


def test_two_mpi_ranks_write_the_database_one_process_writes(tmp_path):
    mpirun = shutil.which("mpirun")
    assert mpirun, "mpirun is missing: scripts/setup.sh installs Debian's openmpi-bin"
    # Local ranks: root allowed (CI), more ranks than cores allowed, and no ssh needed (a bare machine has none).
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_plm_rsh_agent="")
    args = ["tune", "--suite", "bert-large", "--batch", "1", "--budget", "6", "--chip", "ascend910b2", "--quiet"]
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    r1 = subprocess.run([CLI, *args, "--db", one, "--threads", "1"], capture_output=True, text=True, timeout=300, env=env)
    assert r1.returncode == 0, r1.stderr
    r2 = subprocess.run([mpirun, "-np", "2", CLI, *args, "--db", two], capture_output=True, text=True, timeout=300, env=env)
    assert r2.returncode == 0, r2.stdout + r2.stderr
    assert "on 2 ranks" in r2.stdout
    assert _database(one) == _database(two)
    assert len(_database(one)[1]) == 7


def test_time_alone_is_the_limit():
    best = ck.tune("matmul", m=256, n=256, k=256, chip="ascend910b2", time=1.0, db="off")
    assert best["strategy"] == "local" and best["evaluated"] >= 2
    assert best["cycles"] <= best["default_cycles"]


def test_tune_takes_s8_problems_as_the_cli_does():
    """s8: the result s32 and (matmul) B stored (n, k) unless given, as `cubekit tune` chooses them."""
    for kernel, shape in (("matmul", dict(m=64, n=64, k=64)), ("conv2d", dict(n=1, c=32, h=14, w=14, k=32))):
        best = ck.tune(kernel, dtype="s8", budget=4, db="off", **shape)
        assert best["cycles"] > 0
    with pytest.raises(ck.Error, match="tune: seed must be 0 or more, got -1"):
        ck.tune("softmax", shape=[64, 64], seed=-1, db="off")


def test_a_stored_schedule_the_kernel_refuses_says_where_it_came_from(tmp_path):
    """An edited (or stale) tuning database entry: the kernel's error says the schedule came from the
    database, and how to leave it out."""
    db = str(tmp_path / "t.db")
    ck.tune("softmax", shape=[64, 64], budget=2, db=db)
    con = sqlite3.connect(db)
    con.execute("UPDATE best SET params = '{\"tile_rows\": 100000}'")
    con.commit()
    con.close()
    ck.set_tuning_db(db)
    try:
        with pytest.raises(ck.Error, match=r"came from the tuning database: .* cubekit.set_tuning_db\('off'\)"):
            ck.kernels.softmax(np.ones((64, 64), np.float16))
    finally:
        ck.set_tuning_db("")


def _interrupted_once_it_has_candidates(p, path, signal_number=None):
    """Sends process p one SIGINT (or `signal_number`) once its search has recorded two candidates in
    the database at `path`; returns its (stdout, stderr)."""
    import signal
    import time
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.2)
            if os.path.exists(path):
                with sqlite3.connect(path) as con:
                    if con.execute("SELECT count(*) FROM candidates").fetchone()[0] >= 2:
                        break
        assert p.poll() is None, p.communicate()
        p.send_signal(signal_number or signal.SIGINT)
        return p.communicate(timeout=60)
    finally:
        p.kill()


def test_ctrl_c_keeps_the_best_so_far(tmp_path):
    # A search far from its end, interrupted once it has recorded candidates: it prints and keeps its
    # best, says it was interrupted, and exits as a Ctrl-C'd process does (130).
    import json
    path = str(tmp_path / "ctrl_c.db")
    p = subprocess.Popen([CLI, "tune", "matmul", "--m", "512", "--n", "512", "--k", "512", "--budget", "100000",
                          "--db", path, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = _interrupted_once_it_has_candidates(p, path)
    assert p.returncode == 130, err
    assert "stopping after the candidates running now" in err
    got = json.loads(out)
    assert got["interrupted"] is True
    problem = got["problems"][0]
    assert problem["stopped_by_time"] and 2 <= problem["evaluated"] < problem["space"]
    with sqlite3.connect(path) as con:
        (cycles,) = con.execute("SELECT cycles FROM best").fetchone()
    assert cycles == problem["cycles"] > 0


def test_sigterm_keeps_the_best_so_far(tmp_path):
    # timeout(1) and job schedulers stop with SIGTERM: killed at once, the search kept its candidates
    # but no best, and the kernels did not take what it found.
    import signal
    path = str(tmp_path / "term.db")
    p = subprocess.Popen([CLI, "tune", "matmul", "--m", "512", "--n", "512", "--k", "512", "--budget", "100000",
                          "--db", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = _interrupted_once_it_has_candidates(p, path, signal.SIGTERM)
    assert p.returncode == 128 + signal.SIGTERM, err
    assert "SIGTERM stopped this exhaustive search" in out + err
    with sqlite3.connect(path) as con:
        (cycles,) = con.execute("SELECT cycles FROM best").fetchone()
    assert cycles > 0
    listed = subprocess.run([CLI, "tune", "--list", "--db", path], capture_output=True, text=True)
    assert f"{cycles} cycles" in listed.stdout, listed


def test_ctrl_c_in_python_keeps_the_best_and_raises_keyboard_interrupt(tmp_path):
    # As the CLI's: the search stops between batches and stores its best; the KeyboardInterrupt follows.
    import sys
    import textwrap
    path = str(tmp_path / "py_ctrl_c.db")
    code = textwrap.dedent(f"""
        import cubekit as ck
        ck.tune("matmul", m=512, n=512, k=512, budget=100000, db={path!r})
        print("returned")
    """)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = _interrupted_once_it_has_candidates(p, path)
    assert "KeyboardInterrupt" in err and "returned" not in out, err
    with sqlite3.connect(path) as con:
        (cycles, stopped) = con.execute("SELECT cycles, stopped_by_time FROM best").fetchone()
    assert cycles > 0 and stopped


def test_cli_list_with_a_chip_lists_that_chips_rows(tmp_path):
    """`tune --list --chip X` listed every chip's rows (the --chip was ignored)."""
    path = str(tmp_path / "t.db")
    for chip in ("ascend910", "ascend910b2"):
        run_cli("tune", "matmul", "--m", 64, "--n", 64, "--k", 64, "--budget", 2, "--quiet", "--db", path, "--chip", chip)
    for chip, other in (("ascend910", "ascend910b2"), ("ascend910b2", "ascend910")):
        listed = run_cli("tune", "--list", "--db", path, "--chip", chip).stdout
        assert f"  {chip} " in listed and f"  {other} " not in listed, listed
    both = run_cli("tune", "--list", "--db", path).stdout
    assert "  ascend910 " in both and "  ascend910b2 " in both
