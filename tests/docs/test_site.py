"""The documentation site: strict MkDocs build, offline assets, the guide's samples, a browser check.

The site is built once per session from the committed generated/ tree (`ptogen check` keeps that
equal to what the specs produce). The browser test drives Debian's `chromium` through Playwright
with the system binary; it is skipped, with the reason, only where chromium is not installed and CI
is not set (`.ci/run` installs it).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import io
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from ..compilers import COMPILERS, cxx_argv, precompiled_header, require, starts_with_the_header
from ..helpers import ROOT

GENERATED = ROOT / "generated"
GUIDE = GENERATED / "docs" / "guide.md"
CHROMIUM = "/usr/bin/chromium"
ARTEFACTS = ROOT / ".ptogen-cache" / "artefacts" / "site"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _missing(what: str, extra: str = "docs") -> None:
    """Skip locally, fail in CI: CI installs everything the site needs."""
    message = f"{what} (install with `pip install -e '.[{extra}]'`; CI installs it)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _build_site(out: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(GENERATED / "mkdocs.yml"),
            "-d",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    assert "WARNING" not in log, log


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with --strict and no warning once per test session: pytest-xdist's workers
    share one build in the session's common temporary directory, under a lock."""
    for module in ("mkdocs", "material", "mathjax"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"the docs extra is not installed (no module {module!r})")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        out = tmp_path_factory.mktemp("site")
        _build_site(out)
        return out
    shared = tmp_path_factory.getbasetemp().parent  # one directory per session, common to its workers
    out = shared / "site"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "built").exists():
            shutil.rmtree(out, ignore_errors=True)
            _build_site(out)
            (out / "built").write_text("ok\n")
    return out


# --------------------------------------------------------------------------- the built site
class _Refs(HTMLParser):
    """Collects what a page loads (scripts, stylesheets, images) and its anchors' targets."""

    def __init__(self) -> None:
        super().__init__()
        self.loads: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in ("script", "img", "iframe") and a.get("src"):
            self.loads.append(a["src"] or "")
        if tag == "link" and a.get("href") and a.get("rel") in ("stylesheet", "preload", "icon"):
            self.loads.append(a["href"] or "")
        if tag == "a" and a.get("href"):
            self.links.append(a["href"] or "")


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    remote = []
    for page in _pages(site):
        refs = _Refs()
        refs.feed(page.read_text(encoding="utf-8"))
        remote += [f"{page.relative_to(site)}: {u}" for u in refs.loads if re.match(r"^(https?:)?//", u)]
    assert remote == []
    assert (site / "assets/mathjax/tex-svg.js").stat().st_size > 100_000  # the real script, served locally


def test_every_internal_link_and_anchor_exists(site: Path) -> None:
    """mkdocs --strict validates Markdown links; this checks the rendered ones, anchors included."""
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    ids: dict[str, set[str]] = {}

    def ids_of(page: str) -> set[str]:
        if page not in ids:
            ids[page] = set(re.findall(r'\sid="([^"]+)"', (site / page).read_text(encoding="utf-8")))
        return ids[page]

    broken = []
    for page in _pages(site):
        rel = page.relative_to(site).as_posix()
        if rel == "404.html":  # served for any missing path, so its links are absolute by design
            continue
        refs = _Refs()
        refs.feed(page.read_text(encoding="utf-8"))
        for href in set(refs.links):
            if re.match(r"^[a-z]+:", href) or href.startswith("//"):
                continue
            path, _, anchor = href.partition("#")
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path)) if path else rel
            if target not in files and f"{target}/index.html" in files:
                target = f"{target}/index.html"
            if target not in files:
                broken.append(f"{rel} -> {href}")
            elif anchor and target.endswith(".html") and anchor not in ids_of(target):
                broken.append(f"{rel} -> {href} (no such anchor)")
    assert broken == []


def _menu_pages() -> list[str]:
    import yaml

    config = yaml.safe_load((GENERATED / "mkdocs.yml").read_text())
    pages: list[str] = []

    def walk(items: list[object]) -> None:
        for item in items:
            if isinstance(item, dict):
                for value in item.values():
                    if isinstance(value, list):
                        walk(value)
                    else:
                        pages.append(str(value))
            else:
                pages.append(str(item))

    walk(config["nav"])
    return pages


def test_each_op_is_in_the_menu_once_and_the_reference_layout_is_not(site: Path) -> None:
    pages = _menu_pages()
    assert len(pages) == len(set(pages))
    op_pages = [p for p in pages if "/ops/" in p]
    assert len(op_pages) == len(list((GENERATED / "docs/isa").glob("*/ops/*/*.md")))
    # The reference layout repeats the instruction-set pages: out of the menu, built all the same
    # (strict: declared `not_in_nav`), and linked from its op's page and from the finder.
    reference = sorted(p.name for p in (GENERATED / "docs/isa").glob("*.md"))
    assert len(reference) > 100 and not [p for p in pages if re.fullmatch(r"isa/[A-Z0-9_]+\.md", p)]
    finder = "".join(_finder_more(site).values())  # what the finder's rows show when opened
    for name in reference:
        html = name.replace(".md", ".html")
        assert (site / "isa" / html).is_file(), html
        assert f'href="isa/{html}"' in finder, html
    for op in _project().ops:  # type: ignore[attr-defined]
        if op.ref_doc_path.endswith(tuple(reference)):
            built = (site / in_docs_html(op.doc_path)).read_text(encoding="utf-8")
            assert posixpath.basename(op.ref_doc_path).replace(".md", ".html") in built, op.name


def test_every_op_kind_has_a_category_and_a_unit() -> None:
    """targets.yaml states them per op kind; a new kind must be added to both lists."""
    ops = _project().ops  # type: ignore[attr-defined]
    missing = sorted({o.spec.semantics.kind for o in ops if o.category is None or o.unit is None})
    assert missing == [], f"add these op kinds to `categories` and `units` in specs/targets.yaml: {missing}"


def in_docs_html(doc_path: str) -> str:
    from ptogen.emit.site import in_docs

    return in_docs(doc_path).replace(".md", ".html")


# --------------------------------------------------------------------------- the guide's samples
SAMPLE = re.compile(r"<!-- sample: (?P<marker>[^>]*?) -->\n```cpp\n(?P<code>.*?)\n```", re.S)
TEXT_BLOCK = re.compile(r"```text\n(.*?)\n```", re.S)


SAMPLE_PAGES = [
    GUIDE,
    GENERATED / "docs" / "getting-started.md",
    GENERATED / "docs" / "gemm.md",
    GENERATED / "docs" / "vector-guide.md",
]


def _guide_samples() -> list[tuple[str, str, str]]:
    """(marker, code, expected text) of every C++ sample of the guide and the getting-started page;
    the expected text is the first text block after the sample that is not a shell command."""
    samples = []
    for page in SAMPLE_PAGES:
        text = page.read_text(encoding="utf-8")
        for match in SAMPLE.finditer(text):
            blocks = [
                b
                for b in TEXT_BLOCK.findall(text, match.end())
                if not b.startswith(("g++ ", "python ", "pip ", "ptogen "))
            ]
            sample = (match["marker"], match["code"], blocks[0] if blocks else "")
            if sample not in samples:  # the getting-started page shows the guide's first kernel
                samples.append(sample)
    return samples


def test_every_cpp_block_of_the_guide_is_a_sample() -> None:
    blocks = {
        m.group(0)
        for p in SAMPLE_PAGES
        for m in re.finditer(r"```cpp\n.*?```", p.read_text(encoding="utf-8"), re.S)
    }
    assert len(blocks) == len(_guide_samples()) >= 8


def _build(cxx: str, code: str, profile: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Build as the guide says: `$CXX -std=c++20 $(ptogen cflags --profile P) file.cpp`."""
    source = workdir / f"sample_{profile}.cpp"
    source.write_text(code + "\n")
    from ptogen.cli import main

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):  # the command in-process: a Python start less per build
        assert main(["--root", str(ROOT), "cflags", "--profile", profile]) == 0
    cflags = printed.getvalue().split()
    flags = ["-std=c++20", "-Wall", "-Wextra", "-Werror", *cflags]
    return subprocess.run(
        [
            *cxx_argv(cxx),
            *flags,
            *(precompiled_header(cxx, flags) if starts_with_the_header(code) else []),
            str(source),
            "-o",
            str(workdir / f"p_{profile}"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


# The guide's samples are documentation: one compiler proves them (the kernel suite runs both). The
# README command builds the first (the first kernel); CI's full tier builds every one.
@pytest.mark.parametrize("cxx", COMPILERS[:1])
@pytest.mark.parametrize(
    "index", [pytest.param(i, marks=pytest.mark.full_tier) if i else i for i in range(len(_guide_samples()))]
)
def test_guide_sample(cxx: str, index: int, tmp_path: Path) -> None:
    compiler = require(cxx)
    marker, code, expected = _guide_samples()[index]
    mode, *profiles = marker.split()
    if mode == "fragment":  # declarations only: compiled after the include the guide starts from
        code = f"#include <pto/pto-inst.hpp>\nusing namespace pto;\n{code}\nint main() {{ return 0; }}"
        mode, expected = "run", ""
    for profile in profiles or ["CPU"]:
        built = _build(compiler, code, profile, tmp_path)
        if mode == "compile-fail":
            assert built.returncode != 0, f"sample {index} compiled under {profile}"
            assert expected.strip() in built.stderr, built.stderr
            continue
        assert built.returncode == 0, built.stderr
        run = subprocess.run([str(tmp_path / f"p_{profile}")], capture_output=True, text=True, timeout=60)
        if mode == "run":
            assert run.returncode == 0, run.stderr
            assert run.stdout.rstrip("\n") == expected, f"{profile}:\n{run.stdout}"
        else:
            assert mode == "run-fail", marker
            assert run.returncode != 0
            assert expected.strip() in run.stderr, run.stderr


def test_first_kernel_numbers_are_the_leaky_relu_row_sums() -> None:
    """The printed sums, worked out independently from the data the kernel builds."""
    marker, code, expected = next(s for s in _guide_samples() if "first_kernel" in s[1])
    rows, cols, slope = 4, 8, 0.25
    x = np.array([[c - 2 * r for c in range(cols)] for r in range(rows)], dtype=np.float32)
    sums = np.where(x > 0, x, x * np.float32(slope)).sum(axis=1, dtype=np.float32)
    printed = [float(v) for v in re.findall(r"sum (\S+)", expected)]
    assert printed == [float(s) for s in sums]
    assert "c - 2 * r" in code and "0.25f" in code and "R = 4, C = 8" in code


# --------------------------------------------------------------------------- the browser
@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on the loopback (search runs in a web worker, which file:// forbids)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


@pytest.fixture(scope="session")
def browser(served: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if shutil.which(CHROMIUM) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} not installed (Debian package `chromium`; CI installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright is not installed", "browser")
    profile_dir = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile_dir),
            executable_path=CHROMIUM,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        ctx.add_init_script(SEARCH_PROBE)
        yield ctx
        ctx.close()


# Counts the queries the page sends to the search worker and the answers it gets back, so a test
# knows when the results shown answer the whole query (the worker answers each typed prefix in turn).
SEARCH_PROBE = """
(() => {
  const Native = window.Worker;
  const probe = (window.__ptoSearch = { sent: [], answered: 0 });
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        const data = ev.data && ev.data.data;
        if (data && Array.isArray(data.items)) probe.answered += 1;
      });
    }
    postMessage(message, ...rest) {
      if (message && typeof message.data === "string") probe.sent.push(message.data);
      return super.postMessage(message, ...rest);
    }
  };
})();
"""

# (page, its menu entry, previous page, next page) as the nav and targets.yaml order give them.
BROWSER_PAGES = [
    (
        "isa/tile/ops/tile-scalar-and-immediate/tlrelu.html",
        "pto.tlrelu",
        "isa/tile/ops/tile-scalar-and-immediate/tshrs.html",
        "isa/tile/ops/tile-scalar-and-immediate/taddsc.html",
    ),
    (
        "isa/vector/ops/vec-scalar-ops/vlrelu.html",
        "pto.vlrelu",
        "isa/vector/ops/vec-scalar-ops/vshrs.html",
        "isa/vector/ops/vec-scalar-ops/vaddcs.html",
    ),
    # The reference layout: out of the menu, so no menu entry and no footer links.
    ("isa/TROWSUM.html", None, None, None),
]


def _open(browser: object, served: str, url: str, width: int = 1280) -> tuple[object, list[str]]:
    """A page with its console errors, uncaught exceptions and requests to other hosts recorded."""
    page = browser.new_page()  # type: ignore[attr-defined]
    page.set_viewport_size({"width": width, "height": 900})
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on(
        "request",
        lambda r: problems.append(f"remote request: {r.url}") if not r.url.startswith(served + "/") else None,
    )
    page.goto(url)
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("MathJax.startup.promise")
    return page, problems


def _source_of(rel_html: str) -> str:
    return (GENERATED / "docs" / rel_html.replace(".html", ".md")).read_text(encoding="utf-8")


def _plain(markdown: str) -> str:
    """The text a Markdown phrase renders to: no code spans, emphasis or link targets; spaces collapsed."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("`", "").replace("**", "").replace("\\", "")
    return " ".join(text.split())


def _constraint_groups(op: object) -> dict[str, list[tuple[str, list[str]]]]:
    """Per box of the op page, (group label, its items' text) as the spec states the rules.

    The Constraints box holds the common group, the Target-Profile Restrictions box one group per
    profile with rules of its own (each rule's text starts its item; a note may follow it).
    """
    doc = op.doc  # type: ignore[attr-defined]
    boxes: dict[str, list[tuple[str, list[str]]]] = {"constraints": [], "profiles": []}
    for key, rules in doc.rule_groups():
        items = [_plain(rv.doc) for rv in rules] + [_plain(t) for t in doc.prose_for(key)]
        if key is None:
            boxes["constraints"].append(("Common constraints:", items))
        else:
            boxes["profiles"].append((f"Implementation checks ({key}):", items))
    return boxes


# The top-level items of a box's list: the text before an item's nested list (its label), how many
# nested lists it has, whether the nested list ends the item, and the nested items' text.
_BOX_ITEMS = """box => [...box.querySelectorAll(':scope > ul > li')].map(li => {
  const lists = [...li.children].filter(c => c.tagName === 'UL');
  let head = '';
  for (const n of li.childNodes) { if (n.nodeName === 'UL') break; head += n.textContent; }
  const norm = t => t.replace(/\\s+/g, ' ').trim();
  return {head: norm(head), lists: lists.length,
          endsWithList: !!li.lastElementChild && li.lastElementChild.tagName === 'UL',
          items: lists.length ? [...lists[0].children].map(x => norm(x.textContent)) : []};
})"""
_BOXES = {"constraints": "article div.admonition.warning", "profiles": "article details.info"}


def _check_constraint_lists(page: object, op: object) -> list[str]:
    """Each group's label is an item of the box's list whose one nested list holds that group's items."""
    wrong = []
    for box, groups in _constraint_groups(op).items():
        if not groups:
            continue
        found = page.evaluate(_BOX_ITEMS, page.locator(_BOXES[box]).first.element_handle())  # type: ignore[attr-defined]
        wrong += [f"{box}: an item without a label: {li}" for li in found if li["lists"] and not li["head"]]
        labelled = [li for li in found if li["lists"]]
        if [li["head"] for li in labelled][: len(groups)] != [label for label, _ in groups]:
            wrong.append(f"{box}: group labels {[li['head'] for li in labelled]}, the spec's {groups}")
            continue
        for li, (label, items) in zip(labelled[: len(groups)], groups, strict=True):
            ok = li["lists"] == 1 and li["endsWithList"] and len(li["items"]) == len(items)
            if not (ok and all(got.startswith(want) for got, want in zip(li["items"], items, strict=True))):
                wrong.append(f"{box}: {label} holds {li}, the spec says {items}")
    return wrong


@functools.cache
def _project() -> object:
    from ptogen.lower.views import ProjectView
    from ptogen.spec.load import load_specs

    return ProjectView(load_specs(ROOT / "specs", ROOT))


def _op_of(rel_html: str) -> object | None:
    md = "docs/" + rel_html.replace(".html", ".md")
    return next((o for o in _project().ops if o.doc_path == md), None)  # type: ignore[attr-defined]


# Display math keeps the size MathJax gives it: each formula's SVG as wide as its own width
# attribute (in ex) says, and not a sliver; one wider than the column scrolls inside its block, the
# page itself does not scroll sideways.
_DISPLAY_MATH = """() => [...document.querySelectorAll('article div.arithmatex')].map(d => {
  const svg = d.querySelector('mjx-container svg');
  const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
  return {width: r.width, height: r.height, natural: svg ? svg.width.baseVal.value : 0,
          overflows: d.scrollWidth > d.clientWidth, overflowX: getComputedStyle(d).overflowX};
})"""
WIDTHS = {"desktop": 1280, "phone": 390}

# The tables of a page (type tables, matrices): an identifier in a table on more than one line (broken
# inside its name), a table wider than its block that does not scroll sideways inside it, a block
# reaching past the window.
_TABLES = """() => {
  const bad = [], w = window.innerWidth;
  for (const table of document.querySelectorAll('article table')) {
    for (const code of table.querySelectorAll('code')) {
      if (code.getClientRects().length > 1) bad.push('breaks ' + code.textContent);
    }
    let block = table.parentElement;
    while (block && block.tagName !== 'ARTICLE' && block.scrollWidth <= block.clientWidth + 1) {
      block = block.parentElement;
    }
    if (block && block.tagName !== 'ARTICLE') {
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(block).overflowX);
      if (!scrolls) bad.push('cut off: ' + table.rows[0].textContent.trim().slice(0, 40));
      if (block.getBoundingClientRect().right > w + 1) bad.push('past the window: ' + block.className);
    } else if (table.getBoundingClientRect().right > w + 1) {
      bad.push('past the window: ' + table.rows[0].textContent.trim().slice(0, 40));
    }
  }
  return bad;
}"""
# Pages whose tables are widest: TCVT's pair matrices, TGATHER's and TMATMUL's per-form tables.
TABLE_PAGES = ["pto.tcvt", "pto.tgather", "pto.tmatmul", "pto.tmov"]


@pytest.mark.parametrize("width", list(WIDTHS))
def test_tables_fit_or_scroll_and_names_do_not_break(browser: object, served: str, width: str) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    try:
        for mnemonic in TABLE_PAGES:
            page.goto(served + _page_of(mnemonic))
            assert page.locator("article table").count() >= 1
            assert page.evaluate(_TABLES) == [], mnemonic
            assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"), mnemonic
            if mnemonic == "pto.tcvt":
                # The one conversion matrix fits its block on a desktop; on a phone it scrolls inside it.
                matrix = page.locator("article table:has(th:has-text('from'))")
                assert matrix.count() == 1
                wider = matrix.evaluate(
                    "t => { const b = t.closest('.md-typeset__scrollwrap') || t.parentElement;"
                    " return [b.scrollWidth > b.clientWidth + 1, getComputedStyle(b).overflowX]; }"
                )
                assert wider[0] == (width == "phone") and wider[1] in ("auto", "scroll"), (width, wider)
    finally:
        page.close()


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize(("rel", "entry", "prev", "nxt"), BROWSER_PAGES, ids=lambda v: str(v))
def test_page_in_the_browser(
    browser: object, served: str, rel: str, entry: str | None, prev: str | None, nxt: str | None, width: str
) -> None:
    page, problems = _open(browser, served, f"{served}/{rel}", WIDTHS[width])
    source = _source_of(rel)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTEFACTS / (rel.replace("/", "_").replace(".html", f"_{WIDTHS[width]}.png"))
    try:
        # Math: every $$ block became a MathJax SVG, and no raw TeX delimiters are left on the page.
        assert source.count("$$") >= 2
        assert page.locator(".arithmatex mjx-container svg").count() == source.count("$$") // 2
        assert "\\[" not in page.locator("article").inner_text()
        formulas = page.evaluate(_DISPLAY_MATH)
        assert len(formulas) == source.count("$$") // 2
        for f in formulas:
            assert f["height"] > 8 and f["width"] > 8 and abs(f["width"] - f["natural"]) < 1, f
            assert not f["overflows"] or f["overflowX"] in ("auto", "scroll"), f
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")

        # Constraint lists: each group's items nested under its label, as the spec groups them.
        # (TLRELU's A2A3 group holds its dtype rule; the reference layout has no boxes.)
        op = _op_of(rel)
        if op is not None:
            assert _check_constraint_lists(page, op) == []

        # Callouts (!!!) and the collapsible profile block (???): rendered, and the block opens.
        callouts = len(re.findall(r"^!!! ", source, re.M))
        assert page.locator("article .admonition").count() == callouts
        if "??? info" in source:
            details = page.locator("article details").first
            assert details.get_attribute("open") is None
            details.locator("summary").click()
            assert details.get_attribute("open") is not None
            assert details.locator("li").first.is_visible()

        # Navigation: the menu marks this page; the footer's previous/next follow the set's order.
        if entry is not None and width == "desktop":
            # The sets are collapsible groups of the menu: only the one holding this page is open.
            opened = page.evaluate(
                "[...document.querySelectorAll('nav.md-nav--primary li.md-nav__item--nested > input')]"
                ".map(i => i.checked)"
            )
            assert len(opened) >= len(_project().targets.instruction_sets) and sum(opened) == 1, opened  # type: ignore[attr-defined]
        if entry is not None:
            active = page.locator("nav.md-nav--primary a.md-nav__link--active")
            assert active.first.inner_text().strip() == entry
            links = [("a.md-footer__link--prev", prev), ("a.md-footer__link--next", nxt)]
            if "/ops/" in rel:  # the instruction-set page's own links
                links += [
                    ("article li:has-text('Previous op in instruction set') a", prev),
                    ("article li:has-text('Next op in instruction set') a", nxt),
                ]
            for selector, target in links:
                page.locator(selector).click()
                page.wait_for_load_state()
                assert page.url == f"{served}/{target}"
                page.go_back()
        else:
            assert page.locator("a.md-footer__link--next").count() == 0
        page.goto(f"{served}/{rel}")
        page.screenshot(path=str(shot), full_page=False)
        print(f"screenshot: {shot}")
        assert problems == []
    finally:
        page.close()  # type: ignore[attr-defined]


# The guides: (page, its menu entry, the menu entry of the next page in the footer).
GUIDE_PAGES = [
    ("user-guide.html", "User guide", "Programming guide"),
    ("contributing.html", "Contributor guide", "Design notes per op kind"),
    ("design-notes.html", "Design notes per op kind", None),
]


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize(("rel", "entry", "nxt"), GUIDE_PAGES, ids=lambda v: str(v))
def test_guide_page_in_the_browser(
    browser: object, served: str, rel: str, entry: str, nxt: str | None, width: str
) -> None:
    """Each guide is in the menu, renders every table and code block of its source, keeps wide
    tables and code inside the column, and loads nothing from another host."""
    page, problems = _open(browser, served, f"{served}/{rel}", WIDTHS[width])
    source = _source_of(rel)
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    try:
        active = page.locator("nav.md-nav--primary a.md-nav__link--active")  # type: ignore[attr-defined]
        assert active.first.inner_text().strip() == entry
        assert page.locator("article h1").first.inner_text().strip().rstrip("¶") == entry  # type: ignore[attr-defined]
        headings = re.findall(r"^##+ (.*)$", source, re.M)
        assert page.locator("article h2, article h3").count() == len(headings)  # type: ignore[attr-defined]
        assert page.locator("article table").count() == len(re.findall(r"^\|---", source, re.M))  # type: ignore[attr-defined]
        fenced = len(re.findall(r"^\s*```\w+$", source, re.M))
        assert page.locator("article div.highlight pre").count() >= fenced  # type: ignore[attr-defined]
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")  # type: ignore[attr-defined]
        footer = page.locator("a.md-footer__link--next")  # type: ignore[attr-defined]
        if nxt is None:
            assert footer.count() == 0
        else:
            assert footer.get_attribute("aria-label").endswith(nxt), footer.get_attribute("aria-label")
        page.screenshot(path=str(ARTEFACTS / rel.replace(".html", f"_{WIDTHS[width]}.png")))  # type: ignore[attr-defined]
        assert problems == []
    finally:
        page.close()  # type: ignore[attr-defined]


# The op pages in shards, so that pytest-xdist's workers share them (one test per width took over a
# minute, and the two ran one after the other at the end of CI). Every page comes from the same two
# templates, whose every shape `test_page_in_the_browser` visits: the README command stops there, and
# CI's full tier visits every page (a browser visit per op would grow the local suite with each op).
SHARDS = 8


@pytest.mark.full_tier
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_op_page_at_both_widths(browser: object, served: str, shard: int) -> None:
    """Every op page's DOM (a shard of the ops each): each constraint group nested under its label;
    then at desktop and phone width, every display formula typeset at its natural, non-zero size, no
    sideways scrolling of the page, every table fitting or scrolling inside its block with no name
    broken; no console error. Each page loads once and is resized to the phone's width, where its
    style sheets' media queries apply as on a phone."""
    from ptogen.emit.site import in_docs

    tlrelu = next(o for o in _project().ops if o.spec.mnemonic == "pto.tlrelu")  # type: ignore[attr-defined]
    a2a3 = dict(_constraint_groups(tlrelu)["profiles"])["Implementation checks (A2A3):"]
    assert any(item.startswith("TileData::DType must be one of") for item in a2a3)  # the documented example
    page = browser.new_page()  # type: ignore[attr-defined]
    # Each page load would start the search worker, which builds the whole site's index (most of
    # this test's time); the search has tests of its own, so here the worker is an empty script.
    page.route(  # type: ignore[attr-defined]
        "**/assets/javascripts/workers/search.*",
        lambda route: route.fulfill(status=200, content_type="application/javascript", body=""),
    )
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"{page.url}: {e}"))
    wrong: list[str] = []
    try:
        for op in _project().ops[shard::SHARDS]:  # type: ignore[attr-defined]
            rel = in_docs(op.doc_path).replace(".md", ".html")
            page.set_viewport_size({"width": WIDTHS["desktop"], "height": 900})
            page.goto(f"{served}/{rel}")
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("MathJax.startup.promise")
            wrong += [f"{rel}: {w}" for w in _check_constraint_lists(page, op)]
            for width, pixels in WIDTHS.items():
                page.set_viewport_size({"width": pixels, "height": 900})
                where = f"{rel} ({width})"
                for f in page.evaluate(_DISPLAY_MATH):
                    if not (f["height"] > 8 and f["width"] > 8 and abs(f["width"] - f["natural"]) < 1):
                        wrong.append(f"{where}: formula {f}")
                if not page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth"):
                    wrong.append(f"{where}: the page scrolls sideways")
                wrong += [f"{where}: table {w}" for w in page.evaluate(_TABLES)]
    finally:
        page.close()
    assert wrong == [] and problems == []


def _search(page: object, query: str) -> list[str]:
    """The pages the site's search lists for `query`, best first, each once (a page's matching
    sections follow it as separate items)."""
    box = page.locator("input.md-search__input")  # type: ignore[attr-defined]
    if page.viewport_size["width"] < 960:  # type: ignore[attr-defined]
        # A phone-width header shows a search button, which opens the box over the page.
        page.locator("label.md-header__button[for='__search']").first.click()  # type: ignore[attr-defined]
        box.focus()
    else:
        box.click()
    first = page.locator(".md-search-result__item > a").first  # type: ignore[attr-defined]
    # The search index is built in a web worker when the page opens; until it is ready the
    # result header says "Initializing search" and a query finds nothing. Wait for the worker
    # (a busy machine may take a minute), then type the query, retyping it if results lag.
    meta = page.locator(".md-search-result__meta")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => { const m = document.querySelector('.md-search-result__meta');"
        " return m && !/initiali[sz]ing/i.test(m.textContent); }",
        timeout=180_000,
    )
    for attempt in range(4):
        box.fill("")
        box.press_sequentially(query)  # key events, as a user types
        try:
            first.wait_for(timeout=20_000)
            break
        except Exception as exc:  # playwright's TimeoutError; the last attempt fails the test
            if attempt == 3:
                header = meta.text_content()
                raise AssertionError(f"no search results; the header says {header!r}") from exc
    items = page.locator(".md-search-result__item > a")  # type: ignore[attr-defined]

    def listed() -> list[str]:
        pages: list[str] = []
        for href in items.evaluate_all("els => els.map(e => e.getAttribute('href') || '')"):
            path = urllib.parse.urlparse(href).path
            if path not in pages:
                pages.append(path)
        return pages

    # The worker answers each keystroke's prefix ("r", "re", ...) in turn, so the first results
    # shown may belong to a shorter query: wait for the answer to the whole query, then until the
    # list drawn from it stops changing.
    page.wait_for_function(  # type: ignore[attr-defined]
        "q => { const p = window.__ptoSearch;"
        " return p.sent.length > 0 && p.sent[p.sent.length - 1] === q && p.answered >= p.sent.length; }",
        arg=query,
        timeout=60_000,
    )
    previous, current = None, listed()
    for _ in range(50):
        if current == previous:
            break
        # The list draws its results in batches as the last one scrolls into view.
        if items.count():  # type: ignore[attr-defined]
            items.last.scroll_into_view_if_needed()  # type: ignore[attr-defined]
        page.wait_for_timeout(150)  # type: ignore[attr-defined]
        previous, current = current, listed()
    return current


def _page_of(mnemonic: str) -> str:
    """The built page of an op, as search results name it (a path from the site's root)."""
    op = next(o for o in _project().ops if o.spec.mnemonic == mnemonic)  # type: ignore[attr-defined]
    return "/" + in_docs_html(op.doc_path)


# (query, the op it must find, how high: 1 = first). C++ names with and without the leading T,
# a name inside another name, words of a summary, a category.
SEARCH_QUERIES = [
    ("tadd", "pto.tadd", 1),
    ("TLRELU", "pto.tlrelu", 1),
    ("vlrelu", "pto.vlrelu", 1),
    ("matmul", "pto.tmatmul", 1),
    ("subrelu", "pto.tsubrelu", 1),
    ("fillpad_inplace", "pto.tfillpad_inplace", 1),
    ("convert", "pto.tcvt", 3),
    ("multiply", "pto.tmatmul", 3),
    ("compare", "pto.tcmp", 3),
    ("leaky", "pto.tlrelu", 3),
]


def test_search_finds_ops_by_name_summary_and_category(browser: object, served: str) -> None:
    page, problems = _open(browser, served, f"{served}/index.html")
    try:
        for query, mnemonic, within in SEARCH_QUERIES:
            found = _search(page, query)
            assert _page_of(mnemonic) in found[:within], (query, found[:6])
        # A result shows its op's summary under the op's name.
        _search(page, "matmul")
        first = page.locator(".md-search-result__item article").first  # type: ignore[attr-defined]
        op = next(o for o in _project().ops if o.spec.mnemonic == "pto.tmatmul")  # type: ignore[attr-defined]
        assert _plain(op.doc.summary) in " ".join(first.inner_text().split())
        page.screenshot(path=str(ARTEFACTS / "search_matmul.png"))
        assert problems == []
    finally:
        page.close()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_search_lists_each_op_once_and_ranks_a_family_by_its_name(
    browser: object, served: str, width: str
) -> None:
    page, problems = _open(browser, served, f"{served}/index.html", WIDTHS[width])
    try:
        found = _search(page, "relu")
        assert found[0].endswith("/trelu.html"), found
        top = {p.rsplit("/", 1)[-1] for p in found[:5]}
        assert {"trelu.html", "tlrelu.html", "tprelu.html", "vlrelu.html"} <= top, found
        # Every op with ReLU in its name, the fused ones too.
        relus = {_page_of(o.spec.mnemonic) for o in _project().ops if "relu" in o.name.lower()}  # type: ignore[attr-defined]
        assert len(relus) >= 9 and relus <= set(found), sorted(relus - set(found))
        # Reference-layout pages repeat their op's page, so search leaves them out.
        assert not [p for p in found if re.search(r"/isa/[A-Z0-9_]+\.html$", p)], found
        assert problems == []
    finally:
        page.close()


def test_search_index_names_every_op_and_shows_its_summary(site: Path) -> None:
    """Over every op, in the built index: its page's first entry holds the C++ name with and without
    the leading T (what a query by name must match) and the other ops' names inside its name, and
    its text is the op's summary (what the result shows, and words a query may use)."""
    import json

    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    entries = {d["location"]: d for d in index["docs"]}
    assert {"names", "parts", "category"} <= set(index["config"]["fields"])
    ops = _project().ops  # type: ignore[attr-defined]
    bases = {o.name.lower().removeprefix("t") if o.intrinsic else o.name for o in ops}
    for op in ops:  # type: ignore[attr-defined]
        entry = entries[in_docs_html(op.doc_path)]
        names = entry["names"].split()
        base = op.name.lower().removeprefix("t") if op.intrinsic else op.name
        assert op.name.lower() in names and base in names, (op.name, names)
        inside = {b for b in bases if len(b) >= 3 and b != base and b in base.replace("_", "")}
        assert inside <= set(entry["parts"].split()), (op.name, entry["parts"])
        assert entry["text"] == _plain(op.doc.summary), op.name
        assert op.category.title in entry["category"] and op.unit.title in entry["category"], op.name


# --------------------------------------------------------------------------- the intrinsics finder
def _finder_more(docs: Path) -> dict[str, str]:
    """The finder's opened-row contents by mnemonic, from the script the page loads on the first open
    (under the built site or the generated docs)."""
    text = (docs / "javascripts" / "finder-more.js").read_text(encoding="utf-8")
    body = text.split("window.PTO_FINDER_MORE = ", 1)[1].rstrip().removesuffix(";")
    return json.loads(body)  # type: ignore[no-any-return]


def test_the_finder_page_carries_rows_not_their_opened_contents() -> None:
    """The opened rows' contents are loaded when needed, so the page grows by a compact row per op."""
    page = (GENERATED / "docs" / "finder.md").read_text(encoding="utf-8")
    rows = page.count("<tr data-mnemonic=")
    assert "<template>" not in page and "pto-finder-more" not in page
    assert len(page) < 2000 * rows, f"{len(page)} bytes for {rows} rows"
    more = _finder_more(GENERATED / "docs")
    assert len(more) == rows and all("pto-finder-more" in html for html in more.values())


def _expected_in_finder(set_id: str, dtype: str, profile: str) -> set[str]:
    """Ops of the set whose specs admit the element type on the profile, for some template value."""
    project = _project()
    return {
        op.spec.mnemonic
        for op in project.ops_in(set_id)  # type: ignore[attr-defined]
        if any(dtype in op.allowed_dtypes(profile, v) for v in op.value_variants)
    }


def _finder_filter(page: object, **chosen: str) -> set[str]:
    for name, value in chosen.items():
        if name == "text":
            page.fill("#finder-text", value)  # type: ignore[attr-defined]
        else:
            page.select_option(f"#finder-{name}", value)  # type: ignore[attr-defined]
    rows = page.locator("#finder-table tbody tr[data-mnemonic]:not([hidden])")  # type: ignore[attr-defined]
    shown = {rows.nth(i).get_attribute("data-mnemonic") for i in range(rows.count())}
    count = page.text_content("#finder-count")  # type: ignore[attr-defined]
    assert count.startswith(f"{len(shown)} of "), count
    # A row filtered out is out of sight too (the phone's cards must not show it).
    assert page.evaluate(  # type: ignore[attr-defined]
        "[...document.querySelectorAll('#finder-table tbody tr[hidden]')].every(r => r.offsetHeight === 0)"
    )
    return shown


@pytest.mark.parametrize("width", list(WIDTHS))
def test_finder_filters_by_set_dtype_and_profile(browser: object, served: str, width: str) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html", WIDTHS[width])
    try:
        shown = _finder_filter(page, set="tile_scalar_and_immediate", dtype="float", profile="A5")
        expected = _expected_in_finder("tile_scalar_and_immediate", "float", "A5")
        assert shown == expected and len(expected) > 10
        # int32_t on A2A3: TLRELU is refused there (the guide's profile-check sample), TADDS is not.
        shown = _finder_filter(page, dtype="int32_t", profile="A2A3")
        assert shown == _expected_in_finder("tile_scalar_and_immediate", "int32_t", "A2A3")
        assert "pto.tadds" in shown and "pto.tlrelu" not in shown
        shown = _finder_filter(page, set="", dtype="", profile="", text="relu")
        assert {"pto.trelu", "pto.tlrelu", "pto.tprelu", "pto.vlrelu"} <= shown
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTEFACTS / f"finder_{WIDTHS[width]}.png"), full_page=False)
        assert problems == []
    finally:
        page.close()


def test_finder_location_filter_keeps_ops_that_take_the_location(browser: object, served: str) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html")
    try:
        vec = _finder_filter(page, location="Vec")
        mat = _finder_filter(page, location="Mat")
        assert "pto.tadd" in vec and "pto.tadd" not in mat  # TADD's tiles must be Vec tiles
        assert not any(m.startswith("pto.v") for m in vec)  # vector ops take registers, not tiles
        assert problems == []
    finally:
        page.close()


# Over the shown rows: a row, a cell or a parameter of a declaration reaching past the window (cut
# off), a parameter or an element type broken over two lines, the table wider than its block.
_FINDER_FIT = """() => {
  const bad = [], w = window.innerWidth, table = document.querySelector('#finder-table');
  if (table.scrollWidth > table.clientWidth + 1) bad.push('table ' + table.scrollWidth);
  for (const row of document.querySelectorAll('#finder-table tbody tr[data-mnemonic]:not([hidden])')) {
    const op = row.dataset.mnemonic;
    for (const cell of row.cells) {
      if (cell.getBoundingClientRect().right > w + 1) bad.push(op + ' cell ' + cell.dataset.label);
    }
    for (const piece of row.querySelectorAll('.pto-sig span, .pto-types abbr')) {
      if (piece.getClientRects().length !== 1) bad.push(op + ' breaks ' + piece.textContent);
    }
    const sig = row.querySelector('.pto-sig'), types = row.querySelector('.pto-types');
    if (!sig || !types) bad.push(op + ' without declaration or types');
    else if (!sig.checkVisibility() || !types.checkVisibility()) bad.push(op + ' hides a cell');
  }
  return bad;
}"""


@pytest.mark.parametrize("width", list(WIDTHS))
def test_finder_rows_fit_and_show_declaration_types_category_and_unit(
    browser: object, served: str, width: str
) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html", WIDTHS[width])
    try:
        assert page.evaluate(_FINDER_FIT) == []
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
        # The text box is visibly a box, and the page uses its width (no table of contents beside it).
        border = page.evaluate("getComputedStyle(document.querySelector('#finder-text')).borderTopWidth")
        assert border != "0px"
        assert page.locator(".md-sidebar--secondary").is_hidden()  # type: ignore[attr-defined]
        row = page.locator("tr[data-mnemonic='pto.tadd']")  # type: ignore[attr-defined]
        text = " ".join(row.inner_text().split())
        op = next(o for o in _project().ops if o.spec.mnemonic == "pto.tadd")  # type: ignore[attr-defined]
        assert op.category.title in text and op.unit.title in text and "TADD(" in text
        vocabulary = _project().targets.dtypes  # type: ignore[attr-defined]
        for p in _project().profiles:  # type: ignore[attr-defined]
            short = [d.asm for d in vocabulary if d.name in op.allowed_dtypes(p.name)]
            assert f"{p.name} {' '.join(short)}" in text, (p.name, text)
        # A short spelling's tooltip is its C++ name (stated once for the page).
        assert row.locator(".pto-types abbr", has_text="bf16").first.get_attribute("title") == "bfloat16_t"
        page.screenshot(path=str(ARTEFACTS / f"finder_rows_{WIDTHS[width]}.png"), full_page=False)
        assert problems == []
    finally:
        page.close()


def test_finder_filters_by_level_and_category(browser: object, served: str) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html")
    try:
        ops = _project().ops  # type: ignore[attr-defined]
        vector = {o.spec.mnemonic for o in ops if o.iset.kind == "vector"}
        assert _finder_filter(page, level="vector") == vector
        compare = {o.spec.mnemonic for o in ops if o.category.id == "compare"}
        assert _finder_filter(page, level="", category="compare") == compare
        assert compare >= {"pto.tcmp", "pto.tcmps"}
        cube = _finder_filter(page, category="", unit="cube")
        assert cube == {o.spec.mnemonic for o in ops if o.unit.id == "cube"} and "pto.tmatmul" in cube
        assert problems == []
    finally:
        page.close()


def _finder_state(page: object) -> dict[str, object]:
    return page.evaluate(  # type: ignore[attr-defined,no-any-return]
        """() => ({
      controls: [...document.querySelectorAll('.pto-finder-filters select, #finder-text')].map(e => e.value),
      rows: [...document.querySelectorAll('#finder-table tbody tr[data-mnemonic]:not([hidden])')]
        .map(r => r.dataset.mnemonic)})"""
    )


def test_finder_keeps_filters_text_and_sort_in_the_address(browser: object, served: str) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html")
    try:
        page.select_option("#finder-level", "tile")  # type: ignore[attr-defined]
        first = _finder_state(page)
        page.select_option("#finder-category", "arithmetic")  # type: ignore[attr-defined]
        page.fill("#finder-text", "relu")  # type: ignore[attr-defined]
        page.click("th button[data-sort='op']")  # type: ignore[attr-defined]
        page.click("th button[data-sort='op']")  # type: ignore[attr-defined]  # descending
        chosen = _finder_state(page)
        assert chosen["rows"] == sorted(chosen["rows"], reverse=True) and "pto.trelu" in chosen["rows"]
        address = page.url  # type: ignore[attr-defined]
        assert all(f in address for f in ("level=tile", "category=arithmetic", "text=relu", "sort=-op"))
        assert "q=" not in address.replace("text=", "")  # `q` would open the theme's search over the page
        # The address alone gives the same page: a shared link.
        shared, more = _open(browser, served, address)
        try:
            assert _finder_state(shared) == chosen
        finally:
            shared.close()  # type: ignore[attr-defined]
        # Back undoes one step at a time: the two sorts, the text with the category, the category.
        for _ in range(3):
            page.go_back()  # type: ignore[attr-defined]
        assert _finder_state(page) == first
        assert problems == [] and more == []
    finally:
        page.close()


def test_finder_row_opens_in_place_with_formula_forms_and_constraints(browser: object, served: str) -> None:
    page, problems = _open(browser, served, f"{served}/finder.html")
    try:
        op = next(o for o in _project().ops if o.spec.mnemonic == "pto.tgather")  # type: ignore[attr-defined]
        button = page.locator("tr[data-mnemonic='pto.tgather'] button.pto-open")  # type: ignore[attr-defined]
        button.click()
        more = page.locator("tr[data-mnemonic='pto.tgather'] + tr.pto-finder-open")  # type: ignore[attr-defined]
        more.locator("mjx-container svg").first.wait_for()
        assert more.locator(".pto-finder-more > ol > li").count() == len(op.forms) == 3
        groups = op.doc.rule_groups()
        items = sum(len(rules) + len(op.doc.prose_for(key)) for key, rules in groups)
        assert more.locator(".pto-finder-more > ul > li > ul > li").count() == items > 0
        assert more.locator(f"a[href$='{posixpath.basename(op.ref_doc_path)[:-3]}.html']").count() == 1
        button.click()
        assert page.locator("tr.pto-finder-open").count() == 0  # type: ignore[attr-defined]
        assert problems == []
    finally:
        page.close()


def test_finder_and_the_search_note_work_from_disk(browser: object, site: Path) -> None:
    page = browser.new_page()  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto((site / "finder.html").as_uri())
        shown = _finder_filter(page, set="tile_scalar_and_immediate", dtype="float", profile="A5")
        assert shown == _expected_in_finder("tile_scalar_and_immediate", "float", "A5")
        note = page.locator(".pto-file-note")
        assert "ptogen docs serve" in (note.text_content() or "")
        # An opened row's contents load as a script, which file:// allows (a fetch it would refuse).
        page.locator("tr[data-mnemonic='pto.tadds'] button.pto-open").click()
        more = page.locator("tr[data-mnemonic='pto.tadds'] + tr.pto-finder-open .pto-finder-more")
        more.locator("ol > li").first.wait_for()
        assert "TADDS(" in (more.text_content() or "")
        assert errors == []
    finally:
        page.close()


# --------------------------------------------------------------------------- the site's own pages
def _rows(page: str) -> list[str]:
    return [
        line
        for line in (GENERATED / "docs" / page).read_text(encoding="utf-8").splitlines()
        if line.startswith("| ")
    ]


def test_source_notes_page_lists_every_note_once_under_its_op() -> None:
    from ptogen.spec.load import load_specs

    rows = _rows("source-notes.md")
    expected = 0
    for loaded in load_specs(ROOT / "specs", ROOT).ops:
        spec = loaded.spec
        for note in [*spec.notes, *(b.note for b in spec.upstream_bugs)]:
            expected += 1
            text = " ".join(note.split()).replace("|", "\\|")
            mine = [r for r in rows if r.startswith(f"| [{spec.mnemonic}](") and r.endswith(f"| {text} |")]
            assert len(mine) == 1, (spec.mnemonic, text)
    assert len([r for r in rows if r.startswith("| [pto.")]) == expected > 100


def test_coverage_page_lists_the_whole_catalogue_with_dtypes_per_profile() -> None:
    from ptogen.emit.site import load_catalog
    from ptogen.lower.views import ProjectView
    from ptogen.spec.load import load_specs

    text = (GENERATED / "docs" / "coverage.md").read_text(encoding="utf-8")
    sections = {s.split("\n", 1)[0]: s for s in text.split("\n## ")[1:]}
    for entry in load_catalog(ROOT / "templates"):
        section = next(v for k, v in sections.items() if k.startswith(f"{entry.title} ({entry.group})"))
        for mnemonic in entry.ops:
            assert re.search(rf"(^| |\[){re.escape(mnemonic)}(\]|,|\.| \|| \()", section, re.M), mnemonic
    rows = _rows("coverage.md")
    tlrelu = next(r for r in rows if r.startswith("| [pto.tlrelu]("))
    # A2/A3 | A5 | CPU, as the op's dtype rules say (aliases such as float16_t are the same types),
    # in the vocabulary's order.
    project = ProjectView(load_specs(ROOT / "specs", ROOT))
    op = next(o for o in project.ops if o.spec.mnemonic == "pto.tlrelu")
    order = [d.name for d in project.targets.dtypes]
    want = [", ".join(sorted(op.allowed_dtypes(p.name), key=order.index)) for p in project.profiles]
    assert tlrelu.removesuffix(" |").split(" | ")[1:] == want
    assert want[0] == "half, float" and "bfloat16_t" in want[2]  # the facts the page must show


def test_a_specified_op_missing_from_the_catalogue_is_an_error(tmp_path: Path) -> None:
    from ptogen.emit.site import coverage, load_catalog
    from ptogen.errors import SpecError
    from ptogen.lower.views import ProjectView
    from ptogen.spec.load import load_specs

    shutil.copytree(ROOT / "templates" / "site", tmp_path / "site")
    catalog = tmp_path / "site" / "isa_catalog.yaml"
    catalog.write_text(catalog.read_text().replace("pto.tlrelu, ", ""))
    with pytest.raises(
        SpecError, match=r"pto\.tlrelu \(specs/ops/.*tlrelu\.yaml\) is specified but not listed"
    ):
        coverage(ProjectView(load_specs(ROOT / "specs", ROOT)), load_catalog(tmp_path))


def test_a_malformed_catalogue_entry_names_file_line_and_field(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptogen.cli import main

    catalog = project / "templates" / "site" / "isa_catalog.yaml"
    lines = catalog.read_text().splitlines()
    title = next(i for i, line in enumerate(lines) if line.strip() == "title: Irregular And Complex")
    lines[title] = "    title: ''"
    catalog.write_text("\n".join(lines) + "\n")
    before = (project / "generated" / "docs" / "coverage.md").read_text()
    assert main(["--root", str(project), "gen"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    field = "instruction_sets[1].title"
    assert err == [
        f"error: templates/site/isa_catalog.yaml:{title + 1}: {field}: a non-empty string is required"
    ]
    assert (project / "generated" / "docs" / "coverage.md").read_text() == before


def test_unspecified_ops_link_to_the_upstream_manual() -> None:
    from ptogen.emit.site import load_catalog, upstream_docs

    base = upstream_docs(ROOT / "templates")
    coverage = (GENERATED / "docs/coverage.md").read_text()
    catalog = load_catalog(ROOT / "templates")
    specified = {o.spec.mnemonic for o in _project().ops}  # type: ignore[attr-defined]
    for entry in catalog:
        for mnemonic in entry.ops:
            if mnemonic not in specified:
                assert f"({base}{entry.upstream_page(mnemonic)})" in coverage, mnemonic
    index = GENERATED / "docs/isa/tile/matrix-and-matrix-vector.md"
    if index.exists():  # a set with unspecified ops lists them with their upstream pages
        assert base in index.read_text() or "Not yet specified" not in index.read_text()
    # With an upstream checkout at hand, every address names a page that exists there.
    checkout = os.environ.get("PTOGEN_UPSTREAM")
    if checkout:
        missing = [
            entry.upstream_page(m)
            for entry in catalog
            for m in entry.ops
            if not (Path(checkout) / "docs/isa" / entry.upstream_page(m)).is_file()
        ]
        assert missing == []
