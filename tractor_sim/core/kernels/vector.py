"""N deals stepped together for a batched environment (tractor_sim.play.vector): one compiled call a step.

One seat (the learner) chooses its leads and follows a card at a time, as the
one-deal environments do (tractor_sim.play.env: actions 0..53 a card, DONE
ends a lead; a follow ends with its lead's number of cards); every other
decision, its own declarations and burial included, is its policy's, as in
kernels.deal's driver.  Each step carries out every deal's action with the
phase functions (phases.apply_carved: the engine's checks), lets the
compiled policies play up to the learner's next lead or follow, and writes
the learner's observation (its view, then the cards chosen so far) and the
mask of the actions that still complete a legal answer.

The follow mask is exact: card c is allowed when some legal follow holds the
cards chosen so far and one more c (combos.follow_ok decides, over the
multisets that keep the led suit, as tractor_sim.play.game.State._follows
enumerates them); each search stops at its first legal follow, whose cards
are all allowed at once.

Deal k of environment i is the engine's fixed-levels deal ``k * N + i`` of the run's
seed (phases.start, the starter by match.fixed_starter, as State.new starts it).
"""

from numba import njit, types
from numba.core import cgutils, config
from numba.extending import intrinsic

from . import combos as C
from .deal import FUNCS_TYPE, N_DECISIONS
from .dims import CARDS, FRIENDS, SEATS, TEAM_MODE, TEAMS, team_of
from .match import fixed_starter
from .order import TT_EFF
from .phases import ERR_NONE, apply_carved, start, to_act
from .result import D_DECL_TEAM, D_GAIN, D_GAINS, D_KEEP
from .state import (
    ARR_ANSWER, ARR_HANDS, ARR_LEAD_UNITS, NO_SEAT, PH_DONE, RESULT, S_DECISION, S_LEAD_KIND, S_LEAD_N, S_LEAD_NU,
    S_LEAD_PAIRS, S_LEAD_SUIT, S_PHASE, S_RANK, S_SUIT, carve,
)
from .unowned import borrowed, lean_jit, stack_array
from .view import BID, CALL, DECLARE, DISCARD, FOLLOW, LEAD, STRATEGY_TYPE, V_ROWS
from tractor_sim.rules.options import DECLARING_AUCTION, R_DECLARING

DONE = CARDS  # the action that ends a lead
N_ACTIONS = CARDS + 1
OBS_SIZE = V_ROWS * CARDS + CARDS  # the seat's view, then the cards chosen so far
SLOTS = CARDS + 1  # work arrays of one entry per card and a sentinel
ACT = 0  # what step does with a deal: play its action,
RESTART = 1  # start a fresh deal,
STAY = 2  # or leave it as it is
C_ADDR = 0  # the columns of a strategy's row of addresses (play/vector.function_addresses)
PY_ADDR = 1
JIT_ADDR = 2

STEP_SIG = types.int64(
    types.int64[:, ::1], types.int64[:, :, :, ::1], types.float64[:, :, ::1], types.uint64[:, :, ::1],
    types.int64[:, :, :, ::1], types.int64[::1], types.float64[:, :, ::1], types.int64[:, ::1],
    types.int64, types.uint64, types.int64[::1], types.int64[::1], types.int64,
    types.int64[::1], types.int64[::1], types.boolean, types.boolean, types.float64,
    types.int64[:, ::1], types.int8[:, ::1], types.int64[:, ::1], types.float64[::1], types.boolean[::1],
    types.boolean[::1], types.int64[:, ::1], types.int64[::1], types.int64[:, ::1])


N_FUNCS = len(FUNCS_TYPE)  # the strategies: team 0's declare .. call, then team 1's
if N_FUNCS != 12:  # functions() lists them one by one
    raise ValueError(f"kernels.vector.functions lists 12 strategies, the driver has {N_FUNCS}")


@intrinsic
def _function_at(typingctx, c_addr, py_addr, jit_addr):
    """The strategy function at these addresses (what numba's unboxing of a first-class function
    stores: tractor_sim.play.vector.function_addresses).  Handing the tuple of strategies to a
    kernel from Python costs about 0.8 ms a call in numba's typing and unboxing; the
    addresses are an int64 array, read once per step."""
    def codegen(context, builder, sig, args):
        fn = cgutils.create_struct_proxy(STRATEGY_TYPE)(context, builder)
        ptr = context.get_value_type(types.voidptr)
        fn.c_addr = builder.inttoptr(args[C_ADDR], ptr)
        fn.py_addr = builder.inttoptr(args[PY_ADDR], ptr)
        fn.jit_addr = builder.inttoptr(args[JIT_ADDR], ptr)
        return fn._getvalue()

    return STRATEGY_TYPE(types.int64, types.int64, types.int64), codegen


def _object_at(c_addr, py_addr, jit_addr):
    """_function_at without the compiler (NUMBA_DISABLE_JIT): the function object at its address."""
    import ctypes

    return ctypes.cast(int(py_addr), ctypes.py_object).value


if config.DISABLE_JIT:
    _function_at = _object_at  # noqa: F811


@njit(cache=True, inline='always')
def _at(a, k):
    return _function_at(a[k, C_ADDR], a[k, PY_ADDR], a[k, JIT_ADDR])


@njit(cache=True, inline='always')
def functions(a):
    """The tuple of strategies (kernels.deal's FUNCS_TYPE) from their addresses, a row each."""
    t1 = N_DECISIONS  # team 1's rows follow team 0's
    return (_at(a, DECLARE), _at(a, DISCARD), _at(a, LEAD), _at(a, FOLLOW), _at(a, BID), _at(a, CALL),
            _at(a, t1 + DECLARE), _at(a, t1 + DISCARD), _at(a, t1 + LEAD), _at(a, t1 + FOLLOW), _at(a, t1 + BID),
            _at(a, t1 + CALL))


@lean_jit(STEP_SIG)
def step(sts, views, scratch, rngs, tables, rules, params, addrs, seat, seed, counts, levels, decl_team, actions,
         todo, same_step, terminate, illegal_reward, chosen, masks, obs, rewards, terms, illegal, final_obs, err,
         log):
    """One step of every deal i, as ``todo[i]`` says: ACT its action ``actions[i]``, RESTART (a fresh
    deal, the action ignored) or STAY (nothing changes; its observation is written again).  An
    action the mask ``masks[i]`` forbids changes nothing: ``illegal[i]``, the reward
    ``illegal_reward``, and with ``terminate`` the episode ends.  A deal that ends sets
    ``terms[i]`` and the learner's reward; with ``same_step`` its last observation goes to
    ``final_obs[i]`` and the next deal starts at once.  Writes ``obs`` and ``masks`` for every
    deal.  ``addrs``: the policies' strategy functions (``functions``).  Returns -1, or the first
    deal whose policies gave an illegal answer (``err`` filled)."""
    fns = functions(addrs)
    n = sts.shape[0]
    for i in range(n):
        st = sts[i]
        ws = (views[i], scratch[i], rngs[i], tables)
        rewards[i] = 0.0
        terms[i] = False
        illegal[i] = False
        if todo[i] == STAY:
            _observe(st, ws, rules, seat, chosen[i], obs[i], masks[i], st[S_PHASE] != PH_DONE)
            continue
        if todo[i] == RESTART:
            code = _begin(st, ws, rules, params, fns, err, log, seat, seed, counts[i] * n + i, levels, decl_team,
                          chosen[i])
            counts[i] += 1
        else:
            a = actions[i]
            if a < 0 or a >= N_ACTIONS or masks[i, a] == 0:
                illegal[i] = True
                rewards[i] = illegal_reward
                terms[i] = terminate
                code = ERR_NONE
            else:
                code = _act(st, ws, rules, params, fns, err, log, seat, a, chosen[i])
        if code != ERR_NONE:
            return i
        if st[S_PHASE] == PH_DONE:
            terms[i] = True
            rewards[i] = reward(st, seat)
        if terms[i] and same_step:
            _observe(st, ws, rules, seat, chosen[i], final_obs[i], masks[i], False)
            code = _begin(st, ws, rules, params, fns, err, log, seat, seed, counts[i] * n + i, levels, decl_team,
                          chosen[i])
            counts[i] += 1
            if code != ERR_NONE:
                return i
            _observe(st, ws, rules, seat, chosen[i], obs[i], masks[i], True)
        else:
            _observe(st, ws, rules, seat, chosen[i], obs[i], masks[i], not terms[i])
    return -1


@lean_jit()
def _begin(st, ws, rules, params, fns, err, log, seat, seed, deal_id, levels, decl_team, chosen):
    """Start the engine's deal ``deal_id`` (as State.new does) and play it up to the learner's first
    lead or follow."""
    for c in range(CARDS):
        chosen[c] = 0
    _, _, rngs, _ = ws
    starter = fixed_starter(seed, deal_id, decl_team, rules[R_DECLARING] == DECLARING_AUCTION, rngs[SEATS])
    code = start(st, ws, rules, err, log, seed, deal_id, 0, False, levels, decl_team, starter)
    if code != ERR_NONE:
        return code
    return advance(st, ws, rules, params, fns, err, log, seat, 0)


@lean_jit()
def advance(st, ws, rules, params, fns, err, log, seat, pending):
    """Apply the learner's play standing in the answer buffer (``pending`` cards; 0: none), then ask
    the policies and apply their answers (kernels.deal's driver) until the learner ``seat`` is to
    lead or follow, or the deal is over.  Returns ERR_NONE or the error code of an illegal answer.
    (One call site of the phase functions: each site inlines them all.)"""
    views, scratch, rngs, _ = ws
    arrs = carve(st)
    answer = borrowed(arrs[ARR_ANSWER])
    s, decision = to_act(st)
    while s != NO_SEAT:
        if s == seat and (decision == LEAD or decision == FOLLOW):
            if pending == 0:
                return ERR_NONE
            ret = pending
            pending = 0
        else:
            team = team_of(s)
            ret = fns[team * N_DECISIONS + decision](borrowed(views[s]), borrowed(params[team, decision]),
                                                     borrowed(rngs[s]), borrowed(scratch[s]), answer)
        code = apply_carved(st, arrs, ws, rules, err, log, decision, ret)
        if code != ERR_NONE:
            return code
        s, decision = to_act(st)
    return ERR_NONE


@lean_jit()
def _act(st, ws, rules, params, fns, err, log, seat, a, chosen):
    """The learner's action ``a`` (allowed by its mask): a card joins the play; DONE, or a follow's
    last card, plays it (the engine's check) and the others play on."""
    decision = st[S_DECISION]
    if a != DONE:
        chosen[a] += 1
        k = 0
        for c in range(CARDS):
            k += chosen[c]
        if decision != FOLLOW or k < st[S_LEAD_N]:
            return ERR_NONE
    answer = carve(st)[ARR_ANSWER]
    k = 0
    for c in range(CARDS):
        answer[c] = chosen[c]
        k += chosen[c]
        chosen[c] = 0
    return advance(st, ws, rules, params, fns, err, log, seat, k)


@lean_jit()
def reward(st, seat):
    """The learner's reward once the deal is scored (tractor_sim.play.env.Deal.rewards): its team's
    gain minus the other's; in Finding Friends its own gain, or minus the largest gain."""
    if TEAM_MODE == FRIENDS:
        best = 0
        for s in range(SEATS):
            best = max(best, st[RESULT + D_GAINS + s])
        mine = st[RESULT + D_GAINS + seat]
        return float(mine if mine > 0 else -best)
    gain = st[RESULT + D_GAIN]
    team = st[RESULT + D_DECL_TEAM] if st[RESULT + D_KEEP] else TEAMS - 1 - st[RESULT + D_DECL_TEAM]
    return float(gain if team == team_of(seat) else -gain)


@lean_jit()
def _observe(st, ws, rules, seat, chosen, obs, mask, acting):
    """The learner's observation (its view row by row, then ``chosen``) and its mask (all zero when
    it is not acting)."""
    views, _, _, tables = ws
    view = views[seat]
    k = 0
    for r in range(V_ROWS):
        for c in range(CARDS):
            obs[k] = view[r, c]
            k += 1
    for c in range(CARDS):
        obs[k + c] = chosen[c] if acting else 0
    for j in range(N_ACTIONS):
        mask[j] = 0
    if not acting:
        return
    arrs = carve(st)
    hand = arrs[ARR_HANDS][seat]
    tt = tables[st[S_RANK], st[S_SUIT]]
    if st[S_DECISION] == LEAD:
        lead_mask(hand, chosen, tt, mask)
    else:
        follow_mask(hand, chosen, tt, st[S_LEAD_SUIT], st[S_LEAD_N], st[S_LEAD_PAIRS], st[S_LEAD_KIND],
                    arrs[ARR_LEAD_UNITS], st[S_LEAD_NU], rules, mask)


@lean_jit()
def observe_seat(st, ws, rules, seat, chosen, obs, mask):
    """The observation and mask of ``seat`` to act in one deal (for tests: the masks step writes)."""
    _observe(st, ws, rules, seat, chosen, obs, mask, True)


@lean_jit()
def lead_mask(hand, chosen, tt, mask):
    """Cards of the hand not yet chosen, of the chosen cards' effective suit; DONE once one is chosen."""
    suit = -1
    for c in range(CARDS):
        if chosen[c] > 0:
            suit = tt[TT_EFF, c]
            break
    for c in range(CARDS):
        mask[c] = 1 if hand[c] > chosen[c] and (suit < 0 or tt[TT_EFF, c] == suit) else 0
    mask[DONE] = 1 if suit >= 0 else 0


@lean_jit()
def follow_mask(hand, chosen, tt, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, rules, mask):
    """Each card c of the hand for which a legal follow holds ``chosen`` and one more c.  A legal
    follow plays as many cards of the led suit as the hand can give: only the led suit's cards when
    it holds ``lead_n`` of them, else all of them and the rest from the other suits (the multisets
    State._follows tries)."""
    held = 0
    for c in range(CARDS):
        if tt[TT_EFF, c] == lead_suit:
            held += hand[c]
    base = stack_array(CARDS)  # cards every follow plays
    cap = stack_array(CARDS)  # the most of each card a follow may play
    for c in range(CARDS):
        in_suit = tt[TT_EFF, c] == lead_suit
        base[c] = hand[c] if in_suit and held < lead_n else 0
        cap[c] = hand[c] if in_suit or held < lead_n else 0
    need = stack_array(CARDS)  # the least of each card: the chosen ones, the base, and the card tried
    play = stack_array(CARDS)
    least = 0
    for c in range(CARDS):
        mask[c] = 0
        need[c] = max(chosen[c], base[c])
        least += need[c]
    for c in range(CARDS):
        if mask[c] or chosen[c] >= cap[c]:
            continue
        was = need[c]
        need[c] = max(chosen[c] + 1, base[c])
        n = least - was + need[c]
        if n == lead_n:  # one play holds them all: it is the only candidate (a single's follow, a last card)
            if C.follow_ok(hand, need, lead_n, lead_suit, lead_n, lead_pairs, lead_kind, lead_units, lead_nu, tt,
                           rules):
                for d in range(CARDS):
                    if need[d] > chosen[d]:
                        mask[d] = 1
        elif n < lead_n and _complete(hand, need, cap, lead_n, play, tt, lead_suit, lead_pairs, lead_kind,
                                      lead_units, lead_nu, rules):
            for d in range(CARDS):
                if play[d] > chosen[d]:
                    mask[d] = 1
        need[c] = was
    mask[DONE] = 0


@lean_jit()
def _complete(hand, need, cap, total, play, tt, lead_suit, lead_pairs, lead_kind, lead_units, lead_nu, rules):
    """Whether some play of ``total`` cards with need <= play <= cap is a legal follow (the first
    found is left in ``play``): depth first over the cards with room, the most copies first."""
    rest = total
    for d in range(CARDS):
        rest -= need[d]
    if rest < 0:
        return False
    pool = stack_array(CARDS)
    room = stack_array(SLOTS)  # room[j]: copies pool[j] may add; then suffix sums in above
    npool = 0
    for d in range(CARDS):
        if cap[d] > need[d]:
            pool[npool] = d
            room[npool] = cap[d] - need[d]
            npool += 1
    above = stack_array(SLOTS)  # above[j]: the copies pool[j:] can add together
    above[npool] = 0
    for j in range(npool - 1, -1, -1):
        above[j] = above[j + 1] + room[j]
    if rest > above[0]:
        return False
    if npool == 0:
        for d in range(CARDS):
            play[d] = need[d]
        return C.follow_ok(hand, play, total, lead_suit, total, lead_pairs, lead_kind, lead_units, lead_nu, tt, rules)
    take = stack_array(SLOTS)  # take[j]: the copies of pool[j] tried now
    left = stack_array(SLOTS)  # left[j]: copies still to place from pool[j] on
    j = 0
    left[0] = rest
    take[0] = min(room[0], rest) + 1
    while j >= 0:
        take[j] -= 1
        if take[j] < max(0, left[j] - above[j + 1]):  # the rest cannot hold what is left: back up
            j -= 1
            continue
        r = left[j] - take[j]
        if r > 0:  # (never at the last card: above[npool] is 0)
            j += 1
            left[j] = r
            take[j] = min(room[j], r) + 1
            continue
        for d in range(CARDS):
            play[d] = need[d]
        for q in range(j + 1):
            play[pool[q]] += take[q]
        if C.follow_ok(hand, play, total, lead_suit, total, lead_pairs, lead_kind, lead_units, lead_nu, tt, rules):
            return True
    return False
