"""Model files of the ``learned`` policy: read, checked against the game, written.

A model is the weights of the learned declaration, burial, lead, follow,
bid and call (core/strategies/learned.py), one per feature by name
(core/features.py for the lead and the follow, core/declare_features.py,
core/burial_features.py, core/bid_features.py, core/call_features.py),
in a small JSON file that says what it is and where it came from:

    {"format": "tractor-sim model", "version": 4, "game": [4, 2, "tractor"],
     "features": {"declare": ["base", "declare", ...], "discard": [...], "lead": [...], "follow": [...],
                  "bid": [...], "call": [...]},
     "weights": {"declare": [...], "discard": [...], "lead": [...], "follow": [...], "bid": [...], "call": [...]},
     "training": {"seed": 1, "fingerprint": "...", ...}}

A version 1 file (the lead and the follow only, one feature list), a
version 2 file (no bid) and a version 3 file (no call) still play: what they
lack is the expert's (weights 0).  A file of
another format, version, game size or feature list is refused by name:
weights are only meaningful for the features they were fitted to.  The
package ships models (tractor_sim/models/learned-GAME.json: ``4x2`` the
4-player 2-deck game, ``5x2f`` 5 players in Finding Friends); the ``learned``
policy plays the one of the game at the table (its model is named
``learned-{game}.json``) and is refused by name at a game with none;
``{policy = "learned", model = "PATH"}`` plays any other, of any game
``tractor-sim train`` trained it for.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from tractor_sim.rules import files

FORMAT = "tractor-sim model"
VERSION = 4
VERSIONS = (1, 2, 3, 4)  # the versions read: 1 scored the lead and the follow only, 2 not the bid, 3 not the call
DECISIONS = ("declare", "discard", "lead", "follow", "bid", "call")  # the decisions a model scores
SCORED = {1: ("lead", "follow"), 2: ("declare", "discard", "lead", "follow"), 3: DECISIONS[:5],
          4: DECISIONS}  # by version
FEATURE_MODULES = {"declare": ("declare_features", "DECLARE_NAMES"), "discard": ("burial_features", "BURIAL_NAMES"),
                   "lead": ("features", "NAMES"), "follow": ("features", "NAMES"),
                   "bid": ("bid_features", "BID_NAMES"), "call": ("call_features", "CALL_NAMES")}
MODELS = Path(__file__).resolve().parent.parent / "models"  # the shipped models


class ModelError(ValueError):
    """A model file that cannot be played here; the message names the file and what is wrong."""


def feature_names(package=None) -> dict[str, tuple[str, ...]]:
    """The features of each decision in ``package``'s kernels (the 4-player 2-deck package when None)."""
    import importlib

    name = package.__name__ if package is not None else "tractor_sim.core"
    return {d: getattr(importlib.import_module(f"{name}.{module}"), names)
            for d, (module, names) in FEATURE_MODULES.items()}


def game_of(package=None) -> list:
    """[players, decks, team mode] of a compiled package (tractor_sim.play.packages)."""
    if package is None:
        return [4, 2, "tractor"]
    size = package.size
    return [size.SEATS, size.DECKS, "friends" if size.FINDING_FRIENDS else "tractor"]


def game_code(package=None) -> str:
    """The game's part of a shipped model's name: ``4x2``, ``5x2f`` (the f: Finding Friends)."""
    players, decks, teams = game_of(package)
    return f"{players}x{decks}{'f' if teams == 'friends' else ''}"


def path_of(name: str, package=None) -> Path:
    """A model named in a policy: a path, or the name of a shipped model (tractor_sim/models/NAME), where
    ``{game}`` stands for the game played (game_code)."""
    name = name.replace("{game}", game_code(package))
    p = Path(name).expanduser()
    if not p.exists() and (MODELS / name).exists():
        return MODELS / name
    return p


def load(name: str, package=None) -> dict[str, dict[str, float]]:
    """The weights of model file ``name`` as policy parameters {decision: {feature: w}}, checked against
    ``package``'s game and features; ModelError naming the file otherwise.  What an older version does not
    score gets weights 0 (the expert's): version 1 all but the lead and the follow, 2 the bid and the call,
    3 the call."""
    path = path_of(name, package)
    if "{game}" in name and not path.exists():
        players, decks, teams = game_of(package)
        raise ModelError(f"no learned model is shipped for {players} players, {decks} decks, {teams} "
                         f"(shipped: {', '.join(sorted(m.name for m in MODELS.glob('learned-*.json')))}); train one "
                         "(tractor-sim train, docs/learned.md) and play it as {policy = \"learned\", model = \"PATH\"}")
    data = files.read_model(path, ModelError)
    if data.get("format") != FORMAT:
        raise ModelError(f"{path}: not a {FORMAT} file (its format is {data.get('format')!r})")
    version = data.get("version")
    if version not in VERSIONS:
        raise ModelError(f"{path}: model version {version!r}; this build reads versions "
                         f"{', '.join(map(str, VERSIONS))}")
    game = game_of(package)
    if data.get("game") != game:
        raise ModelError(f"{path}: a model of the game {data.get('game')!r}, not of this game {game}; "
                         "train one for this size (tractor-sim train)")
    names = {d: list(v) for d, v in feature_names(package).items()}
    scored = SCORED[version]
    if version > 1:
        features = data.get("features")
        if not isinstance(features, dict) or set(features) != set(scored):
            raise ModelError(f"{path}: 'features' must hold a list for each of {', '.join(scored)}")
        for d in scored:
            if features[d] != names[d]:
                raise ModelError(f"{path}: its {d} features {features[d]!r} are not this build's {names[d]}")
    elif data.get("features") != names["lead"]:  # version 1: one list, of the plays' features
        raise ModelError(f"{path}: its features {data.get('features')!r} are not this build's {names['lead']}")
    weights = data.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(scored):
        raise ModelError(f"{path}: 'weights' must hold a list for each of {', '.join(scored)}")
    out = {d: dict.fromkeys(names[d], 0.0) for d in DECISIONS}
    for d in scored:
        w = weights[d]
        if not isinstance(w, list) or len(w) != len(names[d]) or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in w):
            raise ModelError(f"{path}: weights.{d} must be {len(names[d])} finite numbers, one per feature")
        out[d] = dict(zip(names[d], map(float, w)))
    return out


def write(path, weights: dict, training: dict, package=None) -> str:
    """Write a model file; returns its digest (sha256 of the file's bytes)."""
    names = {d: list(v) for d, v in feature_names(package).items()}
    data = {"format": FORMAT, "version": VERSION, "game": game_of(package), "features": names,
            "weights": {d: [round(float(x), 9) for x in weights[d]] for d in DECISIONS}, "training": training}
    text = json.dumps(data, indent=1) + "\n"
    Path(path).write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()
