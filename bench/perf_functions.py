"""Where an ``mc`` decision's time goes, kernel function by kernel function, by Linux perf.

    .venv/bin/python bench/perf_functions.py --hands 100

numba's machine code is anonymous memory to perf, so this script compiles the kernels once
more into a temporary folder with line tables (``NUMBA_DEBUGINFO=1``, about two minutes),
plays ``make bench``'s decider hands (``mc`` against ``gin-hunter-strong`` under standard,
its panel memory kept), then searches every one of its positions again from the memory
it had there, under ``perf record``. The compiled search (numba keeps its object file in
the cache) gives each function's offset and size; added to the address where the search
was loaded, they name perf's samples (a ``/tmp/perf-PID.map``). Such a build inlines less
than the one that plays (``search_profile.py`` times the parts of the real one on their
own), so read the shares, not the times. It found the branch ``live_nb`` took on every card
of every rollout discard (docs/strategies.md, "Exact speedups").

Needs ``perf`` (linux-tools) and ``nm`` (binutils), and a kernel that lets a user sample its
own processes (``/proc/sys/kernel/perf_event_paranoid`` 2 or less).
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = Path(__file__).resolve()


def child(folder: Path, hands: int, repeats: int) -> None:
    """Play the decider hands, then search each of mc's positions again ``repeats`` times;
    write the process id and where the search was loaded to ``folder/loaded.txt``."""
    import numba
    import numpy as np

    sys.path.insert(0, str(SCRIPT.parent))  # bench.py
    from bench import play_hands
    from gin_sim.game.rules import load_rules
    from gin_sim.kernels.search import search_nb, search_scratch_nb
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.search_value import NO_TABLES
    from gin_sim.players.strategies import load_strategy, strategies_to_kernel

    numba.set_num_threads(1)
    rules = load_rules("standard")
    vector, table = rules.to_kernel(), load_undercut_table()
    pair = strategies_to_kernel((load_strategy("mc"), load_strategy("gin-hunter-strong")), rules)
    # The search's machine code is loaded first: the play below links in a copy of its
    # functions, and numba's loader resolves a function to the first copy it loaded. Loaded
    # first, the search's own copy is the one that runs, at the addresses mapped below.
    from gin_sim.kernels.playout import scratch_nb
    from gin_sim.kernels.position import deal_nb

    streams, masks, state = scratch_nb()[:3]
    deal_nb(np.arange(52, dtype=np.int8), 0, vector, masks, state)
    with np.errstate(over="ignore"):
        search_nb(pair[0], masks, state, vector, table, NO_TABLES, streams, 1, search_scratch_nb())
    positions: list[tuple] = []

    def before(masks, state, streams, key, search):  # with the memory before the decision
        positions.append((masks.copy(), state.copy(), search[17].copy(), streams.copy()))

    def nothing(*args):
        return None

    play_hands(rules, hands, "mc", before, nothing, nothing)
    search = search_scratch_nb()
    with np.errstate(over="ignore"):
        for _ in range(repeats):
            for masks, state, memory, streams in positions:
                search[17][:] = memory
                search_nb(
                    pair[0], masks, state, vector, table, NO_TABLES, streams.copy(), 0, search
                )
            if not (folder / "loaded.txt").exists():  # after the first pass: all compiled
                overload = next(iter(search_nb.overloads.values()))
                name = overload.fndesc.llvm_func_name
                address = overload.library.get_pointer_to_function(name)
                (folder / "loaded.txt").write_text(f"{os.getpid()} {address} {name}\n")


def compiled_object(cache: Path) -> bytes:
    """The object file numba cached for ``search_nb`` (an ELF inside its pickled entry)."""
    found = sorted(cache.rglob("search.search_nb-*.nbc"))
    if not found:
        raise SystemExit(f"no cached search_nb under {cache}: did the kernels compile?")

    def elf_in(item, depth=0):
        if isinstance(item, bytes) and item[:4] == b"\x7fELF":
            return item
        if depth < 8 and isinstance(item, tuple | list):
            for part in item:
                if (elf := elf_in(part, depth + 1)) is not None:
                    return elf
        return None

    elf = elf_in(pickle.loads(found[-1].read_bytes()))
    if elf is None:
        raise SystemExit(f"{found[-1]}: no object file in it (another numba cache format?)")
    return elf


def readable(mangled: str) -> str:
    """``decisions.live_nb`` from numba's mangled ``_ZN7gin_sim7kernels9decisions7live_nbB...``."""
    rest = mangled.removeprefix("_ZN")
    parts = []
    while (match := re.match(r"(\d+)", rest)) is not None:
        length = int(match.group(1))
        start = len(match.group(1))
        parts.append(rest[start : start + length])
        rest = rest[start + length :]
    return ".".join(parts[-2:]) if parts else mangled


def functions(elf: Path) -> list[tuple[int, int, str]]:
    """(offset, size, mangled name) of every function the object file defines."""
    listing = subprocess.run(["nm", "-S", str(elf)], capture_output=True, text=True, check=True)
    found = []
    for line in listing.stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tTwW":
            found.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100, help="decider hands (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the positions")
    parser.add_argument("--top", type=int, default=25, help="functions to list")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child), args.hands, args.repeats)
        return
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed: this script needs perf and nm")
    folder = Path(tempfile.mkdtemp(prefix="gin-sim-perf-"))
    try:
        env = os.environ | {"NUMBA_CACHE_DIR": str(folder / "cache"), "NUMBA_DEBUGINFO": "1"}
        command = [sys.executable, str(SCRIPT), "--child", str(folder), "--hands"]
        command += [str(args.hands), "--repeats"]
        print("compiling the kernels with line tables (about two minutes) ...", flush=True)
        subprocess.run([*command, "1"], env=env, check=True)  # compiles and caches
        (folder / "loaded.txt").unlink()
        data = folder / "perf.data"
        record = ["perf", "record", "-q", "-o", str(data), "--", *command, str(args.repeats)]
        subprocess.run(record, env=env, check=True)
        pid, address, name = (folder / "loaded.txt").read_text().split()
        elf = folder / "search.o"
        elf.write_bytes(compiled_object(folder / "cache"))
        symbols = functions(elf)
        # The search's own symbol sits at its offset in the object: that fixes the base.
        base = int(address) - next(o for o, _, mangled in symbols if mangled == name)
        perf_map = Path(f"/tmp/perf-{pid}.map")
        perf_map.write_text("".join(f"{base + o:x} {s:x} {readable(n)}\n" for o, s, n in symbols))
        try:
            report = subprocess.run(
                ["perf", "report", "-i", str(data), "--no-children", "--sort", "sym", "--stdio"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        finally:
            perf_map.unlink(missing_ok=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    names = {readable(n) for _, _, n in symbols}
    rows = []
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if match:
            rows.append((float(match.group(1)), match.group(2)))
    kernel_share = sum(share for share, name in rows if name in names)
    print(
        f"mc under standard, {args.hands} decider hands searched {args.repeats} times: "
        f"{kernel_share:.1f}% of the samples in the search's functions (self time, a build "
        "with line tables)"
    )
    for share, name in [row for row in rows if row[1] in names][: args.top]:
        print(f"  {name:<48} {share:6.2f}%  {share / kernel_share:6.1%} of the search's")


if __name__ == "__main__":
    main()
