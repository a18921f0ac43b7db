"""Fuzzing of spec files: mutate a real spec, run the loader and every template on it, and
judge the outcome the way a user would see it.

Shared by the property-based test (tests/spec/test_fuzz.py, a few hundred cases) and the benchmark
(`python -m ptogen.bench --fuzz N`, many thousands). A case is one spec text; its outcome is:

- exit 0 (the spec is valid and everything rendered) or 2 (bad input), never anything else;
- with exit 2, every error line names `file:line:`;
- no exception other than the product's own errors (a "crash"), within a time bound (a "hang");
- no payload lands unescaped: no control or bidi character in any output, a marker in C++ only
  inside a comment or string, no live HTML or `javascript:` link in Markdown outside code,
  JSON that parses, Python whose markers are in comments or strings.

Rendering skips clang-format (it changes layout, not content) so a case takes milliseconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import signal
import time
import tokenize
import traceback
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .errors import GenerationError, SpecError, SpecErrors
from .lower.views import ProjectView
from .spec.load import load_specs

MARKER = "INJECTED"
# Strings an attacker would put into a spec; each carries MARKER where it is text.
PAYLOADS = [
    f"\n#error {MARKER}\n",
    f"*/ #error {MARKER} /*",
    f"` <img src=x onerror=alert(1)> {MARKER} `",
    f"<script>{MARKER}</script>",
    f"[x](javascript:alert('{MARKER}'))",
    f"[x]: javascript:{MARKER}",
    f"a | b {MARKER}",
    f"\x00{MARKER}",
    f"\x1b[31m{MARKER}",
    f"\u202e{MARKER}",
    f"-->{MARKER}<!--",
    f"{{{{ '{MARKER}' }}}}",
    f"{MARKER} \\",
    f'"); #error {MARKER} //',
    f"\u2028{MARKER}",
    f"{MARKER}-" * 2000,  # long, and not an identifier (a marker is never legitimate code)
]
# What a mutation appends: YAML features a spec must not use, and nesting.
YAML_EXTRAS = [
    "zz: !!python/name:os.system\n",
    "zz: !!int x\n",
    "zz: !!timestamp 2001-13-99\n",
    "? [a, b]\n: 1\n",
    "zz: " + "[" * 5000 + "\n",
    "zz: &a [x, x]\nzy: [*a, *a]\n",
    "zz: *a\n",
    "---\nzz: 1\n",
    "zz: " + "9" * 5000 + "\n",
    "test_values: {float_scalars: [.nan, .inf]}\n",
]
CASE_SECONDS = 10.0  # a case taking longer is a hang
CPP_SUFFIXES = (".hpp", ".cpp", ".h")


@dataclass
class Outcome:
    code: int  # 0 valid, 2 bad input; -1 crash, -2 hang
    errors: list[str] = field(default_factory=list)
    crash: str = ""
    seconds: float = 0.0
    injections: list[str] = field(default_factory=list)
    files: int = 0

    def problems(self) -> list[str]:
        """What is wrong with this outcome (empty when the product behaved)."""
        out = []
        if self.code == -1:
            out.append(f"crash: {self.crash}")
        if self.code == -2:
            out.append(f"hang: more than {CASE_SECONDS:g} s")
        if self.code == 2 and not self.errors:
            out.append("exit 2 without an error")
        out += [f"unlocated error: {e}" for e in self.errors if not re.match(r"^[^\n:]+:\d+: ", e)]
        out += [f"multi-line error: {e!r}" for e in self.errors if "\n" in e]
        out += [f"injection: {i}" for i in self.injections]
        return out


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def ring(_signum: int, _frame: object) -> None:
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Harness:
    """A scratch project (the real targets.yaml and templates) holding one spec at a time."""

    def __init__(self, root: Path, work: Path):
        self.root = root
        self.work = work
        self.specs = work / "specs"
        shutil.rmtree(self.specs, ignore_errors=True)
        (self.specs / "ops").mkdir(parents=True)
        shutil.copy(root / "specs" / "targets.yaml", self.specs / "targets.yaml")
        if (root / "specs" / "classes").is_dir():  # the op classes a seed spec names
            shutil.copytree(root / "specs" / "classes", self.specs / "classes")
        self.env = _environment(root / "templates")

    def run(self, rel: str, text: str | bytes) -> Outcome:
        """Load and render a project whose only op spec is `text`, at `rel` under specs/."""
        shutil.rmtree(self.specs / "ops", ignore_errors=True)
        target = self.specs / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text)
        started = time.monotonic()
        files: dict[str, str] = {}
        try:
            with _deadline(CASE_SECONDS):
                files = self._render()
            outcome = Outcome(0)
        except (SpecError, GenerationError) as exc:
            outcome = Outcome(2, [str(exc)])
        except SpecErrors as exc:
            outcome = Outcome(2, [str(e) for e in exc.errors])
        except _Timeout:
            outcome = Outcome(-2)
        except Exception:  # noqa: BLE001 - any other exception is the crash being looked for
            outcome = Outcome(-1, crash=traceback.format_exc(limit=-3))
        outcome.seconds = time.monotonic() - started
        outcome.files = len(files)
        outcome.injections = find_injections(files)
        return outcome

    def _render(self) -> dict[str, str]:
        from .emit.render import check_unique, plan

        project = ProjectView(load_specs(self.specs, self.work))
        jobs = plan(project)
        check_unique(jobs)
        out = {}
        for path, template, extra in jobs:
            op = extra.get("op")
            where = op.context(f"rendering {path}") if op is not None else contextlib.nullcontext()  # type: ignore[attr-defined]
            try:
                with where:
                    out[path] = self.env.get_template(template).render(project=project, **extra)
            except jinja2.TemplateError as exc:
                raise GenerationError(f"template {template} failed for {path}: {exc}") from exc
        return out


def _environment(templates: Path) -> jinja2.Environment:
    from .emit.render import environment

    return environment(templates)


# ----------------------------------------------------------------------------- injection checks

_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# Live HTML, or a link whose target is javascript: (inline, autolink, or a reference definition
# at the start of a line, after any list or quote markers); the words alone are harmless text.
# A link of the site's own HTML (the intrinsics finder's rows) to a page of the site: a relative
# path of plain characters, which no payload can become.
_PAGE_LINK = re.compile(r'<a href="[\w./-]+\.html">')
_LIVE = re.compile(
    r"<\s*(img|script|iframe|svg|a)\b|onerror\s*=|\]\(\s*<?\s*javascript:|<\s*javascript:"
    r"|^\s*(?:[-*+>]\s+|\d+[.)]\s+|!!!.*)*\[[^\]]*\]:\s*<?\s*javascript:",
    re.IGNORECASE | re.MULTILINE,
)


def _bad_character(text: str) -> str | None:
    for ch in text:
        if ch in "\n\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f"U+{ord(ch):04X}"
    return None


def _cpp_marker_outside_comment(text: str) -> str | None:
    """A line where MARKER is code: not after `//`, not inside a string, not in a block comment."""
    in_block = False
    for number, line in enumerate(text.splitlines(), 1):
        pos = 0
        in_string = False
        while pos < len(line):
            if in_block:
                end = line.find("*/", pos)
                if end < 0:
                    break
                in_block, pos = False, end + 2
                continue
            if in_string:
                if line[pos] == "\\":
                    pos += 2
                    continue
                if line[pos] == '"':
                    in_string = False
                pos += 1
                continue
            if line.startswith("//", pos):
                break
            if line.startswith("/*", pos):
                in_block, pos = True, pos + 2
                continue
            if line[pos] == '"':
                in_string = True
            elif line.startswith(MARKER, pos):
                return f"line {number}: {line.strip()[:120]}"
            pos += 1
        if line.rstrip().endswith("\\") and "//" in line:
            return f"line {number}: a comment continued onto the next line"
    return None


def _python_marker_outside_comment(text: str) -> str | None:
    try:
        compile(text, "reference.py", "exec")
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if MARKER in tok.string and tok.type not in (tokenize.COMMENT, tokenize.STRING):
                return f"line {tok.start[0]}: {tok.line.strip()[:120]}"
    except (SyntaxError, tokenize.TokenError) as exc:
        return f"not valid Python: {exc}"
    return None


def find_injections(files: dict[str, str]) -> list[str]:
    found = []
    for path, text in files.items():
        bad = _bad_character(text)
        if bad:
            found.append(f"{path}: control character {bad}")
        if path.endswith(CPP_SUFFIXES):
            where = _cpp_marker_outside_comment(text)
            if where:
                found.append(f"{path}: {where}")
        elif path.endswith(".md"):
            prose = _PAGE_LINK.sub("", _SPAN.sub("", _FENCE.sub("", text)))
            live = _LIVE.search(prose)
            if live:
                found.append(f"{path}: live HTML or link {live.group(0)!r}")
            for line in prose.splitlines():
                if line.startswith("|") and MARKER in line and line.count("|") - line.count("\\|") > 5:
                    found.append(f"{path}: a table row split by '|': {line[:120]}")
                    break
        elif path.endswith(".json"):
            try:
                json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError as exc:
                found.append(f"{path}: not valid JSON: {exc}")
        elif path.endswith(".py"):
            where = _python_marker_outside_comment(text)
            if where:
                found.append(f"{path}: {where}")
    return found


# ----------------------------------------------------------------------------- mutations


def mutate(text: str, choice: int, where: int, payload: str) -> str:
    """One mutation of a spec's text. `choice` picks the kind, `where` the line, `payload` the
    new value; every argument may be anything (they come from a random source)."""
    lines = text.splitlines()
    index = where % len(lines)
    line = lines[index]
    kind = choice % 7
    if kind == 0:  # replace the value of a `key: value` line, as YAML double-quoted text
        key, sep, _value = line.partition(": ")
        lines[index] = f"{key}{sep or ': '}{json.dumps(payload)}"
    elif kind == 1:  # the same, unquoted (YAML decides the type)
        key, sep, _value = line.partition(": ")
        lines[index] = f"{key}{sep or ': '}{payload.splitlines()[0] if payload.strip() else payload!r}"
    elif kind == 2:  # delete the line
        del lines[index]
    elif kind == 3:  # append a YAML feature a spec must not use
        lines.append(YAML_EXTRAS[where % len(YAML_EXTRAS)].rstrip("\n"))
    elif kind == 4:  # put the payload inside a flow mapping's value (operands, params)
        value = json.dumps(payload)
        lines[index] = re.sub(
            r"(description|asm_type|name): [^,}]*", lambda m: f"{m.group(1)}: {value}", line, count=1
        )
    elif kind == 5:  # change the indentation
        lines[index] = " " * (len(payload) % 7) + line.lstrip()
    else:  # swap a value's type: a list, a mapping, a number, null
        key, _sep, _value = line.partition(": ")
        lines[index] = f"{key}: " + ["[a, 1]", "{a: 1}", "3.5", "~", "-7", "true", "''"][len(payload) % 7]
    return "\n".join(lines) + "\n"


def seed_specs(root: Path) -> dict[str, str]:
    """The real specs a mutation starts from: one of every op kind and shape of spec."""
    names = [
        "ops/tile_scalar_and_immediate/tlrelu.yaml",
        "ops/elementwise_tile_tile/tprelu.yaml",
        "ops/vector_scalar/vaddcs.yaml",
        "ops/reduce_and_expand/trowsum.yaml",
        "ops/memory_and_data_movement/tload.yaml",
        "ops/elementwise_tile_tile/tcmp.yaml",
    ]
    return {
        n: (root / "specs" / n).read_text(encoding="utf-8") for n in names if (root / "specs" / n).is_file()
    }
