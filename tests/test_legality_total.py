"""benchmarks/legality_total.py: the sum of the legality run's parts, and its refusal of parts that
judged the same deals (a part counted twice would inflate the million)."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "legality_total.py"


def load():
    spec = importlib.util.spec_from_file_location("legality_total", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def part(tmp_path, name, table, first, deals, tractors=0):
    res = {"first deal id": first, "finished": True, "deals": deals, "matches": 1, "leads": 10 * deals,
           "throws": 3, "failed throws": 2, "triples led": 1, "quadruples led": 0, "tuple-tractors led": 0,
           "units led": {"tractor of pairs": tractors}, "cpu_seconds": 1.5}
    path = tmp_path / name
    path.write_text(json.dumps({table: res}))
    return str(path)


def test_the_parts_of_a_table_add_up(tmp_path):
    paths = [part(tmp_path, "a.json", "6/3/tractor", 0, 100, tractors=4),
             part(tmp_path, "b.json", "6/3/tractor", 1000, 50, tractors=1),
             part(tmp_path, "c.json", "5/2/friends", 0, 70)]
    by_table = load().total(paths)
    assert by_table["6/3/tractor"]["deals"] == 150
    assert by_table["6/3/tractor"]["tractors of pairs led"] == 5
    assert by_table["6/3/tractor"]["throws"] == 6
    assert by_table["5/2/friends"]["deals"] == 70


@pytest.mark.parametrize("second_first", [0, 99, 50])
def test_parts_that_judged_the_same_deals_are_refused(tmp_path, second_first):
    paths = [part(tmp_path, "a.json", "6/3/tractor", 0, 100), part(tmp_path, "b.json", "6/3/tractor", second_first, 10)]
    with pytest.raises(SystemExit, match="6/3/tractor: .*judged some of the same deals"):
        load().total(paths)


def test_the_committed_parts_are_disjoint():
    paths = sorted(str(p) for p in (SCRIPT.parents[0] / "results" / "legality").glob("*.json"))
    assert paths, "no legality parts committed"
    assert sum(c["deals"] for c in load().total(paths).values()) > 0
