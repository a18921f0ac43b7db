"""What a test run reports: one outcome per case, compile expectation or skipped job."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Outcome:
    status: str  # "pass", "fail", "skip"
    name: str
    detail: str = ""
