"""Card ids and the string notation of docs/rules.md.

A *distinct card* is an int 0..53: ``suit * 13 + rank`` for the 52 suited
cards (suits S H D C = 0..3, ranks 2..A = 0..12), then 52 = BJ (black, small
joker) and 53 = RJ (red, big joker).  Two decks hold every distinct card
twice, so a hand is a vector of 54 counts: a pair is a count of 2.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

SUITS = "SHDC"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
N_DISTINCT = 54
BJ = 52
RJ = 53
NO_SUIT = 4  # effective suit of trumps, and "no trump suit" in a trump spec
POINTS = np.zeros(N_DISTINCT, dtype=np.int64)
for _s in range(4):
    POINTS[_s * 13 + 3] = 5  # fives
    POINTS[_s * 13 + 8] = 10  # tens
    POINTS[_s * 13 + 11] = 10  # kings


class CardError(ValueError):
    """A card token, rank or suit that does not parse; the message names it."""


def card_id(suit: int, rank: int) -> int:
    return suit * 13 + rank


def suit_of(card: int) -> int:
    """Printed suit 0..3, or NO_SUIT for a joker."""
    return NO_SUIT if card >= BJ else card // 13


def rank_of(card: int) -> int:
    """Rank index 0..12 (2..A), or -1 for a joker."""
    return -1 if card >= BJ else card % 13


def parse_rank(token: str) -> int:
    t = str(token).strip().upper()
    if t == "T":
        t = "10"
    if t not in RANKS:
        raise CardError(f"bad rank {token!r}: expected one of {' '.join(RANKS)} (or T)")
    return RANKS.index(t)


def parse_suit(token: str | None) -> int:
    """A suit letter, or None / '' / 'none' / 'NT' for no trump suit."""
    if token is None:
        return NO_SUIT
    t = str(token).strip().upper()
    if t in ("", "NONE", "NT", "NULL"):
        return NO_SUIT
    if len(t) != 1 or t not in SUITS:
        raise CardError(f"bad suit {token!r}: expected one of S H D C, or none")
    return SUITS.index(t)


def parse_card(token: str) -> int:
    """'AS', '10h', 'TH', 'bj', 'RJ' -> distinct card id."""
    if not isinstance(token, str):
        raise CardError(f"bad card {token!r}: expected a string such as 'AS', '10H', 'BJ'")
    t = token.strip().upper()
    if t == "BJ":
        return BJ
    if t == "RJ":
        return RJ
    if len(t) < 2 or t[-1] not in SUITS:
        raise CardError(f"bad card {token!r}: expected rank+suit such as 'AS', '10H', or BJ/RJ")
    try:
        rank = parse_rank(t[:-1])
    except CardError:
        raise CardError(f"bad card {token!r}: unknown rank {t[:-1]!r}") from None
    return card_id(SUITS.index(t[-1]), rank)


def parse_cards(cards: str | Iterable[str]) -> list[int]:
    """A space/comma separated string or a list of tokens -> list of ids."""
    if isinstance(cards, str):
        tokens = cards.replace(",", " ").split()
    else:
        tokens = list(cards)
    return [parse_card(t) for t in tokens]


def card_str(card: int) -> str:
    if card == BJ:
        return "BJ"
    if card == RJ:
        return "RJ"
    if not 0 <= card < BJ:
        raise CardError(f"bad card id {card!r}: expected 0..53")
    return RANKS[card % 13] + SUITS[card // 13]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(int(c)) for c in cards)


def to_counts(cards: Iterable[int], copies: int = 2) -> np.ndarray:
    """List of ids -> count vector; more than ``copies`` of a card is an error."""
    counts = np.zeros(N_DISTINCT, dtype=np.int64)
    for c in cards:
        counts[c] += 1
        if counts[c] > copies:
            raise CardError(f"card {card_str(c)} appears more than {copies} times")
    return counts


def from_counts(counts: np.ndarray) -> list[int]:
    """Count vector -> sorted list of ids (each repeated by its count)."""
    return np.repeat(np.arange(N_DISTINCT), np.maximum(np.asarray(counts[:N_DISTINCT], dtype=np.int64), 0)).tolist()


def points(cards: Iterable[int]) -> int:
    return int(sum(POINTS[c] for c in cards))


def full_deck(decks: int = 2) -> np.ndarray:
    """The physical deck as ids, each distinct card ``decks`` times, in id order."""
    return np.repeat(np.arange(N_DISTINCT, dtype=np.int64), decks)
