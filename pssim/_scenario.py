"""Scenario and override arguments of pssim.run, turned into what the simulator reads."""
import json
import os
import pathlib

import yaml


def source_of(scenario):
    """(path, text, source): a file path, or YAML text (a string or a dict) named `source`
    in error messages. A one-line string without a colon is a path (YAML text of a scenario
    is a mapping, so it has one): a path that does not exist is reported as such, never
    read as YAML."""
    if isinstance(scenario, os.PathLike):
        return os.fspath(scenario), None, os.fspath(scenario)
    if isinstance(scenario, dict):
        return None, yaml.safe_dump(plain(scenario), sort_keys=False), "<dict>"
    if isinstance(scenario, str):
        if "\n" not in scenario and (":" not in scenario or os.path.exists(scenario)):
            return scenario, None, scenario
        return None, scenario, "<string>"
    raise TypeError("scenario must be a path, a YAML string or a dict, not {}".format(type(scenario).__name__))


def raw(scenario):
    """The scenario as a plain dict, as written (no defaults), for inspection."""
    path, text, _ = source_of(scenario)
    if path is not None:
        text = pathlib.Path(path).read_text()
    data = yaml.safe_load(text)
    return data if isinstance(data, dict) else {}


def plain(value):
    """`value` with numpy scalars and arrays as Python numbers and lists, tuples as lists and
    paths as strings, so that it can be written as YAML (sweeps built with numpy work)."""
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "tolist") and type(value).__module__ == "numpy":  # numpy scalar or array
        return plain(value.tolist())
    return value


def _reads_back_as_itself(text):
    try:
        return yaml.safe_load(text) == text
    except yaml.YAMLError:
        return False


def yaml_value(value):
    """A value as a --set override writes it: YAML flow style. A string stays the string it
    is: written plain when YAML reads it back unchanged ("async", "10Gbps"), else quoted
    ("run #2", "exp: 1", "4")."""
    value = plain(value)
    if isinstance(value, str):
        return value if value and _reads_back_as_itself(value) else json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return yaml.safe_dump(value, default_flow_style=True, width=1 << 30).strip().removesuffix("...").strip()


def assignments(overrides):
    """{'a.b': value} (or a list of 'a.b=value' strings) as the pssim command's --set list."""
    if overrides is None:
        return []
    if isinstance(overrides, dict):
        return ["{}={}".format(key, yaml_value(value)) for key, value in overrides.items()]
    return [str(o) for o in overrides]


def torch_overrides(scenario, model, data):
    """The overrides that make a scenario take a module and datasets given from Python:
    model.kind torch and data.kind torch (keeping batch_size, partition and eval_max)."""
    if model is None and data is None:
        return []
    try:
        written = raw(scenario)
    except (OSError, yaml.YAMLError):  # the simulator reports it, with file and line
        written = {}
    out = []
    if model is not None and (written.get("model") or {}).get("kind") != "torch":
        out.append("model={kind: torch}")
    if data is not None:
        old = written.get("data") or {}
        if old.get("kind") != "torch":
            new = {"kind": "torch"}
            for key in ("batch_size", "partition", "eval_max"):
                if key in old:
                    new[key] = old[key]
            out.append("data=" + yaml_value(new))
    return out
