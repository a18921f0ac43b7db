"""Issue 12's reproducers: each ends in a one-line, located error (exit 2), a named environment
fault (exit 3), or is harmless; generated/ is switched atomically, under a lock."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import ptogen.emit.output as output
from ptogen.cli import main
from ptogen.spec.loader import unsafe_path_reason

from .helpers import ROOT, TLRELU, edit, tree_hash

LOCATED = re.compile(r"^error: specs/ops/tile_scalar_and_immediate/tlrelu\.yaml:\d+: ")


def gen_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """Run `gen`; (exit code, stderr lines); generated/ must be untouched."""
    before = tree_hash(project / "generated")
    code = main(["--root", str(project), "gen"])
    err = capsys.readouterr().err.splitlines()
    assert tree_hash(project / "generated") == before, "generated/ was touched"
    assert not any("Traceback" in line for line in err)
    return code, err


def append(project: Path, text: str) -> None:
    path = project / TLRELU
    path.write_text(path.read_text() + text)


# ------------------------------------------------------------------ 1. names in generated text


@pytest.mark.parametrize(
    "name",
    ["tlrelu\n#error INJECTED\nint x_.yaml", "tlrelu*-->x.yaml", "tlrelu\u202ex.yaml", "t relu.yaml"],
    ids=["newline", "comment-closer", "bidi", "space"],
)
def test_spec_file_name_cannot_inject(
    spec_project: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    src = spec_project / TLRELU
    src.rename(src.with_name(name))
    code, err = gen_errors(spec_project, capsys)
    assert code == 2
    assert len(err) == 1 and "unusable spec file name" in err[0], err


def test_specs_directory_path_is_checked_too(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A specs tree outside the root is shown by its full path, so that path must be safe as well.
    outside = project.parent / "x\n#error INJECTED\ny"
    (project / "specs").rename(outside)
    code = main(["--root", str(project), "--specs", str(outside), "gen"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err and all("unusable spec file name" in line for line in err)
    assert all("\n" not in line for line in err)


def test_unsafe_path_reasons() -> None:
    assert unsafe_path_reason("specs/ops/tile_scalar_and_immediate/tlrelu.yaml") is None
    assert unsafe_path_reason("/home/a user/specs/targets.yaml") is None
    for bad in ("specs/a\nb.yaml", "specs/a*/b.yaml", "specs/<b>.yaml", "specs/a`b.yaml", "specs/a|b.yaml"):
        assert unsafe_path_reason(bad) is not None, bad


# ------------------------------------------------------------------ 2. hostile YAML

YAML_CASES = {
    "python tag": "zz: !!python/name:os.system\n",
    "int tag": "zz: !!int x\n",
    "bad timestamp tag": "zz: !!timestamp 2001-13-99\n",
    "implicit bad timestamp": "zz: 2001-13-99\n",
    "complex key": "? [a, b]\n: 1\n",
    "deep nesting": "zz: " + "[" * 5000 + "\n",
    "very deep nesting": "zz: " + "[" * 50000 + "\n",
    "alias bomb": "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else 'x'}]\n" for i in range(9)),
    "alias": "zz: *nothing\n",
    "huge integer": "zz: " + "9" * 5000 + "\n",
    "second document": "---\nzz: 1\n",
    "raw control character": "zz: a\x1bb\n",
}


@pytest.mark.parametrize("text", YAML_CASES.values(), ids=YAML_CASES.keys())
def test_hostile_yaml_gets_a_located_error(
    spec_project: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    append(spec_project, text)
    started = time.monotonic()
    code, err = gen_errors(spec_project, capsys)
    assert time.monotonic() - started < 10
    assert code == 2
    assert err and all(LOCATED.match(line) for line in err), err


def test_alias_bomb_never_expands(spec_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    append(spec_project, YAML_CASES["alias bomb"])
    code, err = gen_errors(spec_project, capsys)
    assert code == 2 and "anchors (&name) are not allowed" in err[0]


# ------------------------------------------------------------------ 5. Markdown / HTML / JSON

FIELD_CASES = [
    (
        "backtick in asm_type",
        "asm_type: dtype,",
        'asm_type: "dtype` <img src=x onerror=alert(1)> `",',
        "asm_type",
    ),
    ("pipe in asm_type", "asm_type: dtype,", 'asm_type: "a | b",', "asm_type"),
    (
        "javascript link",
        "summary: Leaky ReLU of a tile",
        "summary: '[x](javascript:alert(1)) Leaky ReLU of a tile",
        "summary",
    ),
    ("NUL", "summary: Leaky ReLU of a tile", 'summary: "\\0 Leaky ReLU of a tile', "summary"),
    ("ESC", "summary: Leaky ReLU of a tile", 'summary: "\\e[31m Leaky ReLU of a tile', "summary"),
    ("RLO", "summary: Leaky ReLU of a tile", 'summary: "\\u202e Leaky ReLU of a tile', "summary"),
]


@pytest.mark.parametrize(("what", "old", "new", "field"), FIELD_CASES, ids=[c[0] for c in FIELD_CASES])
def test_injecting_field_values_are_refused(
    spec_project: Path, capsys: pytest.CaptureFixture[str], what: str, old: str, new: str, field: str
) -> None:
    if new.startswith(("summary: '", 'summary: "')):  # close the quote the case opened
        quote = new[len("summary: ")]
        text = (spec_project / TLRELU).read_text()
        line = next(x for x in text.splitlines() if x.startswith(old))
        edit(spec_project, TLRELU, line, new + line[len(old) :] + quote)
    else:
        edit(spec_project, TLRELU, old, new)
    code, err = gen_errors(spec_project, capsys)
    assert code == 2
    assert len(err) == 1 and LOCATED.match(err[0]) and re.search(rf"[ .]{field}: ", err[0]), err


def test_vector_op_without_its_mask_is_a_located_error(
    spec_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by the fuzz test: the vector header's template crashed on it.
    spec = "specs/ops/vector_scalar/vaddcs.yaml"
    text = (spec_project / spec).read_text()
    start = text.index("  - name: mask\n")  # the predicate mask operand, written as a block
    end = text.index("\n", text.index("description:", start)) + 1
    (spec_project / spec).write_text(text[:start] + text[end:])
    code, err = gen_errors(spec_project, capsys)
    assert code == 2 and len(err) == 1 and "vaddcs.yaml:" in err[0] and "predicate mask" in err[0], err


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_test_values_are_refused(
    spec_project: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    append(spec_project, f"test_values: {{float_scalars: [1.0, {value}]}}\n")
    code, err = gen_errors(spec_project, capsys)
    assert code == 2
    assert len(err) == 1 and "test_values.float_scalars[1]" in err[0] and "finite" in err[0], err


# ------------------------------------------------------------------ 3, 4. atomic switch, lock


def _tree(path: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)


def test_write_tree_switches_whole_trees_with_normal_permissions(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    _tree(out, {"a.txt": "old\n", "gone.txt": "x\n"})
    # What a killed run leaves: a staging tree and an old tree.
    _tree(tmp_path / ".generated-new-999-dead", {"a.txt": "half"})
    _tree(tmp_path / ".generated-old", {"a.txt": "older"})
    with output.output_lock(out):
        changed = output.write_tree(out, {"a.txt": "new\n", "d/b.txt": "b\n"})
    assert changed == ["a.txt", "d/b.txt", "gone.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".generated.lock", "generated"]
    assert (out / "a.txt").read_text() == "new\n" and not (out / "gone.txt").exists()
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask
    assert (out / "d").stat().st_mode & 0o777 == 0o777 & ~umask


def test_gen_removes_litter_even_when_nothing_changed(project: Path) -> None:
    assert main(["--root", str(project), "gen"]) == 0  # records the state: the next gen is a no-op
    _tree(project / ".generated-new-999-dead", {"a.txt": "half"})
    assert main(["--root", str(project), "gen"]) == 0
    assert not list(project.glob(".generated-*"))


def test_fallback_switch_is_recovered_after_a_cut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without renameat2 the switch is two renames; a kill between them leaves only the old tree
    # under its side name, and the next run puts it back before doing anything else.
    out = tmp_path / "generated"
    _tree(tmp_path / ".generated-old", {"a.txt": "old\n"})
    output.recover(out)
    assert (out / "a.txt").read_text() == "old\n" and not (tmp_path / ".generated-old").exists()
    monkeypatch.setattr(output, "_exchange", lambda a, b: False)
    with output.output_lock(out):
        output.write_tree(out, {"a.txt": "new\n"})
    assert (out / "a.txt").read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".generated.lock", "generated"]


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_disk_full_keeps_the_old_tree(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(project, TLRELU, "Leaky ReLU of a tile", "Leaky ReLU of one tile")
    written = []
    real = Path.write_text

    def full(self: Path, *args: object, **kwargs: object) -> int:
        if ".generated-new-" in str(self):
            written.append(self)
            if len(written) > 1:  # the first changed file fits, the second does not
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full)
    code, err = gen_errors(project, capsys)
    assert code == 3
    assert len(err) == 1 and "(ENOSPC)" in err[0] and "generated/ is unchanged" in err[0], err
    assert not list(project.glob(".generated-*"))


def test_read_only_output_is_a_one_line_error(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    edit(project, TLRELU, "Leaky ReLU of a tile", "Leaky ReLU of one tile")

    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    code, err = gen_errors(project, capsys)
    assert code == 3
    assert len(err) == 1 and "(EROFS)" in err[0], err


def test_a_held_lock_is_named_and_times_out(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "LOCK_TIMEOUT", 0.3)
    with open(project / ".generated.lock", "w") as fh:
        fh.write("4242\n")
        fh.flush()
        fcntl.flock(fh, fcntl.LOCK_EX)
        code, err = gen_errors(project, capsys)
    assert code == 3
    assert "another ptogen (pid 4242) is using generated/; waiting" in err[0]
    assert len(err) == 2 and "still locked by pid 4242" in err[1], err


@pytest.mark.full_tier  # a whole regeneration of a project copy: CI, not the README command
def test_two_gens_at_once_both_succeed(project: Path) -> None:
    edit(project, TLRELU, "Leaky ReLU of a tile", "Leaky ReLU of one tile")
    cmd = [sys.executable, "-m", "ptogen.cli", "--root", str(project), "gen"]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)
    ]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    assert main(["--root", str(project), "check"]) == 0
    assert not list(project.glob(".generated-*"))


# ------------------------------------------------------------------ 7. command line


def test_unknown_test_option_shows_the_test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["test", "--bogus"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: ptogen test" in err and "unrecognized arguments: --bogus" in err


def test_list_json_profiles_are_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(ROOT), "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    tlrelu = next(r for r in rows if r["mnemonic"] == "pto.tlrelu")
    assert tlrelu["profiles"] == ["A2A3", "A5", "CPU"]


def test_op_missing_from_order_names_the_file_and_the_fix(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(project, "specs/targets.yaml", " pto.tlrelu,", "")
    code, err = gen_errors(project, capsys)
    assert code == 2
    assert "specs/targets.yaml" in err[0] and "add it there" in err[0] and "`order:`" in err[0], err


@pytest.mark.parametrize(
    ("old", "new", "hint"),
    [
        ("dtypes: [half, float]\n", "dtypes: [half, flaot]\n", "(did you mean 'float'?)"),
        ("profiles: [A5]\n", "profiles: [A55]\n", "(did you mean 'A5'?)"),
    ],
)
def test_did_you_mean(
    project: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, hint: str
) -> None:
    edit(project, TLRELU, old, new)
    code, err = gen_errors(project, capsys)
    assert code == 2 and hint in err[0], err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tlrelx"], "ptogen test: unknown op tlrelx (did you mean 'tlrelu'?)\n"),  # no list of every op
        (["--profile", "a5"], "unknown profile a5 (known: A2A3, A5, CPU) (did you mean 'A5'?)"),
        (["--timeout", "0"], "--timeout must be positive"),
    ],
)
def test_test_command_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["--root", str(ROOT), "test", *args]) == 2
    assert message in capsys.readouterr().err


def test_signals_are_named() -> None:
    from ptogen.testing.runner import exit_status

    assert exit_status(-11) == "on signal SIGSEGV"
    assert exit_status(3) == "with status 3"


# ------------------------------------------------------------------ 6. import faults


@dataclass
class Imported:
    returncode: int
    stdout: str
    stderr: str


def _import(tmp_path: Path, page: Path) -> Imported:
    """`ptogen import` in this process (the exit status and output a shell would see; one real
    process is run by tests/spec/test_bad_specs.py): the specs load once per worker, not per call."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--root", str(ROOT), "import", str(page), "--out", str(tmp_path / "o")])
    return Imported(code, out.getvalue(), err.getvalue())


def test_import_of_a_binary_page_is_one_line(tmp_path: Path) -> None:
    page = tmp_path / "blob.md"
    page.write_bytes(bytes(range(256)) * 8)
    proc = _import(tmp_path, page)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: {page}: not a text page (it holds NUL bytes); give the Markdown or HTML source"
    ]


def test_import_reads_a_latin1_page(tmp_path: Path) -> None:
    text = (ROOT / "tests/fixtures/TMAXS.txt").read_text().replace("tile operation", "tile op\u00e9ration", 1)
    page = tmp_path / "TMAXS.txt"
    page.write_bytes(text.encode("latin-1", errors="replace"))
    proc = _import(tmp_path, page)
    assert proc.returncode == 0, proc.stderr
    assert "read as Windows-1252/Latin-1" in proc.stderr
    assert (tmp_path / "o/tile_scalar_and_immediate/tmaxs.yaml").is_file()


def test_import_of_a_page_with_a_megabyte_line_is_quick(tmp_path: Path) -> None:
    lines = (ROOT / "tests/fixtures/TMAXS.txt").read_text().splitlines()
    lines.insert(3, "x y_" * 250_000)
    page = tmp_path / "TMAXS.txt"
    page.write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    proc = _import(tmp_path, page)
    assert time.monotonic() - started < 20
    assert proc.returncode == 0, proc.stderr
    assert "line 4 (1000000 characters, over 20000) was skipped" in proc.stdout


def test_import_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ruamel.yaml import YAML

    seed = str(ROOT / "tests/fixtures/TMAXS.txt")
    target = tmp_path / "tile_scalar_and_immediate/tmaxs.yaml"
    assert main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path)]) == 0
    before = target.read_text()

    def killed(self: YAML, data: object, stream: object) -> None:
        stream.write("mnemonic: pto.tm")  # type: ignore[attr-defined]
        raise KeyboardInterrupt  # stands in for a kill half-way through the write

    monkeypatch.setattr(YAML, "dump", killed)
    with pytest.raises(KeyboardInterrupt):
        main(["--root", str(ROOT), "import", seed, "--out", str(tmp_path), "--force"])
    assert target.read_text() == before
    assert [p.name for p in target.parent.iterdir()] == ["tmaxs.yaml"]


def test_import_survives_byte_order_marks_and_names_a_missing_set(tmp_path: Path) -> None:
    text = (ROOT / "tests/fixtures/TMAXS.txt").read_text()
    page = tmp_path / "TMAXS.txt"
    page.write_text("\ufeff\ufeff" + text)  # as some upstream pages are stored
    assert _import(tmp_path, page).returncode == 0
    unknown = tmp_path / "TFOO.txt"
    unknown.write_text(text.replace("TMAXS", "TFOO").replace("pto.tmaxs", "pto.tfoo"))
    proc = _import(tmp_path, unknown)
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert "pto.tfoo belongs to no instruction set of specs/targets.yaml" in line and "`order:`" in line
