"""The code blocks of README.md and docs/*.md, and how the docs check runs them
(tests/python/test_docs.py; scripts/check_docs.sh for the long ones).

A fenced block's info string says what it is: its first word the language (`sh`,
`console`, `python`, `yaml`, `text` ...), then optional words for the check:

    long      runs for minutes: run by scripts/check_docs.sh (CI), not by pytest
    not-run   cannot run here (a Slurm or Dask cluster, other hosts): its text says so

`sh` and `python` blocks run as written, from a scratch folder that sees the repository's
files (results go there), but for blocks that call the set-up scripts (scripts/*.sh: they
configure and build build/, which must stay the repository's), which run from the
repository root; `console` blocks are commands (`$ ...`) each followed by what it prints,
compared with what it does print (wall-clock times aside).
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "scenario-reference.md")
RUNNABLE = ("sh", "console", "python")


class Block:
    def __init__(self, page, line, info, text):
        words = info.split()
        self.page, self.line, self.text = page, line, text
        self.language = words[0] if words else ""
        self.flags = set(words[1:])

    @property
    def where(self):
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runnable(self):
        return self.language in RUNNABLE and "not-run" not in self.flags

    @property
    def long(self):
        return "long" in self.flags


def blocks(pages=PAGES):
    out = []
    for page in pages:
        lines = page.read_text().splitlines()
        start, info, body = None, "", []
        for number, line in enumerate(lines, start=1):
            if line.startswith("```"):
                if start is None:
                    start, info, body = number, line[3:].strip(), []
                else:
                    out.append(Block(page, start, info, "\n".join(body) + "\n"))
                    start = None
            elif start is not None:
                body.append(line)
    return out


def scratch():
    """A folder that sees the repository's top-level files (symbolic links; not results/,
    where the blocks write), for blocks written to run from the repository root."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pssim-docs-"))
    for entry in ROOT.iterdir():
        if entry.name not in ("results", ".git"):
            (folder / entry.name).symlink_to(entry)
    return folder


def environment(home):
    """The blocks' environment: this tree's pssim package, and a home of their own (a
    block may set up the reader's home, e.g. Python's user site)."""
    return dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg", HOME=str(home))


# Commands a block shows that the check does not run again, and why.
ALREADY_RUN = {"scripts/test.sh": "CI runs it, and it runs this check"}


def builds(text):
    """Whether a block calls a set-up script (which configures and builds build/)."""
    return re.search(r"(^|\s)scripts/[\w-]+\.sh", text) is not None


def run_shell(text, cwd, timeout):
    lines = [line for line in text.splitlines() if line.strip() not in ALREADY_RUN]
    where = ROOT if builds(text) else cwd
    return subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(lines)], cwd=where, env=environment(cwd),
                          capture_output=True, text=True, timeout=timeout)


def run_python(text, cwd, timeout):
    return subprocess.run([sys.executable, "-c", text], cwd=cwd, env=environment(cwd), capture_output=True, text=True,
                          timeout=timeout)


WALL = re.compile(r"\d+(\.\d+)? s wall")


def normalized(text):
    """Output without what differs between two runs of the same command: wall-clock time."""
    return WALL.sub("(wall) s wall", text).rstrip("\n")


def console_steps(text):
    """[(command, expected output)] of a console block: `$ ` lines are commands (a line
    ending in a backslash continues), the lines after one, up to the next, its output."""
    steps = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append([line[2:], []])
        elif steps and steps[-1][0].endswith("\\") and not steps[-1][1]:
            steps[-1][0] += "\n" + line
        elif steps:
            steps[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in steps]
