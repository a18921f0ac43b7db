"""`ptogen show OP`: an op's spec as the generators see it, each fact with where it came from."""

from __future__ import annotations

import json
from typing import Any

from .loader import PathKey
from .resolve import Node


def _dotted(path: PathKey) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _leaves(data: Any, path: PathKey = ()) -> list[tuple[PathKey, Any]]:
    if isinstance(data, dict) and data:
        return [leaf for k, v in data.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(data, list) and data and not all(isinstance(x, (str, int, float, bool)) for x in data):
        return [leaf for i, v in enumerate(data) for leaf in _leaves(v, (*path, i))]
    return [(path, data)]


def _origin(path: PathKey, origins: dict[PathKey, Node]) -> str:
    node = origins.get(path)
    if isinstance(node, Node) and isinstance(node.value, list) and node.value:
        kinds = {n.origin for n in node.value}  # a list built from several places (a set, a profile)
        if len(kinds) == 1:
            node = node.value[0]
    if node is None:
        return "?"
    where = f"{node.file}:{node.line}" if node.line is not None else node.file
    return f"{node.origin}, {where}"


def render(data: Any, origins: dict[PathKey, Node], width: int = 60) -> str:
    """One line per fact: `path: value  # origin, file:line`."""
    lines = []
    for path, value in _leaves(data):
        text = value if isinstance(value, str) and "\n" not in value else json.dumps(value)
        if len(text) > width:
            text = text[: width - 3] + "..."
        lines.append(f"{_dotted(path)}: {text}  # {_origin(path, origins)}")
    return "\n".join(lines) + "\n"
