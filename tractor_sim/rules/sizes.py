"""Game sizes (docs/rules.md section 9): players, decks and team mode, checked.

Every size of section 9 is played: 2, 3 and 4 decks (with 3 and 4 the
tuples of decisions.md 9.2-9.7), 4, 6 or 8 players in tractor teams, 4 to 8
in Finding Friends (``PLAYABLE``).  Each is compiled as a copy of the
compiled package with its own constants (tractor_sim.play.packages).
"""

from __future__ import annotations

from dataclasses import dataclass

from tractor_sim.rules.fields import Choice, Table, Whole

TEAM_MODES = ("tractor", "friends")
PLAYERS = range(4, 9)
DECKS = range(2, 5)
CARDS_PER_DECK = 54


class GameSizeError(ValueError):
    """A game size the rule book or this simulator does not play; the message says which field and why."""


@dataclass(frozen=True)
class GameSize:
    """How many play, with how many decks, in which team mode (docs/rules.md section 9)."""

    players: int = 4
    decks: int = 2
    teams: str = "tractor"

    @classmethod
    def of(cls, table=None, where: str = "game") -> GameSize:
        """A size from a table ``{players, decks, teams}`` (decks default to players // 2), or
        ``{table = "six_three_tractor"}`` (a name of TABLES, whose fields the others may not repeat), checked."""
        given = SIZE.check({} if table is None else table, f"{where}: ", GameSizeError)
        if "table" in given:
            if len(given) > 1:
                raise GameSizeError(f"{where}: table = {given['table']!r} says the size; "
                                    f"drop {', '.join(sorted(set(given) - {'table'}))} or the table")
            given = TABLES[given["table"]]
        players = given.get("players", 4)
        decks = given.get("decks", max(2, players // 2))
        teams = given.get("teams", "tractor")
        if teams == "tractor" and players % 2:
            raise GameSizeError(f"{where}: teams = \"tractor\" needs an even number of players (two teams "
                                f"sitting alternately, docs/decisions.md 9.10); {players} players play \"friends\"")
        return cls(players, decks, teams)

    @property
    def kitty(self) -> int:
        """docs/decisions.md 9.1: 54 D mod N; 0 -> N; then below 5 -> + N."""
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
# A game size's fields, each declared once (tractor_sim.rules.fields).
SIZE = Table("a game size (a table of players, decks, teams, or table)", (
    Whole("players", PLAYERS.start, PLAYERS.stop - 1, "players at the table",
          f"docs/rules.md section 9 plays {PLAYERS.start} to {PLAYERS.stop - 1} players"),
    Whole("decks", DECKS.start, DECKS.stop - 1, "decks shuffled together (default: players // 2, at least 2)",
          f"docs/rules.md section 9 plays {DECKS.start} to {DECKS.stop - 1} decks"),
    Choice("teams", TEAM_MODES, "tractor: two fixed teams sitting alternately; friends: Finding Friends"),
    Choice("table", tuple(TABLES), "a common table by name, which says players, decks and teams"),
))
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
