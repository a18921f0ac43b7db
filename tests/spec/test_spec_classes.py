"""Specs that state each fact once: op classes, named dtype sets, shared texts, the `dtypes:`
shorthand, derived facts; errors located where the fact is written; `show` and `import`."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from ptogen.cli import main
from ptogen.spec.factor import factor, factor_with
from ptogen.spec.load import load_specs, resolve_file, spec_context
from ptogen.spec.loader import LoadedDoc, SourceMap
from ptogen.spec.model import OpSpec
from ptogen.spec.resolve import resolve

from ..helpers import ROOT, edit, quick_sample, tree_hash

TMAXS = "specs/ops/tile_scalar_and_immediate/tmaxs.yaml"
TILE_SCALAR = "specs/classes/tile_scalar.yaml"
SPECS = sorted((ROOT / "specs/ops").glob("*/*.yaml"))


def _canonical(data: Any) -> str:
    return json.dumps(OpSpec.model_validate(data).model_dump(mode="json"))


def _class_of(spec: Path) -> str | None:
    """The class a spec file names (`class:`, a top-level key), as written."""
    found = re.search(r"^class:[ \t]*['\"]?([^'\"\s#]+)", spec.read_text(), re.M)
    return found.group(1) if found else None


def _gen_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    before = tree_hash(project / "generated")
    assert main(["--root", str(project), "gen"]) == 2
    assert tree_hash(project / "generated") == before, "generated/ was touched"
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]


@functools.cache
def _context() -> Any:
    """The checkout's targets and classes, read once per worker (each spec's test used to read them)."""
    return spec_context(ROOT / "specs", ROOT)[1]


# Every spec in the full tier; in the quick one, a spec of each class in each instruction set.
SAMPLED = quick_sample(SPECS, lambda p: (_class_of(p), p.parent))


@pytest.mark.parametrize("spec", SAMPLED, ids=lambda p: p.stem)
def test_a_spec_is_written_over_its_class_exactly(spec: Path) -> None:
    """Resolving a spec and writing it over its class again gives the same facts back."""
    ctx = _context()
    data, _origins = resolve_file(spec, ROOT / "specs", ROOT)
    assert "${" not in json.dumps(data), "a placeholder was left unfilled"
    written = factor_with(data, ctx, _class_of(spec))
    assert written is not None
    again, _ = resolve(LoadedDoc(written, SourceMap("<again>")), ctx)
    assert _canonical(again.data) == _canonical(data)


def test_most_specs_use_a_class_and_every_class_is_used() -> None:
    classes = {p.stem for p in (ROOT / "specs/classes").glob("*.yaml")}
    used: dict[str, int] = {}
    for spec in SPECS:
        name = _class_of(spec)
        if name is not None:
            used[name] = used.get(name, 0) + 1
    extended = {yaml.safe_load(p.read_text()).get("extends") for p in (ROOT / "specs/classes").glob("*.yaml")}
    assert classes <= set(used) | extended
    assert sum(used.values()) >= 0.8 * len(SPECS)


def test_an_error_in_a_class_is_reported_once_in_the_class_file(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = edit(
        project, TILE_SCALAR, "{name: TileDataSrc, kind: typename}", "{name: TileDataSrc, kind: typenam}"
    )
    errors = _gen_errors(project, capsys)
    assert len(errors) == 1, errors  # every op of the class would repeat it
    assert errors[0].startswith(f"error: {TILE_SCALAR}:{line}: intrinsic.template[1].kind:"), errors[0]


def test_an_unknown_class_is_located_with_a_suggestion(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = edit(project, TMAXS, "class: tile_scalar", "class: tile_scalr")
    (error,) = _gen_errors(project, capsys)
    assert error.startswith(f"error: {TMAXS}:{line}: class: unknown op class 'tile_scalr'"), error
    assert "did you mean 'tile_scalar'?" in error


def test_an_unknown_dtype_set_is_located(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = edit(project, TMAXS, "A2A3: i32_i16_half_float", "A2A3: i32_i16_half_floot")
    (error,) = _gen_errors(project, capsys)
    assert error.startswith(f"error: {TMAXS}:{line}:"), error
    assert "unknown dtype set 'i32_i16_half_floot'" in error and "did you mean 'i32_i16_half_float'" in error


def test_the_shorthand_names_known_profiles(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = edit(project, TMAXS, "A2A3: i32_i16_half_float", "A2A4: i32_i16_half_float")
    (error,) = _gen_errors(project, capsys)
    assert error.startswith(f"error: {TMAXS}:{line}: dtypes.A2A4: unknown profile 'A2A4'"), error


def test_an_unknown_shared_text_is_located(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = project / TMAXS
    text = path.read_text()
    line = text.count("\n", 0, text.index("side_effects:")) + 1
    path.write_text(text.replace("side_effects: >-\n", "side_effects: >-\n  ${text:no_such_text}\n", 1))
    (error,) = _gen_errors(project, capsys)
    assert error.startswith(f"error: {TMAXS}:{line}: side_effects: unknown shared text 'no_such_text'"), error


def test_classes_that_extend_each_other_in_a_circle(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(project, "specs/classes/tile_op.yaml", "name: tile_op\n", "name: tile_op\nextends: tile_scalar\n")
    errors = _gen_errors(project, capsys)
    assert any("specs/classes/" in e and "extend each other in a circle" in e for e in errors), errors


def test_a_class_states_only_op_spec_fields(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(project, TILE_SCALAR, "spec:\n", "spec:\n  mnemonic: pto.nothing\n")
    (error,) = _gen_errors(project, capsys)
    assert error.startswith(f"error: {TILE_SCALAR}:") and "cannot state 'mnemonic'" in error, error


def test_show_names_where_each_fact_came_from(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(ROOT), "show", "pto.tmaxs"]) == 0
    lines = capsys.readouterr().out.splitlines()
    origin = {line.split(":", 1)[0]: line.rsplit("  # ", 1)[1] for line in lines}
    assert origin["mnemonic"].startswith(f"spec, {TMAXS}:")
    assert origin["semantics.kind"].startswith(f"class tile_scalar, {TILE_SCALAR}:")
    assert origin["intrinsic.backend_headers.A5"].startswith(f"spec, {TMAXS}:")  # the one it overrides
    assert origin["constraints[0].dtypes"].startswith("set i32_i16_half_float, specs/targets.yaml:")
    assert origin["intrinsic.name"].startswith("class tile_scalar")  # TMAXS, from ${SHORT}
    assert "intrinsic.name: TMAXS  #" in "\n".join(lines)
    assert main(["--root", str(ROOT), "show", "tmaxz"]) == 2
    assert "unknown op tmaxz (did you mean" in capsys.readouterr().err


def test_import_writes_a_spec_over_the_class_that_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = ROOT / "generated/docs/isa/tile/ops/elementwise-tile-tile/tadd.md"
    assert main(["--root", str(ROOT), "import", str(page), "--out", str(tmp_path)]) == 0, (
        capsys.readouterr().err
    )
    written = tmp_path / "elementwise_tile_tile/tadd.yaml"
    assert "\nclass: " in written.read_text()
    imported, _ = resolve_file(written, ROOT / "specs", ROOT)
    original = load_specs(ROOT / "specs", ROOT).op("tadd").spec
    got = OpSpec.model_validate(imported)
    # Facts no page states (backend headers, tolerance) come from the class and the name.
    assert got.intrinsic is not None and original.intrinsic is not None
    assert got.intrinsic.backend_headers == original.intrinsic.backend_headers
    assert got.semantics.tolerance == original.semantics.tolerance


def test_factor_prefers_no_class_when_none_fits() -> None:
    _targets, ctx = spec_context(ROOT / "specs", ROOT)
    data, _ = resolve_file(ROOT / "specs/ops/sync_and_config/tsync.yaml", ROOT / "specs", ROOT)
    written = factor(data, ctx)
    again, _ = resolve(LoadedDoc(written, SourceMap("<again>")), ctx)
    assert _canonical(again.data) == _canonical(data)


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_editing_a_class_regenerates_the_ops_that_use_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(project), "check"]) == 0  # warm: the cached units are current
    capsys.readouterr()
    edit(
        project,
        "specs/classes/tile_binary.yaml",
        "description: Destination tile.}",
        "description: The result.}",
    )
    assert main(["--root", str(project), "check"]) == 1
    out = capsys.readouterr().out
    assert "elementwise-tile-tile/tadd.md" in out  # a member of the class
    assert "tile-scalar-and-immediate/tadds.md" not in out  # not a member
