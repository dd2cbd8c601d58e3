"""The run directory: per-chunk Parquet parts, the manifest, resume; locked, fingerprinted, checksummed.

Each finished chunk is written at once to ``parts/`` (write to a temporary
name, then rename: a killed run never leaves half a part) and sealed by a
``.sum`` file written last: the run's fingerprint digest, the chunk, and the
SHA-256 of its two Parquet files.  Running the same experiment again skips
the sealed parts, so nothing is lost and nothing is counted twice;
``finalize`` joins them into deals.parquet and matches.parquet, sorted by id.

What it refuses, by name (``StoreRefused``, the user's choice of directory or
experiment, or ``StoreError``, damage or a busy directory):
a run directory held by another run (an exclusive ``flock`` on ``.lock``,
for the whole run; the kernel drops it when the holder dies, even by
SIGKILL); a resume whose fingerprint differs (``fingerprint.differences``);
parts of another run; a damaged part or manifest (rerun it with
``repair=True``); a non-empty directory that is not a run directory.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import socket
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pandas as pd

from tractor_sim.runs.engine import ChunkResult, ChunkSpec, to_frames
from tractor_sim.runs.fingerprint import differences, digest, file_hash

RUN_FILES = {"manifest.json", "parts", ".lock"}  # any of these: a run directory (the report's files are not)


class StoreError(RuntimeError):
    """The run directory is damaged or busy; the message names the file or the holder."""


class StoreRefused(StoreError):
    """The run directory holds something else (another experiment, not a run); choose another."""


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


def _other_experiment(run_dir: Path, old: dict, changed: list[str]) -> StoreRefused:
    return StoreRefused(
        f"{run_dir} holds a different experiment ({old.get('name')!r}); resuming would mix two sets of "
        "results. What differs (stored -> now):\n  " + "\n  ".join(changed[:20])
        + ("\n  ..." if len(changed) > 20 else "")
        + "\nUse another --out directory, or delete this one to start over")


def refuse_another_game(run_dir: str | Path, experiment: dict) -> None:
    """Refuse a run directory holding a run of another game size before the policies compile for this
    one (a new size's package compiles for a minute; RunStore.open refuses it too, later)."""
    path = Path(run_dir) / "manifest.json"
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return  # no manifest, or a damaged one: RunStore.open says so
    if isinstance(old, dict) and isinstance(old.get("experiment"), dict):
        was, now = old["experiment"].get("game"), experiment.get("game")
        if was != now:
            raise _other_experiment(Path(run_dir), old, [f"game: {was} -> {now}"])


class RunStore:
    """One run directory, locked from ``open`` to ``close`` (also a context manager)."""

    def __init__(self, run_dir: str | Path, experiment: dict, command: str, fingerprint: dict | None = None):
        self.dir = Path(run_dir)
        self.parts = self.dir / "parts"
        self.experiment = experiment
        self.command = command
        self.fingerprint = fingerprint if fingerprint is not None else {"experiment": experiment}
        self.digest = digest(self.fingerprint)
        self.manifest_path = self.dir / "manifest.json"
        self._lock = None
        self._done: set[str] = set()
        self.repaired: list[str] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def open(self, repair: bool = False) -> dict:
        """Lock the directory, check it holds this run (or nothing), verify its parts; return the manifest.

        ``repair``: parts that fail their checksum, and a manifest that cannot
        be read while the parts are this run's, are replaced instead of refused.
        """
        self._check_is_run_dir()
        try:
            self.parts.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the run directory {self.dir}: {e.strerror or e}") from None
        self._take_lock()
        old = self._read_manifest(repair)
        if old is not None:
            if "fingerprint" not in old:
                raise StoreRefused(f"{self.dir} was written by an older tractor-sim that kept no fingerprint of its "
                                   "results; its parts cannot be checked: use another --out directory or delete it")
            changed = differences(old["fingerprint"], self.fingerprint)
            if changed:
                raise _other_experiment(self.dir, old, changed)
            manifest = old
        else:
            manifest = {
                "name": self.experiment["name"],
                "experiment": self.experiment,
                "seed": self.experiment["seed"],
                "fingerprint": self.fingerprint,
                "fingerprint_digest": self.digest,
                "command": self.command,
                "versions": versions(),
                "git_commit": git_commit(),
                "machine": {"platform": platform.platform(), "processor": platform.processor(),
                            "cpus": os.cpu_count()},
                "started": _now(),
            }
        self._scan_parts(repair)
        manifest["parts_found_at_start"] = len(self._done)
        self._write_manifest(manifest)
        return manifest

    def close(self) -> None:
        """Remove ``.lock`` and release it (unlinked while held: a process that opened it meanwhile
        finds its inode gone and locks a new file, _take_lock)."""
        if self._lock is not None:
            from tractor_sim.play.sandbox import remove_on_interrupt

            remove_on_interrupt(None)
            try:
                os.unlink(self.dir / ".lock")
            except OSError:
                pass
            os.close(self._lock)
            self._lock = None

    def done(self, spec: ChunkSpec, index) -> bool:
        return part_name(spec, index) in self._done

    def write(self, result: ChunkResult, index) -> None:
        name = part_name(result.spec, index)
        deals, matches = to_frames([result])
        sums = {}
        for kind, frame in (("matches", matches), ("deals", deals)):
            tmp = self.parts / f".{name}.{kind}.tmp"
            frame.to_parquet(tmp, index=False)
            sums[kind] = file_hash(tmp)
            os.replace(tmp, self.parts / f"{name}.{kind}.parquet")
        s = result.spec
        seal = {"fingerprint": self.digest, "matchup": s.matchup, "half": s.half, "first_id": s.first_id,
                "count": s.count, "rows": len(deals), "sha256": sums}
        tmp = self.parts / f".{name}.sum.tmp"
        tmp.write_text(json.dumps(seal))
        os.replace(tmp, self.parts / f"{name}.sum")  # last: the seal marks the part done
        self._done.add(name)

    def finalize(self, manifest: dict, seconds: float, expected: list[ChunkSpec] | None = None) -> int:
        """Join the parts into deals.parquet and matches.parquet; return the number of deals.

        Every part's checksum is verified again first (a part damaged since
        the run started is named).  With ``expected`` (the run's chunk specs),
        check the parts hold exactly those ids, each once (StoreError
        otherwise, and nothing is written).  The deals are streamed part by
        part, in part-name order (matchup, half, first id; ids ascending
        within a part), so memory stays that of one part whatever the size
        of the run.
        """
        names = sorted(p.name[:-4] for p in self.parts.glob("*.sum"))
        bad = [f"{n}: {why}" for n in names if (why := self._verify(n))]
        if bad:
            raise StoreError(f"{self.dir}: damaged parts, not writing deals.parquet:\n  " + "\n  ".join(bad)
                             + "\nRun the same command with --repair to rerun them")
        deal_parts = [self.parts / f"{n}.deals.parquet" for n in names]
        matches = _concat([self.parts / f"{n}.matches.parquet" for n in names])
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
        manifest["deals_sha256"] = file_hash(self.dir / "deals.parquet")
        manifest["seconds"] = round(seconds, 3)
        manifest["rate_deals_per_second"] = round(n_deals / seconds, 1) if seconds > 0 else None
        self._write_manifest(manifest)
        return n_deals

    # ----------------------------------------------------------------- checks

    def _check_is_run_dir(self) -> None:
        if not self.dir.exists():
            return
        if not self.dir.is_dir():
            raise StoreRefused(f"{self.dir} is a file, not a run directory: choose another --out")
        try:
            entries = {p.name for p in self.dir.iterdir()}
        except OSError as e:
            raise StoreError(f"cannot read the run directory {self.dir}: {e.strerror or e}") from None
        if entries and not entries & RUN_FILES:
            shown = ", ".join(sorted(entries)[:5]) + (", ..." if len(entries) > 5 else "")
            raise StoreRefused(f"{self.dir} is not empty and is not a run directory (it holds {shown}; no "
                               "manifest.json or parts/): nothing is written there; choose another --out")

    def _take_lock(self) -> None:
        """An exclusive flock on ``.lock``, on the file that is there now: a holder unlinks the file
        when it closes, so a lock taken on an inode that was unlinked meanwhile is taken again."""
        path = self.dir / ".lock"
        for _ in range(20):
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                try:
                    holder = json.loads(path.read_text())
                    who = (f"pid {holder.get('pid')} on {holder.get('host')} since {holder.get('since')}: "
                           f"{holder.get('command')}")
                except (OSError, ValueError, AttributeError):
                    who = "another process"
                raise StoreError(f"{self.dir} is in use by another run ({who}); wait for it to finish, "
                                 "or use another --out directory") from None
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # the holder before us removed it: lock the new file
        else:
            raise StoreError(f"{self.dir}: cannot lock {path}: it keeps being replaced")
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": _now(),
                                 "command": self.command}).encode())
        self._lock = fd
        from tractor_sim.play.sandbox import remove_on_interrupt

        remove_on_interrupt(os.path.abspath(path))  # Ctrl-C inside a kernel call ends the process at once

    def _read_manifest(self, repair: bool) -> dict | None:
        if not self.manifest_path.exists():
            return None
        try:
            old = json.loads(self.manifest_path.read_text())
            if not isinstance(old, dict) or "experiment" not in old:
                raise ValueError("not a run manifest (a JSON object with an experiment)")
            return old
        except (ValueError, UnicodeDecodeError) as e:
            if repair:  # the parts carry their own fingerprint: _scan_parts keeps only this run's
                self.repaired.append(f"{self.manifest_path}: unreadable ({e}), written anew")
                return None
            raise StoreError(f"{self.manifest_path} is damaged ({e}); run the same command with --repair to "
                             "write it anew (the parts are checked against the run's fingerprint)") from None

    def _scan_parts(self, repair: bool) -> None:
        """Keep the sealed parts that verify; drop unsealed leftovers; refuse others' or damaged parts."""
        sealed = {p.name[:-4] for p in self.parts.glob("*.sum")}
        foreign, damaged = [], []
        for name in sorted(sealed):
            why = self._verify(name)
            if why == "another run":
                foreign.append(name)
            elif why:
                damaged.append(f"{name}: {why}")
            else:
                self._done.add(name)
        if foreign:
            raise StoreRefused(f"{self.parts} holds {len(foreign)} parts of another run (e.g. {foreign[0]}): "
                               "resuming would mix two sets of results; use another --out directory")
        if damaged and not repair:
            raise StoreError(f"{self.dir}: damaged parts:\n  " + "\n  ".join(damaged)
                             + "\nRun the same command with --repair to rerun them")
        for tmp in self.parts.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)
        for p in self.parts.glob("*.parquet"):  # written, killed before its seal: never finished
            if p.name.split(".")[0] not in sealed:
                p.unlink(missing_ok=True)
        for line in damaged:
            name = line.split(":")[0]
            for f in self.parts.glob(f"{name}.*"):
                f.unlink(missing_ok=True)
            self.repaired.append(f"part {line}: rerun")

    def _verify(self, name: str) -> str | None:
        """Why part ``name`` cannot be used ("another run", or the damage), or None."""
        try:
            seal = json.loads((self.parts / f"{name}.sum").read_text())
            want = seal["sha256"]
            theirs = seal["fingerprint"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            return f"its seal {name}.sum is unreadable ({type(e).__name__})"
        if theirs != self.digest:
            return "another run"
        for kind in ("deals", "matches"):
            f = self.parts / f"{name}.{kind}.parquet"
            if not f.exists():
                return f"{f.name} is missing"
            if file_hash(f) != want.get(kind):
                return f"{f.name} fails its checksum (changed or damaged on disk)"
        return None

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
STRING_COLUMNS = ("matchup", "context", "policy0", "policy1")


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
