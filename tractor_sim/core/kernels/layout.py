"""Named pieces of one flat array, with offsets generated from their declaration.

The deal's state and the player's view are plain int64 arrays (docs/design.md
decision 2: arrays compile, cache and pickle; classes do not).  Rather than
numbering their fields by hand, each is declared once as an ordered list of
(name, size) pieces; a Layout gives every piece its offset, in order, with
no gaps and no overlap, and the modules export the offsets as constants
(numba reads module integers as compile-time constants, so a generated
offset costs nothing).

A piece declared with size 0 is *absent*: the piece of a team mode that is
off (kernels.dims.FRIENDS_ON).  It takes no room and is not one of the
pieces, but its name is still exported (at the layout's end, holding
nothing), so that code reaching it only in branches of the other mode, which
numba prunes as constant, still imports.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Piece:
    name: str
    offset: int
    size: int
    doc: str = ""

    @property
    def end(self) -> int:
        return self.offset + self.size


class Layout:
    """Pieces laid end to end in declaration order: ``offset(name)``, ``size``, ``pieces``."""

    def __init__(self, name: str, pieces: list[tuple]):
        self.name = name
        self.pieces: list[Piece] = []
        self.absent: list[str] = []
        offset = 0
        for entry in pieces:
            piece_name, size, doc = (*entry, "")[:3]
            if size < 0:
                raise ValueError(f"{name}: piece {piece_name} has size {size}")
            if any(p.name == piece_name for p in self.pieces) or piece_name in self.absent:
                raise ValueError(f"{name}: piece {piece_name} declared twice")
            if size == 0:
                self.absent.append(piece_name)
                continue
            self.pieces.append(Piece(piece_name, offset, size, doc))
            offset += size
        self.size = offset

    def offset(self, name: str) -> int:
        return self[name].offset

    def __getitem__(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no piece {name!r}")

    def constants(self, prefix: str = "") -> dict[str, int]:
        """Every piece's offset under its name (with ``prefix``), for a module's globals."""
        out = {prefix + p.name: p.offset for p in self.pieces}
        out.update({prefix + n: self.size for n in self.absent})
        return out

    def owner(self, index: int) -> str:
        """The piece that holds ``index`` (for messages and tests)."""
        for p in self.pieces:
            if p.offset <= index < p.end:
                return p.name
        raise IndexError(f"{self.name}: index {index} is outside every piece")
