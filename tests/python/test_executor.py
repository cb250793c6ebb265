"""pssim.sweep(..., executor=...): points as tasks of a Dask cluster or a process pool, with the
files of a sweep run in one process."""
import concurrent.futures
import json

import pytest

import pssim
from conftest import ROOT, without_wall_clock


def _files(directory):
    """Every file of a sweep directory, relative path -> content (summary.json without its
    wall-clock fields), the lock file left out."""
    out = {}
    for path in sorted(directory.rglob("*")):
        if not path.is_file() or path.name == ".pssim.lock":
            continue
        key = str(path.relative_to(directory))
        out[key] = without_wall_clock(json.loads(path.read_text())) if path.name == "summary.json" else path.read_bytes()
    return out


@pytest.fixture
def sweep_file(tmp_path):
    """Four points of a small real-math job (MLP on Fashion-MNIST) and a fifth that fails
    (its data directory does not exist)."""
    spec = tmp_path / "sweep.yaml"
    data = "/usr/share/datasets/fashion-mnist"
    spec.write_text(
        "name: ex\nbase: {}\nset: {{training.stop.sim_time: 0.3s, data.eval_max: 300, cluster.workers.count: 2}}\n"
        "zip:\n  protocol.mode: [sync, async, sync, async, sync]\n  cluster.servers.count: [1, 1, 2, 2, 1]\n"
        "  data.path: [{d}, {d}, {d}, {d}, {missing}]\n".format(ROOT / "scenarios/quickstart.yaml", d=data,
                                                              missing=tmp_path / "no-data"))
    return spec


class CountingPool(concurrent.futures.ProcessPoolExecutor):
    """A process pool that counts the tasks given to it."""

    submitted = 0

    def submit(self, *args, **kwargs):
        CountingPool.submitted += 1
        return super().submit(*args, **kwargs)


def test_a_dask_cluster_gives_the_sweep_of_one_process_byte_for_byte(sweep_file, tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    local = pssim.sweep(sweep_file, output=tmp_path / "local", jobs=2)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the cluster's worker processes import this tree's pssim
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = pssim.sweep(sweep_file, output=tmp_path / "dask", executor=client.get_executor())
    assert list(on_dask.table["status"]) == ["ok", "ok", "ok", "ok", "failed"]
    assert on_dask.points[4] is None and "no-data" in on_dask.table["error"][4]
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")


def test_an_executor_sweep_resumes(sweep_file, tmp_path):
    CountingPool.submitted = 0
    with CountingPool(max_workers=2) as pool:
        first = pssim.sweep(sweep_file, output=tmp_path / "pool", executor=pool)
    assert CountingPool.submitted == 5
    assert list(first.table["status"]) == ["ok", "ok", "ok", "ok", "failed"]
    # Again: the failed point and a point whose record is gone (a lost task) run; nothing else.
    (tmp_path / "pool" / "points" / "0002" / "point.csv").unlink()
    CountingPool.submitted = 0
    with CountingPool(max_workers=2) as pool:
        again = pssim.sweep(sweep_file, output=tmp_path / "pool", executor=pool)
    assert CountingPool.submitted == 2
    assert (tmp_path / "pool" / "sweep.csv").read_bytes() == \
        (first.directory / "sweep.csv").read_bytes() and again.table.equals(first.table)
