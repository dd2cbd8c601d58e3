"""A batched Gymnasium environment: N deals of one learning seat, stepped by one compiled call (kernels.vector).

The learning seat chooses its leads and follows a card at a time, with the
actions, observation and rewards of the one-seat environment
(tractor_sim.play.env.TractorEnv: ``Discrete(55)``, the view then the cards
chosen so far, a mask of the actions that still complete a legal answer);
its declarations and burial, and every decision of the other seats, are
played by the compiled policy ``others`` (one name, or (partners,
opponents)), as the engine plays them.  Deal k of environment i is the
engine's fixed-levels deal ``k * num_envs + i`` of the seed given to
``reset``: replayed through the step API (State) with the same actions it
gives the same observations and result (tests/test_vector_env.py).
Docs: docs/environments.md, "Batched".
"""

from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"tractor_sim.play.vector needs the optional extra 'rl' (pip install 'tractor-sim[rl]'): "
                      f"{e}") from None

from tractor_sim.play.env import N_ACTIONS, observation_space
from tractor_sim.play.errors import SimulationError
from tractor_sim.play.game import DECISION_NAMES, as_game, _level

MODES = {m.value: m for m in AutoresetMode}


class TractorVectorEnv(VectorEnv):
    """``num_envs`` deals of seat ``seat`` against the compiled policy ``others``.

    Autoreset follows Gymnasium 1.x (``metadata["autoreset_mode"]``): ``"NextStep"`` (the default:
    the step after an episode ends starts the next deal, its action ignored), ``"SameStep"`` (the
    next deal starts in the step that ends one; its last observation is ``info["final_obs"]``) or
    ``"Disabled"`` (``reset(options={"reset_mask": m})`` restarts the ended ones).  An action the
    mask forbids changes nothing: reward ``illegal_reward`` and ``info["illegal"]`` True for that
    deal; with ``illegal="terminate"`` its episode ends there (TractorEnv's convention).
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, others="basic", seat: int = 0, seed: int | None = None, rules=None,
                 levels=None, declaring_team: int = 0, illegal: str = "reject", illegal_reward: float = 0.0,
                 autoreset_mode="NextStep", game=None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        self.game = game = as_game(game, rules)
        if seat not in range(game.players):
            raise ValueError(f"seat must be 0..{game.players - 1}, got {seat!r}")
        if illegal not in ("reject", "terminate"):
            raise ValueError(f"illegal: 'reject' (nothing changes) or 'terminate' (the episode ends), got {illegal!r}")
        mode = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        if mode not in MODES:
            raise ValueError(f"autoreset_mode: one of {', '.join(MODES)}, got {autoreset_mode!r}")
        if declaring_team not in (0, 1):
            raise ValueError(f"declaring_team must be 0 or 1, got {declaring_team!r}")
        holders = game.level_holders
        lv = [0] * holders if levels is None else list(levels)
        if game.friends and len(lv) == 1:
            lv = lv * holders
        self._levels = np.array([_level(x) for x in lv], dtype=np.int64)
        if self._levels.shape != (holders,):
            raise ValueError(f"levels: one per {'player' if game.friends else 'team'} ({holders}), got {levels}")
        self.num_envs, self.seat, self.others = int(num_envs), int(seat), others
        self.declaring_team, self.illegal, self.illegal_reward = int(declaring_team), illegal, float(illegal_reward)
        self.autoreset_mode = MODES[mode]
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = None
        partner, opponents = others if isinstance(others, (tuple, list)) else (others, others)
        team = seat % 2
        pols = (partner, opponents) if team == 0 else (opponents, partner)
        resolved, self._params, self._fns = game.resolve(pols)
        if any(p.player is not None for p in resolved):
            raise ValueError(f"others: compiled policies only (a Python policy or a bot cannot run inside the "
                             f"batched kernel), got {others!r}")
        if any(p.search is not None for p in resolved):
            raise ValueError(f"others: {others!r} holds a search policy, which plays through the search's own kernel "
                             "(kernels.search_play), not this one; give its base policy")
        self._addrs = function_addresses(self._fns)
        self.single_observation_space = observation_space(game)
        self.single_action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._kernel = game.kernel("vector")
        self._alloc()
        self._seed = None if seed is None else self._check_seed(seed)

    # ---------------------------------------------------------------- the arrays of the N deals
    def _alloc(self):
        n, k, d = self.num_envs, self.game.kernels, self.game.dims
        D = k.deal
        views, scratch, rngs, self._tables = D.new_workspace(self.game.encoded)
        self._sts = np.zeros((n, k.state.STATE_SIZE), dtype=np.int64)
        self._views = np.zeros((n,) + views.shape, dtype=np.int64)
        self._scratch = np.zeros((n,) + scratch.shape, dtype=np.float64)
        self._rngs = np.zeros((n,) + rngs.shape, dtype=np.uint64)
        self._counts = np.zeros(n, dtype=np.int64)
        self._chosen = np.zeros((n, d.CARDS), dtype=np.int64)
        self._masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self._ended = np.ones(n, dtype=np.bool_)  # no deal yet: reset() starts them
        self._err = np.zeros(k.phases.ERR_SIZE, dtype=np.int64)
        self._log = np.zeros((1, D.LOG_COLS), dtype=np.int64)
        self._started = False

    @staticmethod
    def _check_seed(seed) -> int:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed must be an int 0 .. 2**64-1, got {seed!r}")
        return int(seed)

    def _run(self, actions, todo):
        """One kernel call; (obs dict, rewards, terminations, illegal, final_obs or None)."""
        n = self.num_envs
        obs = np.empty((n, self._kernel.OBS_SIZE), dtype=np.int64)
        final = np.zeros((n, self._kernel.OBS_SIZE), dtype=np.int64) if self.autoreset_mode == AutoresetMode.SAME_STEP \
            else np.zeros((1, 1), dtype=np.int64)
        rewards = np.zeros(n, dtype=np.float64)
        terms = np.zeros(n, dtype=np.bool_)
        illegal = np.zeros(n, dtype=np.bool_)
        bad = self._kernel.step(
            self._sts, self._views, self._scratch, self._rngs, self._tables, self.game.encoded, self._params,
            self._addrs, np.int64(self.seat), np.uint64(self._seed), self._counts, self._levels,
            np.int64(self.declaring_team), actions, todo, self.autoreset_mode == AutoresetMode.SAME_STEP,
            self.illegal == "terminate", self.illegal_reward, self._chosen, self._masks, obs, rewards, terms, illegal,
            final, self._err, self._log)
        if bad >= 0:
            PH = self.game.kernels.phases
            code, seat, decision = (int(self._err[PH.E_CODE]), int(self._err[PH.E_SEAT]),
                                    int(self._err[PH.E_DECISION]))
            who = "the learning seat's play (a mask/engine disagreement)" if seat == self.seat and \
                DECISION_NAMES[decision] in ("lead", "follow") else f"policy {self.others!r} at seat {seat}"
            self._ended[:] = True
            raise SimulationError(f"environment {bad}, deal {int(self._counts[bad]) - 1}: {who} gave "
                                  f"{self.game.error_name(code)} ({DECISION_NAMES[decision]}); call reset()")
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            self._ended = terms.copy()
        return ({"observation": obs, "action_mask": self._masks.copy()}, rewards, terms, illegal,
                final if self.autoreset_mode == AutoresetMode.SAME_STEP else None)

    # ---------------------------------------------------------------- Gymnasium's API
    def reset(self, *, seed=None, options=None):
        """Start deals: all of them, or with ``options={"reset_mask": m}`` those where m is True.  A
        seed starts the deal numbering again (same seed, same deals); without one the deals go on
        from the last seed's (the first time: a random seed)."""
        mask = np.ones(self.num_envs, dtype=np.bool_)
        if options and "reset_mask" in options:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"options['reset_mask']: a bool array of shape ({self.num_envs},)")
            if not mask.any():
                raise ValueError("options['reset_mask'] must hold at least one True")
            if not self._started:
                raise ValueError("reset(options={'reset_mask': ...}) needs a first reset() of every deal")
        if seed is not None:
            self._seed = self._check_seed(seed)
            self._counts[:] = 0
            if not mask.all():
                raise ValueError("reset: a seed restarts the numbering of every deal; give it without reset_mask")
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().generate_state(2, np.uint32).view(np.uint64)[0])
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(self._seed % 2**63)
        ended = self._ended.copy()
        todo = np.where(mask, self._kernel.RESTART, self._kernel.STAY).astype(np.int64)
        obs, _, _, _, _ = self._run(np.zeros(self.num_envs, dtype=np.int64), todo)
        stay = ~mask & ended  # ended and left as they are: still no action asked
        self._masks[stay] = 0
        obs["observation"][stay, -self.game.dims.CARDS:] = 0
        obs["action_mask"] = self._masks.copy()
        self._ended = ended & ~mask
        self._started = True
        return obs, {}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions: {self.num_envs} ints 0..{N_ACTIONS - 1} (one per deal), got shape "
                             f"{actions.shape} of {actions.dtype}")
        restart = self._ended.copy()
        if restart.any() and self.autoreset_mode == AutoresetMode.DISABLED:
            raise RuntimeError(f"deals {np.flatnonzero(restart)[:5].tolist()} ended: autoreset is disabled, call "
                               "reset(options={'reset_mask': ...})")
        todo = np.where(restart, self._kernel.RESTART, self._kernel.ACT).astype(np.int64)
        obs, rewards, terms, illegal, final = self._run(actions.astype(np.int64), todo)
        infos = {"illegal": illegal, "_illegal": np.ones(self.num_envs, dtype=np.bool_)}
        if final is not None and terms.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            zero = np.zeros(N_ACTIONS, dtype=np.int8)
            for i in np.flatnonzero(terms):
                final_obs[i] = {"observation": final[i], "action_mask": zero.copy()}
            infos["final_obs"], infos["_final_obs"] = final_obs, terms.copy()
            infos["final_info"] = {}
            infos["_final_info"] = terms.copy()
        truncs = np.zeros(self.num_envs, dtype=np.bool_)
        return obs, rewards, terms, truncs, infos

    def close_extras(self, **kwargs):
        pass


def function_addresses(fns) -> np.ndarray:
    """The addresses numba's unboxing reads for each strategy function (kernels.vector._function_at),
    a row (C wrapper, the Python object, the compiled function) per function; the caller keeps
    ``fns`` alive as long as the addresses are used."""
    from numba.core import config
    from numba.experimental.function_type import _get_jit_address, _get_wrapper_address

    from tractor_sim.core.kernels.view import STRATEGY_SIG

    if config.DISABLE_JIT:  # plain Python functions: the kernel finds them by their object's address
        return np.array([[0, id(f), 0] for f in fns], dtype=np.int64)
    return np.array([[_get_wrapper_address(f, STRATEGY_SIG), id(f), _get_jit_address(f, STRATEGY_SIG)] for f in fns],
                    dtype=np.int64)


__all__ = ["TractorVectorEnv", "MODES"]
