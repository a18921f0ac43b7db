"""What the rule tests share: the project's specs and views, and the test plan an op's manifest states."""

from __future__ import annotations

import json
from typing import Any

from ptogen.rules import PageContext

from ..helpers import ROOT, checkout_project, checkout_specs

SPECS = checkout_specs()
PROJECT = checkout_project()
OPS = {o.spec.stem: o for o in PROJECT.ops}
PAGE = PageContext([], {"A2A3", "A5", "CPU"}, ["dst", "src"], True)


def manifest(op: str) -> dict[str, Any]:
    return json.loads((ROOT / f"generated/tests/{op}/manifest.json").read_text())["manifest"]  # type: ignore[no-any-return]


def failing_cases(op: str) -> dict[str, list[str]]:
    """The op's compile-fail cases and the messages each expects."""
    return {c["case"]: c["messages"] for c in manifest(op)["compile"] if c["must_fail"]}


def runtime_failures(op: str) -> dict[str, str]:
    """The op's runtime-fail cases and the message each must stop with."""
    return {c["case"]: c["message"] for c in manifest(op)["runtime_fail"]}
