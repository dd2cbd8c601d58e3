"""The worked plugin example of docs/strategies.md runs as written."""

import re
from pathlib import Path

from tractor_sim.runs import engine

from tractor_sim.runs import runner

from tractor_sim.play import registry as strategy

DOC = Path(__file__).resolve().parent.parent / "docs" / "strategies.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert blocks, "docs/strategies.md has a python example"
    return blocks[-1]


SHIPPED = DOC.parent.parent / "strategies" / "my_strategies.py"


def test_worked_example_registers_and_plays():
    # The shipped copy is the example: loading a second file that registers the same names is
    # rightly refused (test_players loads the shipped one in the same worker).
    assert SHIPPED.read_text() == _example()
    path = SHIPPED
    strategy.load_module(str(path))
    pol = strategy.resolve_policy("grabber")
    assert pol.strategy_names[3] == "grab_points"
    deals, _ = runner.simulate([("grabber", "basic")], n=100, seed=2, modules=[str(path)])
    assert len(deals) == 200 and set(deals.policy0) == {"grabber", "basic"}


def test_entry_points_are_loaded(tmp_path, monkeypatch):
    pkg = tmp_path / "plugin_pkg_for_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(_example().replace('"grab_points"', '"grab_points_ep"')
                                     .replace('policy("grabber"', 'policy("grabber_ep"')
                                     .replace('follow="grab_points"', 'follow="grab_points_ep"'))
    monkeypatch.syspath_prepend(str(tmp_path))

    class EP:
        name = "plugin"
        value = "plugin_pkg_for_test"

        def load(self):
            import importlib

            return importlib.import_module(self.value)

    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: [EP()] if group == strategy.ENTRY_POINT_GROUP else [])
    loaded = strategy.load_entry_points()
    assert loaded
    assert strategy.resolve_policy("grabber_ep").strategy_names[3] == "grab_points_ep"
