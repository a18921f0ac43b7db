"""ptogen: one source of truth for the PTO tile ISA.

Specs (YAML) -> validated model (Pydantic) -> render (Jinja) -> format (clang-format) -> write/compare.
"""

__version__ = "0.1.0"
