"""The documentation site: it builds with warnings as errors, renders in headless Chromium, and
every internal link of every built page resolves.

Chromium also lays out three pages 1280 px wide and reports where their code blocks end: none
runs off the page, and the shell blocks (the README's two commands) wrap instead of hiding their
ends.  Citation keys link to the references page, and the API index lists each page once.

No prebuilt site is needed.  The site checked is ``docs/_build/html`` (where ``.ci/run`` builds
it) when that build is newer than every source it depends on (the pages, the package, the
proofs and their PDFs); otherwise this module builds it into a temporary folder with
``python -m sphinx -W --keep-going``, after building the proofs if a PDF is missing or older
than its source.  A site that does not build is a failure.  Chromium (``--dump-dom``) renders
the index, an API page and a search; the links are checked on the HTML files themselves: the
target file exists and, for ``page.html#anchor``, the target has an element with that id.

The module is skipped, with the reason, without Chromium or Sphinx (the docs extra), and without
the TeX toolchain when the proofs' PDFs need building; ``.ci/run`` requires all three
(``OPENDP_DUFF_REQUIRE_BROWSER``, ``_SPHINX``, ``_TEX``: see tests/conftest.py).
"""
from __future__ import annotations

import html
import html.parser
import json
import pathlib
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import pytest
from helpers import chromium, missing

import opendp_duff as dp
from opendp_duff import laws

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PREBUILT = DOCS / "_build" / "html"
CHROMIUM = chromium()

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(missing("chromium", "sphinx")),
                                                   reason="the site's check " + missing("chromium", "sphinx"))]


# --------------------------------------------------------------------------- the site
def _sources() -> list[pathlib.Path]:
    files = [p for p in DOCS.rglob("*") if p.is_file() and "_build" not in p.parts]
    files += list((ROOT / "opendp_duff").rglob("*.py"))
    files += [p for p in (ROOT / "proofs").rglob("*") if p.suffix in (".tex", ".pdf", ".sty", ".inc")]
    return files


def _fresh(outdir: pathlib.Path) -> bool:
    stamp = outdir / ".buildinfo"
    return stamp.exists() and stamp.stat().st_mtime > max(p.stat().st_mtime for p in _sources())


def _build(outdir: pathlib.Path) -> None:
    tex = sorted(p for p in (ROOT / "proofs").rglob("*.tex") if "_build" not in p.parts)
    pdfs = [t.with_suffix(".pdf") for t in tex]
    if any(not p.exists() or p.stat().st_mtime < t.stat().st_mtime for t, p in zip(tex, pdfs, strict=True)):
        if missing("tex"):
            pytest.skip("the site links the proofs' PDFs, which need building: " + missing("tex"))
        res = subprocess.run([sys.executable, str(ROOT / "proofs" / "build.py")], capture_output=True, text=True)
        assert res.returncode == 0, "the site links the proofs' PDFs; proofs/build.py failed:\n" + res.stdout[-3000:]
    res = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          str(DOCS), str(outdir)], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, "the site does not build without warnings:\n" + (res.stderr + res.stdout)[-5000:]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    if _fresh(PREBUILT):
        return PREBUILT
    outdir = tmp_path_factory.mktemp("site")
    _build(outdir)
    return outdir


# --------------------------------------------------------------------------- HTML reading
class _Page(html.parser.HTMLParser):
    """The ids, links and title of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key) and tag in ("a", "link", "img", "script", "iframe", "source"):
                self.links.append(a[key])
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False if tag == "title" else self._in_title

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def _chromium_dom(url: str, width: int = 1280) -> str:
    """The DOM of ``url`` after Chromium has rendered it, ``width`` pixels wide, and run its scripts."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--window-size={width},900", "--virtual-time-budget=10000",
               "--dump-dom", url]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "</html>" in res.stdout, f"Chromium failed on {url}:\n{res.stderr[-2000:]}"
    return res.stdout


def _internal(link: str) -> bool:
    parts = urllib.parse.urlsplit(link)
    return not parts.scheme and not parts.netloc and not link.startswith(("mailto:", "javascript:", "data:"))


# --------------------------------------------------------------------------- the checks
def test_index_renders_with_navigation_in_chromium(site):
    index = _parse(_chromium_dom((site / "index.html").as_uri()))
    assert index.title.startswith("opendp_duff"), index.title
    targets = {urllib.parse.urlsplit(link).path for link in index.links}
    for page in ("getting-started.html", "analyst-guide.html", "framework-guide.html", "api/index.html",
                 "proofs.html", "RESULTS.html", "references.html", "contributing.html"):
        assert page in targets, f"the index does not link {page}"


def test_api_reference_is_reachable_and_renders_in_chromium(site):
    api_index = _parse(_chromium_dom((site / "api" / "index.html").as_uri()))
    assert "m.html" in {urllib.parse.urlsplit(link).path for link in api_index.links}
    measurements = _parse(_chromium_dom((site / "api" / "m.html").as_uri()))
    assert {"opendp_duff.m.make_duff_median", "opendp_duff.m.then_duff_median"} <= measurements.ids


def test_search_finds_a_constructor_in_chromium(site):
    found = _parse(_chromium_dom((site / "search.html").as_uri() + "?q=make_duff_quantile"))
    assert "api/m.html#opendp_duff.m.make_duff_quantile" in found.links


# Run in the page once it is laid out: the widths of the page and of every code block, written
# into the DOM, which --dump-dom then shows.
_MEASURE = """<script>
window.addEventListener("load", function () {
  var root = document.documentElement, blocks = [];
  document.querySelectorAll("pre").forEach(function (pre) {
    var box = pre.getBoundingClientRect(), style = getComputedStyle(pre);
    blocks.push({shell: !!pre.closest("div.highlight-sh"), right: box.right, scroll: pre.scrollWidth,
                 client: pre.clientWidth, overflow: style.overflowX, text: pre.textContent.slice(0, 60)});
  });
  document.body.setAttribute("data-layout", JSON.stringify(
      {view: root.clientWidth, page: root.scrollWidth, blocks: blocks}));
});
</script>"""


@pytest.mark.parametrize("page", ["getting-started.html", "analyst-guide.html", "api/m.html"])
def test_code_blocks_fit_the_page_at_1280_px_in_chromium(site, page, tmp_path):
    """At 1280 px no code block runs off the page: a shell block wraps (all of a command is in
    view), any other block fits or scrolls inside its own box; the page never scrolls sideways."""
    probe = tmp_path / page
    probe.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(site / "_static", tmp_path / "_static")
    probe.write_text((site / page).read_text(encoding="utf-8").replace("</body>", _MEASURE + "</body>"), "utf-8")
    dom = _chromium_dom(probe.as_uri(), width=1280)
    found = re.search(r'data-layout="([^"]*)"', dom)
    assert found, f"{page}: the layout probe did not run"
    layout = json.loads(html.unescape(found.group(1)))
    assert layout["blocks"], f"{page} has no code block"
    assert layout["page"] <= layout["view"], f"{page} scrolls sideways at 1280 px: {layout['page']} px"
    for block in layout["blocks"]:
        assert block["right"] <= layout["view"], f"{page}: a code block runs off the page: {block}"
        if block["shell"]:
            assert block["scroll"] <= block["client"], f"{page}: a command is cut off: {block}"
        else:
            assert block["scroll"] <= block["client"] or block["overflow"] in ("auto", "scroll"), block
    if page == "getting-started.html":
        assert sum(b["shell"] for b in layout["blocks"]) >= 2       # the two commands are checked


def test_citation_keys_link_to_their_entry_on_the_references_page(site):
    references = _parse((site / "references.html").read_text(encoding="utf-8"))
    assert {"ref-gm-duff", "ref-bs19", "ref-nrs07"} <= references.ids
    index = _parse((site / "index.html").read_text(encoding="utf-8"))
    assert "references.html#ref-gm-duff" in index.links
    measurements = _parse((site / "api" / "m.html").read_text(encoding="utf-8"))
    assert "../references.html#ref-gm-duff" in measurements.links
    text = (site / "getting-started.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="[^"]*citation-key[^"]*" href="references.html#ref-gm-duff">\[GM-Duff\]</a>', text)


def test_the_api_index_lists_its_pages_once(site):
    text = (site / "api" / "index.html").read_text(encoding="utf-8")
    body = text[text.index('<div class="body"'):text.index('class="sphinxsidebar"')]
    assert body.count('href="m.html"') == 1, "the API index lists dp.m more than once"


def _public_names() -> dict[str, list[str]]:
    top = [n for n in dp.__all__ if not isinstance(getattr(dp, n), type(dp))]   # modules have pages
    context_own = [n for n in dp.context.__all__ if n not in dp.__all__]           # the rest is at the top
    plans_own = [n for n in dp.plans.__all__ if n not in dp.__all__]
    return {"opendp_duff": top, "opendp_duff.t": dp.t.__all__, "opendp_duff.m": dp.m.__all__,
            "opendp_duff.c": dp.c.__all__, "opendp_duff.smooth": dp.smooth.__all__,
            "opendp_duff.laws": laws.__all__, "opendp_duff.context": context_own,
            "opendp_duff.plans": plans_own}


def test_api_reference_documents_every_public_name(site):
    ids: set[str] = set()
    for page in (site / "api").glob("*.html"):
        ids |= _parse(page.read_text(encoding="utf-8")).ids
    audit_own = [n for n in dp.audit.__all__ if n not in laws.__all__]
    expected = {f"{module}.{name}" for module, names in _public_names().items() for name in names}
    expected |= {f"opendp_duff.audit.{name}" for name in audit_own}
    missing = sorted(expected - ids)
    assert not missing, f"not in the API reference: {missing}"


def test_every_internal_link_resolves(site):
    pages = {p: _parse(p.read_text(encoding="utf-8")) for p in site.rglob("*.html")}
    assert len(pages) > 10
    broken = []
    for page, parsed in pages.items():
        for link in parsed.links:
            if not _internal(link):
                continue
            parts = urllib.parse.urlsplit(link)
            path = urllib.parse.unquote(parts.path)
            target = page if not path else pathlib.Path(posixpath.normpath(page.parent.joinpath(path).as_posix()))
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)} -> {link}"
            if not target.is_file():
                broken.append(f"{where}: no such file")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target.read_text("utf-8")).ids
                if urllib.parse.unquote(parts.fragment) not in ids:
                    broken.append(f"{where}: no anchor #{parts.fragment}")
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(broken[:50])


def test_every_proof_pdf_is_in_the_site(site):
    tex = sorted(p for p in (ROOT / "proofs").rglob("*.tex") if "_build" not in p.parts)
    proofs_page = _parse((site / "proofs.html").read_text(encoding="utf-8"))
    for t in tex:
        rel = t.relative_to(ROOT / "proofs").with_suffix(".pdf").as_posix()
        assert (site / "proofs" / rel).is_file(), rel
        assert f"proofs/{rel}" in proofs_page.links, f"the proofs page does not link {rel}"
