"""Render every output file from the validated specs; nothing is written here.

`render_all` returns {relative path: text}. C++ is passed through clang-format. Template text
lives in templates/; the decisions come from views.py. `render_jobs` renders a subset of `plan`'s
jobs (incremental.py decides which); `RENDERED` counts what was rendered, for tests.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import posixpath
import textwrap
from pathlib import Path

import jinja2
import jinja2.bccache

from ..errors import GenerationError
from ..lower.views import ProjectView
from ..spec.load import SpecSet
from ..testing.manifest import TEST_SUPPORT
from . import boxfig
from .finder import LOCATIONS, finder_filters, finder_rows, finder_type_names, inline_html
from .format import format_cpp_many, write_atomic
from .search import search_index_terms
from .site import (
    coverage,
    load_catalog,
    nav,
    notes_by_kind,
    site_jobs,
    upstream_address,
)

CPP_SUFFIXES = (".hpp", ".cpp", ".h")
JSON_WIDTH = 110  # the longest line of a manifest whose value could be broken over lines


def _cell(text: str) -> str:
    """Make prose safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _relative_to(path: str, page: str) -> str:
    """Link from the page at `page` to `path` (both relative to the output root)."""
    return posixpath.relpath(path, posixpath.dirname(page))


def _code(text: str) -> str:
    return f"`{text}`"


_OPEN, _CLOSE = "(<[{", ")>]}"


def _split_top(args: str) -> list[str]:
    """`args` cut at the commas outside any bracket."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        depth += (ch in _OPEN) - (ch in _CLOSE)
        if ch == "," and depth == 0:
            parts.append(args[start:i].strip())
            start = i + 1
    parts.append(args[start:].strip())
    return parts


def _wrap_line(line: str, width: int) -> str:
    """A declaration line longer than `width` broken after its template's `<` or its call's `(`, the
    arguments filled greedily onto lines indented by four (no scrolling sideways to read them)."""
    if len(line) <= width:
        return line
    if line.startswith("//"):  # a comment: its words refilled, each line a comment again
        # Only at spaces: a reader joins the lines with one (a break after a hyphen would add one).
        return "\n".join(
            textwrap.wrap(
                line[2:].strip(),
                width - 3,
                initial_indent="// ",
                subsequent_indent="// ",
                break_on_hyphens=False,
                break_long_words=False,
            )
        )
    cut = line.find("<") if line.startswith("template") else line.find("(")
    if cut < 0:
        return line
    depth = 0
    for end in range(cut, len(line)):
        depth += (line[end] in _OPEN) - (line[end] in _CLOSE)
        if depth == 0:
            break
    else:
        return line
    head, args, tail = line[: cut + 1], line[cut + 1 : end], line[end:]
    parts = _split_top(args)
    lines, current = [head], "   "
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else tail)
        if len(current) + 1 + len(piece) > width and current.strip():
            lines.append(current)
            current = "   "
        if 4 + len(piece) > width and " && " in piece:  # one long condition: a conjunct a line
            first, *rest = piece.split(" && ")
            lines.append("    " + first)
            lines += ["        && " + r for r in rest]
            continue
        current += " " + piece
    if current.strip():
        lines.append(current)
    return "\n".join(lines)


def _wrap_code(text: str, width: int = 80) -> str:
    return "\n".join(_wrap_line(line, width) for line in str(text).split("\n"))


def _tidy_markdown(text: str) -> str:
    """Collapse runs of blank lines left by optional template sections (outside code fences)."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and not line.strip() and out and not out[-1].strip():
            continue
        out.append(line.rstrip() if not fenced else line)
    return "\n".join(out).rstrip("\n") + "\n"


def _banner_sources(paths: list[str]) -> str:
    """What a generated file's banner names: its one source, or the one op spec it is made from
    (every file reads the targets file too, which goes without saying then), else the spec
    directory, not every spec: the first line stays short however many ops there are."""
    if len(paths) == 1:
        return paths[0]
    targets = next((p for p in paths if posixpath.basename(p) == "targets.yaml"), None)
    base = posixpath.dirname(targets) if targets else posixpath.commonpath(paths)
    specs = [p for p in paths if p.startswith(base + "/") and p != targets]
    rest = [p for p in paths if p not in specs and p != targets]
    named = specs[0] if len(specs) == 1 else base + "/" if specs else targets or base
    return ", ".join([named, *rest])


def _json(value: object, depth: int = 0, lead: int = 0) -> str:
    """Manifests as sorted JSON, one item a line where the item does not fit on its line (at
    `depth` levels of two spaces, after `lead` characters), so a diff of one case's change shows
    that case. Each value is first written compactly by the standard library's C encoder (its
    `indent` switches to the pure-Python encoder, several times slower) and broken open only when
    too long."""
    room = JSON_WIDTH - lead - 1  # a comma may follow
    if not value or not isinstance(value, (dict, list)) or _json_at_least(value, room) <= room:
        flat = json.dumps(value, sort_keys=True)
        if len(flat) <= room or not value or not isinstance(value, (dict, list)):
            return flat
    pad = "  " * (depth + 1)
    if isinstance(value, dict):
        items = []
        for key in sorted(value):
            head = f"{pad}{json.dumps(key)}: "
            items.append(head + _json(value[key], depth + 1, len(head)))
        return "{\n" + ",\n".join(items) + "\n" + pad[:-2] + "}"
    items = [pad + _json(v, depth + 1, len(pad)) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + pad[:-2] + "]"


def _json_at_least(value: object, limit: int) -> int:
    """A lower bound of `value`'s compact JSON length, exact up to `limit` (counting stops there):
    a large value is broken open without first being written whole at every level."""
    if isinstance(value, str):
        return len(value) + 2
    if not isinstance(value, (dict, list)):
        return 1
    total = 0  # with each item's separator: `"key": ` and `, ` (one too many, for the brackets)
    for item in value:
        if isinstance(value, dict):
            total += len(item) + 6 + _json_at_least(value[item], limit - total)
        else:
            total += 2 + _json_at_least(item, limit - total)
        if total > limit:
            break
    return total


class VerifiedBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates on disk (like jinja2.FileSystemBytecodeCache), each file carrying a
    sha256 of its bytes: a damaged entry is compiled again, never run."""

    def __init__(self, directory: Path):
        self.directory = directory

    def _file(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.directory / f"{bucket.key}.cache"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            data = self._file(bucket).read_bytes()
        except OSError:
            return
        digest, sep, body = data.partition(b"\n")
        if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
            return
        try:
            bucket.bytecode_from_string(body)
        except Exception:  # noqa: BLE001 - any unreadable entry is a miss
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        body = bucket.bytecode_to_string()
        with contextlib.suppress(OSError):
            write_atomic(self._file(bucket), hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


def environment(templates_dir: Path, bytecode_cache: Path | None = None) -> jinja2.Environment:
    bcc = VerifiedBytecodeCache(bytecode_cache) if bytecode_cache is not None else None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        bytecode_cache=bcc,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["cell"] = _cell
    env.filters["code"] = _code
    env.filters["wrap_code"] = _wrap_code
    env.filters["json"] = _json
    env.filters["inline_html"] = inline_html
    env.filters["banner_sources"] = _banner_sources
    env.filters["relative_to"] = _relative_to
    # The site pages' data (emit/site.py); the ISA catalog is read only by the coverage page.
    env.globals["site_nav"] = nav
    env.globals["site_notes"] = notes_by_kind
    env.globals["site_finder"] = finder_rows
    env.globals["finder_filters"] = finder_filters
    env.globals["finder_type_names"] = finder_type_names
    env.globals["site_search_terms"] = search_index_terms
    env.globals["box_panels"] = boxfig.panels
    env.globals["box_cell"] = boxfig.CELL
    env.globals["box_width"] = boxfig.WIDTH
    env.globals["finder_locations"] = LOCATIONS
    env.globals["site_coverage"] = lambda project: coverage(project, load_catalog(templates_dir))
    env.globals["upstream_address"] = upstream_address(templates_dir)
    return env


def plan(
    project: ProjectView, reuse: frozenset[str] = frozenset()
) -> list[tuple[str, str, dict[str, object]]]:
    """(output path, template, extra context) for every generated file; the ops whose mnemonics
    `reuse` names (their outputs come from the incremental store) get no test plan, the costliest
    part. Mnemonics, not names: pto.tgather and pto.comm.tgather share the intrinsic name TGATHER."""
    jobs: list[tuple[str, str, dict[str, object]]] = [
        ("include/pto/common/pto_instr.hpp", "cpp/pto_instr.hpp.j2", {}),
        ("include/pto/common/pto_instr_impl.hpp", "cpp/pto_instr_impl.hpp.j2", {}),
        ("include/pto/common/pto_enums.hpp", "cpp/enums.hpp.j2", {}),
        ("include/pto/profiles/active_profile.hpp", "cpp/active_profile.hpp.j2", {}),
        ("include/pto/profiles/profile_select.hpp", "cpp/profile_select.hpp.j2", {}),
        ("include/pto/vector/pto_vec.hpp", "cpp/pto_vec.hpp.j2", {}),
        ("include/pto/vsim/ops.hpp", "cpp/vsim_ops.hpp.j2", {}),
        ("include/pto/vsim/reduce.hpp", "cpp/vsim_reduce.hpp.j2", {}),
        (f"{TEST_SUPPORT}/kernel_io.hpp", "tests/kernel_io.hpp.j2", {}),
    ]
    for header, impl, namespace in project.namespaced_headers:  # intrinsics declared apart (pto::comm)
        where: dict[str, object] = {"header": header, "impl": impl, "namespace": namespace}
        jobs.append((f"include/{header}", "cpp/namespaced_instr.hpp.j2", where))
        jobs.append((f"include/{impl}", "cpp/pto_instr_impl.hpp.j2", where))
    if project.tile_type is not None:  # the Tile type's rules and aliases (targets.yaml tile_type:)
        jobs += [
            ("include/pto/common/pto_tile_rules.hpp", "tile/rules.hpp.j2", {}),
            ("include/pto/common/pto_tile_aliases.hpp", "tile/aliases.hpp.j2", {}),
            ("docs/tile.md", "tile/page.md.j2", {}),
            ("tests/tile/verify.cpp", "tile/verify.cpp.j2", {}),
        ]
    for profile in project.profiles:
        jobs.append(
            (
                f"include/pto/profiles/{profile.name.lower()}_checks.hpp",
                "cpp/profile_checks.hpp.j2",
                {"profile": profile},
            )
        )
    for path, ops in project.simulated_backend_files().items():
        jobs.append((f"include/{path}", "cpp/cpu_backend.hpp.j2", {"ops": ops, "path": path}))
    for op in project.ops:
        with op.context("planning its outputs"):
            jobs.extend(op.kind.outputs(op))  # the op's kind decides which per-op files it has
    for iset in project.targets.instruction_sets:
        jobs.append((f"docs/isa/{iset.index_page}", "docs/set_index.md.j2", {"iset": iset}))
    jobs.extend(site_jobs())
    from ..testing.plan import test_jobs  # late import: test generation builds on the same views

    jobs.extend(test_jobs(project, skip=reuse))
    return jobs


# Paths rendered by render_jobs since the process started (tests read it; nothing else does).
RENDERED: list[str] = []


def check_unique(jobs: list[tuple[str, str, dict[str, object]]]) -> None:
    seen: set[str] = set()
    for path, _template, _extra in jobs:
        if path in seen:
            raise GenerationError(f"two outputs claim {path}")
        seen.add(path)


def render_jobs(
    env: jinja2.Environment,
    project: ProjectView,
    jobs: list[tuple[str, str, dict[str, object]]],
    style_file: Path,
    cache: Path | None = None,
) -> dict[str, str]:
    """Render, tidy and format `jobs` (a subset of `plan(project)`)."""
    rendered: dict[str, str] = {}
    for path, template, extra in jobs:
        op = extra.get("op")
        where = op.context(f"rendering {path}") if op is not None else contextlib.nullcontext()  # type: ignore[attr-defined]
        try:
            with where:
                text = env.get_template(template).render(project=project, **extra)
        except jinja2.TemplateError as exc:
            prefix = f"{op.path}: {op.spec.mnemonic}: " if op is not None else ""  # type: ignore[attr-defined]
            raise GenerationError(f"{prefix}template {template} failed for {path}: {exc}") from exc
        rendered[path] = text
        RENDERED.append(path)
    for path, text in rendered.items():
        if path.endswith(".md"):
            rendered[path] = _tidy_markdown(text)
    cpp = {p: t for p, t in rendered.items() if p.endswith(CPP_SUFFIXES)}
    rendered.update(format_cpp_many(cpp, style_file, cache=cache))
    for path, text in rendered.items():
        if "generated by ptogen from" not in text.splitlines()[0]:
            raise GenerationError(f"{path}: first line must be the generated-file banner")
    return rendered


def render_all(
    specs: SpecSet, templates_dir: Path, style_file: Path, cache: Path | None = None
) -> dict[str, str]:
    env = environment(templates_dir)
    project = ProjectView(specs)
    jobs = plan(project)
    check_unique(jobs)
    return render_jobs(env, project, jobs, style_file, cache=cache)
