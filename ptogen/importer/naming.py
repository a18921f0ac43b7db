"""How pages spell operand names and prose, against how specs spell them."""

from __future__ import annotations

import re

# A spec operand name (snake case).
OPERAND_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")

# A C++ type as a page writes a parameter's or a variable's (the one definition both readers use):
# const or not, a fundamental type of several words (`unsigned int`) or a (qualified) name with one
# template argument list (`RegTensor<float>`), then by value, pointer, reference, reference to a
# pointer or pointer to pointers. The name that follows is set off by a space, `*` or `&`.
CPP_TYPE_NAME = (
    r"(?:const\s+)?(?:(?:unsigned|signed|long|short)\s+)*[A-Za-z_][\w:]*(?:<[^<>;]*>)?(?:\s*[*&]){0,2}"
)
# An address-space qualifier before such a type (`__ubuf__ float* dst`): not part of the type.
ADDRESS_SPACE = r"(?:__(?:ubuf|gm|cbuf)__\s+)?"


def snake(name: str) -> str:
    """`cInMatrix` -> `c_in_matrix`: spec operand names are snake_case; C++ parameters may be camelCase."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def plain(text: str) -> str:
    """A page line without its Markdown code and bold marks, on single spaces."""
    return " ".join(text.replace("`", "").replace("**", "").split())
