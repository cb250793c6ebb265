"""Fixtures of the Python tests (scripts/test.sh runs them with /usr/bin/python3 -m pytest)."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # this tree's pssim package, whatever the working directory


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def cli():
    """Runs the pssim command of this tree's release build: (status, stdout, stderr)."""
    binary = ROOT / "build" / "release" / "sim" / "cli" / "pssim"

    def run(*args, cwd=ROOT):
        done = subprocess.run([str(binary)] + [str(a) for a in args], capture_output=True, text=True, cwd=cwd)
        return done.returncode, done.stdout, done.stderr
    return run


@pytest.fixture
def py_cli():
    """Runs `python3 -m pssim` of this tree (from any working directory): (status, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def run(*args, cwd=ROOT):
        done = subprocess.run([sys.executable, "-m", "pssim"] + [str(a) for a in args], capture_output=True,
                              text=True, cwd=cwd, env=env)
        return done.returncode, done.stdout, done.stderr
    return run


def without_wall_clock(summary):
    """summary.json without the fields that differ between two runs of one scenario."""
    return {k: v for k, v in summary.items() if k not in ("wall_time_s", "events_per_s", "flows_per_s",
                                                           "peak_rss_bytes")}
