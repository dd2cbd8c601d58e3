"""Model files of the ``learned`` policy: read, checked against the game, written.

A model is the weights of the learned lead and follow (core/strategies/
learned.py), one per feature by name (core/features.py), in a small JSON
file that says what it is and where it came from:

    {"format": "tractor-sim model", "version": 1, "game": [4, 2, "tractor"],
     "features": ["base", "cards", ...],
     "weights": {"lead": [...], "follow": [...]},
     "training": {"seed": 1, "fingerprint": "...", ...}}

A file of another format, version, game size or feature list is refused
by name: weights are only meaningful for the features they were fitted to.
The package ships one for the 4-player 2-deck game (tractor_sim/models/),
the default of the ``learned`` policy; ``{policy = "learned", model =
"PATH"}`` plays any other.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from tractor_sim.rules import files

FORMAT = "tractor-sim model"
VERSION = 1
DECISIONS = ("lead", "follow")  # the decisions a model scores
MODELS = Path(__file__).resolve().parent.parent / "models"  # the shipped models


class ModelError(ValueError):
    """A model file that cannot be played here; the message names the file and what is wrong."""


def feature_names(package=None) -> tuple[str, ...]:
    """The features of ``package``'s kernels (the 4-player 2-deck package when None)."""
    import importlib

    name = package.__name__ if package is not None else "tractor_sim.core"
    return importlib.import_module(f"{name}.features").NAMES


def game_of(package=None) -> list:
    """[players, decks, team mode] of a compiled package (tractor_sim.play.packages)."""
    if package is None:
        return [4, 2, "tractor"]
    size = package.size
    return [size.SEATS, size.DECKS, "friends" if size.FINDING_FRIENDS else "tractor"]


def path_of(name: str) -> Path:
    """A model named in a policy: a path, or the name of a shipped model (tractor_sim/models/NAME)."""
    p = Path(name).expanduser()
    if not p.exists() and (MODELS / name).exists():
        return MODELS / name
    return p


def load(name: str, package=None) -> dict[str, dict[str, float]]:
    """The weights of model file ``name`` as policy parameters {"lead": {feature: w}, "follow": {...}},
    checked against ``package``'s game and features; ModelError naming the file otherwise."""
    path = path_of(name)
    data = files.read_model(path, ModelError)
    if data.get("format") != FORMAT:
        raise ModelError(f"{path}: not a {FORMAT} file (its format is {data.get('format')!r})")
    if data.get("version") != VERSION:
        raise ModelError(f"{path}: model version {data.get('version')!r}; this build reads version {VERSION}")
    game = game_of(package)
    if data.get("game") != game:
        raise ModelError(f"{path}: a model of the game {data.get('game')!r}, not of this game {game}; "
                         "train one for this size (tractor-sim train)")
    names = list(feature_names(package))
    if data.get("features") != names:
        raise ModelError(f"{path}: its features {data.get('features')!r} are not this build's {names}")
    weights = data.get("weights")
    if not isinstance(weights, dict) or set(weights) != set(DECISIONS):
        raise ModelError(f"{path}: 'weights' must hold a list for each of {', '.join(DECISIONS)}")
    out = {}
    for d in DECISIONS:
        w = weights[d]
        if not isinstance(w, list) or len(w) != len(names) or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in w):
            raise ModelError(f"{path}: weights.{d} must be {len(names)} finite numbers, one per feature")
        out[d] = dict(zip(names, map(float, w)))
    return out


def write(path, weights: dict, training: dict, package=None) -> str:
    """Write a model file; returns its digest (sha256 of the file's bytes)."""
    names = list(feature_names(package))
    data = {"format": FORMAT, "version": VERSION, "game": game_of(package), "features": names,
            "weights": {d: [round(float(x), 9) for x in weights[d]] for d in DECISIONS}, "training": training}
    text = json.dumps(data, indent=1) + "\n"
    Path(path).write_text(text)
    return hashlib.sha256(text.encode()).hexdigest()
