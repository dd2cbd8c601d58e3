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


@python_policy("python_example", params={"min_points": 5.0},
               description="follows in Python: feed a winning partner's rich tricks, else play cheap; expert elsewhere")
def python_example(decision):
    if decision.decision != "follow":
        return decision.ask("expert")
    view = decision.view
    options = decision.legal(limit=500)
    feed = view.winning % 2 == decision.seat % 2 and view.trick_points >= decision.params["min_points"]
    # the most points into a partner's rich trick, else the fewest; among equals the first (legal()'s order)
    return max(options, key=lambda cards: points(cards) if feed else -points(cards))
