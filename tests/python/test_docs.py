"""The README and the guides in docs/: every link leads somewhere, every block of commands
or Python that a reader can run runs as written, and shows what it prints (doc_blocks.py
says how blocks are marked). Blocks marked `long` run with PSSIM_DOCS_LONG=1
(scripts/check_docs.sh, which CI runs after the tests)."""
import os
import re
import shutil

import pytest

import doc_blocks
from conftest import ROOT

PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
LONG = os.environ.get("PSSIM_DOCS_LONG") == "1"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def anchors(page):
    """The anchors GitHub gives a page's headings: lower case, punctuation but - and _
    dropped, spaces as dashes; a repeated heading gets -1, -2 ..."""
    seen, out = {}, set()
    in_code = False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        text = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "{}-{}".format(slug, n))
    return out


def links(page):
    in_code = False
    for number, line in enumerate(page.read_text().splitlines(), start=1):
        if line.startswith("```"):
            in_code = not in_code
        if not in_code:
            for target in LINK.findall(line):
                yield number, target


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_somewhere(page):
    broken = []
    for number, target in links(page):
        if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
            continue  # outside the repository: not checked here (no network)
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append("{}:{}: {} does not exist".format(page.name, number, path))
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append("{}:{}: no heading #{} in {}".format(page.name, number, anchor, file.name))
    assert not broken, "\n".join(broken)


def test_the_link_check_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A title\n\nSee [it](missing.md), [here](#a-title) and [there](#nowhere).\n")
    with pytest.raises(AssertionError, match="missing.md does not exist") as e:
        test_every_link_leads_somewhere(page)
    assert "no heading #nowhere" in str(e.value) and "#a-title" not in str(e.value)


def _run_page(page, include_long):
    """Runs the page's runnable blocks in order, in one scratch folder; returns the
    problems found."""
    problems = []
    folder = doc_blocks.scratch()
    try:
        for block in doc_blocks.blocks([page]):
            if not block.runnable or (block.long and not include_long):
                continue
            timeout = 1800 if block.long else 300
            if block.language == "console":
                for command, expected in doc_blocks.console_steps(block.text):
                    done = doc_blocks.run_shell(command, folder, timeout)
                    if done.returncode != 0:
                        problems.append(f"{block.where}: `{command}` exited {done.returncode}: {done.stderr.strip()}")
                    elif doc_blocks.normalized(done.stdout) != doc_blocks.normalized(expected):
                        problems.append(f"{block.where}: `{command}` printed\n{done.stdout}instead of\n{expected}")
                continue
            run = doc_blocks.run_python if block.language == "python" else doc_blocks.run_shell
            done = run(block.text, folder, timeout)
            if done.returncode != 0:
                problems.append(f"{block.where}: exited {done.returncode}: {(done.stderr or done.stdout).strip()[-2000:]}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return problems


@pytest.mark.parametrize("page", doc_blocks.PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_blocks_of_a_page_run_as_written(page):
    if LONG:
        pytest.skip("PSSIM_DOCS_LONG=1 runs every block in test_the_long_blocks_run_as_written")
    problems = _run_page(page, include_long=False)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", [p for p in doc_blocks.PAGES if any(b.long for b in doc_blocks.blocks([p]))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_the_long_blocks_run_as_written(page):
    if not LONG:
        pytest.skip("long blocks run with PSSIM_DOCS_LONG=1 (scripts/check_docs.sh)")
    problems = _run_page(page, include_long=True)
    assert not problems, "\n".join(problems)


def _shipped(name):
    """The scenario and sweep files whose name: is `name`."""
    return [path for path in sorted((ROOT / "scenarios").rglob("*.yaml"))
            if re.search(r"^name: {}$".format(re.escape(name)), path.read_text(), re.MULTILINE)]


def test_a_shown_scenario_or_sweep_is_the_shipped_file():
    """A YAML block that starts with `name:` shows a shipped file: the same keys and
    values, the file's leading comment aside."""
    shown = [b for b in doc_blocks.blocks() if b.language == "yaml" and b.text.startswith("name: ")]
    assert len(shown) >= 3
    for block in shown:
        name = block.text.split("\n", 1)[0][len("name: "):].strip()
        paths = _shipped(name)
        assert paths, f"{block.where}: no file in scenarios/ is named {name}"
        bodies = [p.read_text()[p.read_text().index("name: "):] for p in paths]
        assert block.text in bodies, f"{block.where}: differs from {', '.join(str(p.relative_to(ROOT)) for p in paths)}"


def test_every_runnable_block_is_marked():
    """Each block says what it is: a language the check knows, or text; shell blocks that
    cannot run here are marked not-run and say why in a comment."""
    for block in doc_blocks.blocks():
        assert block.language, f"{block.where}: a block without a language (text for output or prose)"
        if "not-run" in block.flags:
            assert block.text.lstrip().startswith("#"), f"{block.where}: a not-run block starts with a comment saying why"


def test_the_console_check_compares_output(tmp_path):
    steps = doc_blocks.console_steps("$ echo one\none\n$ echo two \\\n  three\ntwo three\n")
    assert steps == [("echo one", "one"), ("echo two \\\n  three", "two three")]
    assert doc_blocks.normalized("x (4.2 s wall), y") == doc_blocks.normalized("x (0.1 s wall), y")
    assert doc_blocks.normalized("30 s simulated") != doc_blocks.normalized("31 s simulated")
