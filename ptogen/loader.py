"""Read YAML while remembering the line of every key and list item.

Like torchgen's Location on each parsed entry: Pydantic reports an error at a path such as
("intrinsic", "params", 2, "name"); `SourceMap.line_of` turns that path into a line number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from .errors import SpecError

PathKey = tuple[str | int, ...]


@dataclass
class SourceMap:
    """Line numbers (1-based) of every node in one YAML document, keyed by its path."""

    file: str
    lines: dict[PathKey, int] = field(default_factory=dict)

    def line_of(self, path: PathKey) -> int | None:
        # Fall back to the closest ancestor that has a line (e.g. a missing field -> its parent).
        probe = tuple(path)
        while probe:
            if probe in self.lines:
                return self.lines[probe]
            probe = probe[:-1]
        return self.lines.get((), None)


@dataclass
class LoadedDoc:
    data: Any
    source: SourceMap


def _plain(node: Any, path: PathKey, lines: dict[PathKey, int]) -> Any:
    """Convert ruamel nodes to plain dicts/lists, recording each child's line."""
    if isinstance(node, CommentedMap):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            child = (*path, key)
            try:
                lines[child] = node.lc.key(key)[0] + 1
            except (KeyError, TypeError):
                lines[child] = lines.get(path, 1)
            out[key] = _plain(value, child, lines)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            child = (*path, index)
            try:
                lines[child] = node.lc.item(index)[0] + 1
            except (KeyError, TypeError, IndexError):
                lines[child] = lines.get(path, 1)
            items.append(_plain(value, child, lines))
        return items
    if node is None or isinstance(node, (bool, int, float)):
        return node if not isinstance(node, bool) else bool(node)
    return str(node)


def load_yaml(path: Path, display: str | None = None) -> LoadedDoc:
    """Load one YAML file; syntax errors become SpecError with the parser's line."""
    name = display or str(path)
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError(name, line, "", f"invalid YAML: {exc.problem or exc.context}") from None
    except Exception as exc:  # duplicate keys and encoding problems arrive as other types
        raise SpecError(name, None, "", f"cannot read YAML: {exc}") from None
    lines: dict[PathKey, int] = {(): 1}
    data = _plain(node, (), lines)
    return LoadedDoc(data=data, source=SourceMap(name, lines))
