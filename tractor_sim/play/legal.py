"""Enumerating answers for the step API: declarations a hand can show, multisets of cards.

Plain Python over count vectors; which of them the rules allow is the
kernels' check (tractor_sim.play.game asks it), never decided here.
"""

from __future__ import annotations

from tractor_sim.rules.cards import BJ


def declaration_options(hand, decks: int):
    """Every declaration the hand can show, as card-id lists: n identical cards of one kind, n from
    1 (2 for jokers) to the copies held, at most one per deck (docs/decisions.md 9.8)."""
    for c in range(len(hand)):
        for n in range(1 if c < BJ else 2, min(int(hand[c]), decks) + 1):
            yield [c] * n


def sub_multisets(counts, n):
    """Every multiset of n cards within ``counts``, as sorted card-id lists, in lexicographic order."""
    cards = [c for c in range(len(counts)) if counts[c] > 0]

    def rec(i, left):
        if left == 0:
            yield []
            return
        if i == len(cards):
            return
        c = cards[i]
        for k in range(min(int(counts[c]), left), -1, -1):
            for rest in rec(i + 1, left - k):
                yield [c] * k + rest

    yield from rec(0, n)
