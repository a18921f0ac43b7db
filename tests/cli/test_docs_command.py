"""`ptogen docs`: one command to build (strict, into site/) or serve the documentation site."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ptogen import cli
from ptogen.paths import Layout

from ..helpers import ROOT


def test_build_is_strict_into_site_with_the_generated_config() -> None:
    layout = Layout.make(root=ROOT)
    argv = cli.docs_argv(layout, "build", [])
    assert argv[1:4] == ["-m", "mkdocs", "build"]
    assert argv[argv.index("-f") + 1] == str(ROOT / "generated/mkdocs.yml")
    assert "--strict" in argv and argv[argv.index("-d") + 1] == str(ROOT / "site")
    serve = cli.docs_argv(layout, "serve", ["-a", "127.0.0.1:8001"])
    assert "--strict" not in serve and serve[-2:] == ["-a", "127.0.0.1:8001"]


def test_without_mkdocs_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mkdocs" else real(name, *a)
    )
    assert cli.main(["--root", str(ROOT), "docs"]) == 2
    assert "pip install -e '.[docs]'" in capsys.readouterr().err


def test_without_a_generated_tree_it_says_to_generate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mkdocs")
    (tmp_path / "specs").mkdir()
    assert cli.main(["--root", str(tmp_path), "docs", "build"]) == 2
    assert "run `ptogen gen` first" in capsys.readouterr().err
