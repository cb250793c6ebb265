"""analysis/ reads scheme labels and capabilities from the registry (`pssim schema
--schemes`), never from a list of names: a scheme it has never heard of is labelled and
classified by what the table says."""
import json
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "analysis"))
import closed_forms  # noqa: E402
import labels  # noqa: E402
import schemes  # noqa: E402


@pytest.fixture
def table(monkeypatch):
    """Installs a scheme table in PSSIM_SCHEMES, as pssim plot does."""
    def install(text):
        monkeypatch.setenv("PSSIM_SCHEMES", text)
        schemes._table.cache_clear()
    yield install
    schemes._table.cache_clear()


def test_the_table_lists_the_modes_of_the_reference(cli):
    status, out, _ = cli("schema", "--schemes")
    assert status == 0
    table = json.loads(out)
    _, reference, _ = cli("schema")
    modes = re.search(r"\| `mode` \| one of ([^|]*) \|", reference).group(1)
    assert [s["name"] for s in table["schemes"]] == re.findall(r"`([^`]+)`", modes)
    assert table["default"] == table["schemes"][0]["name"]


def test_labels_layouts_and_closed_forms_follow_the_table(table):
    made_up = {"name": "made-up", "label": "Made Up", "summary": "{algorithm} made-up ({rounds|round})",
               "layout": "all-reduced", "bulk_synchronous": True}
    table(json.dumps({"default": "plain", "schemes": [
        {"name": "plain", "label": "Plain", "layout": "server-shards", "bulk_synchronous": True}, made_up]}))
    assert labels.setting_label({"protocol.mode": "made-up"}) == "Made Up"
    s = {"model": {"kind": "synthetic", "params": "1M", "flops_per_sample": "1GFLOP"},
         "data": {"batch_size": 32},
         "cluster": {"workers": {"count": 4, "throughput": "1TFLOPS", "speed": {"dist": "constant", "factor": 1},
                                 "noise": {"sigma": 0}},
                     "servers": {"count": 1, "shards": 1, "placement": "round-robin"}},
         "network": {"topology": "star", "worker_nic": {"bandwidth": "8Gbps", "latency": "0us"},
                     "server_nic": {"bandwidth": "8Gbps", "latency": "0us"}},
         "protocol": {"mode": "made-up", "algorithm": "ring", "rounds": 1}}
    assert labels.scheme_label(s) == "ring made-up (1 round)"  # the summary, its {key|noun} counted
    assert closed_forms.round_time(s) == pytest.approx(2 * 3 / 4 * 4e6 / 1e9 + 32e9 / 1e12)  # ring
    assert closed_forms.worker_nic_bound(s) is None  # not a PS
    s["protocol"] = {"mode": "plain"}  # no summary: the label, then where the shards live
    assert labels.scheme_label(s) == "Plain, 1 server"
    assert closed_forms.round_time(s) == pytest.approx(2 * 4 * 4e6 / 1e9 + 32e9 / 1e12)  # N M / B_s
    made_up["bulk_synchronous"] = False  # rounds of another kind: no closed form
    table(json.dumps({"default": "plain", "schemes": [made_up]}))
    s["protocol"] = {"mode": "made-up", "algorithm": "ring"}
    assert closed_forms.round_time(s) is None
