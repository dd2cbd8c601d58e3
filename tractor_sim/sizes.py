"""Game sizes (RULES.md section 9): players, decks, team mode, and the compiled kernels of each.

The kernels count with the names of ``kernels.size`` (seats, decks, kitty,
hand), which numba reads as compile-time constants.  The 4-player 2-deck
game is the package itself, compiled exactly as before (its speed and pinned
digests do not move).  Every other size is the same source with other
constants: ``kernels_for`` writes a copy of the kernels, ``strategy_lib``
and the built-in strategies into a package of its own
(``tractor_sim_sized_p6d2`` and so on, under the user's cache directory,
named by a hash of the sources, so an edit or a numba upgrade never loads a
stale compile) and imports it.  One source of the rules, each size compiled
and cached once, no run-time size checks on the 4/2 path.

The team mode is a constant of the package too (``kernels.size.TEAM_MODE``:
``tractor_sim_sized_p5d2f`` plays Finding Friends), so a tractor game holds
no branch of Finding Friends.  Every size of section 9 is played: 2, 3 and
4 decks (with 3 and 4 the tuples of decisions.md 9.2-9.7), 4, 6 or 8
players in tractor teams, 4 to 8 in Finding Friends (``PLAYABLE``).
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numba

PACKAGE_DIR = Path(__file__).resolve().parent
SIZED_PREFIX = "tractor_sim_sized_"  # generated packages (kernels.unowned treats them as this package)
TEAM_MODES = ("tractor", "friends")
PLAYERS = range(4, 9)
DECKS = range(2, 5)
CARDS_PER_DECK = 54


class GameSizeError(ValueError):
    """A game size the rule book or this simulator does not play; the message says which field and why."""


@dataclass(frozen=True)
class GameSize:
    """How many play, with how many decks, in which team mode (RULES.md section 9)."""

    players: int = 4
    decks: int = 2
    teams: str = "tractor"

    @classmethod
    def of(cls, table=None, where: str = "game") -> GameSize:
        """A size from a table ``{players, decks, teams}`` (decks default to players // 2), or
        ``{table = "six_three_tractor"}`` (a name of TABLES, whose fields the others may not repeat), checked."""
        table = dict(table or {})
        unknown = sorted(set(table) - {"players", "decks", "teams", "table"})
        if unknown:
            raise GameSizeError(f"{where}: unknown field {unknown[0]!r}; expected players, decks, teams or table")
        if "table" in table:
            name = table.pop("table")
            if name not in TABLES:
                close = difflib.get_close_matches(str(name), TABLES, n=1)
                raise GameSizeError(f"{where}.table: unknown table {name!r}"
                                    f"{f' (did you mean {close[0]!r}?)' if close else ''}; "
                                    f"expected one of {', '.join(TABLES)}")
            if table:
                raise GameSizeError(f"{where}: table = {name!r} says the size; "
                                    f"drop {', '.join(sorted(table))} or the table")
            table = TABLES[name]
        players = table.get("players", 4)
        if isinstance(players, bool) or not isinstance(players, int) or players not in PLAYERS:
            raise GameSizeError(f"{where}.players: expected a whole number from 4 to 8, got {players!r}")
        decks = table.get("decks", max(2, players // 2))
        if isinstance(decks, bool) or not isinstance(decks, int) or decks not in DECKS:
            raise GameSizeError(f"{where}.decks: expected a whole number from 2 to 4, got {decks!r}")
        teams = table.get("teams", "tractor")
        if teams not in TEAM_MODES:
            raise GameSizeError(f"{where}.teams: expected one of {', '.join(TEAM_MODES)}, got {teams!r}")
        if teams == "tractor" and players % 2:
            raise GameSizeError(f"{where}: teams = \"tractor\" needs an even number of players (two teams "
                                f"sitting alternately, RULES.md 9.10); {players} players play \"friends\"")
        return cls(players, decks, teams)

    @property
    def kitty(self) -> int:
        """RULES.md 9.1: 54 D mod N; 0 -> N; then below 5 -> + N."""
        k = CARDS_PER_DECK * self.decks % self.players
        k = k or self.players
        return k + self.players if k < 5 else k

    @property
    def hand(self) -> int:
        return (CARDS_PER_DECK * self.decks - self.kitty) // self.players

    @property
    def standard(self) -> bool:
        """The 4-player 2-deck game of sections 1-7: the package's own kernels."""
        return (self.players, self.decks, self.teams) == (4, 2, "tractor")

    @property
    def label(self) -> str:
        return f"{self.players}/{self.decks} {self.teams}"

    def to_dict(self) -> dict:
        return {"players": self.players, "decks": self.decks, "teams": self.teams}


def check_rules(size: GameSize, rules) -> None:
    """Refuse rules a game size cannot play: the auction (section 8) is bid by two pairs, so Finding
    Friends, whose sides are found during play, has none."""
    declaring = rules.get("declaring") if isinstance(rules, dict) else getattr(rules, "declaring", None)
    if size.teams == "friends" and declaring == "auction":
        raise GameSizeError('teams = "friends" plays without the auction (declaring = "auction" is bid by two '
                            'fixed pairs; in Finding Friends the sides are found during play): use declaring = "draw"')


STANDARD = GameSize()
# the common tables, by name (``[game] table = ".."``): what players of larger tables ask for most
TABLES = {
    "four_two_tractor": {"players": 4, "decks": 2, "teams": "tractor"},
    "six_two_tractor": {"players": 6, "decks": 2, "teams": "tractor"},
    "six_three_tractor": {"players": 6, "decks": 3, "teams": "tractor"},
    "eight_four_tractor": {"players": 8, "decks": 4, "teams": "tractor"},
    "five_two_friends": {"players": 5, "decks": 2, "teams": "friends"},
    "six_three_friends": {"players": 6, "decks": 3, "teams": "friends"},
    "eight_four_friends": {"players": 8, "decks": 4, "teams": "friends"},
}
PLAYABLE = tuple(GameSize(n, d) for n in (4, 6, 8) for d in DECKS) + tuple(
    GameSize(n, d, "friends") for n in PLAYERS for d in DECKS)


def as_size(size) -> GameSize:
    if isinstance(size, GameSize):
        return size
    if size is None:
        return STANDARD
    if isinstance(size, (tuple, list)):
        return GameSize.of(dict(zip(("players", "decks", "teams"), size)))
    return GameSize.of(size)


# ---------------------------------------------------------------------------
# the generated packages

_SOURCES = ("kernels/*.py", "strategy_lib.py", "strategies/*.py")
_REGISTRY = '''"""The sized copy's strategy registry: the strategies compiled for this game size.

The main registry (tractor_sim.strategy) keeps the names, parameters and
policies; a sized run looks each strategy up here by decision and name (the
built-ins, and the copies of plug-ins that kernels_for's plugin_copy wrote).
"""

from tractor_sim.strategy import compile_sized

STRATEGIES = {}


def strategy(decision, name, params=None, description="", lean=None, boundscheck=None):
    def register(fn):
        STRATEGIES[(decision, name)] = compile_sized(fn, boundscheck)
        return STRATEGIES[(decision, name)]
    return register


def policy(*args, **kwargs):
    """Policies are the main registry's: nothing to do here."""
'''


def _source_files() -> list[Path]:
    return sorted(p for pattern in _SOURCES for p in PACKAGE_DIR.glob(pattern))


def _rewrite(text: str, package: str) -> str:
    """The source with this package's imports of the copied modules pointed at the copy."""
    text = text.replace("from tractor_sim.strategy import", f"from {package}.registry import")
    text = re.sub(r"\btractor_sim\.(kernels|strategy_lib|strategies)\b", rf"{package}.\1", text)
    return text.replace("from tractor_sim import strategy_lib", f"from {package} import strategy_lib")


def _sized_constants(text: str, size: GameSize) -> str:
    """kernels/size.py with this size's seats, decks, kitty and team mode (the hand, the tricks, the
    calls and the levels follow)."""
    mode = "FRIENDS" if size.teams == "friends" else "TRACTOR"
    for name, value in (("SEATS", size.players), ("DECKS", size.decks), ("KITTY", size.kitty),
                        ("TEAM_MODE", mode)):
        text, n = re.subn(rf"^{name} = \w+", f"{name} = {value}", text, count=1, flags=re.M)
        if n != 1:
            raise RuntimeError(f"kernels/size.py: no line '{name} = <number>' to set for {size.label}")
    return text


def _digest() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for src in _source_files() + [PACKAGE_DIR / "rules.py", Path(__file__).resolve()]:
        digest.update(str(src.relative_to(PACKAGE_DIR)).encode())
        digest.update(src.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """Where the generated packages live: $TRACTOR_SIM_CACHE, else the user's cache directory."""
    base = os.environ.get("TRACTOR_SIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "tractor-sim")
    return Path(base) / "sized"


def package_name(size: GameSize) -> str:
    """tractor_sim_sized_p6d2 (tractor teams), tractor_sim_sized_p5d2f (Finding Friends)."""
    return f"{SIZED_PREFIX}p{size.players}d{size.decks}{'f' if size.teams == 'friends' else ''}"


def _write_package(root: Path, package: str, size: GameSize) -> None:
    """Write the copy into root/package atomically (a rename: concurrent workers may race)."""
    final = root / package
    if (final / "__init__.py").exists():
        return
    tmp = root / f".{package}.{os.getpid()}"
    for src in _source_files():
        rel = src.relative_to(PACKAGE_DIR)
        text = _rewrite(src.read_text(), package)
        if rel.as_posix() == "kernels/size.py":
            text = _sized_constants(text, size)
        if rel.as_posix() == "kernels/__init__.py":  # no cache stamp (the directory is named by the
            text = '"""The kernels, compiled for one game size (tractor_sim.sizes)."""\n'  # sources' hash)
        out = tmp / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
    (tmp / "registry.py").write_text(_REGISTRY)
    (tmp / "__init__.py").write_text(f'"""tractor_sim\'s kernels and built-in strategies for {size.label}."""\n')
    try:
        os.rename(tmp, final)
    except OSError:  # another process wrote it first
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)


_LOADED: dict[GameSize, object] = {}


def kernels_for(size) -> object:
    """The package of kernels and built-in strategies compiled for ``size`` (generated once).

    Its modules are those of ``tractor_sim``: ``.kernels.match``, ``.kernels.deal``, ...,
    ``.registry.STRATEGIES`` the built-in strategies by (decision, name).
    """
    key = as_size(size)  # the team mode is compiled in too (kernels.size.TEAM_MODE)
    if key not in _LOADED:
        import tractor_sim.kernels  # noqa: F401  (numba's compile patched first: kernels.unowned)

        root = cache_root() / _digest()
        root.mkdir(parents=True, exist_ok=True)
        package = package_name(key)
        _write_package(root, package, key)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        module = importlib.import_module(package)
        importlib.import_module(f"{package}.kernels.match")
        importlib.import_module(f"{package}.kernels.deal")
        importlib.import_module(f"{package}.strategies")
        _LOADED[key] = module
    return _LOADED[key]


def plugin_copy(package, source: str, module: str):
    """A user's strategy module compiled for the game size of ``package``: its source, with the
    imports of this package pointed at the sized copy (as the built-ins are), written beside the
    copy and imported, so that its strategies register in the copy's registry.  ``source`` is the
    module's file (None: defined without a file, which cannot be copied)."""
    if not source or not os.path.isfile(source):
        return None
    text = Path(source).read_text()
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    name = f"plugin_{re.sub(r'[^A-Za-z0-9_]', '_', module)}_{digest}"
    target = Path(package.__file__).parent / f"{name}.py"
    if not target.exists():
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(_rewrite(text, package.__name__))
        os.replace(tmp, target)
    return importlib.import_module(f"{package.__name__}.{name}")
