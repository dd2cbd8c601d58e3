"""The run directory: per-chunk Parquet parts, the manifest, resume.

Each finished chunk is written at once to ``parts/`` (write to a temporary
name, then rename: a killed run never leaves half a part).  Running the same
experiment again skips the parts already there, so nothing is lost and
nothing is counted twice; ``finalize`` joins the parts into deals.parquet and
matches.parquet, sorted by id.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pandas as pd

from tractor_sim.engine import ChunkResult, ChunkSpec, to_frames


class StoreError(RuntimeError):
    """The run directory holds another experiment, or is damaged."""


def part_name(spec: ChunkSpec, index: dict[str, int]) -> str:
    return f"m{index[spec.matchup]:03d}-h{spec.half}-{spec.first_id:012d}"


def versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for pkg in ("tractor-sim", "numba", "numpy", "pandas", "pyarrow", "scipy", "matplotlib", "click"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def git_commit() -> str | None:
    try:
        root = Path(__file__).resolve().parent.parent
        r = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


class RunStore:
    def __init__(self, run_dir: str | Path, experiment: dict, command: str):
        self.dir = Path(run_dir)
        self.parts = self.dir / "parts"
        self.experiment = experiment
        self.command = command
        self.manifest_path = self.dir / "manifest.json"

    def open(self) -> dict:
        """Create the directory, or check it holds the same experiment (resume)."""
        self.parts.mkdir(parents=True, exist_ok=True)
        if self.manifest_path.exists():
            old = json.loads(self.manifest_path.read_text())
            if old.get("experiment") != self.experiment:
                raise StoreError(
                    f"{self.dir} holds a different experiment ({old.get('name')!r}); "
                    "use another --out directory or delete this one")
            manifest = old
        else:
            manifest = {
                "name": self.experiment["name"],
                "experiment": self.experiment,
                "seed": self.experiment["seed"],
                "command": self.command,
                "versions": versions(),
                "git_commit": git_commit(),
                "machine": {"platform": platform.platform(), "processor": platform.processor(),
                            "cpus": os.cpu_count()},
                "started": _now(),
            }
        manifest["parts_found_at_start"] = len(list(self.parts.glob("*.deals.parquet")))
        self._write_manifest(manifest)
        return manifest

    def done(self, spec: ChunkSpec, index) -> bool:
        return (self.parts / f"{part_name(spec, index)}.deals.parquet").exists()

    def write(self, result: ChunkResult, index) -> None:
        name = part_name(result.spec, index)
        deals, matches = to_frames([result])
        for kind, frame in (("matches", matches), ("deals", deals)):  # deals last: it marks the part done
            tmp = self.parts / f".{name}.{kind}.tmp"
            frame.to_parquet(tmp, index=False)
            os.replace(tmp, self.parts / f"{name}.{kind}.parquet")

    def finalize(self, manifest: dict, seconds: float, expected: list[ChunkSpec] | None = None) -> int:
        """Join the parts into deals.parquet and matches.parquet; return the number of deals.

        With ``expected`` (the run's chunk specs), first check they hold exactly
        those ids, each once (StoreError otherwise, and nothing is written).
        The deals are streamed part by part, in part-name order (matchup,
        half, first id; ids ascending within a part), so memory stays that of
        one part whatever the size of the run.
        """
        deal_parts = sorted(self.parts.glob("*.deals.parquet"))
        matches = _concat(sorted(self.parts.glob("*.matches.parquet")))
        if expected is not None:
            problems = check_complete(_concat(deal_parts, ID_COLUMNS), matches, expected)
            if problems:
                raise StoreError(
                    f"{self.dir}: the stored results do not match the run's plan; not writing deals.parquet:\n  "
                    + "\n  ".join(problems)
                    + f"\n(each file in {self.parts} is one chunk: delete the run directory and run again)")
        n_deals = _stream(deal_parts, self.dir / "deals.parquet")
        if len(matches):
            order = {m: i for i, m in enumerate(dict.fromkeys(_part_matchups(deal_parts)))}
            matches = matches.assign(_o=matches["matchup"].astype(str).map(order)).sort_values(
                ["_o", "half", "match_id"], kind="stable").drop(columns="_o").reset_index(drop=True)
        matches.to_parquet(self.dir / "matches.parquet", index=False)
        manifest["finished"] = _now()
        manifest["deals"] = n_deals
        manifest["matches"] = int(len(matches))
        manifest["seconds"] = round(seconds, 3)
        manifest["rate_deals_per_second"] = round(n_deals / seconds, 1) if seconds > 0 else None
        self._write_manifest(manifest)
        return n_deals

    def _write_manifest(self, manifest: dict) -> None:
        tmp = self.dir / ".manifest.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, default=str))
        os.replace(tmp, self.manifest_path)


def check_complete(deals: pd.DataFrame, matches: pd.DataFrame, expected: list[ChunkSpec]) -> list[str]:
    """What is wrong with the ids held, against the planned chunks (an empty list: nothing).

    Fixed mode: every planned (matchup, half, deal_id) once, nothing else.  Match
    mode: the same for match ids, and each match's deals present exactly once.
    """
    import numpy as np

    none = np.empty(0, dtype=np.int64)
    mode = expected[0].mode if expected else "fixed"
    frame, col = (deals, "deal_id") if mode == "fixed" else (matches, "match_id")
    want: dict = {}
    for s in expected:
        want.setdefault((s.matchup, int(s.half)), []).append(np.arange(s.first_id, s.first_id + s.count))
    have = {}
    if len(frame) and col in frame:  # by category codes: no string per row (10,000,000 rows fit)
        keys = frame["matchup"].astype("category")
        codes = keys.cat.codes.to_numpy()
        half = frame["half"].to_numpy()
        ids = frame[col].to_numpy(np.int64)
        for ci, m in enumerate(keys.cat.categories):
            mine = codes == ci
            for h in np.unique(half[mine]):
                have[(str(m), int(h))] = ids[mine & (half == h)]
    problems = []
    for key in sorted(set(want) | set(have)):
        w = np.sort(np.concatenate(want.get(key, [none])))
        g = np.sort(have.get(key, none))
        if np.array_equal(w, g):
            continue
        ids, counts = np.unique(g, return_counts=True)
        parts = [(np.setdiff1d(w, ids), "missing"), (ids[counts > 1], "duplicated"),
                 (np.setdiff1d(ids, w), "not in the plan")]
        text = ", ".join(f"{len(x)} {what} (e.g. {', '.join(str(v) for v in x[:3])})" for x, what in parts if len(x))
        problems.append(f"matchup {key[0]!r} half {key[1]}: {col}s {text}")
    if mode == "match" and len(deals):
        d = pd.DataFrame({"m": deals["matchup"].astype("category"), "h": deals["half"].astype(int),
                          "match_id": deals["match_id"], "deal_id": deals["deal_id"]})
        dup = int(d.duplicated(["m", "h", "deal_id"]).sum())
        if dup:
            problems.append(f"{dup} duplicated deal records")
        per = d.groupby(["m", "h", "match_id"], observed=True).size().rename("records").reset_index()
        per["m"] = per["m"].astype(str)
        told = pd.DataFrame({"m": matches["matchup"].astype(str), "h": matches["half"].astype(int),
                             "match_id": matches["match_id"].astype("int64"), "deals": matches["deals"]}) \
            if len(matches) else per.iloc[:0].rename(columns={"records": "deals"})
        both = told.merge(per, on=["m", "h", "match_id"], how="outer").fillna(0)
        bad = int((both["deals"] != both["records"]).sum())
        if bad:
            problems.append(f"{bad} matches whose deal records do not add up to their deal count")
    return problems


ID_COLUMNS = ["matchup", "half", "deal_id", "match_id"]
STRING_COLUMNS = ("matchup", "policy0", "policy1")


def _part_matchups(paths) -> list[str]:
    import pyarrow.parquet as pq

    return [str(pq.read_table(p, columns=["matchup"]).column(0)[0]) for p in paths
            if pq.ParquetFile(p).metadata.num_rows]


def _stream(paths, out: Path) -> int:
    """Append the parts' rows to one Parquet file, one part in memory at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = out.with_name(f".{out.name}.tmp")
    writer, n = None, 0
    try:
        for p in paths:
            table = pq.read_table(p)
            if not table.num_rows:
                continue
            for name in STRING_COLUMNS:  # one schema for all parts, whatever each part's dictionary
                if name in table.column_names:
                    i = table.column_names.index(name)
                    table = table.set_column(i, name, table.column(name).cast(pa.string()).dictionary_encode())
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table.cast(writer.schema))
            n += table.num_rows
    finally:
        if writer is not None:
            writer.close()
    if writer is None:
        pd.DataFrame().to_parquet(tmp, index=False)
    os.replace(tmp, out)
    return n


def _concat(paths, columns=None) -> pd.DataFrame:
    frames = [pd.read_parquet(p, columns=columns) for p in paths]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames, ignore_index=True)
    if "matchup" in out:
        out["matchup"] = out["matchup"].astype("category")
    return out


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
