"""Reading the files the tool is given, each failure a one-line error naming the file and what is wrong.

Missing, a directory, unreadable, empty, not UTF-8 (with the line and column),
not valid JSON or TOML (with the line), of the wrong type, truncated or
damaged Parquet or NumPy archive: every input file (experiment and tune
TOML, a run's manifest, seals and Parquet tables, deal records, state JSON,
model files) goes through one of these, with the caller's error class (an
input error: exit 2; a damaged run directory: the store's error, exit 1).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path


def read_bytes(path, what: str, error=ValueError, empty_ok: bool = False) -> bytes:
    """The bytes of ``path`` (a ``what``, e.g. "experiment file"), or ``error`` naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise error(f"{path}: a directory, not a {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror or e}") from None
    if not data and not empty_ok:
        raise error(f"{path}: the {what} is empty")
    return data


def decode(data: bytes, path, what: str, error=ValueError) -> str:
    """``data`` as UTF-8 text, or ``error`` naming the file, the line and the column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise error(f"{path}, line {line}, column {column}: not UTF-8 text (byte {data[e.start]:#04x}); "
                    f"a {what} is UTF-8") from None


def read_text(path, what: str, error=ValueError, empty_ok: bool = False) -> str:
    return decode(read_bytes(path, what, error, empty_ok), path, what, error)


def parse_json(text: str, where, what: str, error=ValueError, kind=dict):
    """``text`` as JSON of type ``kind`` (None: any), or ``error`` naming ``where``, the line and the column."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{where}, line {e.lineno}, column {e.colno}: not valid JSON ({e.msg}); expected a {what}") \
            from None
    except RecursionError:
        raise error(f"{where}: the JSON is nested too deeply") from None
    if kind is not None and not isinstance(data, kind):
        raise error(f"{where}: expected a {what} ({'a JSON object' if kind is dict else kind.__name__}), "
                    f"got {type(data).__name__}")
    return data


def read_json(path, what: str, error=ValueError, kind=dict):
    return parse_json(read_text(path, what, error), path, what, error, kind)


def read_toml(path, what: str, error=ValueError) -> dict:
    """A TOML file as a dict, or ``error`` naming it and the line (an empty file is an empty table)."""
    text = read_text(path, what, error, empty_ok=True)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise error(f"{path}: the TOML is nested too deeply") from None


def check_file(path, what: str, error=ValueError) -> Path:
    """``path`` if it is a non-empty file (checked without reading it: a table may be gigabytes)."""
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror or e}") from None
    if path.is_dir():
        raise error(f"{path}: a directory, not a {what}")
    if st.st_size == 0:
        raise error(f"{path}: the {what} is empty")
    return path


def read_parquet(path, what: str, error=ValueError, columns=None):
    """A Parquet table as a DataFrame, or ``error`` naming the file: missing, empty, truncated or damaged,
    or without the columns asked for."""
    import pandas as pd

    path = check_file(path, what, error)
    try:
        return pd.read_parquet(path, columns=columns)
    except Exception as e:  # noqa: BLE001 - pyarrow's errors for a damaged file are of many classes
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise error(f"{path}: not a readable {what} (truncated or damaged Parquet: {first})") from None


MODEL = "model file"
MODEL_SUFFIXES = (".npz", ".json")


def read_npz(path, what: str, error=ValueError, names=(), finite: bool = True) -> dict:
    """The arrays of a NumPy ``.npz`` archive, all read now (a damaged member fails here, not at its
    first use), never unpickled; or ``error`` naming the file: missing, empty, truncated or damaged,
    an array of objects, without the arrays ``names``, or (``finite``) with NaN or infinity in one."""
    import numpy as np

    path = check_file(path, what, error)
    try:
        with open(path, "rb") as f:
            head = f.read(6)
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror or e}") from None
    if head == b"\x93NUMPY":
        raise error(f"{path}: a single NumPy array (.npy), not a {what} (an .npz archive of named arrays)")
    if not head.startswith(b"PK"):
        raise error(f"{path}: not a {what} (an .npz archive starts with the zip signature PK; this file with "
                    f"{head!r})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
            unlisted = _unlisted(archive.zip)
    except Exception as e:  # noqa: BLE001 - zipfile, zlib, numpy's format and pickle refusals: many classes
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        if "allow_pickle" in first:
            raise error(f"{path}: the {what} holds an array of Python objects, which is never unpickled "
                        "(numbers only)") from None
        raise error(f"{path}: not a readable {what} (truncated or damaged .npz: {first})") from None
    if unlisted is not None:
        raise error(f"{path}: a damaged {what}: its directory does not match its members from byte {unlisted} "
                    "(an array may be lost)")
    missing = [n for n in names if n not in arrays]
    if missing:
        raise error(f"{path}: the {what} has no array {missing[0]!r}; it holds {', '.join(arrays) or 'none'}")
    for name, array in arrays.items():
        if finite and array.dtype.kind in "fc" and not np.isfinite(array).all():
            raise error(f"{path}: array {name!r} of the {what} holds NaN or infinity")
    return arrays


def read_model(path, error=ValueError, names=()) -> dict:
    """A model file by its suffix: ``.npz`` (named arrays, read_npz) or ``.json`` (a JSON object); every
    failure one line naming the file."""
    suffix = Path(path).suffix.lower()
    if suffix == ".npz":
        return read_npz(path, MODEL, error, names)
    if suffix == ".json":
        data = read_json(path, MODEL, error)
        missing = [n for n in names if n not in data]
        if missing:
            raise error(f"{path}: the {MODEL} has no field {missing[0]!r}")
        try:
            where = _not_finite(data)
        except RecursionError:
            raise error(f"{path}: the JSON is nested too deeply") from None
        if where:
            raise error(f"{path}: {where} of the {MODEL} is NaN or infinity (JSON's NaN, Infinity or 1e999)")
        return data
    raise error(f"{path}: a {MODEL} is {' or '.join(MODEL_SUFFIXES)}, not {suffix or 'a file without a suffix'}")


def _not_finite(data, where: str = "") -> str:
    """The first number in JSON ``data`` that is NaN or infinite, as a path ("field 'w'[3]"), or ""."""
    if isinstance(data, float):
        return "" if data == data and abs(data) != float("inf") else where or "the value"
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _not_finite(value, f"{where}[{key!r}]" if where else f"field {key!r}")
        if found:
            return found
    return ""


def _unlisted(archive) -> int | None:
    """The first byte where a zip archive's members and its directory disagree (None: they agree):
    a damaged directory can drop a member silently, which zipfile does not notice."""
    import struct

    infos = sorted(archive.infolist(), key=lambda i: i.header_offset)
    end = infos[0].header_offset if infos else archive.start_dir
    for info in infos:
        if info.flag_bits & 0x08:  # sizes written after the data: not laid out to check here
            return None
        if info.header_offset != end:
            return min(end, info.header_offset)
        archive.fp.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", archive.fp.read(4))
        end = info.header_offset + 30 + name_length + extra_length + info.compress_size
    return None if end == archive.start_dir else min(end, archive.start_dir)
