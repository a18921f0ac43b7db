"""How pages spell operand names and prose, against how specs spell them."""

from __future__ import annotations

import re

# A spec operand name (snake case).
OPERAND_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")


def snake(name: str) -> str:
    """`cInMatrix` -> `c_in_matrix`: spec operand names are snake_case; C++ parameters may be camelCase."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def plain(text: str) -> str:
    """A page line without its Markdown code and bold marks, on single spaces."""
    return " ".join(text.replace("`", "").replace("**", "").split())
