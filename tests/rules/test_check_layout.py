"""The generated checks spell each rule condition once: a check function names each condition as a
constant, asserts that constant and returns their conjunction; the run-time checks and the Tile
type's rules test each condition in one place. A broken named condition still fails to compile with
the rule's message, and with it alone, under clang++ and g++."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ..compilers import SIM_FLAGS, cxx_argv, require
from ..helpers import ROOT

PROFILES = ROOT / "generated/include/pto/profiles"
TILE_RULES = ROOT / "generated/include/pto/common/pto_tile_rules.hpp"

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_FUNCTION = re.compile(
    r"^    static (?:constexpr bool|void) ((?:check|verify)_\w+)\(.*?\{\n(.*?)^    \}", re.M | re.S
)


def _flat(text: str) -> str:
    """`text` with strings blanked (adjacent ones joined) and whitespace collapsed."""
    flat = " ".join(_STRING.sub('""', text).split())
    return re.sub(r'""(?: "")+', '""', flat).replace("( ", "(")


def _statements(body: str) -> list[str]:
    return [s.strip() for s in _flat(body).split(";") if s.strip()]


def repeated_conditions(header: str) -> list[str]:
    """`function: condition` for each condition a check function of a profile header spells more than
    once, or asserts or returns other than through its named constants."""
    problems = []
    for name, body in _FUNCTION.findall(header):
        conditions: list[str] = []
        named: list[str] = []
        for s in _statements(body):
            if m := re.fullmatch(r"constexpr bool (\w+) = (.*)", s):
                named.append(m.group(1))
                conditions.append(m.group(2))
            elif m := re.fullmatch(r"static_assert\((.*), \"\"\)", s):
                # The constant alone, or with what was passed for the compiler's note to show.
                shown = re.fullmatch(r"sim::passed_(?:types|values)<(\w+), .*>", m.group(1))
                if (shown.group(1) if shown else m.group(1)) not in named:
                    problems.append(f"{name}: asserts {m.group(1)}, not a named condition")
            elif m := re.fullmatch(r"return (.*)", s):
                terms = m.group(1).split(" && ")
                if m.group(1) != "true" and terms != named:
                    problems.append(f"{name}: returns {m.group(1)}, not its named conditions")
            elif m := re.fullmatch(r"if \(!\((.*)\)\) sim::fail\(.*\)", s):
                conditions.append(m.group(1))
        problems += [f"{name}: {c}" for c in sorted({c for c in conditions if conditions.count(c) > 1})]
    return problems


@pytest.mark.parametrize("profile", ["a2a3", "a5", "cpu"])
def test_a_profile_header_spells_each_rule_condition_once(profile: str) -> None:
    header = (PROFILES / f"{profile}_checks.hpp").read_text()
    assert len(_FUNCTION.findall(header)) > 100  # the parser sees the check functions
    assert repeated_conditions(header) == []


def test_a_profile_header_explains_its_checks_once() -> None:
    header = (PROFILES / "a5_checks.hpp").read_text()
    assert header.count("one diagnostic") == 1


def test_the_tile_type_spells_each_rule_condition_once() -> None:
    asserts = re.findall(r"static_assert\((.*?), \"\"\)", _flat(TILE_RULES.read_text()))
    assert len(asserts) > 5
    assert len(set(asserts)) == len(asserts)


@pytest.mark.parametrize(
    "body",
    [
        # A condition asserted and returned in full.
        "static_assert(A::isRowMajor, \"m\");\n        return (A::isRowMajor);\n",
        # A named condition, but the return spells it again.
        "constexpr bool r00_x = A::isRowMajor;\n        static_assert(r00_x, \"m\");\n"
        "        return A::isRowMajor;\n",
        # One condition named twice.
        "constexpr bool r00_x = A::isRowMajor;\n        constexpr bool r01_y = A::isRowMajor;\n"
        "        return r00_x && r01_y;\n",
    ],
)
def test_the_parser_sees_a_repeated_condition(body: str) -> None:
    header = f"    static constexpr bool check_X() {{\n        {body}    }}\n"
    assert repeated_conditions(header)


KERNEL = """#include <pto/pto-inst.hpp>
using namespace pto;
using V = Tile<TileType::Vec, float, 16, 16>;
using M = Tile<TileType::Mat, float, 16, 16>;
static_assert(profile_a5::check_TADDS<V, V>());  // every named condition holds
#ifdef BROKEN
constexpr bool broken = profile_a5::check_TADDS<M, V>();  // a Mat source breaks the location rule only
#endif
int main() { return 0; }
"""


@pytest.mark.parametrize("compiler", ["clang++", "g++"])
def test_a_named_condition_fails_with_its_message_alone(compiler: str, tmp_path: Path) -> None:
    cxx = require(compiler)
    source = tmp_path / "kernel.cpp"
    source.write_text(KERNEL)
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]

    def build(*defines: str) -> subprocess.CompletedProcess[str]:
        argv = [*cxx_argv(cxx), *SIM_FLAGS, *defines, *includes, "-fsyntax-only", str(source)]
        return subprocess.run(argv, capture_output=True, text=True, check=False)

    legal = build()
    assert legal.returncode == 0, legal.stderr
    broken = build("-DBROKEN")
    assert broken.returncode != 0
    messages = re.findall(r"TADDS \[A5\]: [^\"\n]*", broken.stderr)
    assert messages and set(messages) == {"TADDS [A5]: tile location must be TileType::Vec"}, broken.stderr
