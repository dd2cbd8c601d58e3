"""The columns of a game's deal records (docs/records.md): which kernel row column each one reads.

The kernels write a deal as a row of int64s whose layout moves with the game
size (the tricks per seat, Finding Friends' calls); these tables name those
columns once, for ``Game.columns``.
"""

from __future__ import annotations


def deal_columns(M, D, seats: int) -> dict:
    """name -> (dtype, column of the chunk's deal rows) for kernels ``M`` (match) and ``D`` (deal)
    compiled for ``seats`` players (tractor_sim.rules.sizes: the columns after the tricks move with it)."""
    return {
        "deal_id": ("int64", M.X_DEAL_ID),
        "match_id": ("int64", M.X_MATCH_ID),
        "deal_in_match": ("int32", M.X_DEAL_IN_MATCH),
        "starter": ("int8", M.X_D + D.D_STARTER),
        "declaring_team": ("int8", M.X_D + D.D_DECL_TEAM),
        "trump_rank": ("int8", M.X_D + D.D_TRUMP_RANK),
        "trump_suit": ("int8", M.X_D + D.D_TRUMP_SUIT),
        "trump_source": ("int8", M.X_D + D.D_TRUMP_SOURCE),
        "redeals": ("int16", M.X_D + D.D_REDEALS),
        "kitty_points": ("int16", M.X_D + D.D_KITTY_POINTS),
        "trick_points": ("int16", M.X_D + D.D_TRICK_POINTS),
        "kitty_bonus": ("int16", M.X_D + D.D_KITTY_BONUS),
        "throw_penalty": ("int16", M.X_D + D.D_THROW_PENALTY),
        "failed_throws": ("int8", M.X_D + D.D_FAILED_THROWS),
        "last_winner": ("int8", M.X_D + D.D_LAST_WINNER),
        "opp_points": ("int16", M.X_D + D.D_OPP_POINTS),
        "row": ("int8", M.X_D + D.D_ROW),
        "level0_before": ("int8", M.X_LEVEL0_BEFORE),
        "level1_before": ("int8", M.X_LEVEL1_BEFORE),
        "level0_after": ("int8", M.X_LEVEL0_AFTER),
        "level1_after": ("int8", M.X_LEVEL1_AFTER),
        "gain_team": ("int8", M.X_GAIN_TEAM),
        "gain": ("int8", M.X_D + D.D_GAIN),
        **{f"tricks{s}": ("int8", M.X_D + D.D_TRICKS + s) for s in range(seats)},
        "dealer": ("int8", M.X_D + D.D_DEALER),
        "bid0": ("int16", M.X_D + D.D_BID0),
        "bid1": ("int16", M.X_D + D.D_BID0 + 1),
    }


def friends_columns(M, D, seats: int, calls: int) -> dict:
    """The deal columns of a Finding Friends game (docs/records.md, decisions.md 9.11): those of a tractor
    game without the team levels and the bids, a level per player before and after, the landlord's
    team at the end (``team``, a bit mask, with ``in_team{s}`` and the trick each player joined in),
    the calls and who played each called copy when, and the next landlord."""
    cols = {k: v for k, v in deal_columns(M, D, seats).items()
            if not k.startswith(("level0_", "level1_", "bid")) and k != "gain_team"}
    cols["landlord_won"] = ("int8", M.X_D + D.D_KEEP)
    cols["next_starter"] = ("int8", M.X_D + D.D_NEXT_STARTER)
    cols["team"] = ("int16", M.X_D + D.D_TEAM)
    cols["gainers"] = ("int16", M.X_GAIN_TEAM)
    for s in range(seats):
        cols[f"level{s}_before"] = ("int8", M.X_LEVEL0_BEFORE + s)
        cols[f"level{s}_after"] = ("int8", M.X_LEVEL0_AFTER + s)
    for s in range(seats):
        cols[f"in_team{s}"] = ("int8", M.X_D + D.D_IN_TEAM + s)
    for s in range(seats):
        cols[f"joined{s}"] = ("int8", M.X_D + D.D_JOINED + s)
    for j in range(calls):
        cols[f"call{j}_card"] = ("int8", M.X_D + D.D_CALL_CARD + j)
        cols[f"call{j}_copy"] = ("int8", M.X_D + D.D_CALL_COPY + j)
        cols[f"call{j}_by"] = ("int8", M.X_D + D.D_CALL_BY + j)
        cols[f"call{j}_trick"] = ("int8", M.X_D + D.D_CALL_WHEN + j)
        cols[f"call{j}_joins"] = ("int8", M.X_D + D.D_CALL_JOINS + j)
    return cols


def of(game) -> dict:
    """The deal columns of a Game."""
    kernels = game.kernels
    if game.friends:
        return friends_columns(kernels.match, kernels.deal, game.players, kernels.dims.CALLS)
    return deal_columns(kernels.match, kernels.deal, game.players)
