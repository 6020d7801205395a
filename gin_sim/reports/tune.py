"""The tuning report: the search's history, parameter importances, and the confirmation of
the best trials on holdout decks against the starting strategy (``gin_sim.experiments.tuner``)."""

from __future__ import annotations

import pandas as pd

from gin_sim.experiments.holdout import bonferroni_factor
from gin_sim.experiments.tuner import Confirmation, TuneSettings
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section


def _figure(settings: TuneSettings) -> tuple[str, float, int, str]:
    """The objective's name, display scale, digits and unit."""
    if settings.objective == "deals":
        return "net points per hand", 1.0, 3, ""
    return "matches won", 100.0, 2, "%"


def _value(settings: TuneSettings, mean: float, half_width: float | None = None) -> str:
    _, scale, digits, unit = _figure(settings)
    text = f"{mean * scale:+.{digits}f}" if unit == "" else f"{mean * scale:.{digits}f}"
    if half_width is not None:
        text += f" ± {half_width * scale:.{digits}f}"
    return text + unit


def _parameters(values: dict) -> str:
    def show(value) -> str:
        if isinstance(value, float):
            return f"{value:.3g}"
        if isinstance(value, tuple):
            return ",".join(f"{s}:{t}" for s, t in value)
        return str(value).lower() if isinstance(value, bool) else str(value)

    return ", ".join(f"{key} = {show(value)}" for key, value in values.items())


def tune_report(
    settings: TuneSettings,
    trials: pd.DataFrame,
    importance: pd.DataFrame,
    method: str,
    confirmation: Confirmation,
    winner_toml: str,
    winner_path: str,
    command: str,
) -> Report:
    figure, scale, _, _ = _figure(settings)
    opponents = ", ".join(f"`{o.name}`" for o in settings.opponents)
    units = "decks" if settings.objective == "deals" else "matches"
    candidates = confirmation.candidates
    k = len(candidates)
    complete = trials[trials["state"] == "COMPLETE"]
    pruned = trials[trials["state"] == "PRUNED"]
    repeats = int((trials["repeat_of"] >= 0).sum())
    best_tuning = complete.sort_values(["value", "number"], ascending=[False, True]).iloc[0]
    dimension_names = [d.name for d in settings.space.dimensions]
    setup = [
        f"Strategy `{settings.strategy.name}` ({settings.strategy.description.rstrip('.')}) "
        f"under `{settings.rules.name}`"
        + (
            ", as adapted to these rules by its `[[adapt]]` tables"
            if settings.strategy.adapt
            else ""
        )
        + f"; searched space `{settings.space.text}` (docs: `gin_sim/experiments/space.py`).",
        f"Objective: {figure} against {opponents}"
        + (" (equally weighted)" if len(settings.opponents) > 1 else "")
        + f", on {settings.units:,} tuning {units} (seed {settings.seed}, numbers 0 to "
        f"{settings.units - 1:,}), each played twice with the seats swapped; every trial plays "
        "the same ones (common random numbers).",
        f"Search: Optuna's TPE sampler (seeded from {settings.seed} and the trial's place), "
        f"{len(trials)} trials finished: {len(complete)} completed, {len(pruned)} pruned early by "
        f"successive halving (the {units} in {settings.blocks} blocks; pruning checks after 2 "
        f"and 4 blocks, keeping the better half), {repeats} repeated an earlier trial's "
        "parameters and took its value. The study is `study.db` in this folder (Optuna SQLite "
        "storage); the same command resumes it.",
        f"Holdout: the {k} best completed trials with distinct parameters and the starting "
        f"strategy on {confirmation.count:,} holdout {units} from another seed stream "
        f"(seed {confirmation.seed} = `holdout_seed({settings.seed})`, which the search never "
        f"saw), against the same opponents. Gains over the starting strategy are paired by "
        f"{units[:-1]}; their 95% intervals are Bonferroni-adjusted for {k} comparisons "
        f"(×{bonferroni_factor(k):.2f} the usual half-width). The winner is the best of them "
        "there, so its holdout figure is the largest of several and biased upwards.",
        f"Confirmation: the winner and the starting strategy on {confirmation.count:,} {units} "
        f"of a third stream (seed {confirmation.final_seed} = "
        f"`confirmation_seed({settings.seed})`, used by nothing else), paired by "
        f"{units[:-1]}: one comparison fixed before these {units} were dealt, so the winner's "
        "gain reported here is neither picked nor adjusted.",
    ]
    best = candidates.iloc[0]
    winner_values = {name: best[name] for name in dimension_names}
    gain = confirmation.final_gain
    low, high = gain.mean - gain.half_width, gain.mean + gain.half_width
    verdict = (
        "a significant gain: the 95% interval lies above 0"
        if low > 0
        else "a significant loss: the winner is worse than the starting strategy"
        if high < 0
        else "not significant: the winner cannot be told apart from the starting strategy"
    )
    findings = [
        f"Winner: trial {int(best['trial'])} ({_parameters(winner_values)}). On the "
        f"confirmation {units}, its gain over `{settings.strategy.name}` as it stands is "
        f"{_value(settings, gain.mean, gain.half_width)} "
        f"({_value(settings, confirmation.final_winner.mean, confirmation.final_winner.half_width)} "
        f"against {_value(settings, confirmation.final_start.mean, confirmation.final_start.half_width)}), "
        f"{verdict}.",
        f"Selection bias, for scale: the winner scored {_value(settings, best['tuning_value'])} "
        f"on the tuning {units} (the best trial there: {int(best_tuning['number'])}, "
        f"{_value(settings, best_tuning['value'])}), {_value(settings, best['holdout'])} on the "
        f"holdout {units} where it was picked (gain {_value(settings, best['gain'])}), and "
        f"{_value(settings, confirmation.final_winner.mean)} on the confirmation {units} "
        f"(gain {_value(settings, gain.mean)}). Only the last is free of the picking.",
    ]
    significant = candidates[candidates["significant"] & (candidates["gain"] > 0)]
    findings.append(
        f"On the holdout {units}, {len(significant)} of the {k} candidates beat the starting "
        "strategy significantly after the adjustment."
    )
    if not importance.empty:
        top = importance.iloc[0]
        findings.append(
            f"Most important parameter ({method}): `{top['parameter']}` "
            f"({100 * top['importance']:.0f}% of the explained variation of the objective)."
        )
    shown_confirmation = pd.DataFrame(
        {
            "trial": candidates["trial"],
            "parameters": [
                _parameters({name: row[name] for name in dimension_names})
                + (" (the starting strategy)" if row["same_as_start"] else "")
                for _, row in candidates.iterrows()
            ],
            "tuning (picked here: optimistic)": [
                _value(settings, v) for v in candidates["tuning_value"]
            ],
            "holdout (winner picked here)": [
                _value(settings, m, h)
                for m, h in zip(
                    candidates["holdout"], candidates["holdout_half_width"], strict=True
                )
            ],
            "gain vs start (adjusted)": [
                _value(settings, m, h)
                for m, h in zip(candidates["gain"], candidates["gain_half_width"], strict=True)
            ],
            "significant": ["yes" if s else "no" for s in candidates["significant"]],
        }
    )
    top_trials = complete.sort_values(["value", "number"], ascending=[False, True]).head(20)
    shown_trials = pd.DataFrame(
        {
            "trial": top_trials["number"],
            "parameters": [
                _parameters({name: row[name] for name in dimension_names})
                for _, row in top_trials.iterrows()
            ],
            figure: [_value(settings, v) for v in top_trials["value"]],
        }
    )
    gains = candidates.assign(
        label=[f"trial {int(t)}" for t in candidates["trial"]],
        mean=candidates["gain"] * scale,
        low=candidates["gain_low"] * scale,
        high=candidates["gain_high"] * scale,
    )
    figure_draws = {
        "history": lambda path: figures.optimisation_history(
            path,
            trials.assign(value=trials["value"] * scale),
            f"Tuning {settings.strategy.name}: {figure} per trial on the tuning {units}",
            figure + (" (%)" if scale != 1 else ""),
        ),
        "holdout-gains": lambda path: figures.interval_points(
            path,
            gains,
            "label",
            f"Gain over {settings.strategy.name} on holdout {units} (Bonferroni-adjusted 95%)",
            figure + (" (%)" if scale != 1 else ""),
            highlight=[gains["label"].iloc[0]],
        ),
    }
    final = confirmation.final_gain
    shown_final = pd.DataFrame(
        {
            "strategy": [f"winner (trial {int(candidates['trial'].iloc[0])})", "starting strategy"],
            figure: [
                _value(settings, e.mean, e.half_width)
                for e in (confirmation.final_winner, confirmation.final_start)
            ],
            "gain of the winner": [_value(settings, final.mean, final.half_width), ""],
        }
    )
    final_table = pd.DataFrame(
        [
            {"figure": name, "mean": e.mean, "half_width": e.half_width, "n": e.n}
            for name, e in (
                ("winner", confirmation.final_winner),
                ("start", confirmation.final_start),
                ("gain", final),
            )
        ]
    ).assign(seed=confirmation.final_seed)
    sections = [
        Section(
            "Confirmation of the winner",
            f"The winner and `{settings.strategy.name}` as it stands on {confirmation.count:,} "
            f"{units} of the confirmation stream (seed {confirmation.final_seed}), which no "
            "choice has seen; the gain is paired, with a plain 95% interval (one comparison "
            "fixed in advance). This is the winner's reported gain.",
            shown_final,
        ),
        Section(
            "Holdout: the best trials compared",
            f"Best holdout figure first; the winner is the first row, picked on these {units}, "
            "so its figures here are the best of several and biased upwards (the intervals are "
            "Bonferroni-adjusted, the point estimates are not corrected). "
            f"`{settings.strategy.name}` as it stands: "
            f"{_value(settings, confirmation.start.mean, confirmation.start.half_width)}.",
            shown_confirmation,
            ["holdout-gains"],
        ),
        Section(
            "The winning strategy",
            f"Written to `{winner_path}`; play it with `--players {winner_path},simple`.\n\n"
            "```toml\n" + winner_toml + "```",
        ),
        Section(
            "Optimisation history",
            "Completed trials as points, pruned trials (crosses) at their last block's value, "
            "and the best completed value so far.",
            None,
            ["history"],
        ),
    ]
    if not importance.empty:
        figure_draws["importances"] = lambda path: figures.bars(
            path,
            list(importance["parameter"]),
            list(importance["importance"]),
            f"Parameter importances ({method})",
            "importance (share)",
        )
        sections.append(
            Section(
                "Parameter importances",
                f"{method} over the completed trials (fANOVA when scikit-learn is installed, "
                "otherwise Optuna's PED-ANOVA, which needs nothing more): the share of the "
                "objective's variation each parameter explains.",
                importance.assign(importance=[f"{v:.3f}" for v in importance["importance"]]),
                ["importances"],
            )
        )
    else:
        sections.append(Section("Parameter importances", f"Not available: {method}."))
    sections.append(
        Section(
            "Best trials on the tuning decks",
            f"The 20 best completed trials (all {len(trials)} in `trials.csv`).",
            shown_trials,
        )
    )
    return Report(
        kind="tune",
        title=f"Tuning {settings.strategy.name} under {settings.rules.name} against "
        + ", ".join(o.name for o in settings.opponents),
        command=command,
        setup=setup,
        findings=findings,
        sections=sections,
        tables={
            "trials": trials,
            "holdout": candidates,
            "confirmation": final_table,
            "importances": importance,
        },
        figures=figure_draws,
    )
