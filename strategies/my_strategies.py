"""My strategies: follow high when the trick is rich, declare with a long suit."""

from tractor_sim.core import lib as sl
from tractor_sim.core.kernels.dims import partner_of
from tractor_sim.core.kernels.view import M_SEAT, V_META
from tractor_sim.core.registry import slots
from tractor_sim.play.registry import policy, strategy

GRAB_POINTS_PARAMS = {"min_points": 15.0}
GRAB_POINTS = slots(GRAB_POINTS_PARAMS)  # params[GRAB_POINTS.min_points], by name


@strategy("follow", "grab_points", params=GRAB_POINTS_PARAMS,
          description="Try to win tricks holding at least min_points, else play cheap.")
def grab_points(view, params, rng, scratch, out):
    held, need = sl.follow_need(view)
    seat, key = sl.current_best(view)
    partner = partner_of(view[V_META, M_SEAT])
    if seat != partner and sl.trick_points(view) >= params[GRAB_POINTS.min_points]:
        n = sl.winning_follow_given(view, out, key, False, held)
        if n > 0:
            return n
        out[:] = 0
    return sl.cheapest_follow_given(view, out, False, held, need)


policy("grabber", declare="threshold", discard="lowest", lead="top_cards", follow="grab_points",
       params={"follow.min_points": 20}, description="basic, but fights for rich tricks")
