"""The benchmark's synthetic spec tree is a valid project (the benchmark itself only prints)."""

from __future__ import annotations

from pathlib import Path

from ptogen.bench import synthetic_tree
from ptogen.spec.load import load_specs

from .helpers import ROOT


def test_synthetic_tree_is_valid(tmp_path: Path) -> None:
    synthetic_tree(ROOT, tmp_path, 25)
    specs = load_specs(tmp_path / "specs", tmp_path)
    synthetic = [op for op in specs.ops if op.spec.instruction_set == "synthetic"]
    assert len(synthetic) == 25
    assert len({op.spec.intrinsic.name for op in synthetic if op.spec.intrinsic}) == 25
