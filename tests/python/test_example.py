"""The notebook-style example runs, in its short version, and draws its figure."""
import os
import pathlib
import subprocess
import sys

from conftest import ROOT


def test_torch_cluster_example(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "analysis/examples/torch_cluster.py")], cwd=ROOT,
                          capture_output=True, text=True,
                          env=dict(os.environ, PSSIM_EXAMPLE_QUICK="1", PSSIM_EXAMPLE_OUT=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    lines = [l for l in done.stdout.splitlines() if "final test accuracy" in l]
    assert [l.split()[0] for l in lines] == ["sync", "async", "ring"]
    figure = pathlib.Path(tmp_path / "accuracy.png")
    assert figure.stat().st_size > 20_000
