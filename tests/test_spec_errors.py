"""Bad specs: every problem is one `error: specs/...yaml:<line>: <field>: <message>` line on stderr,
the exit code is 2 and generated/ is left exactly as it was; strings that would inject into the
generated C++ or Markdown are rejected, or land where they are inert (escaped / inside a fence)."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from ptogen.cli import main

from .conftest import run_ptogen

TLRELU = "specs/ops/tile_scalar_and_immediate/tlrelu.yaml"
TLRELU_PAGE = "generated/docs/isa/tile/ops/tile-scalar-and-immediate/tlrelu.md"
ERROR_LINE = re.compile(
    r"^error: (?P<file>specs/[^:]+\.yaml):(?P<line>\d+): (?P<field>[A-Za-z_][\w.\[\]]*): (?P<message>.+)$"
)


# ----------------------------------------------------------------------------- helpers


def snapshot(tree: Path) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file: 'untouched' means neither changed."""
    return {
        p.relative_to(tree).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(tree.rglob("*"))
        if p.is_file()
    }


def line_no(text: str, needle: str) -> int:
    """1-based line on which `needle` starts in `text` (it must occur exactly once)."""
    assert text.count(needle) == 1, f"{needle!r} occurs {text.count(needle)} times"
    return text[: text.index(needle)].count("\n") + 1


def rewrite(root: Path, rel: str, change: Callable[[str], str]) -> str:
    path = root / rel
    old = path.read_text(encoding="utf-8")
    new = change(old)
    assert new != old, "the edit did not apply; has the spec changed?"
    path.write_text(new, encoding="utf-8")
    return new


def replace(old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        return text.replace(old, new)

    return change


def rule_index(root: Path, **match: object) -> int:
    """Index of the one constraint of tlrelu with these field values (so paths are not guessed)."""
    rules = yaml.safe_load((root / TLRELU).read_text(encoding="utf-8"))["constraints"]
    found = [i for i, r in enumerate(rules) if all(r.get(k) == v for k, v in match.items())]
    assert len(found) == 1, (match, found)
    return found[0]


def run_failing(
    root: Path, capsys: pytest.CaptureFixture[str], commands: tuple[str, ...] = ("gen", "check")
) -> list[str]:
    """Run `ptogen --root ROOT gen`, then `check`, in-process; each must exit 2 with the same
    errors and leave generated/ untouched. Returns the stderr lines, all of them `error:` lines."""
    before = snapshot(root / "generated")
    entries = sorted(p.name for p in root.iterdir())
    seen = []
    for command in commands:
        code = main(["--root", str(root), command])
        out, err = capsys.readouterr()
        assert code == 2, (command, out, err)
        seen.append(err)
    assert snapshot(root / "generated") == before, "generated/ was touched"
    assert sorted(p.name for p in root.iterdir()) == entries, "staging directories were left behind"
    assert all(err == seen[0] for err in seen), seen
    lines = seen[0].splitlines()
    assert lines and all(line.startswith("error: ") for line in lines), seen[0]
    return lines


def parse(error: str) -> re.Match[str]:
    m = ERROR_LINE.match(error)
    assert m, f"not `error: file:line: field: message`: {error!r}"
    return m


# ----------------------------------------------------------------------------- one problem each


@dataclass(frozen=True)
class Case:
    id: str
    change: Callable[[Path], Callable[[str], str]]  # root -> text edit of tlrelu.yaml
    field: Callable[[Path], str]  # root (before the edit) -> expected field path
    where: Callable[[str], int]  # edited text -> expected line
    message: str  # fragment of the message


def at(needle: str) -> Callable[[str], int]:
    return lambda text: line_no(text, needle)


def fixed(field: str) -> Callable[[Path], str]:
    return lambda _root: field


def _drop_operands(_root: Path) -> Callable[[str], str]:
    def change(text: str) -> str:
        new, n = re.subn(r"^operands:\n(?:  - .*\n)+", "operands: 3\n", text, flags=re.M)
        assert n == 1
        return new

    return change


CASES = [
    Case(
        "missing-nested-field",
        lambda _r: replace("  domain: dst\n", ""),
        fixed("semantics.domain"),
        at("semantics:\n"),  # a missing key has no line: the error points at its mapping
        "Field required",
    ),
    Case(
        "missing-top-level-field",
        lambda _r: lambda t: re.sub(r"^summary: .*\n", "", t, count=1, flags=re.M),
        fixed("summary"),
        lambda _t: 1,  # the document mapping starts on line 1
        "Field required",
    ),
    Case("wrong-type-list", _drop_operands, fixed("operands"), at("operands: 3"), "valid list"),
    Case(
        "wrong-type-scalar",
        lambda _r: replace("  domain: dst\n", "  domain: [dst]\n"),
        fixed("semantics.domain"),
        at("  domain: [dst]"),
        "valid string",
    ),
    Case(
        "unknown-dtype",
        lambda _r: replace("dtypes: [half, float]\n", "dtypes: [half, flaot]\n"),
        lambda r: f"constraints[{rule_index(r, kind='dtype', profiles=['A5'])}].dtypes[1]",
        at("dtypes: [half, flaot]"),
        "unknown dtype 'flaot'",
    ),
    Case(
        "unknown-profile",
        lambda _r: replace("profiles: [CPU]\n", "profiles: [NOPE]\n"),
        lambda r: f"constraints[{rule_index(r, kind='dtype', profiles=['CPU'])}].profiles[0]",
        at("profiles: [NOPE]"),
        "unknown profile 'NOPE'",
    ),
    Case(
        "intrinsic-name-with-space",
        lambda _r: replace("  name: TLRELU\n", "  name: TL RELU\n"),
        fixed("intrinsic.name"),
        at("name: TL RELU"),
        "'TL RELU' is not a C++ identifier",
    ),
    Case(
        "template-param-starting-with-digit",
        lambda _r: replace("{name: TileDataDst, kind: typename}", "{name: 1abc, kind: typename}"),
        fixed("intrinsic.template[0].name"),
        at("{name: 1abc,"),
        "'1abc' is not a C++ identifier",
    ),
    Case(
        "newline-in-identifier",
        lambda _r: replace("  name: TLRELU\n", '  name: "TLRELU(x);\\nint evil"\n'),
        fixed("intrinsic.name"),
        at('name: "TLRELU(x)'),
        "is not a C++ identifier",
    ),
    Case(
        "comment-close-in-identifier",
        lambda _r: replace("{name: TileDataSrc, kind: typename}", "{name: 'Src*/int', kind: typename}"),
        fixed("intrinsic.template[1].name"),
        at("'Src*/int'"),
        "is not a C++ identifier",
    ),
    Case(
        "keyword-as-identifier",
        lambda _r: replace("{name: src, type: TileDataSrc,", "{name: delete, type: TileDataSrc,"),
        fixed("intrinsic.params[1].name"),
        at("{name: delete,"),
        "C++ keyword",
    ),
    Case(
        "invalid-yaml",
        lambda _r: replace("  domain: dst\n", "  domain: dst: src\n"),
        fixed(""),
        at("domain: dst: src"),
        "invalid YAML",
    ),
    Case(
        "unknown-field",
        lambda _r: replace("  domain: dst\n", "  domain: dst\n  colour: red\n"),
        fixed("semantics.colour"),
        at("colour: red"),
        "unknown field",
    ),
    Case(
        "unknown-top-level-field",
        lambda _r: lambda t: t + "colour: red\n",
        fixed("colour"),
        at("colour: red"),
        "unknown field",
    ),
    Case(
        "semantics-unknown-operand",
        lambda _r: replace(
            "expr: select(src > 0, src, src * slope)", "expr: select(src > 0, src, src * slop)"
        ),
        fixed("semantics.expr"),
        at("expr: select"),
        "unknown operand 'slop'",
    ),
    Case(
        "semantics-import",
        lambda _r: replace("expr: select(src > 0, src, src * slope)", "expr: __import__('os')"),
        fixed("semantics.expr"),
        at("expr: __import__"),
        "unknown function '__import__'",
    ),
    Case(
        "semantics-attribute-access",
        lambda _r: replace(
            "expr: select(src > 0, src, src * slope)", "expr: __import__('os').system('rm -rf ~')"
        ),
        fixed("semantics.expr"),
        at("expr: __import__"),
        "unsupported construct",
    ),
    Case(
        "semantics-lambda",
        lambda _r: replace("expr: select(src > 0, src, src * slope)", "expr: '(lambda: src)()'"),
        fixed("semantics.expr"),
        at("expr: '(lambda"),
        "unsupported construct",
    ),
    Case(
        "html-in-summary",
        lambda _r: replace("summary: Leaky", "summary: <script>alert(1)</script> Leaky"),
        fixed("summary"),
        at("summary: <script>"),
        "raw HTML",
    ),
    Case(
        "html-in-list-item",
        lambda _r: replace("  - Behaviour outside", "  - <img src=x onerror=alert(1)> Behaviour outside"),
        fixed("exceptions[1]"),
        at("<img src=x"),
        "raw HTML",
    ),
    Case(
        "html-in-rule-note",
        lambda _r: replace(
            "note: floating-point types only\n  - {kind: row_major", "note: <b>bold</b>\n  - {kind: row_major"
        ),
        lambda r: f"constraints[{rule_index(r, kind='dtype', profiles=['A2A3'])}].note",
        at("note: <b>bold</b>"),
        "raw HTML",
    ),
    Case(
        "code-fence-in-prose",
        lambda _r: replace("side_effects: >-\n  Only", "side_effects: |-\n  ```html\n  <p>\n  ```\n  Only"),
        fixed("side_effects"),
        at("side_effects: |-"),
        "",  # raw HTML or code fence: either rejection is right
    ),
    Case(
        "code-fence-in-one-line-text",
        lambda _r: replace("summary: Leaky", "summary: x ``` Leaky"),
        fixed("summary"),
        at("summary: x ```"),
        "code fence",
    ),
    Case(
        "newline-in-syntax-line",
        lambda _r: replace('pto_asm: ["%dst = tlrelu', 'pto_asm: ["```\\n<script>\\n%dst = tlrelu'),
        fixed("syntax.pto_asm[0]"),
        at('pto_asm: ["```'),
        "",
    ),
    Case(
        "carriage-return-in-syntax-line",
        lambda _r: replace('ssa: ["%dst = pto.tlrelu', 'ssa: ["x\\r%dst = pto.tlrelu'),
        fixed("syntax.ssa[0]"),
        at('ssa: ["x'),
        "single line",
    ),
    # The Type column is a Markdown code span inside a table: a backtick would end the span (and
    # let raw HTML through), a pipe would split the cell.
    Case(
        "backtick-in-asm-type",
        lambda _r: replace(
            'asm_type: "!pto.tile<...>", description: Source tile.}',
            'asm_type: "x` <script>alert(1)</script> `", description: Source tile.}',
        ),
        lambda r: f"operands[{_operand_index(r, 'src')}].asm_type",
        at("<script>"),
        "",
    ),
    Case(
        "pipe-in-asm-type",
        lambda _r: replace(
            'asm_type: "!pto.tile<...>", description: Source tile.}',
            'asm_type: "a | b", description: Source tile.}',
        ),
        lambda r: f"operands[{_operand_index(r, 'src')}].asm_type",
        at('"a | b"'),
        "",
    ),
    Case(
        "newline-in-unknown-key",
        lambda _r: replace("  domain: dst\n", '  domain: dst\n  "a\\nint evil;": 1\n'),
        fixed("semantics.a\\nint evil;"),  # the key, escaped onto the one line
        at('"a\\nint evil;"'),
        "unknown field",
    ),
    Case(
        "newline-in-reported-value",
        lambda _r: replace("  tolerance: {kind: exact}", '  tolerance: {kind: "ex\\nact"}'),
        fixed("semantics.tolerance"),
        at('{kind: "ex'),
        "",
    ),
]


def _operand_index(root: Path, name: str) -> int:
    operands = yaml.safe_load((root / TLRELU).read_text(encoding="utf-8"))["operands"]
    return next(i for i, o in enumerate(operands) if o["name"] == name)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_problem_one_error_line(
    project_copy: Path, capsys: pytest.CaptureFixture[str], case: Case
) -> None:
    field = case.field(project_copy)  # read paths from the unedited spec
    text = rewrite(project_copy, TLRELU, case.change(project_copy))
    errors = run_failing(project_copy, capsys)
    assert len(errors) == 1, errors  # also: the one error is one line, whatever the spec holds
    prefix = f"error: {TLRELU}:{case.where(text)}: " + (f"{field}: " if field else "")
    assert errors[0].startswith(prefix), (prefix, errors[0])
    assert case.message in errors[0][len(prefix) :], errors[0]
    if field and ERROR_LINE.match(errors[0]) is None:
        assert "\\n" in field, errors[0]  # only an escaped key may fall outside the plain pattern


def test_duplicate_mnemonic(project_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A spec copied under another name repeats the mnemonic and the intrinsic: one error each,
    both on the copy (the later file), pointing at the original."""
    dup = TLRELU.replace("tlrelu.yaml", "tlrelu_copy.yaml")
    text = (project_copy / TLRELU).read_text(encoding="utf-8")
    (project_copy / dup).write_text(text, encoding="utf-8")
    errors = run_failing(project_copy, capsys)
    found = sorted((m["file"], int(m["line"]), m["field"], m["message"]) for m in map(parse, errors))
    assert found == sorted(
        [
            (
                dup,
                line_no(text, "\n  name: TLRELU\n") + 1,
                "intrinsic.name",
                f"duplicate 'TLRELU', already defined in {TLRELU}",
            ),
            (
                dup,
                line_no(text, "mnemonic: pto.tlrelu"),
                "mnemonic",
                f"duplicate 'pto.tlrelu', already defined in {TLRELU}",
            ),
        ]
    )


def test_duplicate_mnemonic_only(project_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dup = TLRELU.replace("tlrelu.yaml", "tlrelu2.yaml")
    text = (
        (project_copy / TLRELU).read_text(encoding="utf-8").replace("  name: TLRELU\n", "  name: TLRELU2\n")
    )
    (project_copy / dup).write_text(text, encoding="utf-8")
    [error] = run_failing(project_copy, capsys)
    m = parse(error)
    assert (m["file"], int(m["line"]), m["field"]) == (dup, line_no(text, "mnemonic:"), "mnemonic")
    assert "duplicate 'pto.tlrelu'" in m["message"] and TLRELU in m["message"]


def test_every_problem_in_every_file_is_reported(
    project_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = "specs/ops/tile_scalar_and_immediate/tmaxs.yaml"
    a = rewrite(project_copy, TLRELU, replace("dtypes: [half, float]\n", "dtypes: [half, flaot]\n"))
    a = rewrite(project_copy, TLRELU, replace("  name: TLRELU\n", "  name: TL-RELU\n"))
    b = rewrite(
        project_copy,
        other,
        lambda t: re.sub(r"^instruction_set: .*$", "instruction_set: nope", t, count=1, flags=re.M),
    )
    errors = run_failing(project_copy, capsys)
    found = sorted((m["file"], int(m["line"]), m["field"]) for m in map(parse, errors))
    assert found == sorted(
        [
            # pydantic rejects the identifier before the cross-file checks run: one error for tlrelu
            (TLRELU, line_no(a, "name: TL-RELU"), "intrinsic.name"),
            (other, line_no(b, "instruction_set: nope"), "instruction_set"),
        ]
    ), errors


def test_unknown_dtype_and_profile_in_one_file(
    project_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a5 = rule_index(project_copy, kind="dtype", profiles=["A5"])
    cpu = rule_index(project_copy, kind="dtype", profiles=["CPU"])
    rewrite(project_copy, TLRELU, replace("dtypes: [half, float]\n", "dtypes: [half, flaot]\n"))
    text = rewrite(project_copy, TLRELU, replace("profiles: [CPU]\n", "profiles: [CPUX]\n"))
    errors = run_failing(project_copy, capsys)
    found = sorted((int(m["line"]), m["field"]) for m in map(parse, errors))
    assert found == sorted(
        [
            (line_no(text, "dtypes: [half, flaot]"), f"constraints[{a5}].dtypes[1]"),
            (line_no(text, "profiles: [CPUX]"), f"constraints[{cpu}].profiles[0]"),
        ]
    )


def test_spec_file_name_cannot_inject(project_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec paths are written into generated comments (`// ... (specs/ops/x.yaml)`, `<!-- -->`),
    so a file name must not be able to end the comment or start a line of code."""
    src = project_copy / TLRELU
    src.rename(src.with_name("tlrelu\nint evil = 1; -->.yaml"))
    errors = run_failing(project_copy, capsys)
    assert len(errors) == 1, errors
    assert "tlrelu\\nint evil" in errors[0]


def test_bad_targets_file(project_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = rewrite(
        project_copy,
        "specs/targets.yaml",
        lambda t: re.sub(r"^default_profile: .*$", "default_profile: A9", t, count=1, flags=re.M),
    )
    [error] = run_failing(project_copy, capsys)
    assert error.startswith(
        f"error: specs/targets.yaml:{line_no(text, 'default_profile: A9')}: default_profile: "
    ), error
    assert "not a declared profile" in error


# ----------------------------------------------------------------------------- inert, not rejected


def _fenced(markdown: str) -> tuple[list[str], list[str]]:
    """(lines inside ``` fences, lines outside)."""
    inside, outside, fenced = [], [], False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        (inside if fenced else outside).append(line)
    return inside, outside


def _cells(row: str) -> list[str]:
    """Cells of a Markdown table row: split on pipes that are not backslash-escaped."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def _generated_text(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root / "generated").as_posix(): p.read_text(encoding="utf-8")
        for p in (root / "generated").rglob("*")
        if p.is_file()
    }


def test_comment_close_in_syntax_line_stays_in_a_code_block(
    project_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Syntax lines are shown verbatim inside ```text blocks and never reach C++, so `*/` there is
    harmless: generated, but only inside fences of the Markdown pages."""
    marker = "*/ int evil = 1; /*"
    rewrite(project_copy, TLRELU, replace('pto_asm: ["%dst = tlrelu', f'pto_asm: ["{marker} %dst = tlrelu'))
    assert main(["--root", str(project_copy), "gen"]) == 0
    capsys.readouterr()
    hits = {rel: text for rel, text in _generated_text(project_copy).items() if marker in text}
    assert hits and all(rel.endswith(".md") for rel in hits), sorted(hits)
    for rel, text in hits.items():
        inside, outside = _fenced(text)
        assert any(marker in line for line in inside), rel
        assert not any(marker in line for line in outside), rel


def test_pipe_in_description_is_escaped_in_the_table(
    project_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rewrite(
        project_copy,
        TLRELU,
        replace("description: Source tile.}", "description: Source tile | with a pipe.}"),
    )
    rewrite(project_copy, TLRELU, replace("summary: Leaky ReLU", "summary: Leaky | ReLU"))
    assert main(["--root", str(project_copy), "gen"]) == 0
    capsys.readouterr()
    page = (project_copy / TLRELU_PAGE).read_text(encoding="utf-8")
    header = next(line for line in page.splitlines() if line.startswith("| Operand |"))
    row = next(line for line in page.splitlines() if line.startswith("| `%src`"))
    assert len(_cells(row)) == len(_cells(header)) == 4, row
    assert _cells(row)[3] == r"Source tile \| with a pipe."
    # The set index lists the summary in a table too.
    index = (project_copy / "generated/docs/isa/tile/tile-scalar-and-immediate.md").read_text(
        encoding="utf-8"
    )
    row = next(line for line in index.splitlines() if line.startswith("| [pto.tlrelu]"))
    header = next(line for line in index.splitlines() if line.startswith("| ") and "pto." not in line)
    assert len(_cells(row)) == len(_cells(header)), row
    assert r"Leaky \| ReLU" in row


def test_exit_code_and_stderr_of_a_real_process(project_copy: Path) -> None:
    """The same contract through `python -m ptogen.cli`, as a user or CI job sees it."""
    index = rule_index(project_copy, kind="dtype", profiles=["A5"])
    text = rewrite(project_copy, TLRELU, replace("dtypes: [half, float]\n", "dtypes: [half, float, f33]\n"))
    text = rewrite(project_copy, TLRELU, replace("  name: TLRELU\n", '  name: "TLRELU */"\n'))
    before = snapshot(project_copy / "generated")
    for command in ("gen", "check"):
        proc = run_ptogen("--root", project_copy, command, cwd=project_copy)
        assert proc.returncode == 2, proc
        assert proc.stdout == ""
        [error] = proc.stderr.splitlines()  # pydantic stops tlrelu at the identifier
        m = parse(error)
        assert (m["file"], int(m["line"]), m["field"]) == (
            TLRELU,
            line_no(text, 'name: "TLRELU */"'),
            "intrinsic.name",
        )
    rewrite(project_copy, TLRELU, replace('  name: "TLRELU */"\n', "  name: TLRELU\n"))
    proc = run_ptogen("--root", project_copy, "gen", cwd=os.path.dirname(project_copy))
    assert proc.returncode == 2
    m = parse(proc.stderr.strip())
    assert (m["file"], int(m["line"]), m["field"]) == (
        TLRELU,
        line_no(text, "dtypes: [half, float, f33]"),
        f"constraints[{index}].dtypes[2]",
    )
    assert m["message"] == "unknown dtype 'f33'"
    assert snapshot(project_copy / "generated") == before
