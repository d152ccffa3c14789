#!/usr/bin/python3
"""Runs bench/run.py attention on the 910B2 and checks its BERT-Large table: both rows there, and
the fused kernel ahead of the unfused chain in cycles and in HBM bytes (the chain sends S and P
through GM: 64 MB each in f16, which L2 cannot keep for the next kernel)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")


def main():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "run.py"), "attention", "--chips", "ascend910b2",
                          "--build", BUILD], check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 9 and cells[0] == "ascend910b2":
            rows[cells[1].split()[0]] = {"cycles": int(cells[2].replace(",", "")), "hbm": int(cells[5].replace(",", ""))}
    assert set(rows) == {"fused", "unfused"}, out
    assert rows["fused"]["cycles"] < rows["unfused"]["cycles"], rows
    assert rows["fused"]["hbm"] < rows["unfused"]["hbm"], rows
    print(f"BERT-Large attention on ascend910b2: fused {rows['fused']['cycles']:,} cycles, "
          f"unfused {rows['unfused']['cycles']:,}")


if __name__ == "__main__":
    main()
