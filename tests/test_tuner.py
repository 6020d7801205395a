"""The strategy tuner: it finds the best knock threshold that the knock report finds on the
same decks, a study resumes without repeating trials, another configuration is refused,
bad spaces are one-line errors, and the winner's TOML file plays."""

from __future__ import annotations

import doctest
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import gin_sim.experiments.holdout
import gin_sim.experiments.ranking
import gin_sim.experiments.space
import gin_sim.experiments.tuner
from gin_sim.experiments.holdout import bonferroni_factor, confirmation_seed, holdout_seed
from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.space import Dimension, parse_space
from gin_sim.experiments.summary import Z95
from gin_sim.experiments.tuner import (
    confirm,
    optimise,
    settings_from,
    strategy_toml,
    top_candidates,
    trials_table,
)
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy
from gin_sim.reports.schedule import schedule_search
from gin_sim.reports.sweeps import knock_sweep

runner = CliRunner()


@pytest.mark.parametrize(
    "module", [gin_sim.experiments.space, gin_sim.experiments.holdout, gin_sim.experiments.ranking]
)
def test_doctests(module):
    assert doctest.testmod(module).failed == 0


def _net_per_deck(hands: pd.DataFrame) -> pd.Series:
    """Net points of ``players[0]`` by deck, straight from the records: it sits in seat 0,
    or seat 1 in the replay with the seats swapped (written apart from the tuner's own)."""
    seat = hands["swapped"].astype(int)
    sign = np.where(hands["winner"] == seat, 1, np.where(hands["winner"] == 1 - seat, -1, 0))
    return pd.Series(sign * hands["points"].to_numpy()).groupby(hands["deal"].to_numpy()).sum()


@pytest.mark.full
def test_every_trial_scores_what_direct_play_gives_on_the_tuning_decks(tmp_path):
    rules, basic, simple = load_rules("hollywood"), load_strategy("basic"), load_strategy("simple")
    deals, seed, blocks = 3_000, 4, 4
    settings = settings_from(
        basic, "knock_threshold=0:10", [simple], rules, deals=deals, blocks=blocks, seed=seed
    )
    study = optimise(settings, tmp_path, trials=25)
    # each threshold played directly on the tuning decks: seed 4, decks 0 to 2,999
    per_deck = {
        t: _net_per_deck(
            head_to_head(rules, (replace(basic, knock_threshold=t), simple), deals, seed)
        )
        for t in range(11)
    }
    assert all(list(net.index) == list(range(deals)) for net in per_deck.values())
    trials = trials_table(study, settings)
    for row in trials.itertuples():  # completed: every deck; pruned: the blocks it played
        played = row.blocks * deals // blocks
        expected = per_deck[row.knock_threshold].iloc[:played].sum() / (2 * played)
        assert row.value == pytest.approx(expected, abs=1e-12)
        assert row.state == "COMPLETE" or row.blocks < blocks
    complete = trials[trials["state"] == "COMPLETE"]
    assert complete["knock_threshold"].nunique() >= 3  # the search compared something
    # the best trial is the threshold that direct play puts first among those completed
    direct = {t: per_deck[t].mean() for t in complete["knock_threshold"]}
    (_, values, value), *_ = top_candidates(study, settings, 1)
    assert values == {"knock_threshold": max(direct, key=direct.get)}
    assert value == pytest.approx(max(direct.values()) / 2, abs=1e-12)
    # and, played on every threshold, the knock report picks the same one
    assert max(direct, key=direct.get) == knock_sweep(rules, basic, simple, deals, 0, seed).best()


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


@pytest.mark.full
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


def test_three_streams_of_decks_and_a_winner_confirmed_on_the_third(tmp_path, monkeypatch):
    settings = _settings()
    played: list[tuple[int, list[int]]] = []  # (seed, deck numbers) of every head-to-head

    def spy(rules, players, deals, seed, *args, **kwargs):
        hands = head_to_head(rules, players, deals, seed, *args, **kwargs)
        played.append((seed, sorted(set(hands["deal"]))))
        return hands

    monkeypatch.setattr(gin_sim.experiments.tuner, "head_to_head", spy)
    study = optimise(settings, tmp_path, trials=6)
    tuning = {deck for seed, decks in played if seed == settings.seed for deck in decks}
    assert {seed for seed, _ in played} == {settings.seed}
    assert tuning == set(range(settings.deals))  # the tuning decks: seed 9, 0 to 799
    played.clear()
    candidates = top_candidates(study, settings, 3)
    count = 600
    confirmation = confirm(settings, candidates, count)
    holdout, final = holdout_seed(settings.seed), confirmation_seed(settings.seed)
    assert (confirmation.seed, confirmation.final_seed) == (holdout, final)
    assert len({settings.seed, holdout, final}) == 3
    assert all(decks == list(range(count)) for _, decks in played)
    opponents = len(settings.opponents)
    # every candidate and the start on the holdout decks; the winner and the start on the third
    assert [seed for seed, _ in played].count(holdout) == (len(candidates) + 1) * opponents
    assert [seed for seed, _ in played].count(final) == 2 * opponents
    # the three streams deal different decks (the reference shuffle, not the kernels)
    decks = {
        seed: {tuple(deck_for_deal(seed, d)) for d in range(200)}
        for seed in (settings.seed, holdout, final)
    }
    assert all(len(d) == 200 for d in decks.values())
    assert not decks[settings.seed] & decks[holdout] and not decks[holdout] & decks[final]
    assert not decks[settings.seed] & decks[final]

    # every figure again by direct play: opponents weighted equally, per hand
    start = settings.strategy.for_rules(settings.rules)

    def per_hand(strategy, seed):
        nets = [
            _net_per_deck(head_to_head(settings.rules, (strategy, o), count, seed)).to_numpy()
            for o in settings.opponents
        ]
        return np.mean(nets, axis=0) / 2  # per deck, per hand

    def interval(values, comparisons=1):
        half = Z95 * values.std(ddof=1) / np.sqrt(len(values))
        return values.mean(), half * bonferroni_factor(comparisons)

    table = confirmation.candidates
    strategies = {
        row["trial"]: settings.candidate(settings.space.parameters(
            {name: row[name] for name in ("knock_threshold", "keep_weight")}
        ))
        for _, row in table.iterrows()
    }  # fmt: skip
    holdout_start = per_hand(start, holdout)
    figures = {}
    for _, row in table.iterrows():
        units = per_hand(strategies[row["trial"]], holdout)
        assert row["holdout"] == pytest.approx(units.mean(), abs=1e-12)
        gain, half = interval(units - holdout_start, len(candidates))
        assert row["gain"] == pytest.approx(gain, abs=1e-12)
        assert row["gain_half_width"] == pytest.approx(half, rel=1e-9)
        figures[row["trial"]] = units.mean()
    winner_trial = max(figures, key=lambda t: (figures[t], -t))  # best holdout figure wins
    assert table.iloc[0]["trial"] == winner_trial
    assert confirmation.winner == strategies[winner_trial]
    gain, half = interval(per_hand(strategies[winner_trial], final) - per_hand(start, final))
    assert confirmation.final_gain.mean == pytest.approx(gain, abs=1e-12)
    assert confirmation.final_gain.half_width == pytest.approx(half, rel=1e-9)
    assert bonferroni_factor(len(candidates)) > 1.1  # the holdout intervals really widen


def test_tune_command_writes_report_and_a_playable_winner(tmp_path):
    out = tmp_path / "tune"
    arguments = ["tune", "--strategy", "basic", "--space", "knock_threshold=6:10"]
    arguments += ["--opponents", "simple", "--trials", "6", "--deals", "400", "--blocks", "2"]
    arguments += ["--top", "2", "--holdout", "400", "--quiet", "--out", str(out)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    markdown = (out / "report.md").read_text()
    for text in (
        "## Confirmation of the winner",
        "## Holdout: the best trials compared",
        "## Optimisation history",
        "gin-sim tune",
    ):
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
        ("take_schedule=10/20", "fall strictly"),
        ("take_schedule=20/10/5/2", "expected 1 to 3 stock sizes"),
        ("take_schedule=32", "allowed 1 to 31"),
        ("take_schedule=20@-1:4", "allowed a finite number >= 0"),
        ("take_schedule=20@4:1", "low 4 is above high 1"),
        ("take_schedule=20,take_min_gain=0:9", "search the schedule or those two"),
        ("take_melds=false:true,take_schedule=20", "search the schedule or those two"),
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
    tuned = gin_sim.experiments.space.apply(
        load_strategy("expert"), load_rules("standard"), parameters
    )
    assert tuned.knock_schedule == ((20, 2), (6, 5), (0, 8)) and tuned.keep_weight == 1.0
    assert tuned.knock_threshold is None and not tuned.adapt


def test_take_schedule_spaces_search_each_phases_rule(tmp_path):
    space = parse_space("take_schedule=18:24/6@0.0:12.0,knock_threshold=0:10")
    kinds = {d.name: (d.kind, d.low, d.high, d.step) for d in space.dimensions}
    assert kinds["take_schedule.start1"] == ("int", 18, 24, None)
    for i in (1, 2, 3):
        assert kinds[f"take_schedule.melds{i}"] == ("bool", False, True, None)
        assert kinds[f"take_schedule.gain{i}"] == ("float", 0.0, 12.0, None)
    assert parse_space("take_schedule=20").dimensions[1] == Dimension(
        "take_schedule.gain1", "int", 0, 10
    )  # the default gains: whole numbers 0 to 10
    assert space.to_json()["take_boundaries"] == ["take_schedule.start1", 6]
    assert "take_boundaries" not in parse_space("knock_schedule=20").to_json()  # as before
    values = {"take_schedule.start1": 21, "knock_threshold": 4}
    values |= {f"take_schedule.melds{i}": m for i, m in ((1, True), (2, False), (3, True))}
    values |= {f"take_schedule.gain{i}": g for i, g in ((1, 0.0), (2, 7.25), (3, 3))}
    parameters = space.parameters(values)
    assert parameters["take_schedule"] == ((21, True, 0.0), (6, False, 7.25), (0, True, 3))
    expert = load_strategy("expert")
    tuned = gin_sim.experiments.space.apply(expert, load_rules("hollywood"), parameters)
    assert tuned.take_schedule == ((21, True, 0.0), (6, False, 7.25), (0, True, 3.0))
    assert tuned.knock_threshold == 4
    # The overridden plain values go back to the family's defaults, as knock_threshold does.
    assert (tuned.take_melds, tuned.take_min_gain) == (True, 0.0)
    # Searching a plain take parameter drops the strategy's own take schedule.
    scheduled = load_strategy("expert", ["take_schedule=20:false:3,0:true:0"])
    plain = gin_sim.experiments.space.apply(
        scheduled, load_rules("hollywood"), {"take_min_gain": 2.0}
    )
    assert plain.take_schedule == () and plain.take_min_gain == 2.0
    # The best strategy's TOML holds the schedule and loads back.
    text = strategy_toml(tuned)
    assert "take_schedule = [[21, true, 0.0], [6, false, 7.25], [0, true, 3.0]]" in text
    (tmp_path / "best.toml").write_text(text)
    assert load_strategy(tmp_path / "best.toml") == tuned


def test_schedule_search_picks_on_holdout_decks_and_confirms_on_a_third_stream():
    rules, basic, simple = load_rules("hollywood"), load_strategy("basic"), load_strategy("simple")
    search = schedule_search(rules, basic, simple, (20,), (0, 10), 500, 700, 2, seed=6)
    assert search.confirmation.seed == holdout_seed(6) and search.screening.seed == 6
    # the schedule picked on the holdout decks and the reference, on the third stream
    verification = search.verification
    assert verification.seed == confirmation_seed(6) and verification.deals == 700
    assert set(verification.variants) == {search.best_schedule(), search.best_single()}
    holdout_order = [s for s in search.confirmation.ranking()["schedule"] if "," in s]
    assert search.best_schedule() == holdout_order[0]
    picked, reference = (
        _net_per_deck(head_to_head(rules, (verification.variants[label], simple), 700, confirmation_seed(6))).to_numpy() / 2
        for label in (search.best_schedule(), search.best_single())
    )  # fmt: skip
    differences = picked - reference
    gain = search.gain()
    assert gain["mean"] == pytest.approx(differences.mean(), abs=1e-12)
    half = Z95 * differences.std(ddof=1) / np.sqrt(700)  # one comparison: not widened
    assert gain["half_width"] == pytest.approx(half, rel=1e-9)
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
