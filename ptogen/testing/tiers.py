"""Test tiers: which of the plan's runtime cases a run builds and runs.

- `full` (`ptogen test`, CI): every case the plan holds.
- `quick` (the README's test command by default): every op, every profile that runs cases, every
  compile-fail, legal-twin and runtime-fail case and every overload, over a reduced dtype x shape
  matrix. The choice is a function of the plan's own data (each op's manifest, which
  `ptogen/testing/plan.py` writes), never a random sample, so `generated/` is the same for both
  tiers and a quick run is a subset of a full one:
  - runtime groups: the first, in plan order, of each class of groups, a class being the group's
    variant (what its id adds to its element types: `colmajor`, `high_precision`, `nz`, ...) and,
    per operand, the element kind and width class (sub-byte, 8-16 bits, 32-64 bits); then, for
    each profile that runs a group in the full tier, a group it runs, and for each profile a group
    builds cases for, a group built for it, if none is kept yet;
  - cases of a kept group: its first case (the one that also calls every overload) and enough others
    that every case label of the op (each shape: full, partial valid region, non-square, run-time
    valid shape, odd; each special scalar) runs at least once, spread over the kept groups;
  - vector (lane) groups: whole, one per class.

Only kept cases are compiled: `slice_cases_source` blanks the other cases' functions and table
entries out of the op's generated `cases.cpp` (lines stay where they were, so diagnostics name the
generated file's own lines).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

TIERS = ("quick", "full")
TIER_ENV = "PTOGEN_TEST_TIER"


def default_tier() -> str:
    """PTOGEN_TEST_TIER if set; else `full` under CI (the `CI` variable most CI systems set), else
    `quick`. Used by the test suite; `ptogen test` runs the full tier unless told otherwise."""
    chosen = os.environ.get(TIER_ENV, "").strip()
    if chosen:
        if chosen not in TIERS:
            raise ValueError(f"{TIER_ENV}={chosen}: the tiers are {', '.join(TIERS)}")
        return chosen
    ci = os.environ.get("CI", "").strip().lower()
    return "full" if ci not in ("", "0", "false", "no") else "quick"


def width_class(bits: int) -> str:
    return "sub-byte" if bits < 8 else "narrow" if bits <= 16 else "wide"


def _element_class(dtypes: dict[str, Any], name: str) -> tuple[str, str]:
    d = dtypes[name]
    return str(d["kind"]), width_class(int(d["bits"]))


def variant_of(group_id: str, dtypes: Iterable[str]) -> str:
    """What a group's id adds to its element types (`half_uint8_t_colmajor` -> `colmajor`)."""
    names = sorted(dtypes, key=len, reverse=True)
    rest = group_id
    while True:
        for n in names:
            if rest == n:
                return ""
            if rest.startswith(n + "_"):
                rest = rest[len(n) + 1 :]
                break
        else:
            return rest


def _group_class(group: dict[str, Any], dtypes: dict[str, Any]) -> tuple[Any, ...]:
    if "dtype" in group:  # a vector (lane) group
        return ("vector", _element_class(dtypes, group["dtype"]))
    operands = tuple(sorted((n, _element_class(dtypes, d)) for n, d in group["dtypes"].items()))
    return (variant_of(group["group"], dtypes), operands)


def vector_case_ids(group: dict[str, Any]) -> list[int]:
    first = int(group["first"])
    return list(range(first, first + len(group["masks"]) * len(group["scalars"])))


def case_ids(group: dict[str, Any]) -> list[int]:
    if "cases" in group:
        return [int(c["index"]) for c in group["cases"]]
    return vector_case_ids(group)


def run_profiles(entry: dict[str, Any], profiles: list[str]) -> dict[str, str]:
    """Group id -> the profile its cases run under: the first of `profiles` that allows it (building
    the executable instantiates it under the others too)."""
    runs: dict[str, str] = {}
    for group in entry["runtime"] + entry["vector"]:
        first = next((p for p in profiles if p in group["profiles"]), None)
        if first is not None:
            runs[group["group"]] = first
    return runs


def select(
    entry: dict[str, Any], dtypes: dict[str, Any], profiles: list[str], tier: str
) -> dict[str, list[int]]:
    """Group id -> the case ids the tier runs, for the groups that run under `profiles` (an op's
    manifest `entry`, the project manifest's `dtypes`)."""
    if tier not in TIERS:
        raise ValueError(f"unknown test tier {tier} (the tiers are {', '.join(TIERS)})")
    runs = run_profiles(entry, profiles)
    groups = [g for g in entry["runtime"] + entry["vector"] if g["group"] in runs]
    if tier == "full":
        return {g["group"]: case_ids(g) for g in groups}
    kept: list[dict[str, Any]] = []
    classes: set[tuple[Any, ...]] = set()
    for g in groups:
        key = _group_class(g, dtypes)
        if key not in classes:
            classes.add(key)
            kept.append(g)
    for profile in dict.fromkeys(runs.values()):  # every profile the full tier runs
        if not any(runs[g["group"]] == profile for g in kept):
            kept.append(next(g for g in groups if runs[g["group"]] == profile))
    for profile in profiles:  # every profile the full tier builds cases for (which proves them legal)
        if not any(profile in g["profiles"] for g in kept):
            kept += [g for g in groups if profile in g["profiles"]][:1]
    order = {g["group"]: i for i, g in enumerate(groups)}
    kept.sort(key=lambda g: order[g["group"]])
    chosen: dict[str, list[int]] = {}
    for g in kept:
        chosen[g["group"]] = vector_case_ids(g) if "cases" not in g else [int(g["cases"][0]["index"])]
    # Every case label of the op at least once: each to the kept group holding it that has the
    # fewest cases so far (the first such in plan order), else to the first group holding it.
    covered = {g["cases"][0]["label"] for g in kept if "cases" in g}
    for label in dict.fromkeys(c["label"] for g in groups if "cases" in g for c in g["cases"]):
        if label in covered:
            continue
        covered.add(label)
        holders = [g for g in kept if "cases" in g and any(c["label"] == label for c in g["cases"])]
        if not holders:
            g = next(g for g in groups if "cases" in g and any(c["label"] == label for c in g["cases"]))
            chosen[g["group"]] = [int(g["cases"][0]["index"])]  # its first case, for the overloads
            kept.append(g)
            holders = [g]
        g = min(holders, key=lambda g: len(chosen[g["group"]]))
        chosen[g["group"]].append(next(int(c["index"]) for c in g["cases"] if c["label"] == label))
    return {g["group"]: sorted(chosen[g["group"]]) for g in groups if g["group"] in chosen}


# ----------------------------------------------------------------------------- building fewer cases

_CASE_COMMENT = re.compile(r"// case (\d+) \(")
_CASE_FN = re.compile(r"void case_(\d+)\(")
_TABLE = "const Entry entries[] = {"
# One table entry: {"c12@A5", case_12, Prof::A5} or {"c3@CPU", [](Prof) { ... }, Prof::CPU}, maybe
# several to a line (clang-format packs them into columns).
_ENTRY = re.compile(r'\{"([^"]+)",(?:[^{}]|\{[^{}]*\})*\},?')
_CASE_ID = re.compile(r"c(\d+)@\w+")
_RULE_COMMENT = re.compile(r"// (rf_\w+): breaks run-time rule ")
_RULE_FN = re.compile(r"void (rf_\w+)\(")


class SliceError(ValueError):
    """The cases source does not have the shape `templates/tests/cases.cpp.j2` gives it."""


def slice_cases_source(
    text: str,
    keep: set[int],
    runtime_ids: set[int],
    vector_ids: set[int],
    name: str,
    runtime_fail: bool = True,
) -> str:
    """`text` (an op's generated cases.cpp) with the functions and table entries of the cases
    outside `keep` blanked out, line numbers kept (`#line 1 "name"` first, so diagnostics name the
    generated file). Every case must be found: a function and table entries for each of
    `runtime_ids`, table entries for each of `vector_ids` (a lane group's cases share a template,
    which no entry left instantiates once its cases are gone). With `runtime_fail` false the
    runtime-fail cases go too (a build that never runs them need not instantiate their calls)."""
    lines = text.split("\n")
    functions: set[int] = set()
    entries: set[int] = set()
    i = 0
    while i < len(lines):
        if not runtime_fail and (r := _RULE_COMMENT.match(lines[i])):
            if not (i + 1 < len(lines) and (f := _RULE_FN.match(lines[i + 1])) and f.group(1) == r.group(1)):
                raise SliceError(f"{name}:{i + 2}: {r.group(1)} has no function after its comment")
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            if end == len(lines):
                raise SliceError(f"{name}: {r.group(1)} has no closing brace")
            lines[i : end + 1] = [""] * (end + 1 - i)
            i = end + 1
            continue
        m = _CASE_COMMENT.match(lines[i])
        if m and i + 1 < len(lines) and (f := _CASE_FN.match(lines[i + 1])) and f.group(1) == m.group(1):
            k = int(m.group(1))
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            if end == len(lines):
                raise SliceError(f"{name}: case_{k} has no closing brace")
            functions.add(k)
            if k not in keep:
                lines[i : end + 1] = [""] * (end + 1 - i)
            i = end + 1
            continue
        if lines[i] == _TABLE:
            i += 1
            while i < len(lines) and lines[i] != "};":
                found = list(_ENTRY.finditer(lines[i]))
                if "".join(e.group(0) for e in found).replace(" ", "") != lines[i].replace(" ", ""):
                    raise SliceError(f"{name}:{i + 1}: not a line of case table entries: {lines[i].strip()}")
                kept = []
                for e in found:
                    case = _CASE_ID.fullmatch(e.group(1))
                    if case:
                        entries.add(int(case.group(1)))
                    if case is None and not runtime_fail and e.group(1).startswith("rf_"):
                        continue
                    if case is None or int(case.group(1)) in keep:
                        kept.append(e.group(0))
                if len(kept) < len(found):
                    lines[i] = ("    " + " ".join(kept)) if kept else ""
                i += 1
        i += 1
    all_ids = runtime_ids | vector_ids
    missing = (all_ids - entries) | (runtime_ids - functions)
    stray = (entries - all_ids) | (functions - runtime_ids)
    if missing or stray:
        raise SliceError(
            f"{name}: cases not found where the template puts them: {sorted(missing)[:8]}"
            f"; not in the manifest: {sorted(stray)[:8]}"
        )
    # `#line 1` makes the next line line 1, so the directive takes the place of nothing.
    return f'#line 1 "{name}"\n' + "\n".join(lines)
