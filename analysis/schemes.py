"""The training schemes as pssim's scheme registry describes them (`pssim schema
--schemes`): each one's name, label, layout and capabilities. Plots, labels and closed forms
ask these instead of comparing scheme names, so a new scheme needs no change here.

    find(name)  -> {"name", "label", "layout", "has_rounds", "bulk_synchronous", ...}
    label(name) -> "SSP", "local SGD" ...
    summary(name, protocol) -> "SSP (staleness 2) PS", "ring all-reduce" ...
    default()   -> the scheme of a scenario without protocol.mode

The table comes from $PSSIM_SCHEMES (set by `pssim plot`, `pssim compare` and pssim.plot)
or, for a script run by hand, from `pssim schema --schemes` of $PSSIM, of this tree's
release build, or of the pssim on PATH.
"""
import functools
import json
import os
import re
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))


def _command():
    for candidate in (os.environ.get("PSSIM"), os.path.join(_HERE, "..", "build", "release", "sim", "cli", "pssim"),
                      shutil.which("pssim")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("no pssim command to ask for the training schemes: set PSSIM_SCHEMES (pssim schema --schemes) "
                       "or PSSIM (the pssim command)")


@functools.lru_cache(maxsize=None)
def _table():
    text = os.environ.get("PSSIM_SCHEMES")
    if not text:
        text = subprocess.run([_command(), "schema", "--schemes"], check=True, capture_output=True, text=True).stdout
    table = json.loads(text)
    return table["default"], {s["name"]: s for s in table["schemes"]}


def default():
    return _table()[0]


def find(name):
    """The registry's entry for `name`; a name it does not know (results of another pssim)
    gets a label of its own name and no capabilities."""
    return _table()[1].get(str(name), {"name": str(name), "label": str(name), "layout": None})


def label(name):
    return find(name)["label"]


_FIELD = re.compile(r"\{(\w+)(?:\|(\w+))?\}")


def summary(name, protocol):
    """The registry's description of a run of scheme `name` with the settings `protocol`
    (a resolved scenario's protocol section): "SSP (staleness 2) PS", "local SGD (4 steps)"."""
    def fill(match):
        value = protocol.get(match.group(1), "?")
        if isinstance(value, float) and value == int(value):
            value = int(value)
        noun = match.group(2)
        return f"{value} {noun}{'' if str(value) == '1' else 's'}" if noun else str(value)
    return _FIELD.sub(fill, find(name).get("summary") or label(name))
