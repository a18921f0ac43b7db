"""The generated enums are upstream's: same underlying type and the same value for every
enumerator (tests/fixtures/upstream_enums.txt pins upstream's declarations), so code that stores,
casts or passes them as integers behaves the same against either header. The host compiler checks
the generated header itself, in one syntax-only compile."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptogen.cli import cflags
from ptogen.paths import Layout

from ..compilers import cxx_argv
from ..helpers import ROOT

# Enumerators upstream declares that the specs leave out, with the reason (a pinned list: adding
# one to the specs, or upstream adding another, fails the test until this list is updated).
NOT_SPECIFIED: dict[tuple[str, str], str] = {}


def _upstream() -> dict[str, tuple[str, dict[str, int]]]:
    out = {}
    for line in (ROOT / "tests/fixtures/upstream_enums.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, underlying, *values = line.split()
            out[name] = (underlying, {v.split("=")[0]: int(v.split("=")[1]) for v in values})
    return out


def test_every_generated_enum_matches_upstream(tmp_path: Path) -> None:
    from ptogen.spec.load import load_specs

    upstream = _upstream()
    enums = load_specs(ROOT / "specs", ROOT).targets.enums
    checks, missing = [], set()
    for e in enums:
        assert e.name in upstream, f"{e.name} is not an upstream enum"
        underlying, values = upstream[e.name]
        name = f"pto::{e.namespace}::{e.name}" if e.namespace else f"pto::{e.name}"  # pto::comm's
        checks.append(
            f"static_assert(std::is_same_v<std::underlying_type_t<{name}>, {underlying}>, "
            f'"{e.name}: underlying type");'
        )
        for v in e.values:
            assert v in values, f"{e.name}::{v} is not upstream's"
            checks.append(
                f"static_assert(static_cast<long long>({name}::{v}) == {values[v]}, "
                f'"{e.name}::{v} == {values[v]}");'
            )
        missing |= {(e.name, v) for v in values if v not in e.values}
    assert missing == set(NOT_SPECIFIED), sorted(missing ^ set(NOT_SPECIFIED))

    cxx = shutil.which("clang++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    src = tmp_path / "enums.cpp"
    src.write_text("#include <pto/pto-inst.hpp>\n#include <type_traits>\n" + "\n".join(checks) + "\n")
    flags = cflags(Layout.make(root=ROOT), None)
    proc = subprocess.run(
        [*cxx_argv(cxx), "-std=c++20", "-fsyntax-only", *flags, str(src)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def test_op_pipeline_trait_matches_upstream() -> None:
    """The `Op` enum's OpPipeEntry trait (targets.yaml) is upstream's table, entry for entry."""
    from ptogen.spec.load import load_specs

    lines = (ROOT / "tests/fixtures/upstream_op_pipes.txt").read_text().splitlines()
    upstream = dict(line.split() for line in lines if line and not line.startswith("#"))
    op = next(e for e in load_specs(ROOT / "specs", ROOT).targets.enums if e.name == "Op")
    assert op.trait is not None and op.trait.default == "PIPE_ALL"
    assert op.trait.values == upstream
