#!/usr/bin/env python3
"""A reference bot for tractor-sim's bot protocol (docs/bots.md, version 1), in plain Python with no
imports from tractor-sim: copy it and change ``choose``.  bot.js is the same bot in JavaScript (the
two give identical games).  It reads one JSON object per line on stdin and answers on stdout."""

import json
import sys

POINTS = {"5": 5, "10": 10, "K": 10}
RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def rank(card):
    return card[:-1] if card not in ("BJ", "RJ") else card


def points(cards):
    return sum(POINTS.get(rank(c), 0) for c in cards)


def strength(cards):
    """Jokers high, then by rank (a plain heuristic: the engine knows the real order)."""
    return sum(20 if c == "RJ" else 19 if c == "BJ" else RANK_ORDER.index(rank(c)) for c in cards)


def choose(msg):
    """The answer to one decision: always one of the legal answers listed (the first 64 are listed)."""
    legal, view = msg["legal"], msg["view"]
    if msg["decision"] == "declare":  # declare whenever a declaration is legal
        shown = [a for a in legal if a]
        return shown[0] if shown else None
    if msg["decision"] == "lead":  # the strongest single card that is not a trump, else the first answer
        suit_of = {c: s for s, cards in view["hand_by_suit"].items() for c in cards}
        singles = [a for a in legal if len(a) == 1 and suit_of.get(a[0]) != "T"]
        return max(singles, key=strength) if singles else legal[0]
    if msg["decision"] == "follow":  # partner winning: give points; else the cheapest
        partner = view["trick"] and view["winning"] % 2 == msg["seat"] % 2
        if partner:
            return max(legal, key=lambda a: (points(a), -strength(a)))
        return min(legal, key=lambda a: (points(a), strength(a)))
    return legal[0]  # discard, bid, call: the first legal answer


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            reply = {"type": "hello", "version": 1, "name": "reference bot (Python)"}
        elif msg["type"] == "decide":
            reply = {"type": "answer", "id": msg["id"], "answer": choose(msg)}
        else:  # bye
            break
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
