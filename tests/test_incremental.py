"""Incremental gen/check: only changed units are rendered, a damaged cache is harmless, and a
no-change check reads no YAML yet still sees a hand-edited file."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from ptogen.cli import main
from ptogen.emit import format as fmt
from ptogen.emit import incremental, render
from ptogen.emit.render import render_all
from ptogen.paths import Layout
from ptogen.spec.load import load_specs

from .conftest import SHARED_CACHES, seed_units
from .helpers import TLRELU, edit, rewrite, tree_difference, tree_hash


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory, shared_cache: Path) -> Path:
    """A cache as warm as the session's but private (these tests damage entries on purpose): its own
    copies of the shared caches, and the checkout's rendered units, so a test's first `gen` renders
    only what the test changed."""
    cache = tmp_path_factory.mktemp("warm") / ".ptogen-cache"
    for name in SHARED_CACHES:
        shutil.copytree(shared_cache / name, cache / name)
    seed_units(cache / "gen" / "units")
    return cache


@pytest.fixture
def project(project: Path, warm_cache: Path) -> Path:
    # The units stay hard links to the checkout's store (tens of megabytes): a unit is only ever
    # replaced whole, and the tests that damage units unlink each one first.
    shutil.rmtree(project / ".ptogen-cache")
    shutil.copytree(warm_cache, project / ".ptogen-cache", copy_function=_copy_or_link)
    return project


def _copy_or_link(src: str, dst: str) -> None:
    if "units" in Path(src).parts:
        os.link(src, dst)
    else:
        shutil.copy2(src, dst)


def _render_count() -> int:
    return len(render.RENDERED)


def _cold_render(project: Path) -> dict[str, str]:
    """Everything rendered again, no unit reused (clang-format results still come from the
    project's content-addressed format cache, whose entries are verified on read)."""
    layout = Layout.make(root=project)
    specs = load_specs(layout.specs, layout.root)
    return render_all(specs, layout.templates, layout.style, cache=project / ".ptogen-cache" / "format")


def _disk(project: Path) -> dict[str, str]:
    gen = project / "generated"
    return {p.relative_to(gen).as_posix(): p.read_text() for p in gen.rglob("*") if p.is_file()}


def _units_rendered(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    runs: list[list[str]] = []
    original = incremental.full

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = original(*args, **kwargs)
        runs.append(sorted(result.rendered_units))
        return result

    monkeypatch.setattr(incremental, "full", spy)
    return runs


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_editing_one_spec_rerenders_only_its_unit_and_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["--root", str(project), "gen"]) == 0  # fills the cache
    runs = _units_rendered(monkeypatch)
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    before = _render_count()
    assert main(["--root", str(project), "gen"]) == 0
    assert runs == [sorted([TLRELU, incremental.PROJECT_UNIT])]
    rendered = render.RENDERED[before:]
    assert any("tlrelu" in p.lower() for p in rendered)
    assert not any("tmaxs" in p for p in rendered)
    # The incremental result is what a cold full render gives.
    difference = tree_difference(_disk(project), _cold_render(project))
    assert not difference, difference
    assert main(["--root", str(project), "check"]) == 0


@pytest.mark.full_tier
def test_a_template_change_invalidates_every_unit(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["--root", str(project), "gen"]) == 0
    runs = _units_rendered(monkeypatch)
    page = project / "templates/docs/op_page.md.j2"
    page.write_text(page.read_text() + "{# a comment changes nothing in the output #}\n")
    assert main(["--root", str(project), "check"]) == 0
    specs = list((project / "specs/ops").rglob("*.yaml"))
    assert len(runs) == 1 and len(runs[0]) == len(specs) + 1


@pytest.mark.full_tier
def test_a_unit_rendered_alone_keeps_its_tests_beside_a_stored_namesake(project: Path) -> None:
    """pto.comm.tgather and pto.tgather share the intrinsic name TGATHER: with the tile op's unit
    stored and the comm op's rendered, the comm op still gets its test files."""
    expected = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 0  # every unit stored
    inputs = incremental.hash_inputs(Layout.make(root=project))
    key = inputs.op_key("specs/ops/communication/comm_tgather.yaml")
    assert key is not None
    (project / ".ptogen-cache/gen/units" / key[:2] / key).unlink()
    for state in (project / ".ptogen-cache/gen").glob("state-*.json"):
        state.unlink()  # the full path, which takes stored units whole
    assert main(["--root", str(project), "gen"]) == 0
    assert (project / "generated/tests/comm_tgather/cases.cpp").is_file()
    assert tree_hash(project / "generated") == expected


@pytest.mark.thorough  # a long robustness check (five generations over a damaged cache): CI runs it
def test_a_damaged_cache_still_gives_the_right_tree(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 0
    cache = project / ".ptogen-cache"
    damaged = 0
    for i, path in enumerate(sorted(p for p in cache.rglob("*") if p.is_file())):
        # Some units (each damaged one is rendered again), every compiled template, some formats.
        if (
            ("units" in path.parts and i % 7 == 0)
            or "jinja" in path.parts
            or ("format" in path.parts and i % 25 == 0)
        ):
            data = path.read_bytes()
            path.unlink()  # a seeded unit is a hard link to the checkout's store: damage a copy
            path.write_bytes(data[: len(data) // 2] + b"garbage" + data[len(data) // 2 + 7 :])
            damaged += 1
    state = next((cache / "gen").glob("state-*.json"))
    state.write_text("{ not json")
    assert damaged > 0
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    assert main(["--root", str(project), "gen"]) == 0
    difference = tree_difference(_disk(project), _cold_render(project))
    assert not difference, difference
    edit(project, TLRELU, "summary: Leaky ReLU over a tile,", "summary: Leaky ReLU of a tile,")
    assert main(["--root", str(project), "gen"]) == 0
    assert tree_hash(project / "generated") == expected
    # An intact unit entry that does not list the unit's paths is not trusted either.
    for entry in (cache / "gen/units").rglob("*"):
        if entry.is_file() and b"tmaxs" in entry.read_bytes() and b"tlrelu" not in entry.read_bytes():
            files = json.loads(entry.read_bytes().partition(b"\n")[2])
            files.pop(sorted(files)[0])
            body = json.dumps(files).encode()
            entry.unlink()  # a hard link to the checkout's store: replace it
            entry.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summary: Leaky ReLU over a tile,")
    assert main(["--root", str(project), "gen"]) == 0
    edit(project, TLRELU, "summary: Leaky ReLU over a tile,", "summary: Leaky ReLU of a tile,")
    assert main(["--root", str(project), "check"]) == 1  # the edit is undone in the specs, not in generated/
    assert main(["--root", str(project), "gen"]) == 0
    assert tree_hash(project / "generated") == expected
    capsys.readouterr()


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_no_change_check_parses_no_yaml_and_still_sees_a_hand_edit(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(project), "check"]) == 0  # records the state

    def refuse(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a no-change check must not load specs")

    import ptogen.spec.load
    import ptogen.spec.loader

    monkeypatch.setattr(ptogen.spec.load, "load_specs", refuse)
    monkeypatch.setattr(ptogen.spec.loader, "load_yaml", refuse)
    monkeypatch.setattr(render, "render_jobs", refuse)
    capsys.readouterr()
    assert main(["--root", str(project), "check"]) == 0
    assert "up to date" in capsys.readouterr().out
    target = project / "generated/docs/isa/TLRELU.md"
    rewrite(target, target.read_text().replace("Leaky ReLU", "Leaky ReLX", 1))
    assert main(["--root", str(project), "check"]) == 1
    out = capsys.readouterr()
    assert "+++ " in out.out and "generated/docs/isa/TLRELU.md (from specs)" in out.out
    assert "-" in out.out and "Leaky ReLX" in out.out
    assert "changed: docs/isa/TLRELU.md" in out.err
    monkeypatch.undo()
    # The same diff as a full (non-incremental) check gives.
    shutil.rmtree(project / ".ptogen-cache/gen")
    assert main(["--root", str(project), "check"]) == 1
    assert capsys.readouterr().out == out.out


def test_spec_errors_keep_generated_untouched(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(project), "gen"]) == 0
    before = tree_hash(project / "generated")
    line = edit(project, TLRELU, "summary: Leaky ReLU of a tile,", "summry: Leaky ReLU of a tile,")
    capsys.readouterr()
    assert main(["--root", str(project), "gen"]) == 2
    assert f"error: {TLRELU}:{line}: summry: unknown field" in capsys.readouterr().err
    assert tree_hash(project / "generated") == before


def test_joined_formatting_equals_per_file_formatting(project: Path) -> None:
    """Sources formatted in one joined clang-format run come out as if formatted alone."""
    gen = project / "generated"
    names = sorted(p.relative_to(gen).as_posix() for p in gen.rglob("*") if p.suffix in (".hpp", ".cpp"))
    sample = [n for n in names if "/tlrelu/" in n or "/tsel/" in n or "/cpu/" in n or "profiles" in n][:150]
    sources = {n: (gen / n).read_text() for n in sample}
    # Undo part of the formatting so clang-format has work to do at the file boundaries.
    sources = {n: "\n".join(line.strip() for line in t.splitlines()) + "\n" for n, t in sources.items()}
    style = project / ".clang-format"
    joined = fmt.format_cpp_many(sources, style)
    alone = {n: fmt.format_one(fmt.clang_format_binary(), style, n, t) for n, t in sources.items()}
    difference = tree_difference(joined, alone)
    assert not difference, difference
