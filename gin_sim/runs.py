"""Run folders: resumable, reproducible simulation runs stored as Parquet chunks.

A run folder holds ``manifest.json`` (the full resolved configuration, the package
version, the time) and one Parquet file per finished chunk of deals or matches. Every
file is written under a temporary name and renamed, so a file in the folder is never
half-written; running the same command again skips the chunks already there, and since
a deal depends only on (seed, index) the result is identical to an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from gin_sim.config import ConfigError
from gin_sim.rules import Rules, rules_from_dict
from gin_sim.strategies import Strategy, strategy_from_dict

MANIFEST = "manifest.json"
# Writing competes with the kernels for the cores, so it is kept cheap: dictionary
# encoding buys little on these columns (masks, small counts) and costs a third of the
# writing time, and lz4 compresses about as fast as no compression (about 35 bytes a hand).
PARQUET_OPTIONS = {"compression": "lz4", "use_dictionary": False}
RUN_FORMAT = 1
KINDS = ("hands", "matches")


class RunError(ConfigError):
    """A run folder that cannot be used as asked (foreign, damaged, unwritable)."""


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's results (and nothing that does not, like threads)."""

    kind: str  # "hands" or "matches"
    rules: Rules
    players: tuple[Strategy, Strategy]
    seed: int
    count: int  # decks (hands runs) or matches
    duplicate: bool
    chunk_size: int
    with_hands: bool = False  # matches runs: also keep every hand of every match

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"run kind {self.kind!r}: allowed {', '.join(KINDS)}")
        if self.count < 1:
            raise ConfigError(
                f"{'deals' if self.kind == 'hands' else 'matches'} = {self.count}: allowed 1 or more"
            )
        if self.chunk_size < 1:
            raise ConfigError(f"chunk size = {self.chunk_size}: allowed 1 or more")

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)

    def chunk_range(self, chunk: int) -> tuple[int, int]:
        start = chunk * self.chunk_size
        return start, min(self.count, start + self.chunk_size)

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        document["players"] = [p.to_config() for p in self.players]
        return document

    @classmethod
    def from_json(cls, document: dict[str, Any], where: str) -> RunConfig:
        try:
            values = dict(document)
            values["rules"] = rules_from_dict(values["rules"], f"{where} (rules)")
            values["players"] = tuple(
                strategy_from_dict(p, f"{where} (players)") for p in values["players"]
            )
            return cls(**values)
        except (KeyError, TypeError, AttributeError) as error:
            raise RunError(f"{where} is not a gin-sim run manifest ({error!r})") from None


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, then rename over ``path``."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(Path(temporary))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class Run:
    """An open run folder."""

    def __init__(self, directory: Path, config: RunConfig) -> None:
        self.directory = directory
        self.config = config

    # -- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, directory: str | Path, config: RunConfig, overwrite: bool = False) -> Run:
        """Create the folder, resume the same run in it, or refuse another run's folder."""
        folder = Path(directory)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise RunError(
                f"cannot create the run folder {folder}: {error.strerror or error}"
            ) from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise RunError(f"cannot write to the run folder {folder}: choose another --out")
        manifest = folder / MANIFEST
        if manifest.exists() and not overwrite:
            existing = read_manifest(folder)
            if existing != config:
                differences = _differences(existing.to_json(), config.to_json())
                raise RunError(
                    f"{folder} holds another run ({differences}): use another --out, the same settings to resume it, or --overwrite to replace it"
                )
        else:
            if overwrite:
                for stale in [*folder.glob("*.parquet"), manifest]:
                    stale.unlink(missing_ok=True)
            elif any(folder.glob("*.parquet")):
                raise RunError(
                    f"{folder} holds Parquet files but no {MANIFEST}: use another --out or --overwrite"
                )
            document = {
                "format": RUN_FORMAT,
                "gin_sim_version": _version(),
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
                "config": config.to_json(),
            }
            _write_atomically(
                manifest, lambda p: p.write_text(json.dumps(document, indent=2) + "\n")
            )
        return cls(folder, config)

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
        """True when every file of the chunk is there and whole; a damaged file is an error."""
        files = self.chunk_files(chunk)
        if not all(path.exists() for path in files.values()):
            return False
        for level, path in files.items():
            try:
                rows = pq.read_metadata(path).num_rows
            except (OSError, pa.ArrowException) as error:
                raise RunError(
                    f"chunk file {path} is damaged ({str(error).splitlines()[0]}): delete it and run the same command again to recompute it"
                ) from None
            counted = level == "match" or self.config.kind == "hands"  # hands per match vary
            if counted and rows != self.expected_rows(chunk):
                raise RunError(
                    f"chunk file {path} has {rows} rows, expected {self.expected_rows(chunk)}: delete it and run the same command again to recompute it"
                )
        return True

    def missing_chunks(self) -> list[int]:
        return [c for c in range(self.config.n_chunks) if not self.is_done(c)]

    def write_chunk(self, chunk: int, frames: dict[str, pd.DataFrame]) -> None:
        for level, path in self.chunk_files(chunk).items():
            table = pa.Table.from_pandas(frames[level], preserve_index=False)
            _write_atomically(
                path, lambda p, table=table: pq.write_table(table, p, **PARQUET_OPTIONS)
            )

    def read_chunk(self, chunk: int, level: str) -> pd.DataFrame:
        path = self.chunk_files(chunk).get(level)
        if path is None:
            raise RunError(
                f"{self.directory} has no {level}-level records: allowed levels are {', '.join(self.chunk_files(0))}"
            )
        try:
            return pq.read_table(path).to_pandas()
        except (OSError, pa.ArrowException) as error:
            raise RunError(
                f"chunk file {path} is damaged ({str(error).splitlines()[0]}): delete it and run the same command again to recompute it"
            ) from None

    def chunks(self, level: str) -> Iterator[pd.DataFrame]:
        for chunk in range(self.config.n_chunks):
            yield self.read_chunk(chunk, level)


def _version() -> str:
    from gin_sim import __version__

    return __version__


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in new if old.get(k) != new.get(k)]
    return "different " + ", ".join(keys) if keys else "a different configuration"


def read_manifest(directory: str | Path) -> RunConfig:
    folder = Path(directory)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise RunError(f"run folder {folder} does not exist")
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{folder} is not a run folder: it has no {MANIFEST}") from None
    except (OSError, json.JSONDecodeError) as error:
        raise RunError(
            f"{path} is damaged ({error}): it cannot be read as JSON; restore it or start the run again with --overwrite"
        ) from None
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
    missing = run.missing_chunks()
    if missing:
        raise RunError(
            f"{run.directory} is unfinished: {len(missing)} of {run.config.n_chunks} chunks missing; run the same command again to finish it"
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
    from gin_sim.simulate import head_to_head, head_to_head_matches

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
    tasks on its workers (``gin_sim.cluster``); the results are the same. The workers
    return the records and the client writes them, unless ``workers_write`` (the folder is
    shared, at the same path on every worker): then each worker writes its own chunk.
    """
    run = Run.open(directory, config, overwrite) if directory is not None else None
    level = summary_level(config)
    done = [run is not None and run.is_done(chunk) for chunk in range(config.n_chunks)]
    shared = str(run.directory) if run is not None and workers_write else None
    tasks = {}
    if client is not None:
        from gin_sim.cluster import TASK_RETRIES

        tasks = {
            chunk: client.submit(
                play_chunk_on_worker,
                config,
                chunk,
                threads,
                shared,
                pure=False,
                retries=TASK_RETRIES,
            )
            for chunk in range(config.n_chunks)
            if not done[chunk]
        }
    # One writer thread saves chunk i while the kernels (which release the GIL) play
    # chunk i + 1; a chunk is reported done only once its files are in place.
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending: tuple[Future | None, int, bool, pd.DataFrame] | None = None
        for chunk in range(config.n_chunks):
            saving = None
            if done[chunk]:
                frame, resumed = run.read_chunk(chunk, level), True  # type: ignore[union-attr]
            else:
                frames = (
                    tasks[chunk].result() if chunk in tasks else play_chunk(config, chunk, threads)
                )
                frame, resumed = frames[level], False
                saved_by_worker = chunk in tasks and shared is not None
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
