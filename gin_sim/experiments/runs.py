"""Run folders: resumable, reproducible simulation runs stored as Parquet chunks.

A run folder holds ``manifest.json`` (the full resolved configuration, the package
version, the time) and one Parquet file per finished chunk of deals or matches. Every
file is written under a temporary name and renamed, so a file in the folder is never
half-written; running the same command again skips the chunks already there, and since
a deal depends only on (seed, index) the result is identical to an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gin_sim.experiments.outputs import (
    describe_entries,
    differences,
    foreign_entries,
    lock_folder,
    make_folder,
    unlock_folder,
)
from gin_sim.game.config import ConfigError, opened_user_file, parse_json, read_user_file
from gin_sim.game.limits import (
    MAX_CHUNK_SIZE,
    MAX_COUNT,
    MAX_MATCHES,
    check_chunks,
    check_count,
    check_seed,
)
from gin_sim.game.match_start import MatchStart
from gin_sim.game.records import HAND_FIELDS, MATCH_FIELDS
from gin_sim.game.rules import Rules, rules_from_dict
from gin_sim.players.strategies import Strategy, strategy_from_dict

MANIFEST = "manifest.json"
# Writing competes with the kernels for the cores, so it is kept cheap: dictionary
# encoding buys little on these columns (masks, small counts) and costs a third of the
# writing time, and lz4 compresses about as fast as no compression (about 35 bytes a hand).
PARQUET_OPTIONS = {"compression": "lz4", "use_dictionary": False}
RUN_FORMAT = 1
KINDS = ("hands", "matches")
# The names a run or a positions dataset (``gin_sim.experiments.positions``) gives its files, and their
# temporary names while being written (``_write_atomically``): --overwrite and resume touch
# these and nothing else.
CHUNK_NAME = re.compile(r"(hands|matches|match-hands|positions)-[0-9]{6,}\.parquet")
TEMPORARY_NAME = re.compile(rf"\.(?:{CHUNK_NAME.pattern}|{re.escape(MANIFEST)})\.[0-9a-z_]+\.tmp")
CHUNK_METADATA = b"gin_sim"  # Parquet key-value metadata of a chunk: its run's seed and range
# The columns a chunk of each level must hold, beyond which nothing is read.
LEVEL_COLUMNS = {
    "hand": (*HAND_FIELDS, "swapped"),
    "match": (*MATCH_FIELDS, "swapped"),
}


class RunError(ConfigError):
    """A run folder that cannot be used as asked (foreign, damaged, unwritable)."""


class Chunked:
    """A configuration played in chunks of ``chunk_size`` of its ``total`` deals (or
    matches): what a ``ChunkFolder`` saves and resumes chunk by chunk."""

    chunk_size: int

    @property
    def total(self) -> int:
        raise NotImplementedError

    @property
    def n_chunks(self) -> int:
        return -(-self.total // self.chunk_size)

    def chunk_range(self, chunk: int) -> tuple[int, int]:
        start = chunk * self.chunk_size
        return start, min(self.total, start + self.chunk_size)


def check_rules_and_players(rules: object, players: object) -> None:
    """A run's or a dataset's rule set and its two strategies, as typed objects."""
    if not isinstance(rules, Rules):
        raise ConfigError(f"rules = {rules!r}: expected a rule set")
    if (
        not isinstance(players, tuple)
        or len(players) != 2
        or not all(isinstance(p, Strategy) for p in players)
    ):
        raise ConfigError(f"players = {players!r}: expected two strategies")


@dataclass(frozen=True)
class RunConfig(Chunked):
    """Everything that determines a run's results (and nothing that does not, like threads)."""

    kind: str  # "hands" or "matches"
    rules: Rules
    players: tuple[Strategy, Strategy]
    seed: int
    count: int  # decks (hands runs) or matches
    duplicate: bool
    chunk_size: int
    with_hands: bool = False  # matches runs: also keep every hand of every match
    # matches runs: the score state every match starts from (``gin_sim.game.match_start``),
    # also a plain game to the target; None: whole Hollywood matches from 0.
    start: MatchStart | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"run kind {self.kind!r}: allowed {', '.join(KINDS)}")
        check_rules_and_players(self.rules, self.players)
        for key in ("duplicate", "with_hands"):
            if not isinstance(getattr(self, key), bool):
                raise ConfigError(f"{key} = {getattr(self, key)!r}: allowed true or false")
        check_seed(self.seed)
        what = "deals" if self.kind == "hands" else "matches"
        check_count(self.count, what, 1, MAX_COUNT if self.kind == "hands" else MAX_MATCHES)
        check_chunks(self.count, self.chunk_size, what)
        if self.start is not None:
            if self.kind != "matches":
                raise ConfigError("a start state is for matches runs only")
            if not isinstance(self.start, MatchStart):
                raise ConfigError(f"start = {self.start!r}: expected a match start state")
            self.start.validate(self.rules)

    @property
    def total(self) -> int:
        return self.count

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["players"] = [p.to_config() for p in self.players]
        # Runs from the start of a match keep the manifest (and so the run identity) they
        # had before start states existed.
        if self.start is None:
            del document["start"]
        else:
            document["start"] = self.start.to_json()
        return document

    @classmethod
    def from_json(cls, document: dict[str, Any], where: str) -> RunConfig:
        try:
            values = dict(document)
            if not isinstance(values["rules"], dict) or not isinstance(values["players"], list):
                raise TypeError("rules must be a table and players a list")
            values["rules"] = rules_from_dict(values["rules"], f"{where} (rules)")
            values["players"] = tuple(
                strategy_from_dict(p, f"{where} (players)") for p in values["players"]
            )
            if "start" in values:
                values["start"] = MatchStart.from_json(
                    values["start"], values["rules"], f"{where} (start)"
                )
            return cls(**values)
        except RunError:
            raise
        except ConfigError as error:
            if where in str(error):
                raise RunError(str(error)) from None
            raise RunError(
                f"{where}: {error}; restore it or start the run again with --overwrite"
            ) from None
        except (KeyError, TypeError, AttributeError) as error:
            raise RunError(f"{where} is not a gin-sim run manifest ({error!r})") from None


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename over ``path``.

    The temporary file is created with mode 0666 less the umask, as any new file, so the
    folder's group can read the run. A failed write (a full disk) removes it and raises a
    ``RunError`` naming the file; the files already in the folder are untouched.
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        write(temporary)
        os.replace(temporary, path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise RunError(
                f"cannot write {path}: {error.strerror or error}; the files already saved are kept: free some space (or fix the folder) and run the same command again to resume"
            ) from None
        raise


def _run_files(folder: Path) -> list[Path]:
    """The chunk files of a run in ``folder`` (by their names), never the user's own files."""
    return [p for p in folder.iterdir() if CHUNK_NAME.fullmatch(p.name) and p.is_file()]


def _is_run_file(name: str) -> bool:
    return name == MANIFEST or bool(CHUNK_NAME.fullmatch(name) or TEMPORARY_NAME.fullmatch(name))


def _refuse_foreign_files(folder: Path) -> None:
    """A run writes only into a folder that holds nothing but its own files."""
    foreign = foreign_entries(folder, _is_run_file)
    if foreign:
        raise RunError(
            f"{folder} holds files that are not this run's ({describe_entries(foreign)}): a run folder holds only gin-sim's files; move them away or choose another --out"
        )


def _written_by_gin_sim(manifest: Path) -> bool:
    """Whether ``manifest`` is a manifest gin-sim wrote (of a run or a dataset, of any
    version): a JSON object with its format, version and configuration. gin-sim writes a
    manifest whole (``_write_atomically``), so anything else is not its file."""
    try:
        document = parse_json(read_user_file(manifest), str(manifest))
    except (OSError, ValueError):  # unreadable, not JSON, a FIFO, too large
        return False
    return (
        isinstance(document, dict)
        and isinstance(document.get("format"), int)
        and isinstance(document.get("gin_sim_version"), str)
        and isinstance(document.get("config"), dict)
    )


def _is_stamped_chunk(path: Path) -> bool:
    """Whether ``path`` is a Parquet chunk that gin-sim wrote (its stamp, ``_write_stamped``)."""
    try:
        metadata = _read_chunk(path, pq.read_metadata)
    except RunError:
        return False
    return CHUNK_METADATA in (metadata.metadata or {})


def _refuse_files_not_written_by_gin_sim(folder: Path) -> list[Path]:
    """Before ``--overwrite`` removes a folder's manifest and chunks: each must be gin-sim's
    (a manifest it wrote; a chunk it stamped, or any chunk beside its manifest, since
    chunks before stamps had none), else a one-line ``RunError`` and nothing is removed.
    Returns the chunk files to remove."""
    manifest = folder / MANIFEST
    ours = not (manifest.exists() or manifest.is_symlink()) or _written_by_gin_sim(manifest)
    if not ours or manifest.is_symlink():
        raise RunError(
            f"{manifest} is not a manifest gin-sim wrote: --overwrite replaces only gin-sim's own files; move it away or choose another --out"
        )
    chunks = _run_files(folder)
    if not manifest.exists():
        for path in chunks:
            if not _is_stamped_chunk(path):
                raise RunError(
                    f"{path} is not a chunk gin-sim wrote: --overwrite replaces only gin-sim's own files; move it away or choose another --out"
                )
    return chunks


def run_identity(config: Any) -> str:
    """What identifies a run (or a positions dataset) in each of its chunks: a hash of its
    whole configuration (players, rules, seed, counts, settings; ``config.to_json()``), so
    a chunk of any other run is told apart."""
    text = json.dumps(config.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _remove_temporary_files(folder: Path) -> None:
    """Remove what a killed writer left behind: only the run's own temporary names."""
    for path in folder.iterdir():
        if TEMPORARY_NAME.fullmatch(path.name) and path.is_file():
            path.unlink(missing_ok=True)


REDO = "delete it and run the same command again to recompute it"


class ChunkFolder:
    """A folder of Parquet chunks beside ``manifest.json``, opened for one writer: a run
    (``Run``) or a positions dataset (``gin_sim.experiments.positions.PositionSet``). Subclasses name
    what they hold (``WHAT``, ``chunk_kind``), the manifest's own fields and how it is read,
    where a chunk's files are and when a chunk is done (``is_done``); stamping, checking,
    writing and reading chunks is shared here."""

    WHAT = "run"
    MANIFEST_FIELDS: ClassVar[dict[str, Any]] = {"format": RUN_FORMAT}

    def __init__(self, directory: Path, config: Any) -> None:
        self.directory = directory
        self.config = config
        self.identity = run_identity(config)
        self._lock: Path | None = None

    @staticmethod
    def read_config(folder: Path) -> Any:
        raise NotImplementedError

    # -- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, directory: str | Path, config: Any, overwrite: bool = False):
        """Create the folder, resume the same run in it, or refuse another run's folder.

        The folder's writer lock (``gin_sim.experiments.outputs``) is held until ``close``, so a second
        process cannot write into it meanwhile. A finished run is only read, so it may sit
        in a folder that cannot be written, or beside files that are not the run's.
        """
        folder = Path(directory)
        make_folder(folder, f"{cls.WHAT} folder")
        # A folder that is refused gets no lock file: it is not gin-sim's to write in. (All
        # is judged again under the lock.)
        if not (folder / MANIFEST).exists():
            _refuse_foreign_files(folder)
        elif not overwrite:
            cls.read_config(folder)  # a manifest that is not gin-sim's, or damaged
        if overwrite:
            _refuse_files_not_written_by_gin_sim(folder)
        lock = lock_folder(folder)
        try:
            opened = cls._open_locked(folder, config, overwrite)
        except BaseException:
            unlock_folder(lock)
            raise
        opened._lock = lock
        return opened

    @classmethod
    def _open_locked(cls, folder: Path, config: Any, overwrite: bool):
        what = cls.WHAT
        manifest = folder / MANIFEST
        writable = os.access(folder, os.W_OK | os.X_OK)
        if manifest.exists() and not overwrite:
            existing = cls.read_config(folder)
            if existing != config:
                differences_shown = differences(existing.to_json(), config.to_json())
                raise RunError(
                    f"{folder} holds another {what} ({differences_shown}): use another --out, the same settings to resume it, or --overwrite to replace it"
                )
            opened = cls(folder, config)
            if opened.missing() == 0:
                return opened
            if not writable:
                raise RunError(
                    f"cannot write to the {what} folder {folder}: it holds this {what} unfinished; make it writable or choose another --out"
                )
            _refuse_foreign_files(folder)
            _remove_temporary_files(folder)
            return opened
        if not writable:
            raise RunError(f"cannot write to the {what} folder {folder}: choose another --out")
        _refuse_foreign_files(folder)
        _remove_temporary_files(folder)
        if overwrite:
            # --overwrite replaces gin-sim's files only, never a user's file that happens to
            # bear one of their names (a manifest.json of their own).
            stale = _refuse_files_not_written_by_gin_sim(folder)
            for path in [*stale, manifest]:
                path.unlink(missing_ok=True)
        elif _run_files(folder):
            raise RunError(
                f"{folder} holds chunk files ({_run_files(folder)[0].name}...) but no {MANIFEST}: use another --out or --overwrite"
            )
        document = {
            **cls.MANIFEST_FIELDS,
            "gin_sim_version": _version(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "config": config.to_json(),
        }
        _write_atomically(manifest, lambda p: p.write_text(json.dumps(document, indent=2) + "\n"))
        return cls(folder, config)

    def close(self) -> None:
        """Release the folder's writer lock (a folder opened with ``open``)."""
        unlock_folder(self._lock)
        self._lock = None

    # -- chunks --------------------------------------------------------------------
    # Every chunk file carries a stamp in its Parquet key-value metadata: the seed, what the
    # folder holds (``chunk_kind``), the chunk's range and the folder's identity (a hash of
    # the whole configuration), so a chunk of another run or dataset is never read as ours.
    def chunk_kind(self) -> str:
        raise NotImplementedError

    def is_done(self, chunk: int) -> bool:
        raise NotImplementedError

    def missing(self) -> int:
        """The number of chunks not finished yet."""
        return sum(not self.is_done(c) for c in range(self.config.n_chunks))

    def saved(self) -> int:
        """Deals or matches whose chunks are finished on disk (a damaged chunk counts none)."""
        total = 0
        for chunk in range(self.config.n_chunks):
            try:
                done = self.is_done(chunk)
            except RunError:
                done = False
            if done:
                start, stop = self.config.chunk_range(chunk)
                total += stop - start
        return total

    def _write_stamped(self, chunk: int, path: Path, frame: pd.DataFrame) -> None:
        start, stop = self.config.chunk_range(chunk)
        stamp = json.dumps(
            {"seed": str(self.config.seed), "kind": self.chunk_kind(), "chunk": chunk,
             "first": start, "stop": stop, "run": self.identity}, sort_keys=True,
        ).encode()  # fmt: skip
        table = pa.Table.from_pandas(frame, preserve_index=False)
        table = table.replace_schema_metadata(
            (table.schema.metadata or {}) | {CHUNK_METADATA: stamp}
        )
        _write_atomically(path, lambda p: pq.write_table(table, p, **PARQUET_OPTIONS))

    def _chunk_bytes(self) -> int:
        """The most bytes a chunk file of this folder can take: a chunk holds
        ``chunk_size`` deals or matches; a larger file is refused by its size, unread."""
        return (1 << 20) + min(self.config.chunk_size, self.config.total) * CHUNK_BYTES_PER_UNIT

    def _read_metadata(self, path: Path) -> pq.FileMetaData:
        """A chunk file's Parquet footer, or a one-line error if it is not a whole file."""
        return _read_chunk(path, pq.read_metadata, self._chunk_bytes())

    def _check_stamp(self, chunk: int, path: Path, metadata: pq.FileMetaData) -> None:
        """The chunk's stamp is this folder's: same seed, kind and range, and the same
        identity (same seed and range but other players, rules or settings means two runs
        mixed in one folder, or a chunk from before chunks carried their folder's identity)."""
        what = self.WHAT
        start, stop = self.config.chunk_range(chunk)
        recorded = _recorded(metadata.metadata)
        expected = {
            "seed": str(self.config.seed),
            "kind": self.chunk_kind(),
            "first": start,
            "stop": stop,
        }
        for field_name, value in expected.items():
            if field_name in recorded and recorded[field_name] != value:
                raise RunError(
                    f"chunk file {path} belongs to another {what} ({field_name} {recorded[field_name]}, this {what} has {value}): {REDO}"
                )
        if recorded.get("run") != self.identity:
            raise RunError(
                f"chunk file {path} is not this {what}'s (its players, rules or settings differ from {MANIFEST}, or it predates chunk stamps): {REDO}"
            )

    def _read_table(self, path: Path) -> pd.DataFrame:
        return _read_chunk(
            path, lambda handle: pq.read_table(handle).to_pandas(), self._chunk_bytes()
        )


class Run(ChunkFolder):
    """An open run folder."""

    config: RunConfig

    @staticmethod
    def read_config(folder: Path) -> RunConfig:
        return read_manifest(folder)

    # -- chunks --------------------------------------------------------------------
    def chunk_files(self, chunk: int) -> dict[str, Path]:
        """The files of one chunk, by level: ``hand`` and/or ``match``."""
        if self.config.kind == "hands":
            return {"hand": self.directory / f"hands-{chunk:06d}.parquet"}
        files = {"match": self.directory / f"matches-{chunk:06d}.parquet"}
        if self.config.with_hands:
            files["hand"] = self.directory / f"match-hands-{chunk:06d}.parquet"
        return files

    def expected_rows(self, chunk: int) -> int:
        start, stop = self.config.chunk_range(chunk)
        return (stop - start) * (2 if self.config.duplicate else 1)

    def is_done(self, chunk: int) -> bool:
        """True when every file of the chunk is there and whole; a damaged file, or one that
        belongs to another run, is an error."""
        files = self.chunk_files(chunk)
        if not all(path.exists() for path in files.values()):
            return False
        for level, path in files.items():
            self._check_chunk_file(chunk, level, path)
        return True

    def _check_chunk_file(self, chunk: int, level: str, path: Path) -> None:
        """What a chunk file shows without reading its data (the Parquet footer): its rows,
        its columns, the range of deals or matches in the column statistics, and the stamp
        ``write_chunk`` records in the key-value metadata."""
        metadata = self._read_metadata(path)
        names = metadata.schema.to_arrow_schema().names
        rows = metadata.num_rows
        counted = level == "match" or self.config.kind == "hands"  # hands per match vary
        if counted and rows != self.expected_rows(chunk):
            raise RunError(
                f"chunk file {path} has {rows} rows, expected {self.expected_rows(chunk)}: {REDO}"
            )
        key = "deal" if self.config.kind == "hands" else "match"
        required = (key, *LEVEL_COLUMNS[level])
        missing = [name for name in required if name not in names]
        if missing:
            raise RunError(
                f"chunk file {path} is not a chunk of this run (no column {missing[0]!r}): {REDO}"
            )
        start, stop = self.config.chunk_range(chunk)
        low, high = _column_range(metadata, names.index(key))
        if low is not None and (low, high) != (start, stop - 1):
            raise RunError(
                f"chunk file {path} holds {key}s {low} to {high}, expected {start} to {stop - 1}: {REDO}"
            )
        self._check_stamp(chunk, path, metadata)

    def chunk_kind(self) -> str:
        return self.config.kind

    def write_chunk(self, chunk: int, frames: dict[str, pd.DataFrame]) -> None:
        for level, path in self.chunk_files(chunk).items():
            self._write_stamped(chunk, path, frames[level])

    def read_chunk(self, chunk: int, level: str) -> pd.DataFrame:
        path = self.chunk_files(chunk).get(level)
        if path is None:
            raise RunError(
                f"{self.directory} has no {level}-level records: allowed levels are {', '.join(self.chunk_files(0))}"
            )
        self._check_chunk_file(chunk, level, path)
        return self._read_table(path)

    def chunks(self, level: str) -> Iterator[pd.DataFrame]:
        for chunk in range(self.config.n_chunks):
            yield self.read_chunk(chunk, level)


# Bytes a chunk file may take per deal or match of its chunk: a deal's records (twice,
# duplicate) or a position's take some tens of bytes in Parquet, a match's hands some
# hundreds; far beyond, a file is not a chunk (a huge or sparse file is refused by its size,
# not read).
CHUNK_BYTES_PER_UNIT = 64 << 10
MAX_CHUNK_BYTES = (1 << 20) + MAX_CHUNK_SIZE * CHUNK_BYTES_PER_UNIT


def _read_chunk(path: Path, read: Callable[[Any], Any], limit: int = MAX_CHUNK_BYTES) -> Any:
    """``read`` (a Parquet reader) on a chunk file opened as every file gin-sim reads
    (``opened_user_file``: never a FIFO's wait, never a file beyond ``limit`` bytes)."""
    try:
        with opened_user_file(path, limit) as handle:
            return read(handle)
    except ConfigError as error:  # a FIFO, a device, too large
        raise RunError(f"chunk file {error}: {REDO}") from None
    except (OSError, pa.ArrowException) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise RunError(
            f"chunk file {path} is damaged ({str(reason).splitlines()[0]}): {REDO}"
        ) from None


def _recorded(metadata: dict[bytes, bytes] | None) -> dict[str, Any]:
    """The run stamp a chunk carries in its key-value metadata ({} for older chunks)."""
    try:
        stamp = json.loads((metadata or {}).get(CHUNK_METADATA, b"{}"))
    except (ValueError, TypeError):
        return {"seed": "unreadable"}
    return stamp if isinstance(stamp, dict) else {"seed": "unreadable"}


def _column_range(metadata: pq.FileMetaData, column: int) -> tuple[int | None, int | None]:
    """The least and greatest value of a column from the row groups' statistics, if kept."""
    low = high = None
    for group in range(metadata.num_row_groups):
        statistics = metadata.row_group(group).column(column).statistics
        if statistics is None or not statistics.has_min_max:
            return None, None
        low = statistics.min if low is None else min(low, statistics.min)
        high = statistics.max if high is None else max(high, statistics.max)
    return low, high


def _version() -> str:
    from gin_sim.version import __version__

    return __version__


def read_manifest(directory: str | Path) -> RunConfig:
    folder = Path(directory)
    path = folder / MANIFEST
    if not folder.exists():
        raise RunError(f"run folder {folder} does not exist")
    if not folder.is_dir():
        raise RunError(f"run folder {folder} is a file: expected a folder written with --out")
    try:
        document = parse_json(read_user_file(path), str(path))
    except FileNotFoundError:
        raise RunError(f"{folder} is not a run folder: it has no {MANIFEST}") from None
    except IsADirectoryError:
        raise RunError(f"{path} is a folder: expected a run manifest") from None
    except OSError as error:
        raise RunError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise RunError(
            f"{path} is damaged or not gin-sim's (byte {error.start} is not UTF-8): it cannot be read as JSON; restore it, or move it away or choose another --out"
        ) from None
    except json.JSONDecodeError as error:
        raise RunError(
            f"{path} is damaged or not gin-sim's ({error}): it cannot be read as JSON; restore it, or move it away or choose another --out"
        ) from None
    except ConfigError as error:  # not a regular file, or beyond what a manifest may hold
        raise RunError(f"{error}: expected a run manifest") from None
    if (
        not isinstance(document, dict)
        or document.get("format") != RUN_FORMAT
        or "config" not in document
    ):
        raise RunError(f"{path} is not a gin-sim run manifest (format {RUN_FORMAT} expected)")
    return RunConfig.from_json(document["config"], str(path))


def open_existing(directory: str | Path) -> Run:
    return Run(Path(directory), read_manifest(directory))


DRAW_REASONS = ["none", "wall", "upcard_cap"]


def load_run(directory: str | Path, level: str = "hand") -> pd.DataFrame:
    """The records of a run folder as one DataFrame, typed for analysis.

    ``level="hand"`` gives one row per hand (hands runs, or matches runs kept with their
    hands), ``level="match"`` one row per match. Flags are booleans, ``draw_reason`` a
    categorical, and ``seat0_strategy`` / ``seat1_strategy`` the strategies in the two
    seats of each row, as categoricals. ``attrs["config"]`` holds the
    manifest's configuration.
    """
    if level not in ("hand", "match"):
        raise ConfigError(f"level {level!r}: allowed hand, match")
    run = open_existing(directory)
    missing = run.missing()
    if missing:
        raise RunError(
            f"{run.directory} is unfinished: {missing} of {run.config.n_chunks} chunks missing; run the same command again to finish it"
        )
    frame = pd.concat(list(run.chunks(level)), ignore_index=True)
    names = [p.name for p in run.config.players]
    categories = sorted(set(names))
    swapped = frame["swapped"].to_numpy()
    frame["seat0_strategy"] = pd.Categorical(
        np.where(swapped, names[1], names[0]), categories=categories
    )
    frame["seat1_strategy"] = pd.Categorical(
        np.where(swapped, names[0], names[1]), categories=categories
    )
    if "draw_reason" in frame:
        frame["draw_reason"] = pd.Categorical.from_codes(
            frame["draw_reason"].astype(int), categories=DRAW_REASONS
        )
    frame.attrs["config"] = run.config.to_json()
    return frame


def play_chunk(
    config: RunConfig, chunk: int, threads: int | None = None
) -> dict[str, pd.DataFrame]:
    """Play one chunk of a run: its records by level."""
    from gin_sim.experiments.simulate import head_to_head, head_to_head_matches

    start, stop = config.chunk_range(chunk)
    if config.kind == "hands":
        frame = head_to_head(
            config.rules, config.players, stop - start, config.seed, config.duplicate,
            first_deal=start, chunk=stop - start, threads=threads,
        )  # fmt: skip
        return {"hand": frame}
    matches, hands = head_to_head_matches(
        config.rules, config.players, stop - start, config.seed, config.duplicate,
        with_hands=config.with_hands, first_match=start, chunk=stop - start, threads=threads,
        start=config.start,
    )  # fmt: skip
    return {"match": matches} | ({"hand": hands} if hands is not None else {})


def summary_level(config: RunConfig) -> str:
    return "hand" if config.kind == "hands" else "match"


def execute(
    config: RunConfig,
    directory: str | Path | None = None,
    overwrite: bool = False,
    threads: int | None = None,
    on_chunk: Callable[[int, bool], None] | None = None,
    client: Any = None,
    workers_write: bool = False,
) -> Iterator[pd.DataFrame]:
    """Play a run chunk by chunk, yielding each chunk's summary-level records.

    With ``directory`` every finished chunk is written there and chunks already there
    are read back instead of played (resume). ``on_chunk(units, resumed)`` reports
    progress in decks or matches. With a Dask ``client`` the missing chunks are played as
    tasks on its workers (``gin_sim.experiments.cluster``); the results are the same. The workers
    return the records and the client writes them, unless ``workers_write`` (the folder is
    shared, at the same path on every worker): then each worker writes its own chunk.
    """
    run = Run.open(directory, config, overwrite) if directory is not None else None
    try:
        yield from _play_run(config, run, threads, on_chunk, client, workers_write)
    finally:
        if run is not None:
            run.close()


def _play_run(
    config: RunConfig,
    run: Run | None,
    threads: int | None,
    on_chunk: Callable[[int, bool], None] | None,
    client: Any,
    workers_write: bool,
) -> Iterator[pd.DataFrame]:
    level = summary_level(config)
    shared = str(run.directory) if run is not None and workers_write else None
    # Nothing here grows with the run: chunks are looked at one by one, and on a cluster
    # only a window of tasks ahead of the one being collected is submitted. Within the
    # window, a chunk that was looked at and not submitted is a finished one.
    submitted: dict[int, Any] = {}
    looked_at = 0  # chunks below this were looked at for submission
    window = 0
    if client is not None:
        from gin_sim.experiments.cluster import TASK_RETRIES, tasks_ahead

        window = tasks_ahead(client)

    def top_up() -> None:
        nonlocal looked_at
        while looked_at < config.n_chunks and len(submitted) < window:
            chunk = looked_at
            looked_at += 1
            if run is None or not run.is_done(chunk):
                submitted[chunk] = client.submit(
                    play_chunk_on_worker, config, chunk, threads, shared,
                    pure=False, retries=TASK_RETRIES,
                )  # fmt: skip

    # One writer thread saves chunk i while the kernels (which release the GIL) play
    # chunk i + 1; a chunk is reported done only once its files are in place.
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending: tuple[Future | None, int, bool, pd.DataFrame] | None = None
        for chunk in range(config.n_chunks):
            saving = None
            if client is not None:
                top_up()
                done = chunk not in submitted
            else:
                done = run is not None and run.is_done(chunk)
            if done:
                frame, resumed = run.read_chunk(chunk, level), True  # type: ignore[union-attr]
            else:
                task = submitted.pop(chunk, None)
                frames = task.result() if task is not None else play_chunk(config, chunk, threads)
                frame, resumed = frames[level], False
                saved_by_worker = task is not None and shared is not None
                if run is not None and not saved_by_worker:
                    saving = writer.submit(run.write_chunk, chunk, frames)
            if pending is not None:
                yield _finish(pending, config, on_chunk)
            pending = (saving, chunk, resumed, frame)
        if pending is not None:
            yield _finish(pending, config, on_chunk)


def play_chunk_on_worker(
    config: RunConfig, chunk: int, threads: int | None, shared_folder: str | None
) -> dict[str, pd.DataFrame]:
    """A Dask task: play a chunk and, when the run folder is shared, save it there too
    (then only the summary-level records travel back to the client)."""
    frames = play_chunk(config, chunk, threads)
    if shared_folder is None:
        return frames
    Run(Path(shared_folder), config).write_chunk(chunk, frames)
    level = summary_level(config)
    return {level: frames[level]}


def _finish(pending, config: RunConfig, on_chunk) -> pd.DataFrame:
    saving, chunk, resumed, frame = pending
    if saving is not None:
        saving.result()  # re-raises a failed write
    if on_chunk is not None:
        start, stop = config.chunk_range(chunk)
        on_chunk(stop - start, resumed)
    return frame
