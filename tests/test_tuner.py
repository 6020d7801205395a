"""The strategy tuner: it finds the best knock threshold that the knock report finds on the
same decks, a study resumes without repeating trials, another configuration is refused,
bad spaces are one-line errors, and the winner's TOML file plays."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import gin_sim.holdout
import gin_sim.ranking
import gin_sim.space
from gin_sim.cli import app
from gin_sim.holdout import bonferroni_factor, holdout_seed
from gin_sim.reports.schedule import schedule_search
from gin_sim.reports.sweeps import knock_sweep
from gin_sim.reports.tables import NET
from gin_sim.rules import load_rules
from gin_sim.simulate import head_to_head
from gin_sim.space import parse_space
from gin_sim.strategies import load_strategy
from gin_sim.summary import Moments
from gin_sim.tuner import (
    confirm,
    net_by_deck,
    optimise,
    settings_from,
    top_candidates,
    trials_table,
)

runner = CliRunner()


@pytest.mark.parametrize("module", [gin_sim.space, gin_sim.holdout, gin_sim.ranking])
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_tuner_finds_the_knock_threshold_the_knock_report_finds(tmp_path):
    rules, basic, simple = load_rules("hollywood"), load_strategy("basic"), load_strategy("simple")
    deals, seed = 3_000, 4
    settings = settings_from(
        basic, "knock_threshold=0:10", [simple], rules, deals=deals, blocks=4, seed=seed
    )
    study = optimise(settings, tmp_path, trials=25)
    trials = trials_table(study, settings)
    sweep = knock_sweep(rules, basic, simple, deals, 0, seed)
    net = sweep.figures[sweep.figures["figure"] == NET].set_index("threshold")["mean"]
    complete = trials[trials["state"] == "COMPLETE"]
    best = complete.sort_values("value", ascending=False).iloc[0]
    assert best["knock_threshold"] == sweep.best()
    for row in complete.itertuples():  # every completed trial scores what the sweep measured
        assert row.value == pytest.approx(net.loc[row.knock_threshold], abs=1e-12)
    for row in trials[trials["state"] == "PRUNED"].itertuples():
        assert row.blocks < settings.blocks
    assert complete["knock_threshold"].nunique() >= 2  # the search compared something


def _settings(**options):
    return settings_from(
        load_strategy("basic"),
        "knock_threshold=0:10,keep_weight=0.0:2.0",
        [load_strategy("simple"), load_strategy("defensive")],
        load_rules("hollywood"),
        deals=800,
        blocks=4,
        seed=9,
        **options,
    )


def test_a_study_resumes_without_repeating_trials(tmp_path):
    settings = _settings()
    whole = trials_table(optimise(settings, tmp_path / "whole", trials=12), settings)
    assert len(whole) == 12

    played: list[tuple[int, int]] = []
    optimise(settings, tmp_path / "parts", trials=5, on_block=lambda t, b: played.append((t, b)))
    first = {t for t, _ in played}
    played.clear()
    resumed = trials_table(
        optimise(
            settings, tmp_path / "parts", trials=12, on_block=lambda t, b: played.append((t, b))
        ),
        settings,
    )
    assert first.isdisjoint({t for t, _ in played}), "a finished trial was played again"
    pd.testing.assert_frame_equal(resumed, whole)
    played.clear()
    optimise(settings, tmp_path / "parts", trials=12, on_block=lambda t, b: played.append((t, b)))
    assert played == []  # the budget is reached: nothing is played

    # Ctrl-C (or a killed process) in the middle of a trial: that trial is dropped and the
    # study goes on to the same trials as the uninterrupted one.
    def interrupt(trial, block):
        if trial == 6 and block == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        optimise(settings, tmp_path / "cut", trials=12, on_block=interrupt)
    after = trials_table(optimise(settings, tmp_path / "cut", trials=12), settings)
    columns = ["state", "value", "knock_threshold", "keep_weight", "blocks"]
    pd.testing.assert_frame_equal(
        after[columns].reset_index(drop=True), whole[columns].reset_index(drop=True)
    )


def test_holdout_confirmation_uses_other_decks_and_adjusted_intervals(tmp_path):
    settings = _settings()
    study = optimise(settings, tmp_path, trials=6)
    candidates = top_candidates(study, settings, 3)
    count = 600
    confirmation = confirm(settings, candidates, count)
    seed = holdout_seed(settings.seed)
    assert confirmation.seed == seed != settings.seed
    table = confirmation.candidates
    assert len(table) == len(candidates) and table["holdout"].is_monotonic_decreasing
    # recompute the winner's gain by hand: holdout decks of the other seed, opponents
    # weighted equally, paired by deck, the half-width widened for the candidates compared
    row = table.iloc[0]
    values = {name: row[name] for name in ("knock_threshold", "keep_weight")}
    tuned = settings.candidate(settings.space.parameters(values))
    start = settings.strategy.for_rules(settings.rules)

    def per_deck(strategy):
        nets = [
            net_by_deck(head_to_head(settings.rules, (strategy, opponent), count, seed))
            for opponent in settings.opponents
        ]
        return np.mean(nets, axis=0)

    gain = Moments.of(per_deck(tuned) - per_deck(start), np.full(count, 2)).estimate()
    assert row["gain"] == pytest.approx(gain.mean, abs=1e-12)
    factor = bonferroni_factor(len(candidates))
    assert factor > 1.1
    assert row["gain_half_width"] == pytest.approx(gain.half_width * factor, rel=1e-9)
    assert row["holdout"] != row["tuning_value"]  # other decks than the tuning ones


def test_tune_command_writes_report_and_a_playable_winner(tmp_path):
    out = tmp_path / "tune"
    arguments = ["tune", "--strategy", "basic", "--space", "knock_threshold=6:10"]
    arguments += ["--opponents", "simple", "--trials", "6", "--deals", "400", "--blocks", "2"]
    arguments += ["--top", "2", "--holdout", "400", "--quiet", "--out", str(out)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    markdown = (out / "report.md").read_text()
    for text in ("## Confirmation on holdout decks", "## Optimisation history", "gin-sim tune"):
        assert text in markdown
    assert (out / "history.png").stat().st_size > 1000
    winner = load_strategy(str(out / "best.toml"))
    assert winner.name == "basic-tuned" and 6 <= winner.knock_threshold <= 10
    simulate = runner.invoke(
        app, ["simulate", "--players", f"{out / 'best.toml'},simple", "--deals", "50", "--quiet"]
    )
    assert simulate.exit_code == 0, simulate.output
    # another configuration in the same folder is refused
    changed = [a if a != "400" else "500" for a in arguments]
    result = runner.invoke(app, changed)
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "holds another tuning study" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "space, message",
    [
        ("knock_threshold=3:1", "low 3 is above high 1"),
        ("bogus=0:1", "unknown parameter 'bogus': allowed knock_threshold"),
        ("samples=8:64", "search players (kind mc) only"),
        ("knock_threshold=0:12", "allowed 0 to 10"),
        ("undercut_risk=0.0:2.0", "allowed 0 to 1"),
        ("safety_weight=-1:3", "allowed a finite number >= 0"),
        ("knock_threshold", "expected key=low:high"),
        ("knock_threshold=a:b", "expected low:high"),
        ("knock_threshold=0.5:3.5", "whole numbers"),
        ("", "expected key=low:high items"),
        ("knock_threshold=0:10,,keep_weight=0:1", "expected key=low:high items"),
        ("knock_threshold=0:4,knock_threshold=5:9", "given twice"),
        ("take_melds=0:1", "true or false"),
        ("knock_schedule=10/20", "fall strictly"),
        ("knock_schedule=20/10@0:12", "out of range"),
        ("knock_schedule=18:24/20:26", "must not overlap"),
        ("knock_threshold=0:10,knock_schedule=20/10", "search one of the two"),
        ("keep_weight=1.0", "nothing to search"),
        ("keep_weight=0:1:0", "step 0"),
    ],
)
def test_bad_spaces_are_one_line_errors(tmp_path, space, message):
    result = runner.invoke(
        app, ["tune", "--space", space, "--trials", "1", "--out", str(tmp_path / "t"), "--quiet"]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert message in lines[0], lines[0]
    assert not (tmp_path / "t").exists()


def test_spaces_give_the_right_kinds_and_schedules():
    space = parse_space(
        "knock_schedule=18:24/6@2:8,take_melds=false:true,undercut_risk=0.0:1.0:0.25,keep_weight=1"
    )
    kinds = {d.name: (d.kind, d.low, d.high, d.step) for d in space.dimensions}
    assert kinds["knock_schedule.start1"] == ("int", 18, 24, None)
    assert kinds["knock_schedule.threshold3"] == ("int", 2, 8, None)
    assert kinds["take_melds"][0] == "bool" and kinds["undercut_risk"] == ("float", 0.0, 1.0, 0.25)
    values = {"knock_schedule.start1": 20, "take_melds": False, "undercut_risk": 0.5}
    values |= {f"knock_schedule.threshold{i}": t for i, t in ((1, 2), (2, 5), (3, 8))}
    parameters = space.parameters(values)
    assert parameters["knock_schedule"] == ((20, 2), (6, 5), (0, 8))
    assert parameters["keep_weight"] == 1
    tuned = gin_sim.space.apply(load_strategy("expert"), load_rules("standard"), parameters)
    assert tuned.knock_schedule == ((20, 2), (6, 5), (0, 8)) and tuned.keep_weight == 1.0
    assert tuned.knock_threshold is None and not tuned.adapt


def test_schedule_search_confirms_on_another_seed_with_adjusted_intervals():
    rules, basic, simple = load_rules("hollywood"), load_strategy("basic"), load_strategy("simple")
    search = schedule_search(rules, basic, simple, (20,), (0, 10), 500, 700, 2, seed=6)
    assert search.confirmation.seed == holdout_seed(6) and search.screening.seed == 6
    screening_singles = [s for s in search.screening.ranking()["schedule"] if "," not in s]
    assert search.best_single() == screening_singles[0]  # chosen before the fresh decks
    plain = search.confirmation.differences(search.best_single()).set_index("schedule")
    shown = search.differences().set_index("schedule")
    assert search.comparisons() == len(search.confirmation.variants) - 1 == 2 + 10
    factor = bonferroni_factor(search.comparisons())
    for label, row in shown.iterrows():
        assert row["mean"] == plain.loc[label, "mean"]
        assert row["half_width"] == pytest.approx(plain.loc[label, "half_width"] * factor)
        assert row["significant"] == (row["low"] > 0 or row["high"] < 0)
