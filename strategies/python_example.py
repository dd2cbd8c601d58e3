"""A Python policy: a plain function, asked at each decision of its seats.

    tractor-sim compare python_example expert --module strategies/python_example.py --sprt 0,0.05

``decision`` holds the seat, the decision, the seat's view as named fields (``decision.view.hand``,
``.trick``, ``.trump_suit``, ``.points``, ...: docs/bots.md lists them), ``legal()`` and
``is_legal()``, the policy's ``params`` and a random stream ``rng``.  It answers in the step API's
form: a list of cards such as ``["KH", "KH"]``.  Here the follows are written in Python and the
other decisions handed to the compiled ``expert`` policy with ``decision.ask``.
"""

from tractor_sim.play.registry import python_policy

POINTS = {"5": 5, "10": 10, "K": 10}


def points(cards):
    return sum(POINTS.get(c[:-1], 0) for c in cards)


@python_policy("python_example", params={"give": 1.0},
               description="follows in Python: give points to a winning partner, else play cheap; expert elsewhere")
def python_example(decision):
    if decision.decision != "follow":
        return decision.ask("expert")
    view = decision.view
    options = decision.legal(limit=500)
    partner_wins = view.winning % 2 == decision.seat % 2
    sign = decision.params["give"] if partner_wins else -1.0
    # most points to a winning partner, fewest otherwise; among equals the lowest cards (legal()'s order)
    return max(options, key=lambda cards: sign * points(cards))
