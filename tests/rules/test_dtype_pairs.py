"""The dtype-pairs rule kind: TCVT's conversion tables on A2A3 and A5."""

from __future__ import annotations

from .common import OPS, manifest


def _tables() -> dict[str, dict[str, list[str]]]:
    op = OPS["tcvt"]
    return {
        rule.profiles[0]: rule.pairs  # type: ignore[attr-defined]
        for rule in op.spec.constraints
        if rule.kind == "dtype_pairs"
    }


def test_runtime_cases_use_only_pairs_their_profiles_allow() -> None:
    tables = _tables()
    assert set(tables) == {"A2A3", "A5"}
    seen: dict[str, set[tuple[str, str]]] = {"A2A3": set(), "A5": set(), "CPU": set()}
    for group in manifest("tcvt")["runtime"]:
        pair = (group["dtypes"]["src"], group["dtypes"]["dst"])
        for profile in group["profiles"]:
            seen[profile].add(pair)
            if profile in tables:
                assert pair[1] in tables[profile][pair[0]], (profile, pair)
    for profile, table in tables.items():  # and every pair of the table runs
        assert seen[profile] == {(s, d) for s, ds in table.items() for d in ds}
    assert len(seen["CPU"]) == 11 * 11  # the CPU profile converts every pair of its types


def test_a_pair_outside_the_table_fails_to_compile_with_the_rule_message() -> None:
    fails = [c for c in manifest("tcvt")["compile"] if c["must_fail"] and "dtype_pairs" in c["rule"]]
    assert {c["profile"] for c in fails} == {"A2A3", "A5"}
    rule = "the element types of src and dst must be one of the documented conversion pairs"
    for case in fails:
        assert f"TCVT [{case['profile']}]: {rule}" in case["messages"]
