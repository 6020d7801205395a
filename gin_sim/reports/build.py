"""Play, tabulate and write each report type; and the default report set of ``make run``.

Each function takes names as the command line does (rule sets and strategies by name or
TOML path), plays the runs, writes the report folder ``out`` and refreshes the
``index.md`` beside it. The command written into a report reproduces it exactly: a deal
depends only on the seed and its number, so the same command gives the same files.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import pandas as pd

from gin_sim.experiments.advice import shares_positions
from gin_sim.experiments.distill import ADVISED_CHECK_DECKS, ADVISED_CHECK_SEED
from gin_sim.experiments.outputs import inside
from gin_sim.experiments.tournament import play_tournament, tournament_runs
from gin_sim.game.config import ConfigError
from gin_sim.game.limits import MAX_REPORT_DEALS, MAX_REPORT_MATCHES, check_count, check_seed
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reports.document import (
    Report,
    Section,
    check_report_folder,
    claim_report,
    claim_report_set,
    command_line,
    write_index,
    write_report,
)
from gin_sim.reports.equity import equity_report
from gin_sim.reports.knock import knock_report
from gin_sim.reports.schedule import schedule_report, schedule_search, search_runs
from gin_sim.reports.sweeps import Progress, Sweep, knock_sweep, sweep_runs
from gin_sim.reports.tournament import tournament_report
from gin_sim.reports.undercut import undercut_report
from gin_sim.reports.variants import variants_report


def check_counts(deals: int, matches: int = 0, what: str = "deals") -> None:
    # Intervals need two decks (or matches); a report holds every variant's records in memory.
    if isinstance(deals, int) and deals < 2:
        raise ConfigError(f"{what} = {deals}: allowed 2 or more (intervals need two decks)")
    check_count(deals, what, 2, MAX_REPORT_DEALS)
    if isinstance(matches, int) and (matches < 0 or matches == 1):
        raise ConfigError(f"matches = {matches}: allowed 0 (no matches) or 2 or more")
    check_count(matches, "matches", 0, MAX_REPORT_MATCHES)


def report_options(kind: str, **values: object) -> dict[str, object]:
    """The options that identify a report of ``kind`` (everything but where it is written),
    as the command line spells them: lists joined by commas. The same options in the same
    folder are the same report; its command line is ``command_line(kind, options + out)``."""
    return {
        key: ",".join(map(str, value)) if isinstance(value, list | tuple) else value
        for key, value in values.items()
    }


def finished_report(out: str | Path, kind: str, options: dict[str, object]) -> bool:
    """Refuse before anything is played a folder the report may not write; True when the
    same report is already written there (then it is neither played nor rewritten)."""
    return check_report_folder(out, kind, options)


def _claimed_and_written(
    out: str | Path, kind: str, options: dict[str, object], build: Callable[[Path, str], Report]
) -> Path:
    """Every report is written this way: claim the folder ``out`` (one writer, only
    gin-sim's files); unless the same report is finished there, ``build(folder, command)``
    plays and tabulates it (``command`` reproduces it) and it is written."""
    with claim_report(out, kind, options) as claim:
        if claim.finished:
            return claim.folder
        command = command_line(kind, options | {"out": out})
        report = build(claim.folder, command)
        report.sections.append(longer_run(kind, options, Path(out)))
        return write_report(report, claim)


MAX_CHECK_POSITIONS = 100_000  # report advice --check-positions

# Each report kind: the options that say how much is played, and what playing LONGER times
# as much adds. Every figure's interval shrinks as one over the square root of what is
# played, so 4 times as much halves it.
LONGER = 4
_LONGER_RUN: dict[str, tuple[tuple[str, ...], str]] = {
    "knock": (
        ("deals", "matches"),
        "every figure's 95% interval halves, so a lead between two thresholds half as large "
        "is told apart from chance; the match win rates, the least precise figures here, "
        "gain the most",
    ),
    "undercut": (
        ("deals",),
        "every cell (the knocker's deadwood by the cards left in the stock) holds 4 times the "
        "knocks: its interval halves, and cells too sparse to show now (much deadwood late "
        "in a hand) fill in",
    ),
    "variants": (
        ("deals", "matches"),
        "every figure's 95% interval halves under every rule set, so differences between "
        "rule sets, and between thresholds, half as large are told apart from chance",
    ),
    "schedule": (
        ("deals", "confirm_deals"),
        "the screening ranks every schedule on 4 times the decks, so fewer finalists are "
        "there by luck, and the confirmation's intervals halve",
    ),
    "tournament": (
        ("deals", "matches"),
        "every rating's interval halves, so strategies closer than the present intervals are "
        "ranked apart",
    ),
    "equity": (
        ("deals", "games", "matches"),
        "the tables rest on 4 times the hands and the checks on 4 times the games and "
        "matches per checked state: intervals halve, and a gap between a table and play "
        "half as large is detected",
    ),
    "advice": (
        ("deals", "check_positions"),
        "every cell of the tables holds 4 times the positions (intervals halve; sparse "
        "cells, few positions at a rare deadwood or stock depth, fill in) and the check "
        "against play detects gaps half as large",
    ),
}

# The largest count each scaled option allows (check_counts, check_equity_counts,
# check_advice).
_MOST = {
    "deals": MAX_REPORT_DEALS, "confirm_deals": MAX_REPORT_DEALS, "matches": MAX_REPORT_MATCHES,
    "games": MAX_REPORT_MATCHES, "check_positions": MAX_CHECK_POSITIONS,
}  # fmt: skip


def longer_run(kind: str, options: dict[str, object], out: Path) -> Section:
    """What a run LONGER times as long adds to a report of ``kind``, with the exact command
    that plays it (into a folder of its own in the working directory)."""
    sizes, adds = _LONGER_RUN[kind]
    longer = dict(options)
    capped = False
    for name in sizes:
        most = _MOST[name]
        longer[name] = min(int(options[name]) * LONGER, most)  # type: ignore[call-overload]
        capped = capped or longer[name] == most
    command = command_line(kind, longer | {"out": f"{out.name}-x{LONGER}"})
    scaled = ", ".join(f"`--{name.replace('_', '-')}`" for name in sizes)
    text = (
        f"{LONGER} times {scaled}{' (at most the largest count allowed)' if capped else ''}, "
        f"about {LONGER} times the time: {adds}. Every other option stays the same:"
        f"\n\n```sh\n{command}\n```"
    )
    return Section("A longer run", text)


def knock_options(
    rules: str, strategy: str, opponent: str, deals: int, matches: int, seed: int
) -> dict[str, object]:
    return report_options(
        "knock", rules=rules, strategy=strategy, opponent=opponent, deals=deals,
        matches=matches, seed=seed,
    )  # fmt: skip


def knock(
    rules: str,
    strategy: str,
    opponent: str,
    deals: int,
    matches: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
    sweep: Sweep | None = None,
) -> Path:
    """The knock-threshold report (``sweep``: one already played with these settings)."""
    check_counts(deals, matches)
    check_seed(seed)
    options = knock_options(rules, strategy, opponent, deals, matches, seed)

    def build(_folder: Path, command: str) -> Report:
        player, played = load_strategy(strategy), sweep
        if played is None:
            rule_set, other = load_rules(rules), load_strategy(opponent)
            played = knock_sweep(rule_set, player, other, deals, matches, seed, on_run)
        return knock_report(played, player, command)

    return _claimed_and_written(out, "knock", options, build)


def undercut_options(
    rules: str, strategy: str, opponent: str, deals: int, seed: int
) -> dict[str, object]:
    return report_options(
        "undercut", rules=rules, strategy=strategy, opponent=opponent, deals=deals, seed=seed
    )


def undercut(
    rules: str,
    strategy: str,
    opponent: str,
    deals: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
    sweep: Sweep | None = None,
) -> Path:
    """The undercut-risk report: the knocks of ``strategy`` at every knock threshold.

    ``sweep``: a knock sweep already played with these settings (the same hand records
    this report would play; its matches are not used).
    """
    check_counts(deals)
    check_seed(seed)
    options = undercut_options(rules, strategy, opponent, deals, seed)

    def build(_folder: Path, command: str) -> Report:
        player, played = load_strategy(strategy), sweep
        if played is None:
            rule_set, other = load_rules(rules), load_strategy(opponent)
            played = knock_sweep(rule_set, player, other, deals, 0, seed, on_run)
        return undercut_report(replace(played, matches=0), player, command)

    return _claimed_and_written(out, "undercut", options, build)


def variants_options(
    rules: Sequence[str], strategy: str, opponent: str, deals: int, matches: int, seed: int
) -> dict[str, object]:
    return report_options(
        "variants", rules=list(rules), strategy=strategy, opponent=opponent, deals=deals,
        matches=matches, seed=seed,
    )  # fmt: skip


def variants(
    rules: Sequence[str],
    strategy: str,
    opponent: str,
    deals: int,
    matches: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
    sweeps: dict[str, Sweep] | None = None,
) -> Path:
    """The rule-variant report: a knock sweep per rule set on the same decks and matches."""
    check_counts(deals, matches)
    check_seed(seed)
    if len(rules) < 2 or len(set(rules)) != len(rules):
        raise ConfigError(f"rules {','.join(rules)}: allowed two or more different rule sets")
    options = variants_options(rules, strategy, opponent, deals, matches, seed)

    def build(_folder: Path, command: str) -> Report:
        player, other = load_strategy(strategy), load_strategy(opponent)
        played = dict(sweeps or {})
        for name in rules:
            if name not in played:
                played[name] = knock_sweep(
                    load_rules(name), player, other, deals, matches, seed, on_run
                )
        by_name = {played[name].rules.name: played[name] for name in rules}
        if len(by_name) != len(rules):
            raise ConfigError(f"rules {','.join(rules)}: two of them have the same name")
        return variants_report(by_name, player, command)

    return _claimed_and_written(out, "variants", options, build)


def schedule_options(
    rules: str,
    strategy: str,
    opponent: str,
    phases: Sequence[int],
    thresholds: Sequence[int],
    deals: int,
    confirm_deals: int,
    finalists: int,
    seed: int,
) -> dict[str, object]:
    return report_options(
        "schedule", rules=rules, strategy=strategy, opponent=opponent, phases=list(phases),
        thresholds=list(thresholds), deals=deals, confirm_deals=confirm_deals,
        finalists=finalists, seed=seed,
    )  # fmt: skip


def schedule(
    rules: str,
    strategy: str,
    opponent: str,
    phases: Sequence[int],
    thresholds: Sequence[int],
    deals: int,
    confirm_deals: int,
    finalists: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
) -> Path:
    """The knock-schedule search report."""
    check_counts(deals)
    check_counts(confirm_deals, what="confirm deals")
    check_seed(seed)
    options = schedule_options(
        rules, strategy, opponent, phases, thresholds, deals, confirm_deals, finalists, seed
    )

    def build(_folder: Path, command: str) -> Report:
        rule_set, player = load_rules(rules), load_strategy(strategy)
        other = load_strategy(opponent)
        search = schedule_search(
            rule_set, player, other, phases, thresholds, deals, confirm_deals, finalists, seed,
            on_run,
        )  # fmt: skip
        return schedule_report(search, player, command)

    return _claimed_and_written(out, "schedule", options, build)


def equity_options(
    players: Sequence[str], rules: str, deals: int, games: int, matches: int, seed: int
) -> dict[str, object]:
    return report_options(
        "equity", players=list(players), rules=rules, deals=deals, games=games,
        matches=matches, seed=seed,
    )  # fmt: skip


def check_equity_counts(players: Sequence[str], deals: int, games: int, matches: int) -> None:
    """``report equity``'s counts: decks for the hand outcomes, and games and matches played
    with cards per checked cell (0: no check, else 2 or more for an interval)."""
    if len(players) != 2:
        raise ConfigError(f"players {','.join(players)}: expected two strategies, A,B")
    check_counts(deals)
    for value, what in ((games, "games"), (matches, "matches")):
        if isinstance(value, int) and (value < 0 or value == 1):
            raise ConfigError(f"{what} = {value}: allowed 0 (no check) or 2 or more")
        check_count(value, what, 0, MAX_REPORT_MATCHES)


def equity_players(players: Sequence[str], rules: str) -> tuple[Rules, tuple[Strategy, Strategy]]:
    """``report equity``'s rule set and two players, refused (``ConfigError``) when either
    plays by the score or by earlier hands (``experiments.equity.check_hand_by_hand``)."""
    from gin_sim.experiments.equity import check_hand_by_hand

    rule_set = load_rules(rules)
    pair = (load_strategy(players[0]), load_strategy(players[1]))
    check_hand_by_hand(pair, rule_set)
    return rule_set, pair


def equity(
    players: Sequence[str],
    rules: str,
    deals: int,
    games: int,
    matches: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
) -> Path:
    """The equity report: game and Hollywood match equity tables for two players."""
    from gin_sim.experiments.equity import equity_study

    check_equity_counts(players, deals, games, matches)
    check_seed(seed)
    options = equity_options(players, rules, deals, games, matches, seed)
    rule_set, pair = equity_players(players, rules)  # refused before a folder is claimed

    def build(_folder: Path, command: str) -> Report:
        study = equity_study(rule_set, pair, deals, games, matches, seed, on_run)
        return equity_report(study, command)

    return _claimed_and_written(out, "equity", options, build)


def tournament_options(
    players: Sequence[str],
    rules: Sequence[str],
    deals: int,
    matches: int,
    seed: int,
    out: str | Path,
    runs: str | Path | None = None,
) -> dict[str, object]:
    options = report_options(
        "tournament", players=list(players), rules=list(rules), deals=deals, matches=matches,
        seed=seed,
    )  # fmt: skip
    if runs is not None and Path(runs) != Path(out) / "runs":
        options["runs"] = str(runs)
    return options


def tournament(
    players: Sequence[str],
    rules: Sequence[str],
    deals: int,
    matches: int,
    seed: int,
    out: str | Path,
    on_run: Progress = None,
    runs: str | Path | None = None,
    overwrite: bool = False,
    keep_runs: bool = True,
) -> Path:
    """The round-robin tournament report; the runs are kept in ``runs`` (default
    ``out/runs``), so the same command resumes an interrupted tournament. Without
    ``keep_runs`` everything stays in memory (the default set, which starts afresh)."""
    from gin_sim.experiments.cluster import active_client

    check_counts(deals, matches)
    check_seed(seed)
    options = tournament_options(players, rules, deals, matches, seed, out, runs)
    runs = Path(out) / "runs" if runs is None else Path(runs)

    def build(_folder: Path, command: str) -> Report:
        played = play_tournament(
            [load_rules(name) for name in rules],
            [load_strategy(name) for name in players],
            deals,
            matches,
            seed,
            runs if keep_runs else None,
            overwrite,
            active_client(),
            on_run,
        )
        return tournament_report(played, command, str(runs) if keep_runs else None)

    return _claimed_and_written(out, "tournament", options, build)


# The rule sets ``report advice`` compares with its own by default (issue 16).
ADVICE_COMPARE = ("hollywood-gin20", "standard", "oklahoma")
# The check against play of ``report advice`` (docs/advice.md, "The check against play"):
# positions per checked cell and continuations per position. Sized so that the smallest
# difference the check detects with 80% power (``detectable``) is about 1.3 points per hand
# or less in the headline cells at mc against mc (the published run, docs/advice-run,
# measured 1.35 and 1.17 in the knock cells, 1.19 and 1.08 in the take cells): from 600 deals of mc against mc
# (seed 4242, 150 positions per cell, 8 continuations, 512 worlds), a position's paired
# difference has a variance of 82 to 115 between knock positions (12 to 66 between take
# positions), 0.3 to 0.9 from the search's worlds, and 110 to 680 from one continuation's
# play; at 1,000 positions and 4 continuations that gives 0.9 to 1.3 (knock 1.1 and 0.9,
# take 1.3 and 1.3; weights 1 at offers and knocks, 2 at draws). Positions are already evaluated, continuations cost play (about 25 ms
# a pair of mc hands on 2 shared cores), so many positions and few continuations: about 16,000
# pairs, 6 to 7 minutes. A cell holds about 500 knock positions of deadwood 1 to 5 per
# 1,000 deals, so 2,000 deals or more fill it.
ADVICE_CHECK_POSITIONS = 1000
ADVICE_CONTINUATIONS = 4
# The undercut comparison of ``report advice``: basic's knocks against simple, all
# thresholds pooled (as ``report undercut``), on this many decks per deal of strong play
# (family hands are thousands of times cheaper than mc's).
ADVICE_BASIC_DECKS_PER_DEAL = 20


def advice_options(
    rules: str,
    compare: Sequence[str],
    players: Sequence[str],
    deals: int,
    samples: int,
    check_positions: int,
    continuations: int,
    seed: int,
    keep: Sequence[float] | None = None,
) -> dict[str, object]:
    """The options that make an advice report; ``keep``: the positions' keep probabilities
    by kind (``positions.DEFAULT_KEEP`` when None)."""
    from gin_sim.experiments.positions import DEFAULT_KEEP, KINDS, check_keep

    kept = check_keep(tuple(DEFAULT_KEEP if keep is None else keep))
    return report_options(
        "advice", rules=rules, compare=list(compare) if compare else "none",
        players=list(players), deals=deals, samples=samples,
        check_positions=check_positions, continuations=continuations, seed=seed,
        keep=",".join(f"{kind}={value:g}" for kind, value in zip(KINDS, kept, strict=True)),
    )  # fmt: skip


def check_advice(
    rules: str,
    compare: Sequence[str],
    players: Sequence[str],
    deals: int,
    samples: int,
    check_positions: int,
    continuations: int,
) -> None:
    """``report advice``'s settings, refused before anything is played."""
    if len(players) != 2:
        raise ConfigError(f"players {','.join(players)}: expected two strategies, A,B")
    check_counts(deals)
    _advice_evaluation(samples)  # its checks of the depth
    check_count(check_positions, "check positions", 2, MAX_CHECK_POSITIONS)
    check_count(continuations, "continuations", 2, 10_000)
    if rules in compare or len(set(compare)) != len(compare):
        raise ConfigError(
            f"compare {','.join(compare)}: allowed rule sets other than --rules, each once"
        )
    for name in [rules, *compare]:
        load_rules(name)
    for name in players:
        load_strategy(name)


# Deals per chunk of the positions datasets ``report advice`` plays.
ADVICE_CHUNK = 100


def advice_chunks(rules: str, compare: Sequence[str], deals: int) -> int:
    """The dataset chunks ``write_advice`` plays (for progress bars): its own positions and
    those of each compared rule set that cannot share them (``shares_positions``)."""
    datasets = 1 + sum(not shares_positions(rules, name) for name in compare)
    return datasets * -(-deals // ADVICE_CHUNK)


def _advice_evaluation(samples: int):
    from gin_sim.experiments.positions import Evaluation

    # The default evaluation, its baseline choice scaled with the depth (128 of 512).
    return Evaluation(samples=samples, select=min(Evaluation.select, samples // 4) or 1)


def _paired_evaluation(rows: pd.DataFrame, rules: Rules, evaluation, seed: int, folder: Path):
    """``rows`` evaluated again under ``rules`` on the same worlds (``evaluate_frame``),
    kept in ``folder/evaluated.parquet``: the largest part of a published advice run after
    its own positions, so a rerun (to resume, or with new tables) reads it back instead of
    evaluating it again. A stored file is used only for the same rows, rule set, depth
    and seed (its manifest); anything else is evaluated and written anew."""
    import json

    from gin_sim.experiments.positions import evaluate_frame

    path, manifest = folder / "evaluated.parquet", folder / "evaluated.json"
    identity = {
        "rules": rules.name,
        "evaluation": evaluation.name,
        "samples": evaluation.samples,
        "select": evaluation.select,
        "seed": seed,
        "rows": len(rows),
        "deals": int(rows["deal"].sum()),
    }
    if path.is_file() and manifest.is_file():
        with contextlib.suppress(ValueError, OSError):
            if json.loads(manifest.read_text()) == identity:
                stored = pd.read_parquet(path)
                if stored.index.equals(rows.index) and stored["deal"].equals(rows["deal"]):
                    return stored
    frame = evaluate_frame(rows, rules, evaluation, seed)
    folder.mkdir(exist_ok=True)
    # Written whole and then renamed, the manifest last: an interrupted write leaves no
    # file that could be read back as finished.
    frame.to_parquet(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)
    manifest.write_text(json.dumps(identity))
    return frame


def _advised(rules: Rules):
    """The shipped ``advised`` against ``expert`` under ``rules``, for the strategy cards
    (``gin_sim.experiments.distill.advised_against_expert``: its own decks and seed)."""
    from gin_sim.experiments.distill import (
        ADVISED_CHECK_DECKS,
        ADVISED_CHECK_SEED,
        advised_against_expert,
    )
    from gin_sim.reports.card import AdvisedGain

    gain, same = advised_against_expert(rules)
    return AdvisedGain(gain.mean, gain.half_width, ADVISED_CHECK_DECKS, ADVISED_CHECK_SEED, same)


def with_advised(cards, decks: int, seed: int):
    """``cards`` with what the shipped ``advised`` gains against ``expert`` under each
    card's rule set, on ``decks`` duplicate decks of ``seed`` (none when ``decks`` is 0)."""
    from gin_sim.experiments.distill import advised_against_expert
    from gin_sim.reports.card import AdvisedGain

    for card in cards if decks else []:
        gain, same = advised_against_expert(load_rules(card.rules), decks, seed)
        card.advised = AdvisedGain(gain.mean, gain.half_width, decks, seed, same)
    return cards


def write_cards(
    report: str | Path,
    rules: Sequence[str],
    advised_decks: int,
    advised_seed: int,
    out: str | Path,
    command: str | None = None,
) -> Path:
    """The strategy cards of the advice report folder ``report`` (those of ``rules``, or
    all) as a report folder ``out`` (``gin_sim.reports.card.cards_report``): bad input is
    refused before the folder is claimed; the same options finished there are not written
    again."""
    from gin_sim.reports.card import cards_report, read_cards

    cards = read_cards(report, rules)  # refused here, before any folder is claimed
    options = report_options(
        "card", report=str(report), rules=[c.rules for c in cards],
        advised_decks=advised_decks, advised_seed=advised_seed,
    )  # fmt: skip
    with claim_report(out, "card", options) as claim:
        if claim.finished:
            return claim.folder
        said = command or " ".join(
            ["gin-sim card", str(report)]
            + ([f"--rules {','.join(rules)}"] if rules else [])
            + ([f"--advised-decks {advised_decks}"] if advised_decks != ADVISED_CHECK_DECKS else [])
            + ([f"--advised-seed {advised_seed}"] if advised_seed != ADVISED_CHECK_SEED else [])
            + [f"--out {out}"]
        )
        made = cards_report(with_advised(cards, advised_decks, advised_seed), said, str(report))
        return write_report(made, claim)


def write_advice(
    rules: str,
    compare: Sequence[str],
    players: Sequence[str],
    deals: int,
    samples: int,
    check_positions: int,
    continuations: int,
    seed: int,
    out: str | Path,
    on_chunk=None,
    keep: Sequence[float] | None = None,
) -> Path:
    """The advice report (issue 16): positions of ``players`` under ``rules`` (each decision
    kept with its kind's probability in ``keep``, ``positions.DEFAULT_KEEP`` when None),
    evaluated at ``samples`` worlds; the same positions re-evaluated under each ``compare`` rule set
    with the same knock limit (paired), else that rule set's own positions; the check
    against play. Every dataset is kept under ``out`` (``positions``, ``positions-NAME``),
    so the same command resumes an interrupted report."""
    from gin_sim.experiments.cluster import active_client
    from gin_sim.experiments.positions import (
        DEFAULT_KEEP,
        PositionsConfig,
        check_keep,
        execute,
        play_headline,
        play_in_parts,
        rollout_headline,
    )
    from gin_sim.reports.advice import AdviceStudy, advice_report, check_rows

    check_advice(rules, compare, players, deals, samples, check_positions, continuations)
    check_seed(seed)
    kept = check_keep(tuple(DEFAULT_KEEP if keep is None else keep))
    options = advice_options(
        rules, compare, players, deals, samples, check_positions, continuations, seed, kept
    )
    # Each compared rule set gets a dataset folder (or tables) named after it: refused
    # before anything is written if the name would leave --out.
    folders = {
        name: inside(out, f"positions-{load_rules(name).name}", f"the dataset of --compare {name}")
        for name in compare
    }

    def build(folder: Path, command: str) -> Report:
        pair = (load_strategy(players[0]), load_strategy(players[1]))
        evaluation = _advice_evaluation(samples)
        client = active_client()

        def dataset(rule_set, name: str) -> pd.DataFrame:
            config = PositionsConfig(rule_set, pair, seed, deals, ADVICE_CHUNK, evaluation, kept)
            chunks = execute(config, folder / name, False, None, on_chunk, client)
            frame = pd.concat(list(chunks), ignore_index=True)
            frame["kind"] = frame["kind"].astype(str)
            return frame

        own_rules = load_rules(rules)
        positions = dataset(own_rules, "positions")
        compared, paired = {}, {}
        headline_rows = positions[positions["kind"] != "discard"]
        for name in compare:
            other = load_rules(name)
            if shares_positions(rules, name):
                compared[other.name] = _paired_evaluation(
                    headline_rows, other, evaluation, seed, folders[name]
                )
                paired[other.name] = True
            else:
                compared[other.name] = dataset(other, folders[name].name)
                paired[other.name] = False
        checked = check_rows(positions, check_positions)
        checked = checked.join(play_headline(checked, own_rules, pair, continuations, seed))
        # The search's own policies from the same cards and stocks: the check in two parts
        # (the policies, the worlds; experiments.advice.check_table).
        checked = checked.join(
            rollout_headline(checked, own_rules, evaluation, continuations, seed)
        )
        # Every knock position played out by the players themselves (the search undervalues
        # knocking against their play: the check above): the card's knock cells
        # (experiments.advice.knock_cells_by_play), kept in parts so the report resumes.
        knocks = positions[(positions["kind"] == "knock") & positions["gain"].notna()]
        knock_played = play_in_parts(
            knocks, own_rules, pair, continuations, seed, folder / "knock-play"
        )
        basic_decks = ADVICE_BASIC_DECKS_PER_DEAL * deals
        sweep = knock_sweep(
            own_rules, load_strategy("basic"), load_strategy("simple"), basic_decks, 0, seed
        )
        study = AdviceStudy(
            own_rules.name, (pair[0].name, pair[1].name), deals, seed, evaluation.name,
            positions, compared, paired, checked, continuations, sweep.knocks,
            f"basic against simple ({basic_decks:,} decks, every knock threshold)",
            {own_rules.name: own_rules} | {load_rules(n).name: load_rules(n) for n in compare},
            knock_played=knock_played,
        )  # fmt: skip
        study.advised = {name: _advised(rule_set) for name, rule_set in study.rule_sets.items()}
        return advice_report(study, command)

    return _claimed_and_written(out, "advice", options, build)


# The named strategies that play fast enough for the default set's tournament.
FAST_STRATEGIES = (
    "simple",
    "basic",
    "defensive",
    "gin-hunter",
    "early-knocker",
    "expert",
    "gin-hunter-strong",
    "gin-hunter-pairs",
)


@dataclass(frozen=True)
class DefaultSet:
    """The reports ``make run`` produces. Budget (issue 28): 6 minutes on two cores from a
    fresh clone, the virtual environment (about 90 s) and numba's first compile (about 190
    CPU seconds, half of it hidden behind the first sweep by the warm-up) included, so the
    set's own play gets about 2.5 minutes. Each size is what its headline figures need, and
    each report says what a longer run adds and the command that plays it
    (``_LONGER_RUN``); docs/reports.md gives the sizes' history."""

    # The knock sweeps (knock, undercut and variants reports; 3 rule sets, 11 thresholds):
    # the figures the README quotes are the best threshold against the next (0.40 points
    # per hand apart under hollywood at 200,000 decks) and the match win rates; at 40,000
    # decks their intervals are sqrt(5) = 2.2 times those of 200,000, still far from
    # deciding otherwise, and 600,000 knocks a rule set fill the undercut grid's common
    # cells.
    deals: int = 40_000
    matches: int = 4_000
    seed: int = 1
    strategy: str = "basic"
    opponent: str = "simple"
    knock_rules: tuple[str, ...] = ("hollywood", "hollywood-gin20")
    undercut_rules: str = "hollywood"
    variant_rules: tuple[str, ...] = ("hollywood", "hollywood-gin20", "standard")
    schedule_rules: str | None = "hollywood"
    phases: tuple[int, ...] = (20, 10)
    thresholds: tuple[int, ...] = (0, 2, 4, 6, 8, 10)
    # The screening ranks 216 schedules on the same decks; fewer decks put more finalists
    # there by luck, which is what the confirmation of the finalists on fresh decks is for
    # (the winner is named from the confirmation only).
    screening_deals: int = 4_000
    confirm_deals: int = 20_000
    finalists: int = 8
    # The tournament (tournament_deals: half the sweeps' decks per pairing, 28 pairings, two
    # rule sets): 20,000 decks a pairing give each rating an interval of about +-0.07
    # points per hand, against gaps of 0.1 or more between most neighbours.
    tournament_players: tuple[str, ...] = FAST_STRATEGIES
    tournament_rules: tuple[str, ...] = ("hollywood", "standard")
    # report advice (issue 16): mc against mc, the largest report per deal. The published
    # advice run (docs/advice-run, 24,000 deals) is where the strong-play figures come from;
    # this one shows the report and its check against play on a sample: at 80 positions and
    # 4 continuations the check detects gaps of 3.2 to 5.4 points per hand (seed 1).
    advice_rules: str | None = "hollywood"
    advice_compare: tuple[str, ...] = ("hollywood-gin20", "standard")
    advice_players: tuple[str, str] = ("mc", "mc")
    advice_deals: int = 250
    advice_samples: int = 256
    advice_check_positions: int = 80
    advice_continuations: int = 4
    # report equity (issue 17): expert against expert. The game equity from 0:0 was
    # +-0.05 percentage points at both 200,000 and 100,000 decks; the checks against play
    # keep the command's sizes: at half (1,000 matches a state) the start of the match was
    # flagged (44.9% played against 49.4%, -4.5 +- 3.1), where 2,000 matches agree, so
    # halving them would change the report's headline, not just widen it.
    equity_rules: str | None = "hollywood"
    equity_players: tuple[str, str] = ("expert", "expert")
    equity_deals: int = 100_000
    equity_games: int = 4_000
    equity_matches: int = 2_000
    # The strategy cards of the published advice run (docs/advice-run, in the repository;
    # `gin-sim card`): read, not played, so the set's index leads with an answer from
    # 24,000 deals, which make run's own advice report (250 deals) cannot give.
    cards_from: str | None = "docs/advice-run"
    cards_advised_decks: int = ADVISED_CHECK_DECKS
    cards_advised_seed: int = ADVISED_CHECK_SEED

    @property
    def tournament_deals(self) -> int:
        """Decks per pairing: half a sweep variant's (the tournament has many pairings)."""
        return max(2, self.deals // 2)

    @property
    def tournament_matches(self) -> int:
        return 0 if self.matches == 0 else max(2, self.matches // 2)

    def folders(self) -> list[str]:
        """The report folders ``default_set`` writes, by name."""
        names = [f"knock-{name}" for name in self.knock_rules]
        names += [f"undercut-{self.undercut_rules}", "variants"]
        names += [f"schedule-{self.schedule_rules}"] if self.schedule_rules else []
        names += [f"advice-{self.advice_rules}"] if self.advice_rules else []
        names += [f"equity-{self.equity_rules}"] if self.equity_rules else []
        return names + (["cards"] if self.has_cards() else [])

    def has_cards(self) -> bool:
        """Whether the set writes the published cards: their advice report is here (run
        from the repository's folder, as make run is)."""
        return self.cards_from is not None and Path(self.cards_from).is_dir()

    def runs(self) -> int:
        """The number of runs ``default_set`` plays (for progress bars)."""
        swept = dict.fromkeys([*self.knock_rules, self.undercut_rules, *self.variant_rules])
        total = sum(sweep_runs(load_rules(name), self.matches) for name in swept)
        if self.tournament_players:
            total += tournament_runs(
                len(self.tournament_rules), len(self.tournament_players), self.tournament_matches
            )
        if self.schedule_rules:
            total += search_runs(
                load_rules(self.schedule_rules), self.phases, self.thresholds, self.finalists
            )
        if self.advice_rules:
            total += advice_chunks(self.advice_rules, self.advice_compare, self.advice_deals)
        if self.equity_rules:
            from gin_sim.experiments.equity import study_steps

            total += study_steps(self.equity_games, self.equity_matches)
        return total


# What a step of the default set took: its name, wall seconds, CPU seconds (every thread).
StepTimes = Callable[[str, float, float], None] | None


@contextlib.contextmanager
def _timed(on_step: StepTimes, name: str) -> Iterator[None]:
    """Tell ``on_step`` the wall and CPU time of the block: make run shows where its time
    goes (issue 28); the times are printed, never written into a report (which must stay
    byte-identical when regenerated)."""
    wall, cpu = time.perf_counter(), time.process_time()
    yield
    if on_step is not None:
        on_step(name, time.perf_counter() - wall, time.process_time() - cpu)


def default_set(
    out: str | Path,
    settings: DefaultSet = DefaultSet(),
    on_run: Progress = None,
    on_step: StepTimes = None,
) -> list[Path]:
    """Every report of the default set under ``out``; each knock sweep is played once and
    shared by the reports that need it, with the same results as their own commands.
    ``on_step(name, wall, cpu)`` hears what each sweep and report took, as it finishes."""
    root = Path(out)
    s = settings
    check_counts(s.deals, s.matches)
    check_seed(s.seed)
    with claim_report_set(root, default_set_options(s)) as claim:
        if claim.finished and not missing_parts(root, s):
            return [root / name for name in s.folders()]
        # Not begun, interrupted, or a finished set with a report gone: every report that is
        # still there and finished is kept as it is (each claims its own folder), the
        # missing ones are played and written again.
        return _write_default_set(root, s, on_run, on_step, claim)


def missing_parts(root: Path, settings: DefaultSet) -> list[str]:
    """The reports of the set whose folder has no report (deleted after the set ended)."""
    names = settings.folders() + (["tournament"] if settings.tournament_players else [])
    return [name for name in names if not (root / name / "report.md").is_file()]


def default_set_options(settings: DefaultSet) -> dict[str, object]:
    return report_options("default", **asdict(settings))


def _write_default_set(
    root: Path, s: DefaultSet, on_run: Progress, on_step: StepTimes, claim
) -> list[Path]:
    sub_options = {
        **{f"knock-{name}": ("knock", knock_options(name, s.strategy, s.opponent, s.deals, s.matches, s.seed)) for name in s.knock_rules},
        f"undercut-{s.undercut_rules}": ("undercut", undercut_options(s.undercut_rules, s.strategy, s.opponent, s.deals, s.seed)),
        "variants": ("variants", variants_options(s.variant_rules, s.strategy, s.opponent, s.deals, s.matches, s.seed)),
    }  # fmt: skip
    if s.advice_rules:
        sub_options[f"advice-{s.advice_rules}"] = ("advice", advice_options(
            s.advice_rules, s.advice_compare, s.advice_players, s.advice_deals, s.advice_samples,
            s.advice_check_positions, s.advice_continuations, s.seed,
        ))  # fmt: skip
    if s.equity_rules:
        sub_options[f"equity-{s.equity_rules}"] = ("equity", equity_options(
            s.equity_players, s.equity_rules, s.equity_deals, s.equity_games, s.equity_matches,
            s.seed,
        ))  # fmt: skip
    for name, (kind, options) in sub_options.items():
        check_report_folder(inside(root, name, f"the set's {kind} report"), kind, options)
    player, other = load_strategy(s.strategy), load_strategy(s.opponent)
    sweeps: dict[str, Sweep] = {}
    for name in dict.fromkeys([*s.knock_rules, s.undercut_rules, *s.variant_rules]):
        with _timed(on_step, f"knock sweep {name}"):
            sweeps[name] = knock_sweep(
                load_rules(name), player, other, s.deals, s.matches, s.seed, on_run
            )
    written = []

    def write(name: str, report: Callable[[], Path]) -> None:
        with _timed(on_step, name):
            written.append(report())

    common = {"strategy": s.strategy, "opponent": s.opponent, "deals": s.deals, "seed": s.seed}
    for name in s.knock_rules:
        write(f"knock-{name}", lambda name=name: knock(
            name, **common, matches=s.matches, out=root / f"knock-{name}", sweep=sweeps[name]
        ))  # fmt: skip
    write(f"undercut-{s.undercut_rules}", lambda: undercut(
        s.undercut_rules, **common, out=root / f"undercut-{s.undercut_rules}",
        sweep=sweeps[s.undercut_rules],
    ))  # fmt: skip
    write("variants", lambda: variants(
        list(s.variant_rules), **common, matches=s.matches, out=root / "variants",
        sweeps={name: sweeps[name] for name in s.variant_rules},
    ))  # fmt: skip
    if s.schedule_rules:
        write(f"schedule-{s.schedule_rules}", lambda: schedule(
            s.schedule_rules, s.strategy, s.opponent, s.phases, s.thresholds, s.screening_deals,
            s.confirm_deals, s.finalists, s.seed, root / f"schedule-{s.schedule_rules}", on_run,
        ))  # fmt: skip
    if s.tournament_players:
        write("tournament", lambda: tournament(
            list(s.tournament_players), list(s.tournament_rules), s.tournament_deals,
            s.tournament_matches, s.seed, root / "tournament", on_run,
            keep_runs=False,  # make run starts afresh: no run folders in reports/
        ))  # fmt: skip
    if s.advice_rules:
        write(f"advice-{s.advice_rules}", lambda: write_advice(
            s.advice_rules, s.advice_compare, s.advice_players, s.advice_deals, s.advice_samples,
            s.advice_check_positions, s.advice_continuations, s.seed,
            root / f"advice-{s.advice_rules}",
            # One step of the set's progress per dataset chunk (advice_chunks).
            None if on_run is None else lambda deals, resumed: on_run(1),
        ))  # fmt: skip
    if s.equity_rules:
        write(f"equity-{s.equity_rules}", lambda: equity(
            list(s.equity_players), s.equity_rules, s.equity_deals, s.equity_games,
            s.equity_matches, s.seed, root / f"equity-{s.equity_rules}", on_run,
        ))  # fmt: skip
    if s.has_cards():
        write("cards", lambda: write_cards(
            s.cards_from, [], s.cards_advised_decks, s.cards_advised_seed, root / "cards",
            f"gin-sim card {s.cards_from} --out {root / 'cards'}",
        ))  # fmt: skip
    write_index(root)
    claim.finish()
    return written
