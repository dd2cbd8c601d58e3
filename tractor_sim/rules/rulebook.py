"""The rule book (docs/rules.md, shipped in the package as rulebook.md) and its passage per option.

``tractor-sim rules --explain OPTION`` prints a passage, so an installed
copy explains its rules without the repository.
"""

from __future__ import annotations

from dataclasses import fields
from importlib import resources

from tractor_sim.rules.options import Rules, RulesError, _suggest


def text() -> str:
    """The whole rule book (Markdown)."""
    return resources.files("tractor_sim.rules").joinpath("rulebook.md").read_text(encoding="utf-8")


def passage(option: str) -> str:
    """The rule book's subsection about one rule option (its heading to the next heading)."""
    names = [f.name for f in fields(Rules)]
    if option not in names:
        raise RulesError(f"unknown rule option {option!r}{_suggest(option, names)}; "
                         f"options: {', '.join(names)}")
    lines = text().splitlines()
    heading = f"#### Option `{option}`"
    if heading not in lines:
        raise RulesError(f"the rule book has no passage about {option!r}")  # a test keeps this from happening
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    return "\n".join(lines[start:end]).strip()


__all__ = ["text", "passage"]
