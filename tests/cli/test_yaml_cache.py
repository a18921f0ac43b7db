"""Spec parses cached by content (`.ptogen-cache/yaml`): the same data and lines as a parse, and a
damaged or stale entry is never used."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptogen.errors import SpecError
from ptogen.spec.loader import load_yaml

from ..helpers import ROOT, TLRELU


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file())


def test_a_cached_parse_equals_a_fresh_one(tmp_path: Path) -> None:
    spec = ROOT / TLRELU
    fresh = load_yaml(spec, TLRELU)
    first = load_yaml(spec, TLRELU, tmp_path)  # parses and stores
    assert len(_entries(tmp_path)) == 1
    again = load_yaml(spec, TLRELU, tmp_path)  # reads the entry back
    for doc in (first, again):
        assert doc.data == fresh.data
        assert doc.source.lines == fresh.source.lines
        assert doc.source.file == TLRELU
    assert again.source.line_of(("intrinsic", "params", 1, "name")) == fresh.source.line_of(
        ("intrinsic", "params", 1, "name")
    )


def test_a_damaged_entry_is_a_miss_and_an_edit_is_a_new_key(tmp_path: Path) -> None:
    spec = tmp_path / "t.yaml"
    spec.write_text("a: 1\nb: [x, y]\n")
    cache = tmp_path / "cache"
    load_yaml(spec, "t.yaml", cache)
    (entry,) = _entries(cache)
    entry.write_bytes(entry.read_bytes().replace(b'"x"', b'"z"'))  # body no longer matches its hash
    assert load_yaml(spec, "t.yaml", cache).data == {"a": 1, "b": ["x", "y"]}
    spec.write_text("a: 2\nb: [x, y]\n")
    assert load_yaml(spec, "t.yaml", cache).data["a"] == 2
    assert len(_entries(cache)) == 2


def test_errors_are_not_cached(tmp_path: Path) -> None:
    spec = tmp_path / "t.yaml"
    spec.write_text("a: [1, 2\n")
    cache = tmp_path / "cache"
    for _ in range(2):
        with pytest.raises(SpecError):
            load_yaml(spec, "t.yaml", cache)
    assert not cache.exists() or not _entries(cache)
