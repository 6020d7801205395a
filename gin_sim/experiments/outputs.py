"""Folders gin-sim writes: one writer at a time, and never a user's files.

Every folder gin-sim writes into (a run folder, a report, a report set, a tuning study) is
one it created or found empty, and it says so:

- ``.gin-sim.lock``: the folder's writer lock. A writer holds an exclusive ``flock`` on it
  for as long as it writes, so a second gin-sim started on the same folder (at the same
  moment or later) is refused at once instead of mixing its results into the first one's.
  The file is created once and never removed or replaced (removing a lock file lets two
  writers lock two different files).
- ``.gin-sim.json`` (reports, report sets, tuning folders): what the folder holds: its kind,
  the options of the command that writes it, and whether that command finished. Run
  folders have ``manifest.json`` for this (``gin_sim.experiments.runs``).

``claim_folder`` is the one way in: a new or empty folder is claimed and marked; a folder
gin-sim marked as the same kind of output is reused (the same command resumes it, or finds
it finished and rewrites nothing); anything else (a user's files, another kind of output,
a finished output of other options) is a one-line ``FolderError``.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gin_sim.game.config import ConfigError, parse_json, read_user_file

LOCK = ".gin-sim.lock"
OWNER = ".gin-sim.json"
OWNER_FORMAT = 1
# The temporary names of an owner record being written (``_write_owner``).
_OWNER_TEMPORARY = f".{OWNER}."
# How many names of a user's files an error lists.
_NAMES_SHOWN = 3


class FolderError(ConfigError):
    """A folder gin-sim may not write into as asked (another writer, a user's files)."""


# -- names that become file names -----------------------------------------------------------
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_LONGEST_NAME = 80


def safe_name(text: str) -> str:
    """A strategy's or rule set's name as one file or folder name, injectively: letters,
    digits and ``-`` stay, every other byte of its UTF-8 text (``_``, ``.``, ``/``, a space)
    becomes ``_`` and two hex digits, so two names never share a file and no name leaves
    its folder (``..`` is ``_2e_2e``). A name longer than 80 characters so written keeps
    its first 48 and a hash of the whole (``~`` never appears otherwise).

    >>> safe_name("hollywood-gin20"), safe_name("my rules"), safe_name("my_rules")
    ('hollywood-gin20', 'my_20rules', 'my_5frules')
    """
    encoded = "".join(
        chr(byte) if chr(byte) in _SAFE else f"_{byte:02x}" for byte in text.encode("utf-8")
    )
    if not encoded:
        return "_"
    if len(encoded) > _LONGEST_NAME:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        encoded = f"{encoded[:48]}~{digest}"
    return encoded


def inside(root: str | Path, name: str, what: str = "a derived name") -> Path:
    """``root / name`` for a file or folder whose name is derived from a user's input (a
    rule set's or strategy's name), refused unless it stays inside ``root``: one entry
    directly in it, never ``..``, a path, or a symbolic link leading elsewhere. The one
    check every derived path goes through before anything is written there."""
    root = Path(root)
    path = root / name
    leaves = (
        not name
        or name in (".", "..")
        or "/" in name
        or "\0" in name
        or (os.sep != "/" and os.sep in name)
        or path.parent != root
    )
    if not leaves and path.is_symlink():
        leaves = Path(os.path.realpath(path)).parent != Path(os.path.realpath(root))
    if leaves:
        raise FolderError(
            f"{shown_name(name)} ({what}) would be written outside {root}: a name that becomes a file or folder name may not hold '/' or be '..'; rename it"
        )
    return path


def shown_name(name: str) -> str:
    text = repr(name)
    return text if len(text) <= 80 else f"{text[:80]}... ({len(name):,} characters)"


# -- the writer lock -------------------------------------------------------------------------
# flock treats two descriptors of one file in the same process as two owners, so a process
# keeps one descriptor per folder and counts how often it took it (a tournament opens a run
# to submit its chunks, then plays it).
_held: dict[Path, list[int]] = {}
_held_guard = threading.Lock()


def lock_folder(folder: Path) -> Path | None:
    """Take ``folder``'s writer lock, or raise ``FolderError`` naming the folder when another
    process holds it. Returns the key to ``unlock_folder``, or None where no lock can be
    taken because the folder is read-only (then nobody can write there either)."""
    key = folder.resolve()
    with _held_guard:
        if key in _held:
            _held[key][1] += 1
            return key
        path = key / LOCK
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EROFS, errno.EPERM):
                try:
                    descriptor = os.open(path, os.O_RDONLY)
                except OSError:
                    return None
            else:
                raise FolderError(
                    f"cannot lock the folder {folder}: {error.strerror or error}"
                ) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise FolderError(
                    f"{folder} is being written by another gin-sim process: wait until it "
                    "ends, or choose another folder"
                ) from None
            raise FolderError(
                f"cannot lock the folder {folder}: {error.strerror or error}"
            ) from None
        _held[key] = [descriptor, 1]
        return key


def unlock_folder(key: Path | None) -> None:
    """Give back one hold of a lock taken with ``lock_folder``."""
    if key is None:
        return
    with _held_guard:
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del _held[key]
            os.close(entry[0])  # closing the last descriptor releases the flock


# -- what a folder holds ---------------------------------------------------------------------
def is_bookkeeping(name: str) -> bool:
    """gin-sim's own hidden files: the lock, the owner record and its temporary names."""
    return name in (LOCK, OWNER) or (name.startswith(_OWNER_TEMPORARY) and name.endswith(".tmp"))


def foreign_entries(folder: Path, own: Callable[[str], bool]) -> list[str]:
    """The names in ``folder`` that are neither gin-sim's bookkeeping nor ``own(name)``."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except OSError as error:
        raise FolderError(f"cannot read the folder {folder}: {error.strerror or error}") from None
    return [name for name in names if not is_bookkeeping(name) and not own(name)]


def describe_entries(names: list[str]) -> str:
    shown = ", ".join(names[:_NAMES_SHOWN])
    return shown + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")


def make_folder(folder: Path, what: str) -> None:
    """Create ``folder`` and its parents, or say in one line why it cannot be."""
    if folder.exists() and not folder.is_dir():
        raise FolderError(f"cannot create the {what} {folder}: it is a file, not a folder")
    for parent in folder.parents:
        if parent.exists():
            if not parent.is_dir():
                raise FolderError(f"cannot create the {what} {folder}: {parent} is a file")
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FolderError(f"cannot create the {what} {folder}: {error.strerror or error}") from None


# An owner mark is a few hundred bytes; a report's options, a few kilobytes.
MAX_OWNER_BYTES = 1 << 16


def read_owner(folder: Path) -> dict[str, Any] | None:
    """The owner record of ``folder``, None when it has none; a record that is not gin-sim's
    (damaged, someone else's file of that name, a FIFO, a huge file, nested too deeply)
    is an error naming it. Read as every file gin-sim reads (``opened_user_file``)."""
    path = folder / OWNER
    try:
        record = parse_json(read_user_file(path, MAX_OWNER_BYTES), str(path))
    except FileNotFoundError:
        return None
    except ConfigError as error:  # not a regular file, too large, nested too deeply
        raise FolderError(
            f"{error}; not gin-sim's owner mark: the folder cannot be told apart from a user's; choose another folder"
        ) from None
    except OSError as error:
        raise FolderError(f"cannot read {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, ValueError):
        record = None
    if (
        not isinstance(record, dict)
        or record.get("format") != OWNER_FORMAT
        or not isinstance(record.get("kind"), str)
        or not isinstance(record.get("options"), dict)
        or not isinstance(record.get("finished"), bool)
    ):
        raise FolderError(
            f"{path} is damaged or not gin-sim's: the folder cannot be told apart from a user's; choose another folder"
        )
    return record


def _write_owner(folder: Path, kind: str, options: dict[str, Any], finished: bool) -> None:
    record = {"format": OWNER_FORMAT, "kind": kind, "options": options, "finished": finished}
    path = folder / OWNER
    temporary = folder / f"{_OWNER_TEMPORARY}{secrets.token_hex(6)}.tmp"
    try:
        temporary.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise FolderError(f"cannot write {path}: {error.strerror or error}") from None


def differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    """How the options or configuration recorded in a folder differ from those asked, in a
    few words for a one-line error: up to three keys, with both values where they are short
    (a whole rule set or player is named, not printed)."""
    keys = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
    if not keys:
        return "a different configuration"

    def shown(key: str) -> str:
        there, asked = repr(old.get(key)), repr(new.get(key))
        if len(there) + len(asked) > 60:
            return f"other {key}"
        return f"{key} {there} there, {asked} asked"

    return ", ".join(shown(k) for k in keys[:3])


def plain(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` as they read back from JSON (tuples become lists, paths text), so a record
    compares equal to the options that wrote it."""
    return json.loads(json.dumps(options, default=str))


class Claim:
    """A folder held for writing (a context manager: leaving it releases the lock).

    ``finished`` is True when the same command already finished here: then nothing is to
    be written (and the folder may be read-only).
    """

    def __init__(self, folder: Path, kind: str, options: dict[str, Any]) -> None:
        self.folder = folder
        self.kind = kind
        self.options = options
        self.finished = False
        self.created = False  # the claim made the folder (it did not exist)
        self._key: Path | None = None

    def finish(self) -> None:
        """Mark the output finished: the same command now only reports it."""
        _write_owner(self.folder, self.kind, self.options, True)
        self.finished = True

    def release(self) -> None:
        """Give the folder back. A folder this claim created that still holds nothing but
        gin-sim's bookkeeping (the command was refused or stopped before writing) is
        removed, so a refused command leaves nothing behind."""
        if self.created and not self.finished and self._key is not None:
            try:
                if not foreign_entries(self.folder, lambda name: False):
                    for name in (OWNER, LOCK):
                        (self.folder / name).unlink(missing_ok=True)
                    self.folder.rmdir()
            except OSError:
                pass  # something appeared meanwhile: the folder stays
        unlock_folder(self._key)
        self._key = None

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def check_folder(
    folder: str | Path,
    kind: str,
    options: dict[str, Any],
    own: Callable[[str], bool],
    reclaim_unfinished: bool = True,
) -> bool:
    """Refuse, without writing anything, what ``claim_folder`` would refuse; True when the
    same command already finished there. For checks before anything is played."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise FolderError(f"{path} is a file: allowed a new or empty folder, or one gin-sim wrote")
    if not path.exists():
        make_check = next((p for p in path.parents if p.exists()), Path("."))
        if not make_check.is_dir():
            raise FolderError(f"cannot create the folder {path}: {make_check} is a file")
        if not os.access(make_check, os.W_OK | os.X_OK):
            raise FolderError(f"cannot create the folder {path}: {make_check} is not writable")
        return False
    return _judge(path, kind, plain(options), own, reclaim_unfinished)


def _judge(
    folder: Path,
    kind: str,
    options: dict[str, Any],
    own: Callable[[str], bool],
    reclaim_unfinished: bool,
) -> bool:
    record = read_owner(folder)
    if record is None:
        foreign = foreign_entries(folder, lambda name: False)
        if foreign:
            raise FolderError(
                f"{folder} holds files gin-sim did not write ({describe_entries(foreign)}): allowed a new or empty folder, or one gin-sim wrote; choose another"
            )
    else:
        if record["kind"] != kind:
            raise FolderError(
                f"{folder} holds gin-sim's {record['kind']} output, not a {kind}: choose another folder"
            )
        if record["options"] != options and (record["finished"] or not reclaim_unfinished):
            state = "a finished" if record["finished"] else "an unfinished"
            raise FolderError(
                f"{folder} holds {state} {kind} of other options ({differences(record['options'], options)}): rerun it with the same options, or choose another folder"
            )
        foreign = foreign_entries(folder, own)
        if foreign and not (record["finished"] and record["options"] == options):
            raise FolderError(
                f"{folder} holds files gin-sim did not write ({describe_entries(foreign)}): move them away or choose another folder"
            )
        return record["finished"] and record["options"] == options
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FolderError(f"cannot write to the folder {folder}: it is not writable")
    return False


def claim_folder(
    folder: str | Path,
    kind: str,
    options: dict[str, Any],
    own: Callable[[str], bool],
    reclaim_unfinished: bool = True,
) -> Claim:
    """Claim ``folder`` for a ``kind`` of output made with ``options`` (plain JSON values).

    ``own(name)`` says which names an output of this kind writes; anything else in a
    claimed folder is a user's and makes the claim fail. An unfinished output of other
    options is taken over when ``reclaim_unfinished`` (a report rewrites all its files),
    refused otherwise (a tuning study keeps its trials). The folder's writer lock is held
    until the claim is released.
    """
    path = Path(folder)
    options = plain(options)
    claim = Claim(path, kind, options)
    # Judged before locking too: a folder that is refused gets no lock file (it is not
    # gin-sim's to write in), and a finished output may sit in a read-only folder.
    if path.is_dir() and _judge(path, kind, options, own, reclaim_unfinished):
        claim.finished = True
        return claim
    claim.created = not path.exists()
    make_folder(path, "folder")
    claim._key = lock_folder(path)
    try:
        # Judged again under the lock: another writer may have claimed it meanwhile.
        if _judge(path, kind, options, own, reclaim_unfinished):
            claim.finished = True
            return claim
        if claim._key is None:
            raise FolderError(f"cannot write to the folder {path}: it is not writable")
        _write_owner(path, kind, options, False)
    except BaseException:
        claim.release()
        raise
    return claim


# What a report writes into its folder: report.md, report.json, its tables (CSV, Parquet), its
# figures (PNG; a strategy card also as SVG), for a tournament the pairings' run folders
# under runs/ and for advice its positions datasets (positions/, positions-RULES/) and its
# knock positions played out (knock-play/), both kept so that an interrupted report resumes.
_REPORT_FILE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9_.-]*\.(?:md|json|csv|parquet|png|svg)|runs|knock-play"
    r"|positions(?:-[A-Za-z0-9_.-]+)?"
)


def is_report_file(name: str) -> bool:
    """A name a report writes in its folder (the tuner's folders hold a report too)."""
    return bool(_REPORT_FILE.fullmatch(name))
