"""The benchmark's synthetic spec tree is a valid project (the benchmark itself only prints)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ptogen.bench import copy_originals, main_bench, scaled_tree, synthetic_tree
from ptogen.spec.load import load_specs
from ptogen.testing import runner

from .compilers import require
from .helpers import ROOT


def test_synthetic_tree_is_valid(tmp_path: Path) -> None:
    synthetic_tree(ROOT, tmp_path, 25)
    specs = load_specs(tmp_path / "specs", tmp_path)
    synthetic = [op for op in specs.ops if op.spec.instruction_set == "synthetic"]
    assert len(synthetic) == 25
    assert len({op.spec.intrinsic.name for op in synthetic if op.spec.intrinsic}) == 25


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_suite_scale_prints_the_cold_suite_of_the_real_and_the_scaled_tree(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--suite-scale N` on a tiny scale (two copies, the suite of their originals and themselves):
    it prints each tree's ops, seconds and compiler processes, and asserts nothing about them."""
    compiler = runner.default_compilers()[0]
    require(compiler)
    real = len(list((ROOT / "specs/ops").rglob("*.yaml")))
    first = ",".join(list(copy_originals(ROOT))[:2])  # the two ops the scaled tree copies
    argv = ["--suite-scale", str(real + 2), "--suite-ops", first, "--cxx", compiler]
    assert main_bench(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"real   tree,    2 ops: +[0-9.]+ s, \d+ compiler processes", out), out
    assert re.search(r"scaled tree,    4 ops: +[0-9.]+ s, \d+ compiler processes", out), out
    assert "load" in out


@pytest.mark.full_tier  # it loads a copy of the whole spec tree twice: CI, not the README command
def test_scaled_tree_copies_real_ops_under_new_names(tmp_path: Path) -> None:
    copies = scaled_tree(ROOT, tmp_path, len(list((ROOT / "specs/ops").rglob("*.yaml"))) + 3)
    assert len(copies) == 3
    specs = load_specs(tmp_path / "specs", tmp_path)
    names = {op.spec.key for op in specs.ops}
    assert set(copies) <= names and len(names) == len(specs.ops)
