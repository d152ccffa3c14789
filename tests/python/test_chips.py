"""Chips: chips(), chip(), ChipConfig <-> dict / JSON, against the CLI's `cubekit chips --json`."""
import json

import numpy as np
import pytest

import cubekit
from conftest import assert_report, run_cli


def test_chips_match_the_cli():
    names = cubekit.chips()
    assert isinstance(names, list) and names and all(isinstance(n, str) for n in names)
    cli_chips = json.loads(run_cli("chips", "--json").stdout)
    assert [c["name"] for c in cli_chips] == names
    # Every preset's dict is what the C++ CLI prints for it.
    for c in cli_chips:
        assert cubekit.chip(c["name"]).to_dict() == c


def test_the_version_is_the_projects(source_dir):
    # CMakeLists.txt's project() line, as `cubekit --version` and `cubekit.__version__` give it.
    project = next(l for l in (source_dir / "CMakeLists.txt").read_text().splitlines() if l.startswith("project("))
    version = project.split("VERSION")[1].split()[0]
    assert cubekit.__version__ == version
    assert run_cli("--version").stdout.strip() == f"cubekit {version}"


@pytest.mark.parametrize("name", cubekit.chips())
def test_one_chip_saved_by_the_cli_loads_with_chip(tmp_path, name):
    one = run_cli("chips", name, "--json").stdout
    assert json.loads(one) == cubekit.chip(name).to_dict()
    path = tmp_path / "my.json"
    path.write_text(one)
    done = run_cli("kernel", "add", "--rows", "16", "--cols", "64", "--chip", str(path))
    assert done.returncode == 0 and "PASS" in done.stdout


def test_chip_default_and_attributes():
    c = cubekit.chip()
    assert isinstance(c, cubekit.ChipConfig)
    d = c.to_dict()
    assert c.name == d["name"] == "ascend910" == cubekit.chip("ascend910").name
    assert c.cores == d["cores"] == 32
    assert c.clock_mhz == d["clock_mhz"]
    assert repr(c) == f"<ChipConfig {c.name}: {c.cores} cores at {c.clock_mhz:g} MHz>"


@pytest.mark.parametrize("name", cubekit.chips())
def test_dict_and_json_round_trips(name):
    c = cubekit.chip(name)
    d = c.to_dict()
    assert json.loads(c.to_json()) == d
    assert cubekit.ChipConfig.from_dict(d).to_dict() == d
    assert cubekit.ChipConfig.from_json(c.to_json()).to_dict() == d
    assert cubekit.ChipConfig.from_json(json.dumps(d)).to_json() == c.to_json()


def test_chip_from_a_json_file(tmp_path):
    d = cubekit.chip().to_dict()
    d["name"], d["cores"] = "half910", 16
    path = tmp_path / "half.json"
    path.write_text(json.dumps(d))
    c = cubekit.chip(str(path))
    assert (c.name, c.cores) == ("half910", 16)
    assert c.to_dict() == d


def test_modified_dict_changes_the_chip(rng):
    """A field changed in the dict changes the ChipConfig, and what runs on it."""
    d = cubekit.chip().to_dict()
    d["cores"] = 2
    d["name"] = "two_core"
    d["timing"]["hbm_rate"] = d["timing"]["hbm_rate"] / 2
    c = cubekit.ChipConfig.from_dict(d)
    assert (c.name, c.cores) == ("two_core", 2)
    assert c.to_dict()["timing"]["hbm_rate"] == d["timing"]["hbm_rate"]
    assert c.to_dict() == d
    # The vector kernel spreads its rows over the cores it has: 2 here, more on the full chip.
    x = rng.standard_normal((16, 128)).astype(np.float16)
    y_small, rep_small = cubekit.kernels.relu(x, chip=c)
    y_full, rep_full = cubekit.kernels.relu(x)
    np.testing.assert_array_equal(y_small, np.maximum(x, 0))
    np.testing.assert_array_equal(y_full, np.maximum(x, 0))
    assert_report(rep_small, cores_at_most=2)
    assert rep_small["chip"] == "two_core"
    assert rep_full["cores"] > 2


def test_run_takes_a_chip_as_name_dict_or_config():
    p = cubekit.assemble(".kernel k\n.block_dim 8\n    li x1, 1\n    end\n")
    d = cubekit.chip().to_dict()
    d["cores"] = 3
    chips = ("ascend910", None, cubekit.chip(), d, cubekit.ChipConfig.from_dict(d))
    reports = [cubekit.run(p, chip=chip)[1] for chip in chips]
    assert [r["cores"] for r in reports] == [8, 8, 8, 3, 3]
    assert all(r["blocks"] == 8 for r in reports)
