"""The knock-schedule search: the best thresholds by stock depth, found by a paired search.

A schedule gives a knock threshold per phase of the hand (by the cards left in the stock,
docs/strategies.md). The search has two stages, both with common random numbers:

1. Screening: every schedule of a grid (one threshold per phase from a list) and every
   single threshold play the same ``deals`` decks; the schedules are ranked by net points.
2. Holdout: the best ``finalists`` schedules and every single threshold play
   ``confirm_deals`` fresh decks from another seed stream (``holdout.holdout_seed``), so the
   figures are not inflated by the screening's selection. Each is compared with the
   reference, the best single threshold of the screening (chosen before these decks are
   seen), paired deck by deck, with Bonferroni-adjusted intervals for the number of
   comparisons. The best finalist is picked on these decks, so its point estimate there is
   the largest of several and optimistic.
3. Confirmation: the picked schedule and the reference play ``confirm_deals`` decks of a
   third stream (``holdout.confirmation_seed``) that no choice has seen; the schedule's
   reported gain is that paired difference, with a plain 95% interval.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from gin_sim.experiments.holdout import (
    adjust_differences,
    bonferroni_factor,
    confirmation_seed,
    holdout_seed,
)
from gin_sim.game.config import ConfigError
from gin_sim.game.limits import MAX_FINALISTS, check_count
from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section, display, format_value
from gin_sim.reports.knock import knock_action, points, run_setup
from gin_sim.reports.sweeps import Progress, Sweep, format_schedule, play_sweep, variant
from gin_sim.reports.tables import NET

Schedule = tuple[tuple[int, int], ...]


def canonical(schedule: Schedule) -> Schedule:
    """The same schedule without phases that repeat the next phase's threshold.

    >>> canonical(((20, 6), (10, 6), (0, 2)))
    ((10, 6), (0, 2))
    >>> canonical(((20, 4), (10, 4), (0, 4)))
    ((0, 4),)
    """
    kept = [
        phase
        for i, phase in enumerate(schedule)
        if i + 1 == len(schedule) or phase[1] != schedule[i + 1][1]
    ]
    return tuple(kept)


def grid(boundaries: Sequence[int], thresholds: Sequence[int]) -> list[Schedule]:
    """Every schedule with phases starting at ``boundaries`` (then 0), one threshold per phase
    from ``thresholds``, in canonical form and without repeats."""
    starts = [*boundaries, 0]
    seen: dict[Schedule, None] = {}
    for choice in itertools.product(thresholds, repeat=len(starts)):
        seen[canonical(tuple(zip(starts, choice, strict=True)))] = None
    return list(seen)


def describe(label: str) -> str:
    """A schedule label (``20:10,10:6,0:2``) in words."""
    phases = [tuple(int(x) for x in part.split(":")) for part in label.split(",")]
    if len(phases) == 1:
        return f"threshold {phases[0][1]} throughout"
    words = []
    upper = None
    for start, threshold in phases:
        if upper is None:
            where = f"{start}+ cards in the stock"
        elif start == 0:
            where = f"fewer than {upper}"
        else:
            where = f"{start} to {upper - 1}"
        words.append(f"{threshold} with {where}")
        upper = start
    return "knock at " + ", ".join(words)


def is_single(label: str) -> bool:
    return "," not in label


def first_ranked(sweep: Sweep, single: bool) -> str:
    """The best single threshold (``single``) or the best real schedule of ``sweep``."""
    return next(label for label in sweep.ranking()["schedule"] if is_single(label) == single)


@dataclass
class ScheduleSearch:
    boundaries: tuple[int, ...]
    thresholds: tuple[int, ...]
    finalists: list[str]
    screening: Sweep
    confirmation: Sweep  # the holdout stage: finalists and singles, the winner picked here
    verification: Sweep  # the picked schedule and the reference on the third stream

    def best_single(self) -> str:
        """The reference: the best single threshold on the screening decks."""
        return first_ranked(self.screening, single=True)

    def comparisons(self) -> int:
        """Confirmed variants compared with the reference (the Bonferroni family)."""
        return len(self.confirmation.variants) - 1

    def differences(self) -> pd.DataFrame:
        """Every confirmed variant minus the reference on the confirmation decks, paired,
        with adjusted intervals, in the confirmation's ranking order."""
        table = adjust_differences(
            self.confirmation.differences(self.best_single()), self.comparisons()
        )
        order = self.confirmation.ranking()["schedule"]
        return table.set_index("schedule").loc[order].reset_index()

    def best_schedule(self) -> str:
        """The schedule picked: the best finalist on the holdout decks."""
        return first_ranked(self.confirmation, single=False)

    def gain(self) -> pd.Series:
        """The picked schedule minus the reference, paired on the third stream's decks (one
        comparison fixed before they were dealt: a plain 95% interval)."""
        table = self.verification.differences(self.best_single())
        return table.set_index("schedule").loc[self.best_schedule()]


def check_grid(rules: Rules, boundaries: Sequence[int], thresholds: Sequence[int]) -> None:
    if not boundaries or len(boundaries) > 3:
        raise ConfigError(
            f"phases {list(boundaries)}: allowed 1 to 3 stock sizes (2 to 4 phases), e.g. 20,10"
        )
    if list(boundaries) != sorted(set(boundaries), reverse=True) or boundaries[-1] <= 0:
        raise ConfigError(
            f"phases {list(boundaries)}: stock sizes must fall strictly and stay above 0, e.g. 20,10"
        )
    if boundaries[0] > 31:
        raise ConfigError(f"phases {list(boundaries)}: stock sizes are at most 31")
    if len(set(thresholds)) < 2:
        raise ConfigError(
            f"thresholds {list(thresholds)}: allowed two or more different thresholds, e.g. 0,5,10"
        )
    if any(not 0 <= t <= rules.knock_limit for t in thresholds):
        raise ConfigError(
            f"thresholds {list(thresholds)}: allowed 0 to knock_limit = {rules.knock_limit} of rules {rules.name!r}"
        )


def search_runs(
    rules: Rules, boundaries: Sequence[int], thresholds: Sequence[int], finalists: int
) -> int:
    """The number of runs ``schedule_search`` plays (for progress bars)."""
    singles = rules.knock_limit + 1
    screened = len(set(grid(boundaries, thresholds)) | {((0, t),) for t in range(singles)})
    return screened + singles + finalists + 2  # + the picked schedule and the reference


def schedule_search(
    rules: Rules,
    strategy: Strategy,
    opponent: Strategy,
    boundaries: Sequence[int],
    thresholds: Sequence[int],
    deals: int,
    confirm_deals: int,
    finalists: int,
    seed: int,
    on_run: Progress = None,
) -> ScheduleSearch:
    check_grid(rules, boundaries, thresholds)
    check_count(finalists, "finalists", 1, MAX_FINALISTS)
    singles = [((0, t),) for t in range(rules.knock_limit + 1)]
    candidates = list(dict.fromkeys([*grid(boundaries, thresholds), *singles]))

    def with_schedule(schedule: Schedule) -> Strategy:
        return variant(strategy, rules, [f"knock_schedule={format_schedule(schedule)}"])

    screening = play_sweep(
        rules,
        opponent,
        "schedule",
        {format_schedule(s): with_schedule(s) for s in candidates},
        deals,
        0,
        seed,
        on_run=on_run,
    )
    ranked = [label for label in screening.ranking()["schedule"] if not is_single(label)]
    chosen = ranked[:finalists]
    if on_run is not None and len(chosen) < finalists:
        on_run(finalists - len(chosen))  # fewer schedules than finalists asked for
    confirmation = play_sweep(
        rules,
        opponent,
        "schedule",
        {label: screening.variants[label] for label in [*chosen, *map(format_schedule, singles)]},
        confirm_deals,
        0,
        holdout_seed(seed),
        on_run=on_run,
    )
    picked = [first_ranked(confirmation, single=False), first_ranked(screening, single=True)]
    verification = play_sweep(
        rules,
        opponent,
        "schedule",
        {label: screening.variants[label] for label in picked},
        confirm_deals,
        0,
        confirmation_seed(seed),
        on_run=on_run,
    )
    return ScheduleSearch(
        tuple(boundaries), tuple(thresholds), chosen, screening, confirmation, verification
    )


def screening_table(search: ScheduleSearch) -> pd.DataFrame:
    """Net points per hand of every screened schedule, with its threshold in each grid phase."""
    rows = search.screening.ranking().drop(columns="figure")
    starts = [*search.boundaries, 0]
    for number, start in enumerate(starts, 1):
        rows[f"phase {number} threshold"] = [
            search.screening.variants[label].threshold_at(start, search.screening.rules.knock_limit)
            for label in rows["schedule"]
        ]
    rows.insert(0, "rank", range(1, len(rows) + 1))
    return rows


def schedule_findings(search: ScheduleSearch) -> list[str]:
    holdout, verification = search.confirmation, search.verification
    best, single = search.best_schedule(), search.best_single()
    gain = search.gain()
    picked = search.differences().set_index("schedule").loc[best]
    net = verification.ranking().set_index("schedule")
    if gain["significant"] and gain["mean"] > 0:
        verdict = "a statistically significant gain (95% interval above 0)"
    elif gain["significant"]:
        verdict = "a statistically significant loss: the schedule picked is worse than the best single threshold"
    else:
        verdict = "not statistically significant: the best schedule and the best single threshold cannot be told apart"
    findings = [
        f"Best schedule found against `{holdout.opponent.name}`: **{best}** ({describe(best)}); "
        f"the reference, the best single threshold of the screening, is "
        f"**{single.split(':')[1]}**. On {verification.deals:,} confirmation decks (seed "
        f"{verification.seed}, used by no choice): "
        f"{format_value(NET, net.loc[best, 'mean'], net.loc[best, 'half_width'])} against "
        f"{format_value(NET, net.loc[single, 'mean'], net.loc[single, 'half_width'])} net points "
        "per hand.",
        f"Gain of the schedule over the reference on the confirmation decks: "
        f"{format_value(NET, gain['mean'], gain['half_width'])} points per hand, paired, one "
        f"comparison fixed before those decks were dealt (plain 95% interval): {verdict}.",
        f"How it was picked: the screening ({len(search.screening.variants)} schedules on "
        f"{search.screening.deals:,} decks) ranked {search.finalists[0]} first; its top scores "
        "are biased upwards by the selection, so the finalists and every single threshold "
        f"were measured again on {holdout.deals:,} holdout decks (seed {holdout.seed}), with "
        f"intervals widened for the {search.comparisons()} comparisons "
        f"(×{bonferroni_factor(search.comparisons()):.2f}, Bonferroni). The best finalist "
        f"there, picked on those decks, gained {format_value(NET, picked['mean'], picked['half_width'])}: "
        "as the largest of several, that point estimate is optimistic, which is why the gain "
        "above comes from the third set of decks.",
    ]
    if is_single(holdout.best()):
        findings.insert(
            2, "On the holdout decks no finalist scored above the best single threshold."
        )
    return findings


def schedule_answer(search: ScheduleSearch) -> list[str]:
    """The report's opening (issue 43): whether a threshold that changes as the stock runs
    down beats one fixed threshold, measured on decks no choice saw."""
    verification = search.verification
    best, single = search.best_schedule(), search.best_single()
    threshold = int(single.split(":")[1])
    limit = verification.rules.knock_limit
    gain = search.gain()
    where = f"Against `{verification.opponent.name}` under `{verification.rules.name}`"
    if gain["significant"] and gain["mean"] > 0:
        # The answer is the schedule itself: say it once, then name it as the tables do.
        opening = [
            f"{where}, change your knock threshold as the stock runs down: {describe(best)}.",
            f"In the tables below that schedule is {best}.",
        ]
    else:
        opening = [
            f"{where}, a knock threshold that changes as the stock runs down does no "
            f"measurably better than one fixed threshold: {knock_action(threshold, limit)}.",
            f"The best schedule found, {best}, means: {describe(best)}.",
        ]
    return [
        *opening,
        f"On {verification.deals:,} fresh decks it scored "
        f"{points(gain['mean'], gain['half_width'])} points a hand more than threshold "
        f"{threshold} throughout.",
    ]


def schedule_report(search: ScheduleSearch, strategy: Strategy, command: str) -> Report:
    confirmation = search.confirmation
    rules = confirmation.rules
    single = search.best_single()
    differences = search.differences()
    screening = screening_table(search)
    phases = ", ".join(
        f"phase {i} from {start} cards" if start else f"phase {i} below {search.boundaries[-1]}"
        for i, start in enumerate([*search.boundaries, 0], 1)
    )
    title = f"Knock schedule search under {rules.name} against {confirmation.opponent.name}"
    setup = run_setup(
        confirmation,
        strategy,
        f"`{strategy.name}` with knock schedules: a threshold per phase of the hand by cards left "
        f"in the stock ({phases}), each phase's threshold from {list(search.thresholds)} "
        f"({len(search.screening.variants)} distinct schedules with every single threshold)",
    )
    setup[3] = (
        f"Screening: every schedule on {search.screening.deals:,} decks (seed {search.screening.seed}, "
        f"decks 0 to {search.screening.deals - 1:,}). Holdout: the {len(search.finalists)} "
        f"best schedules and every single threshold on {confirmation.deals:,} fresh decks of "
        f"another seed ({confirmation.seed} = `holdout_seed({search.screening.seed})`, decks "
        f"{confirmation.first_deal:,} to {confirmation.first_deal + confirmation.deals - 1:,}), "
        "compared with the best single threshold of the screening; their intervals are "
        f"Bonferroni-adjusted for {search.comparisons()} comparisons, and the best schedule is "
        "picked there. Confirmation: that schedule and the reference on "
        f"{search.verification.deals:,} decks of a third seed ({search.verification.seed} = "
        f"`confirmation_seed({search.screening.seed})`), which give its reported gain. "
        "Each deck is played twice with the seats swapped (duplicate deals), and every "
        "schedule plays the same decks (common random numbers)."
    )
    shown_screening = screening.head(20).assign(
        **{
            "net points per hand": lambda t: [
                format_value(NET, m, h) for m, h in zip(t["mean"], t["half_width"], strict=True)
            ]
        }
    )[["rank", "schedule", "net points per hand"]]
    shown_differences = pd.DataFrame(
        {
            "schedule": differences["schedule"],
            "in words": differences["schedule"].map(describe),
            "net points vs reference (adjusted; the picked one's is optimistic)": [
                format_value(NET, m, h)
                for m, h in zip(differences["mean"], differences["half_width"], strict=True)
            ],
            "significant": [
                "reference" if label == single else ("yes" if s else "no")
                for label, s in zip(
                    differences["schedule"], differences["significant"], strict=True
                )
            ],
        }
    )
    figure_draws = {
        "confirmation": lambda path: figures.interval_points(
            path,
            differences,
            "schedule",
            figures.finding_title(
                f"On the holdout decks {int((differences['low'] > 0).sum())} of "
                f"{int((differences['schedule'] != single).sum())} schedules score more points "
                f"a hand than threshold {single.split(':')[1]} throughout, beyond doubt "
                "(95% intervals adjusted for the comparisons)",
                75,
            ),
            f"points a hand compared with threshold {single.split(':')[1]} throughout",
            highlight=[search.best_schedule(), single],
        ),
    }
    verified = search.verification.differences(single)
    sections = [
        Section(
            "Confirmation of the picked schedule",
            f"The schedule picked on the holdout decks and the reference on "
            f"{search.verification.deals:,} decks of a third seed ({search.verification.seed}), "
            "paired deck by deck; a plain 95% interval, since this one comparison was fixed "
            "before these decks were dealt. This is the schedule's reported gain.",
            display(search.verification.figures, "schedule"),
        ),
        Section(
            "Holdout: finalists and single thresholds compared",
            "Finalists and single thresholds (written `0:t`), best first, against the reference "
            "(the best single threshold of the screening), paired deck by deck; the intervals "
            f"are Bonferroni-adjusted for {search.comparisons()} comparisons, so they hold all "
            "at once. The best schedule is picked here, so its point estimate is the largest of "
            "several and biased upwards.",
            shown_differences,
            ["confirmation"],
        ),
        Section(
            "Figures of the schedules on the holdout decks",
            "",
            display(confirmation.figures, "schedule"),
        ),
    ]
    if len(search.boundaries) == 2:
        in_grid = screening[
            screening[[f"phase {i} threshold" for i in (1, 2, 3)]]
            .isin(search.thresholds)
            .all(axis=1)
        ]
        figure_draws["screening"] = lambda path: figures.heat_map_panels(
            path,
            in_grid,
            "phase 1 threshold",
            "phase 2 threshold",
            "phase 3 threshold",
            "mean",
            "Screening: net points per hand by the threshold of each phase",
            f"{search.boundaries[0]}+ cards:",
            f"threshold, {search.boundaries[1]} to {search.boundaries[0] - 1} cards",
            f"threshold, under {search.boundaries[1]} cards",
        )
    sections.append(
        Section(
            "Screening",
            f"The 20 best of {len(screening)} schedules on the screening decks (all in "
            "`screening.csv`).",
            shown_screening,
            ["screening"] if "screening" in figure_draws else [],
        )
    )
    return Report(
        kind="schedule",
        title=title,
        command=command,
        setup=setup,
        findings=schedule_findings(search),
        sections=sections,
        tables={
            "screening": screening,
            "holdout": confirmation.figures,
            "holdout-differences": differences,
            "confirmation": search.verification.figures,
            "confirmation-difference": verified,
        },
        figures=figure_draws,
        answer=schedule_answer(search),
        answer_figure="confirmation" if "confirmation" in figure_draws else None,
    )
