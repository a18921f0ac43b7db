"""Write spec data as the hand-written specs are written: block style at the top, a mapping or
list of plain values on one line (flow style) when it fits in the line width, code as literal
blocks. A field whose value did not change keeps its original text, comments included."""

from __future__ import annotations

import io
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString

WIDTH = 110
_TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):")


def _flow_len(v: Any) -> int:
    if isinstance(v, dict):
        return 2 + sum(len(str(k)) + 2 + _flow_len(x) + 2 for k, x in v.items())
    if isinstance(v, list):
        return 2 + sum(_flow_len(x) + 2 for x in v)
    if isinstance(v, str):
        return len(v) + (2 if (not v or any(c in v for c in ",:{}[]#&*!|>'\"%@`") or v != v.strip()) else 0)
    return len(str(v))


def _scalar_only(v: Any, depth: int = 0) -> bool:
    """Short enough a structure for one line: scalars, lists of scalars, one level of mappings
    (as `semantics: {kind: elementwise, tolerance: {kind: exact}}`); never a list of mappings."""
    if isinstance(v, dict):
        return depth < 2 and all(_scalar_only(x, depth + 1) for x in v.values())
    if isinstance(v, list):
        return all(not isinstance(x, (dict, list)) and _scalar_only(x, depth + 1) for x in v)
    return not (isinstance(v, str) and "\n" in v)


def _styled(v: Any, indent: int) -> Any:
    if isinstance(v, dict):
        cm = CommentedMap((k, _styled(x, indent + 2)) for k, x in v.items())
        if v and _scalar_only(v) and indent + _flow_len(v) <= WIDTH - 4:
            cm.fa.set_flow_style()
        return cm
    if isinstance(v, list):
        cs = CommentedSeq(_styled(x, indent + 4) for x in v)
        plain_items = all(isinstance(x, (str, int, float, bool)) and len(str(x)) < 40 for x in v)
        if (
            _scalar_only(v) and indent + _flow_len(v) <= WIDTH - 4 and not any(isinstance(x, dict) for x in v)
        ) or (v and plain_items):
            cs.fa.set_flow_style()  # a list of names wraps as a flow list, as `order:` does
        return cs
    if isinstance(v, str) and "\n" in v:
        return LiteralScalarString(v if v.endswith("\n") else v + "\n")
    if isinstance(v, str) and indent + len(v) > WIDTH - 2 and " " in v:
        return _folded(v, WIDTH - indent - 2)
    return v


def _folded(text: str, width: int) -> FoldedScalarString:
    """Prose written as `>-`, broken at spaces before the width."""
    folded = FoldedScalarString(text)
    breaks, start = [], 0
    while len(text) - start > width:
        cut = text.rfind(" ", start, start + width)
        if cut <= start:
            cut = text.find(" ", start + width)
            if cut < 0:
                break
        breaks.append(cut)
        start = cut + 1
    folded.fold_pos = breaks  # type: ignore[attr-defined]
    return folded


def _yaml() -> YAML:
    yaml = YAML()
    yaml.width = WIDTH
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.representer.ignore_aliases = lambda *_args: True  # specs refuse anchors
    return yaml


def _blocks(text: str) -> dict[str, str]:
    """The text of each top-level key (with the comments above it)."""
    out: dict[str, str] = {}
    pending: list[str] = []
    key: str | None = None
    for line in text.splitlines(keepends=True):
        m = _TOP_KEY.match(line)
        if m:
            key = m.group(1)
            out[key] = "".join(pending) + line
            pending = []
        elif line.startswith("#") or not line.strip():
            pending.append(line)
        elif key is not None:
            out[key] += "".join(pending) + line
            pending = []
    return out


def dump_text(data: dict[str, Any], original: str | None = None, original_data: Any = None) -> str:
    """`data` as spec YAML; keys whose value equals `original_data`'s keep `original`'s text."""
    blocks = _blocks(original) if original else {}
    parts: list[str] = []
    yaml = _yaml()
    for key, value in data.items():
        if (
            isinstance(original_data, dict)
            and key in blocks
            and key in original_data
            and original_data[key] == value
        ):
            parts.append(blocks[key])
            continue
        buf = io.StringIO()
        yaml.dump(CommentedMap([(key, _styled(value, len(key) + 2))]), buf)
        parts.append(re.sub(r", +\n", ",\n", buf.getvalue()))  # flow lists wrap after a comma
    return "".join(parts)
