"""Shared fixtures for the cubekit Python tests.

ctest sets PYTHONPATH (build/python), CUBEKIT_CLI (the `cubekit` binary) and CUBEKIT_SOURCE_DIR.
Run by hand, the tests fall back to <repo>/build/python and <repo>/build/bin/cubekit.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

SOURCE_DIR = Path(os.environ.get("CUBEKIT_SOURCE_DIR", Path(__file__).resolve().parents[2]))
_BUILD_PYTHON = SOURCE_DIR / "build" / "python"
if "PYTHONPATH" not in os.environ and _BUILD_PYTHON.is_dir():
    sys.path.insert(0, str(_BUILD_PYTHON))
    os.environ["PYTHONPATH"] = str(_BUILD_PYTHON)  # for the subprocesses below

import cubekit  # noqa: E402,F401  (fails early when the package is not built)

CLI = os.environ.get("CUBEKIT_CLI", str(SOURCE_DIR / "build" / "bin" / "cubekit"))


@pytest.fixture
def rng():
    return np.random.default_rng(2026)


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


@pytest.fixture(scope="session")
def cli():
    if not Path(CLI).is_file():
        pytest.fail(f"the cubekit CLI is not at {CLI}; set CUBEKIT_CLI")
    return CLI


def run_cli(*args, check=True):
    """Runs the cubekit CLI; returns the CompletedProcess (text)."""
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"cubekit {' '.join(map(str, args))} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r


def run_cli_json(*args):
    return json.loads(run_cli(*args, "--json").stdout)


def run_python(code, timeout=120, memory_limit=None, stack_limit=None):
    """Runs `code` in a fresh interpreter (so that a crash there cannot take pytest down), optionally with
    its address space and stack limited (bytes)."""
    env = dict(os.environ)
    # Under AddressSanitizer (scripts/sanitize.sh preloads its runtime) a limited address space
    # leaves no room for the shadow memory: bound the memory through the sanitizer instead.
    asan = "asan" in env.get("LD_PRELOAD", "")
    if asan and memory_limit:
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS", ""), "allocator_may_return_null=1",
                                                     f"hard_rss_limit_mb={memory_limit >> 20}"]))

    def preexec():
        import resource
        if memory_limit and not asan:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        if stack_limit:
            resource.setrlimit(resource.RLIMIT_STACK, (stack_limit, stack_limit))
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=preexec, env=env)


def f32(a):
    return np.asarray(a).astype(np.float32)


def matmul_ref(a, b):
    """numpy's product of the (f16 or f32) inputs, in f64, as f32 -- the exact value the cube rounds."""
    return np.matmul(np.asarray(a, np.float64), np.asarray(b, np.float64)).astype(np.float32)


def gelu_ref(x):
    x = np.asarray(x, np.float64)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def assert_report(report, cores_at_most=None):
    """The report of any run: cycles, per-pipe numbers and ratios, consistent with each other."""
    assert isinstance(report, dict)
    assert isinstance(report["cycles"], int) and report["cycles"] > 0
    pipes = report["pipes"]
    assert set(pipes) == {"S", "MTE1", "MTE2", "MTE3", "M", "FIX", "V"}
    for name, p in pipes.items():
        assert p["busy_cycles"] >= 0 and p["instructions"] >= 0, name
        assert 0.0 <= p["ratio"] <= 1.0 + 1e-9, name
    ratios = report["ratios"]
    for key, pipe in [("mac_ratio", "M"), ("vec_ratio", "V"), ("mte1_ratio", "MTE1"), ("mte2_ratio", "MTE2"),
                      ("mte3_ratio", "MTE3"), ("scalar_ratio", "S"), ("fixpipe_ratio", "FIX")]:
        assert ratios[key] == pytest.approx(pipes[pipe]["ratio"]), key
    if cores_at_most is not None:
        assert 1 <= report["cores"] <= cores_at_most
    return report
