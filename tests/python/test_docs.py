"""The README and the guides in docs/: every link leads somewhere."""
import re

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
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
