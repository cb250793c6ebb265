"""Readable names for runs and sweep settings, shared by plot.py and compare.py.

    setting_label(values, scenario) -> "top-k 1 %, error feedback, 8 workers"

    scheme_label(scenario) -> "sync PS, 4 servers", "ring all-reduce" ...

`values` maps swept keys (`compression.push.kind`, ...) to the values a sweep point was
run with (as they appear in sweep.csv); `scenario` is the point's resolved scenario
(scenario.yaml, loaded with yaml.safe_load), which supplies what the swept keys refer
to (the top-k ratio when only the kind is swept). A key this module does not know is
written in words from its last segments ("worker NIC bandwidth 10Gbps"), a list item by
what it is ("worker crash at 4s" for events.0.at), booleans as on / off and a removed
key (~) as "no ...".
"""
import math

import schemes

COMPRESSORS = {"none": "no compression", "fp16": "fp16", "topk": "top-k", "dgc": "DGC top-k", "randomk": "random-k",
               "qsgd": "QSGD", "sign": "scaled sign", "threshold": "threshold"}
STALENESS_LR = {"none": "fixed lr", "inverse": "lr / τ", "inverse-plus-one": "lr / (1 + τ)"}


def _truthy(v):
    return str(v).strip().lower() in ("true", "1", "yes", "on")


def _plural(n, word):
    n = _count(n)
    return f"{n} {word}{'' if n == 1 else 's'}"


def _count(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return int(f) if f == int(f) else f


def _percent(v):
    """'1%' -> '1 %', 0.01 -> '1 %'."""
    text = str(v).strip()
    if text.endswith("%"):
        return text[:-1].strip() + " %"
    try:
        return f"{100 * float(text):g} %"
    except ValueError:
        return text


def _get(scenario, key):
    """The value at a dotted key (numbers index lists), or None."""
    node = scenario or {}
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def _compression(direction, values, scenario):
    """The phrase for one direction's compression ('top-k 1 %, error feedback')."""
    prefix = f"compression.{direction}."
    kind = values.get(prefix + "kind", _get(scenario, prefix + "kind")) or "none"
    kind = str(kind)
    text = COMPRESSORS.get(kind, kind)
    if kind in ("topk", "dgc", "randomk"):
        ratio = values.get(prefix + "ratio", _get(scenario, prefix + "ratio"))
        if ratio is not None:
            text += " " + _percent(ratio)
    elif kind == "qsgd":
        levels = values.get(prefix + "levels", _get(scenario, prefix + "levels"))
        if levels is not None:
            text += f" {_count(levels)} levels"
    elif kind == "threshold":
        text += f" {values.get(prefix + 'threshold', _get(scenario, prefix + 'threshold'))}"
    if kind != "none" and (prefix + "error_feedback") in values:
        text += ", error feedback" if _truthy(values[prefix + "error_feedback"]) else ", no error feedback"
    if direction == "pull":
        text = "pull: " + text
    return text


def scheme_label(scenario):
    """The training scheme of a resolved scenario, in words: "sync PS, 4 servers",
    "async PS, colocated", "ring all-reduce", "local SGD (4 steps), 1 server" ...: the
    registry's summary of the scheme with its settings, and where its shards live."""
    protocol = (scenario or {}).get("protocol") or {}
    scheme = schemes.find(protocol.get("mode", schemes.default()))
    text = schemes.summary(scheme["name"], protocol)
    if scheme["layout"] != "server-shards":
        return text
    servers = _get(scenario, "cluster.servers") or {}
    where = "colocated" if servers.get("placement") == "colocated" else _plural(servers.get("count", 1), "server")
    return f"{text}, {where}"


def _words(segment):
    return segment.replace("_", " ").replace("nic", "NIC")


def _path_phrase(key, scenario):
    """A readable name for a key the phrases above do not know: the list item it indexes
    named by its kind or host ("worker crash at" for events.0.at, when event 0 is a
    worker_crash), and the last segments in words ("worker NIC bandwidth")."""
    parts = key.split(".")
    for i, part in enumerate(parts):
        if part.isdigit() and i > 0:
            item = _get(scenario, ".".join(parts[:i + 1]))
            name = None
            if isinstance(item, dict):
                name = item.get("kind") or item.get("host") or item.get("target") or item.get("from")
            head = _words(str(name)) if name else f"{_words(parts[i - 1]).rstrip('s')} {int(part)}"
            rest = " ".join(_words(p) for p in parts[i + 1:])
            return f"{head} {rest}".strip()
    return " ".join(_words(p) for p in parts[-2:])


def _one(key, value, scenario, values):
    """The phrase for one swept key, or None when another key's phrase covers it."""
    v = value
    if key == "protocol" or key == "cluster.servers":  # whole sections: the scheme says it
        return scheme_label(scenario) if key == "protocol" or "protocol" not in values else None
    if key == "protocol.mode":
        return schemes.label(v)
    if key == "protocol.staleness":
        return f"staleness bound {_count(v)}"
    if key == "protocol.local_steps":
        return _plural(v, "local step")
    if key == "protocol.backup_workers":
        return _plural(v, "backup worker")
    if key == "protocol.algorithm":
        return f"{v} all-reduce"
    if key == "protocol.overlap":
        return "no overlap" if str(v) == "none" else f"overlap {v}"
    if key == "protocol.schedule":
        return str(v)
    if key == "cluster.workers.count":
        return _plural(v, "worker")
    if key == "cluster.servers.count":  # with shards swept alongside and equal, "4 shards" says it
        shards = values.get("cluster.servers.shards")
        return None if shards is not None and _count(shards) == _count(v) else _plural(v, "server")
    if key == "cluster.servers.shards":
        return _plural(v, "shard")
    if key == "training.staleness_lr":
        return STALENESS_LR.get(str(v), str(v))
    if key == "training.optimizer.lr":
        return f"lr {v}"
    if key == "training.clip_norm":
        return f"clip norm {v}"
    if key == "training.lr_schedule.kind":
        return f"{v} lr schedule"
    if key == "model.dropout":
        return f"dropout {v}"
    if key == "data.partition.kind":
        return "non-iid (Dirichlet)" if str(v) == "dirichlet" else str(v)
    if key == "data.partition.alpha":
        return f"Dirichlet α = {v}"
    if key == "data.batch_size":
        return f"batch {v}"
    if key == "seed":
        return f"seed {v}"
    if key.startswith("compression."):
        return None  # composed per direction
    phrase = _path_phrase(key, scenario)
    if str(v).strip().lower() in ("true", "false"):
        return f"{phrase} {'on' if _truthy(v) else 'off'}"
    if str(v).strip() in ("~", "null", ""):
        return f"no {phrase}"
    return f"{phrase} {v}"


def setting_label(values, scenario=None):
    """A readable label for a sweep point's swept values, in the order given."""
    parts = []
    done = set()
    for key, value in values.items():
        if key.startswith("compression."):
            direction = key.split(".")[1]
            if direction not in done:
                done.add(direction)
                parts.append(_compression(direction, values, scenario))
            continue
        phrase = _one(key, value, scenario, values)
        if phrase:
            parts.append(phrase)
    return ", ".join(parts)


def is_missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v)) or v == ""
