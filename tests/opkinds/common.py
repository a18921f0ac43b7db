"""What the op-kind tests share: the project's specs and views, and the test plan an op's manifest states."""

from __future__ import annotations

import json
from typing import Any

from ..helpers import ROOT, checkout_project, checkout_specs

SPECS = checkout_specs()
PROJECT = checkout_project()
OPS = {o.name: o for o in PROJECT.ops}
HEADER = (ROOT / "generated/include/pto/common/pto_instr.hpp").read_text()


def manifest(op: str) -> dict[str, Any]:
    """The test plan `ptogen gen` wrote for an op (by its short name, tmov)."""
    return json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]  # type: ignore[no-any-return]
