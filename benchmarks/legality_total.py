"""Sum the parts of the section-9 legality run (tests/test_legality.py, ``-m slow``).

Run: python benchmarks/legality_total.py benchmarks/results/legality/*.json

Each part is the TRACTOR_LEGALITY_JSON of one run (a table per key, its deals from the part's
``first deal id`` on; parts whose deal ids overlap are refused).  Prints per table and in all: the deals judged
play by play by the reference, the leads, throws, failed throws, triples and quadruples led,
tractors of pairs and of larger tuples (tuple-tractors) led, and the CPU time; a part cut short
counts what it judged.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

FIELDS = ("deals", "matches", "leads", "throws", "failed throws", "triples led", "quadruples led",
          "tractors of pairs led", "tuple-tractors led", "cpu_seconds")


def total(paths):
    by_table: dict[str, Counter] = {}
    firsts: dict[str, list] = {}
    for path in paths:
        with open(path) as f:
            part = json.load(f)
        for table, res in part.items():
            res = {**res, "tractors of pairs led": res["units led"].get("tractor of pairs", 0)}
            by_table.setdefault(table, Counter()).update({k: res[k] for k in FIELDS})
            firsts.setdefault(table, []).append((res["first deal id"], res["deals"], path))
    for table, parts in firsts.items():
        parts.sort()
        for (a, n, pa), (b, _, pb) in zip(parts, parts[1:]):
            if a + n > b:
                raise SystemExit(f"{table}: {pa} (deal ids {a:,} to {a + n - 1:,}) and {pb} (from {b:,}) "
                                 "judged some of the same deals")
    return by_table


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="+")
    by_table = total(ap.parse_args().parts)
    print("| table | " + " | ".join(FIELDS) + " |")
    print("|---" * (len(FIELDS) + 1) + "|")
    for table, c in sorted(by_table.items()):
        print(f"| {table} | " + " | ".join(f"{c[k]:,.0f}" for k in FIELDS) + " |")
    all_ = sum(by_table.values(), Counter())
    print("| all | " + " | ".join(f"{all_[k]:,.0f}" for k in FIELDS) + " |")


if __name__ == "__main__":
    main()
