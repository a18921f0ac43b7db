"""MkDocs hook of the generated site (generated/mkdocs_hooks.py imports it).

Math is typeset in the reader's browser by MathJax, served from the built site itself: the script
comes from the `django-static-mathjax` wheel (a plain copy of MathJax 3 with no Django code), which
the `docs` extra installs at build time. No page loads anything from another host.

Opened from disk (file://), browsers start no web worker, so Material's search cannot run; its
bundle then tries to load `search/search_index.js`, and Material's `offline` plugin, which makes
search work from disk, does so by loading a worker shim from a public CDN on every page (refused
here: nothing loads from another host). Each page therefore drops the search from the theme's
configuration when opened from disk, the build writes that script (the index as a variable, so
loading it fails nowhere), and the site's own script (finder.js) says in the header that search
needs the site served, pointing at the intrinsics finder, which works from disk.

Served, search finds ops by name: the build adds each op page's names, the other ops' names inside
its name, its category and its summary to the index (from search_terms.json, which ptogen writes
beside mkdocs.yml), and the pages start the site's search worker, which runs the theme's and ranks
its results on those fields (javascripts/search-worker.js).
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# Where the pages expect the script (mkdocs.yml lists it in extra_javascript). The SVG output
# component embeds its glyphs, so no font files have to be served next to it.
MATHJAX_SITE_PATH = "assets/mathjax/tex-svg.js"


def mathjax_script() -> Path:
    try:
        import mathjax  # the django-static-mathjax wheel's package
    except ImportError:
        raise PluginError(
            "MathJax is not installed: run `pip install -e '.[docs]'` (package django-static-mathjax)"
        ) from None
    script = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5" / "tex-svg.js"
    if not script.is_file():
        raise PluginError(f"MathJax package found but {script} is missing")
    return script


# Runs before the theme's bundle: over file:// the page's configuration loses its search worker.
_NO_SEARCH_FROM_DISK = (
    '<script>if (location.protocol === "file:") {'
    ' const c = document.getElementById("__config"); const j = JSON.parse(c.textContent);'
    " delete j.search; c.textContent = JSON.stringify(j); }</script>"
)
_CONFIG_END = re.compile(r'(<script id="__config" type="application/json">.*?</script>)', re.S)


# The reference-layout pages repeat their op's instruction-set page; search lists each op once, by
# the page the menu shows it under.
_REFERENCE_PAGE = re.compile(r"isa/[A-Z0-9_]+\.md")


# Pages that survey many ops (the guides, the per-kind notes, coverage) mention an op's words more
# often than its own page does; search ranks them below the op pages.
_SURVEY_PAGES = {"contributing.md", "coverage.md", "design-notes.md", "source-notes.md", "user-guide.md"}
_SURVEY_BOOST = 0.3


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if _REFERENCE_PAGE.fullmatch(page.file.src_uri):
        page.meta.setdefault("search", {})["exclude"] = True
    elif page.file.src_uri in _SURVEY_PAGES:
        page.meta.setdefault("search", {})["boost"] = _SURVEY_BOOST
    return markdown


# The pages start the site's search worker (javascripts/search-worker.js), which loads the theme's,
# named in its address, and ranks the results for names (see that file).
_THEME_WORKER = re.compile(r'("search": ")([^"]*?)assets/javascripts/workers/(search\.[0-9a-f]+\.min\.js)"')
SEARCH_TERMS = "search_terms.json"  # beside mkdocs.yml (ptogen/emit/search.py writes it)
# How much a match in each added field counts, against the theme's title (1e3) and text (1).
SEARCH_FIELDS = {"names": {"boost": 1e4}, "parts": {"boost": 1e2}, "category": {"boost": 1e1}}


def on_post_page(output: str, page: object, config: MkDocsConfig) -> str:
    output = _THEME_WORKER.sub(r'\1\2javascripts/search-worker.js?worker=\3"', output, count=1)
    return _CONFIG_END.sub(lambda m: m.group(1) + _NO_SEARCH_FROM_DISK, output, count=1)


def _add_search_terms(index: dict[str, object], config: MkDocsConfig) -> None:
    """Each op page's first entry gets the fields search ranks on, and its summary as its text (what
    the result shows; the page's opening sentence only names the op's instruction set)."""
    source = Path(config.config_file_path).parent / SEARCH_TERMS
    if not source.is_file():
        raise PluginError(f"{source} is missing: run `ptogen gen`")
    pages = json.loads(source.read_text(encoding="utf-8"))["pages"]
    by_location = {posixpath.splitext(page)[0] + ".html": terms for page, terms in pages.items()}
    docs = index["docs"]
    assert isinstance(docs, list)
    for doc in docs:
        terms = by_location.get(doc["location"])
        if terms is not None:
            doc.update(terms)
            doc["text"] = doc.pop("summary")
    fields = index["config"]
    assert isinstance(fields, dict)
    fields["fields"] = {**fields.get("fields", {}), **SEARCH_FIELDS}


def on_post_build(config: MkDocsConfig) -> None:
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        data = json.loads(index.read_text(encoding="utf-8"))
        _add_search_terms(data, config)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        index.write_text(text, encoding="utf-8")
        index.with_suffix(".js").write_text("var __index = " + text + ";\n", encoding="utf-8")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, MATHJAX_SITE_PATH, abs_src_path=str(mathjax_script())))
    return files
