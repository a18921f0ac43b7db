"""MkDocs hook of the generated site (generated/mkdocs_hooks.py imports it).

Math is typeset in the reader's browser by MathJax, served from the built site itself: the script
comes from the `django-static-mathjax` wheel (a plain copy of MathJax 3 with no Django code), which
the `docs` extra installs at build time. No page loads anything from another host.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

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


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, MATHJAX_SITE_PATH, abs_src_path=str(mathjax_script())))
    return files
