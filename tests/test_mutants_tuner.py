"""The tuner's figures pinned by hand-computed cases (issue 27, part 1; docs/testing.md):
net points and match wins from hand-made records, the blocks of the tuning decks, a
trial's running value, and the holdout confirmation's paired, Bonferroni-adjusted gains,
with the play replaced by made-up per-deck figures so that every number is known and the
tests take well under a second of play."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import asdict, replace
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

import gin_sim.experiments.tuner as tuner
from gin_sim.experiments.holdout import confirmation_seed, holdout_seed
from gin_sim.experiments.outputs import plain
from gin_sim.experiments.summary import Z95
from gin_sim.experiments.tuner import (
    TuneError,
    block_values,
    check_config,
    check_study_file,
    confirm,
    importances,
    net_by_deck,
    settings_from,
    strategy_toml,
    toml_value,
    top_candidates,
    trial_seed,
    trials_table,
    tuning_options,
    wins_by_match,
)
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


@pytest.fixture(autouse=True)
def _no_runaway_study(monkeypatch):
    """No test here asks for more than 40 trials: a study that keeps asking (a trial count
    lost on the way to Optuna) fails at once instead of running until it is stopped."""
    original = tuner.TuneSettings.candidate
    asked = []

    def candidate(self, parameters):
        asked.append(parameters)
        if len(asked) > 40:
            raise AssertionError("more than 40 trials asked: the study does not stop")
        return original(self, parameters)

    monkeypatch.setattr(tuner.TuneSettings, "candidate", candidate)


def test_net_points_and_match_wins_follow_player_0s_seat_by_hand():
    """Deck 0: player 0 (seat 0) wins 12, then in the replay (seats swapped, it sits in
    seat 1) seat 1 wins 31: +43. Deck 1: seat 1 wins 14 (player 1), then a drawn hand
    (winner -1, points 0): -14. Matches: player 0 wins match 0's first play (seat 0) and
    loses its replay (seat 1 wins, but player 0 is seat 1 there: a win), so 2; loses
    both plays of match 1: 0. Points stored as int16 (the record's type) sum without
    overflow: 200 + 200 in one deck."""
    hands = pd.DataFrame(
        {"deal": [0, 0, 1, 1], "swapped": [False, True, False, True],
         "winner": [0, 1, 1, -1], "points": np.array([12, 31, 14, 0], np.int16)}
    )  # fmt: skip
    assert net_by_deck(hands).tolist() == [43, -14]
    big = hands.assign(points=np.array([200, 200, 14, 0], np.int16), winner=[0, 1, 1, -1])
    assert net_by_deck(big).tolist() == [400, -14]
    # a run without the replay: player 0 is always seat 0
    plain = pd.DataFrame({"deal": [0, 1, 2], "winner": [0, 1, -1], "points": [5, 7, 9]})
    assert net_by_deck(plain).tolist() == [5, -7, 0]
    # deck 2: a drawn hand, then in the replay seat 0 (player 1 there) wins 9: -9; the
    # figures are whole points (integers), as the records' are
    replay = pd.DataFrame(
        {"deal": [2, 2], "swapped": [False, True], "winner": [-1, 0],
         "points": np.array([0, 9], np.int16)}
    )  # fmt: skip
    assert net_by_deck(replay).tolist() == [-9]
    assert net_by_deck(hands).dtype.kind == "i" and net_by_deck(replay).dtype.kind == "i"
    matches = pd.DataFrame(
        {"match": [0, 0, 1, 1], "swapped": [False, True, False, True], "winner": [0, 1, 1, 0]}
    )
    assert wins_by_match(matches).tolist() == [2, 0]


def _settings(blocks=3, deals=10, opponents=("simple", "defensive")):
    return settings_from(
        load_strategy("basic"), "knock_threshold=0:10",
        [load_strategy(o) for o in opponents], load_rules("hollywood"),
        deals=deals, blocks=blocks, seed=9,
    )  # fmt: skip


def test_the_blocks_split_the_tuning_decks_into_consecutive_near_equal_parts():
    settings = _settings(blocks=3, deals=10)
    ranges = [settings.block_range(b) for b in range(3)]
    assert ranges == [(0, 3), (3, 6), (6, 10)]
    assert settings.units == 10


def _made_up(strategy, opponent, count, stream, first):
    """Per-deck net points of ``strategy`` (by its knock threshold) against ``opponent`` on
    decks ``first`` to ``first + count - 1`` of ``stream``: a figure known in advance."""
    decks = np.arange(first, first + count)
    threshold = 1 if strategy.knock_threshold is None else strategy.knock_threshold  # the start
    offset = {"simple": 0, "defensive": 3}[opponent.name]
    wobble = (decks * 7 + stream % 11 + offset) % 5 - 2  # the same for every strategy
    if threshold == 5:  # as good as the start on average, better or worse deck by deck
        return 3 + offset + wobble + ((decks % 2) * 2 - 1) * 6
    return threshold * 2 + offset + wobble + (decks % 3) * threshold


def test_a_trials_value_after_each_block_is_the_mean_per_hand_of_the_decks_so_far(monkeypatch):
    """Blocks of 3, 3 and 4 decks; after each block the value is the mean over the two
    opponents of the net points over the decks played so far, per hand (two per deck)."""
    settings = _settings(blocks=3, deals=10)
    monkeypatch.setattr(
        tuner, "play_units",
        lambda rules, s, o, objective, count, seed, first: _made_up(s, o, count, seed, first),
    )  # fmt: skip
    strategy = settings.candidate({"knock_threshold": 4})
    got = list(block_values(settings, strategy))
    for stop, value in zip((3, 6, 10), got, strict=True):
        per_opponent = [_made_up(strategy, o, stop, 9, 0).sum() for o in settings.opponents]
        assert value == pytest.approx(np.mean(per_opponent) / (2 * stop), abs=1e-12)
    assert len(got) == 3


def test_the_confirmation_pairs_gains_by_deck_and_widens_them_for_every_candidate(monkeypatch):
    """Three candidates (thresholds 2, 7, 5) against the start (basic's own threshold, 1
    in the made-up figures) on made-up holdout decks: each gain is the mean per hand of
    the per-deck difference (the opponents weighted equally), its half width the paired
    one widened by the normal quantile ratio for 3 comparisons; the best holdout figure
    wins (7), and its final gain is paired on the third stream, not widened."""
    settings = _settings(deals=20, blocks=2)
    count = 30
    monkeypatch.setattr(
        tuner, "play_units",
        lambda rules, s, o, objective, n, seed, first: _made_up(s, o, n, seed, first),
    )  # fmt: skip
    candidates = [(4, {"knock_threshold": 2}, 1.0), (8, {"knock_threshold": 7}, 0.5)]
    candidates.append((11, {"knock_threshold": 5}, 0.2))
    result = confirm(settings, candidates, count)
    start_strategy = settings.strategy.for_rules(settings.rules)
    holdout, final = holdout_seed(9), confirmation_seed(9)
    assert (result.seed, result.final_seed, result.count) == (holdout, final, count)

    def pooled(strategy, stream):
        return np.mean([_made_up(strategy, o, count, stream, 0) for o in settings.opponents], 0)

    factor = NormalDist().inv_cdf(1 - 0.05 / (2 * 3)) / Z95
    start = pooled(start_strategy, holdout)
    assert result.start.mean == pytest.approx(start.mean() / 2)
    table = result.candidates.set_index("trial")
    assert list(result.candidates["trial"]) == [8, 4, 11]  # best holdout figure first
    # threshold 5 gains nothing on average (+6 and -6 on alternate decks): not significant
    assert table["significant"].to_dict() == {8: True, 4: True, 11: False}
    for trial, values, tuning_value in candidates:
        units = pooled(settings.candidate(values), holdout)
        difference = (units - start) / 2  # per hand
        half = Z95 * difference.std(ddof=1) / np.sqrt(count) * factor
        row = table.loc[trial]
        assert row["tuning_value"] == tuning_value
        assert row["holdout"] == pytest.approx(units.mean() / 2, abs=1e-12)
        assert row["holdout_half_width"] == pytest.approx(
            Z95 * (units / 2).std(ddof=1) / np.sqrt(count)
        )
        assert row["gain"] == pytest.approx(difference.mean(), abs=1e-12)
        assert row["gain_half_width"] == pytest.approx(half, rel=1e-9)
        assert row["gain_low"] == pytest.approx(difference.mean() - half)
        assert row["gain_high"] == pytest.approx(difference.mean() + half)
        assert row["significant"] == (abs(difference.mean()) > half)
        assert row["n"] == count and row["knock_threshold"] == values["knock_threshold"]
        assert not row["same_as_start"]
    assert result.winner == settings.candidate({"knock_threshold": 7})
    assert result.winner_parameters == {"knock_threshold": 7}
    winner_final, start_final = pooled(result.winner, final), pooled(start_strategy, final)
    assert result.final_start.mean == pytest.approx(start_final.mean() / 2)
    assert result.final_winner.mean == pytest.approx(winner_final.mean() / 2)
    difference = (winner_final - start_final) / 2
    assert result.final_gain.mean == pytest.approx(difference.mean(), abs=1e-12)
    assert result.final_gain.half_width == pytest.approx(
        Z95 * difference.std(ddof=1) / np.sqrt(count), rel=1e-9
    )
    # the paired difference is far narrower than the two figures' intervals would say
    assert result.final_gain.half_width < result.final_winner.half_width


# -- the study's settings, options and files (no play: Optuna is not even opened) ----------
def test_the_settings_document_names_every_field_and_the_units_of_its_objective():
    """tune.json (what a resumed study is compared with) is a known document: each field
    under its own name, and the tuning units under "deals" or "matches" by objective,
    never both."""
    settings = _settings(blocks=3, deals=10)
    expected = {
        "strategy": settings.strategy.to_config(),
        "space": "knock_threshold=0:10",
        "space_parsed": settings.space.to_json(),
        "opponents": [o.to_config() for o in settings.opponents],
        "rules": asdict(settings.rules),
        "objective": "deals",
        "blocks": 3,
        "seed": 9,
        "deals": 10,
    }
    assert settings.to_json() == expected
    matches = replace(settings, objective="matches", matches=12)
    assert matches.to_json() == {k: v for k, v in expected.items() if k != "deals"} | {
        "objective": "matches",
        "matches": 12,
    }


def test_the_tuning_options_are_the_study_and_the_three_output_options():
    settings = _settings()
    assert tuning_options(settings, 7, 3, 500) == {
        "study": settings.to_json(), "trials": 7, "top": 3, "holdout": 500,
    }  # fmt: skip


def test_each_trials_sampler_seed_is_a_known_function_of_the_seed_and_the_trials_before():
    """seed x 1,000,003 + finished, modulo 2^32: trials after different numbers of finished
    ones get different seeds, and a large seed wraps into the sampler's range."""
    assert trial_seed(1, 0) == 1_000_003
    assert trial_seed(1, 5) == 1_000_008
    assert trial_seed(2, 1) == 2_000_007
    assert trial_seed(5_000, 3) == (5_000 * 1_000_003 + 3) % (1 << 32) == 705_047_707
    assert trial_seed(1 << 32, 4) == 4


def _write_config(folder, document):
    (folder / tuner.CONFIG).write_text(json.dumps(document))


def _config_refusal(settings, folder):
    with pytest.raises(TuneError) as caught:
        check_config(settings, folder)
    return str(caught.value)


def test_a_folder_is_this_studys_only_when_its_tune_json_equals_the_settings(tmp_path):
    """No tune.json: a new study (False), unless a study.db is there without it (refused);
    the same settings: True; other settings: refused, naming the fields that differ (in
    the document's order) and then the fields it has that the settings do not."""
    settings = _settings()
    assert check_config(settings, tmp_path) is False
    (tmp_path / tuner.STUDY).write_bytes(b"")
    assert (
        _config_refusal(settings, tmp_path)
        == f"{tmp_path} holds a study.db but no tune.json: use another --out"
    )
    _write_config(tmp_path, plain(settings.to_json()))
    assert check_config(settings, tmp_path) is True
    other = plain(replace(settings, seed=10, blocks=2).to_json()) | {"extra": 1}
    _write_config(tmp_path, other)
    assert _config_refusal(settings, tmp_path) == (
        f"{tmp_path} holds another tuning study (different blocks, seed, extra): use another"
        " --out, or the same settings to resume it"
    )


def test_a_damaged_or_foreign_tune_json_is_a_one_line_error_naming_it(tmp_path):
    settings = _settings()
    path = tmp_path / tuner.CONFIG
    path.write_text("[1, 2]")
    assert (
        _config_refusal(settings, tmp_path)
        == f"{path} is not a tuning study's settings: use another --out"
    )
    path.write_text("{")
    damaged = _config_refusal(settings, tmp_path)
    assert damaged.startswith(f"{path} is damaged (")
    assert damaged.endswith("): use another --out")
    path.write_text("[" * 100_000 + "]" * 100_000)  # too deep: the error names the file
    assert _config_refusal(settings, tmp_path).startswith(
        f"{path} is damaged ({path}: nested more than"
    )


_WHERE = "is not a usable study"
_ADVICE = "move it away to start the study afresh, or use another --out"


def _database(path, *statements):
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


_OPTUNA_TABLES = (
    "CREATE TABLE studies (study_id INTEGER PRIMARY KEY, study_name TEXT)",
    "CREATE TABLE trials (trial_id INTEGER PRIMARY KEY)",
    "CREATE TABLE version_info (version_info_id INTEGER PRIMARY KEY)",
)


def _refusal(path):
    with pytest.raises(TuneError) as caught:
        check_study_file(path)
    return str(caught.value)


def test_a_study_file_is_used_when_missing_empty_or_gin_sims_own_optuna_study(tmp_path):
    """Missing, empty, an SQLite database with no table yet, or one holding Optuna's
    tables and only the study "tune": all accepted (a new study, or this one resumed)."""
    path = tmp_path / "study.db"
    check_study_file(path)  # missing
    path.write_bytes(b"")
    check_study_file(path)
    path.unlink()
    _database(path, "PRAGMA user_version = 1")  # a database with its header and no table
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"
    check_study_file(path)
    path.unlink()
    _database(path, *_OPTUNA_TABLES, "INSERT INTO studies VALUES (1, 'tune')")
    check_study_file(path)
    assert sqlite3.connect(path).execute("SELECT count(*) FROM studies").fetchone()[0] == 1


def test_a_study_file_of_something_else_is_refused_with_the_reason_and_kept(tmp_path):
    """Not SQLite; SQLite with other tables (a missing one of Optuna's three suffices);
    Optuna's tables holding other studies (named, sorted); a damaged database: each a one-
    line TuneError naming the file and the way out, the file left as it was."""
    path = tmp_path / "study.db"
    path.write_bytes(b"sqlite format 3\x00 but not a database")
    assert _refusal(path) == (
        f"{path} {_WHERE} (not an SQLite database: damaged or another file): {_ADVICE}"
    )
    path.unlink()
    _database(path, "CREATE TABLE notes (text TEXT)")
    before = path.read_bytes()
    assert _refusal(path) == f"{path} {_WHERE} (a database of something else): {_ADVICE}"
    assert path.read_bytes() == before
    for missing in range(3):
        path.unlink()
        _database(path, *(t for i, t in enumerate(_OPTUNA_TABLES) if i != missing))
        assert _refusal(path) == f"{path} {_WHERE} (a database of something else): {_ADVICE}"
    path.unlink()
    _database(
        path, *_OPTUNA_TABLES, "CREATE TABLE extra (x)",
        "INSERT INTO studies VALUES (1, 'tune'), (2, 'zeta'), (3, 'alpha')",
    )  # fmt: skip
    assert _refusal(path) == (
        f"{path} {_WHERE} (it holds other Optuna studies: alpha, tune, zeta): {_ADVICE}"
    )
    path.write_bytes(b"SQLite format 3\x00" + b"\x01" * 200)
    assert _refusal(path).startswith(f"{path} {_WHERE} (damaged: ")
    assert _refusal(path).endswith(f"): {_ADVICE}")


def test_a_study_file_beyond_its_bound_or_not_a_regular_file_is_refused_unread(tmp_path):
    """study.db may exceed an ordinary user file's 1 MiB bound (it is read up to 1 GiB:
    a sparse 2 MiB file is opened, then found damaged), but not 1 GiB; a FIFO is refused
    without waiting for a writer; a folder cannot be read."""
    path = tmp_path / "study.db"
    with open(path, "wb") as file:
        file.write(b"SQLite format 3\x00")
        file.truncate(2 << 20)
    assert _refusal(path).startswith(f"{path} {_WHERE} (damaged: ")
    with open(path, "r+b") as file:
        file.truncate(tuner.MAX_STUDY_BYTES + 1)
    message = _refusal(path)
    assert message.startswith(f"{path}") and message.endswith(f"; {path} {_WHERE}: {_ADVICE}")
    path.unlink()
    os.mkfifo(path)
    assert _refusal(path).endswith(f"; {path} {_WHERE}: {_ADVICE}")
    path.unlink()
    path.mkdir()
    assert _refusal(path) == f"cannot read {path}: Is a directory"


# -- the study run by Optuna, with made-up play (seconds, no deal played) -----------------
def _fake_play(monkeypatch):
    calls = []

    def play(rules, strategy, opponent, objective, count, seed, first):
        calls.append((strategy.knock_threshold, opponent.name, count, first))
        return _made_up(strategy, opponent, count, seed, first)

    monkeypatch.setattr(tuner, "play_units", play)
    return calls


def test_a_study_runs_exactly_its_trials_reports_each_block_and_resumes(tmp_path, monkeypatch):
    """Every trial reports the running value after each block at steps 1, 2, 3 (the
    values block_values gives); a trial whose parameters equal a finished trial's takes
    its result without playing (repeat_of names the first); the study stops at exactly
    ``trials`` finished trials; rerun with more, it reports the finished ones first, once,
    (capped at the trials asked), and its samplers are seeded so that the same settings
    in another folder propose the same parameters."""
    import optuna

    calls = _fake_play(monkeypatch)
    settings = settings_from(
        load_strategy("basic"), "knock_threshold=0:2",
        [load_strategy("simple"), load_strategy("defensive")], load_rules("hollywood"),
        deals=6, blocks=3, seed=9,
    )  # fmt: skip
    progress, blocks = [], []
    study = tuner.optimise(
        settings, tmp_path / "a", 5, lambda n, resumed: progress.append((n, resumed)),
        lambda number, block: blocks.append((number, block)),
    )  # fmt: skip
    trials = tuner.finished_trials(study)
    assert len(trials) == 5 and progress == [(1, False)] * 5
    played = [t for t in trials if t.user_attrs.get("repeat_of", -1) < 0]
    assert len(played) == len({t.params["knock_threshold"] for t in trials}) < 5
    assert blocks == [(t.number, b) for t in played for b in range(len(t.intermediate_values))]
    assert len(calls) == 2 * len(blocks)  # two opponents a block
    states = optuna.trial.TrialState
    for trial in trials:
        if trial.user_attrs.get("repeat_of", -1) >= 0:
            first = study.trials[trial.user_attrs["repeat_of"]]
            assert first.user_attrs.get("repeat_of", -1) == -1
            assert first.params == trial.params and first.state == trial.state
            if first.state == states.COMPLETE:
                assert trial.value == first.value
            else:  # the pruned trial's blocks, reported again
                assert trial.intermediate_values == first.intermediate_values
    for trial in played:
        expected = list(block_values(settings, settings.candidate(trial.params)))
        steps = len(trial.intermediate_values)
        assert trial.intermediate_values == dict(enumerate(expected[:steps], start=1))
        if trial.state == states.COMPLETE:
            assert steps == 3 and trial.value == expected[-1]
        else:  # pruned at the rung of 2 blocks (never after the last block)
            assert trial.state == states.PRUNED and steps == 2
    assert {t.state for t in played} == {states.COMPLETE, states.PRUNED}
    progress.clear()
    again = tuner.optimise(settings, tmp_path / "a", 3, lambda n, r: progress.append((n, r)))
    assert len(tuner.finished_trials(again)) == 5 and progress == [(3, True)]
    progress.clear()
    again = tuner.optimise(settings, tmp_path / "a", 6, lambda n, r: progress.append((n, r)))
    assert len(tuner.finished_trials(again)) == 6 and progress == [(5, True), (1, False)]
    other = tuner.optimise(settings, tmp_path / "b", 5)
    assert [t.params for t in tuner.finished_trials(other)] == [t.params for t in trials]
    with pytest.raises(tuner.ConfigError, match=r"^trials = 0: allowed 1 or more$"):
        tuner.optimise(settings, tmp_path / "c", 0)
    tuner.optimise(settings, tmp_path / "d", 1)  # one trial is allowed


def test_a_new_study_is_written_as_its_tune_json_and_an_abandoned_trial_is_dropped(tmp_path):
    """open_study writes tune.json (the settings, indented by 2, a final line break) and
    creates the maximising study "tune" with successive halving at 2 blocks, halving; a
    trial left running (a killed process) is failed on reopening, to be played anew."""
    import optuna

    settings = _settings()
    with tuner.optuna_messages():
        study = tuner.open_study(settings, tmp_path / "new")
        text = (tmp_path / "new" / tuner.CONFIG).read_text()
        assert text == json.dumps(settings.to_json(), indent=2) + "\n"
        assert not (tmp_path / "new" / tuner.CONFIG_TEMPORARY).exists()
        assert study.study_name == "tune"
        assert study.direction == optuna.study.StudyDirection.MAXIMIZE
        assert study.pruner._min_resource == 2 and study.pruner._reduction_factor == 2
        running = study.ask()
        done = study.ask()
        study.tell(done, 1.5)
        again = tuner.open_study(settings, tmp_path / "new")
        states = {t.number: t.state for t in again.get_trials()}
        assert states == {
            running.number: optuna.trial.TrialState.FAIL,
            done.number: optuna.trial.TrialState.COMPLETE,
        }
        assert again.trials[done.number].value == 1.5
        with pytest.raises(TuneError, match="holds another tuning study"):
            tuner.open_study(replace(settings, seed=10), tmp_path / "new")


def test_a_tuning_folder_is_claimed_for_a_tune_of_its_settings_and_output_options(tmp_path):
    """The claim marks the folder as a "tune" of the settings and of trials, top and
    holdout; the study's own files are not a user's; an unfinished tune of other options
    goes on under the new ones (its trials are kept), a finished one is only reported
    again with the same options and refused with others; a user's file is refused."""
    from gin_sim.experiments.outputs import FolderError, read_owner

    settings = _settings()
    folder = tmp_path / "tune"
    claim = tuner.claim_tuning(settings, folder, 5, 2, 100)
    assert not claim.finished
    _write_config(folder, plain(settings.to_json()))
    for name in ("study.db", "study.db-journal", "best.toml"):
        (folder / name).write_text("")
    claim.release()
    record = read_owner(folder)
    assert record["kind"] == "tune" and not record["finished"]
    assert record["options"] == plain(tuning_options(settings, 5, 2, 100))
    claim = tuner.claim_tuning(settings, folder, 6, 3, 200)  # unfinished: taken over
    assert not claim.finished
    claim.finish()
    claim.release()
    assert read_owner(folder)["options"] == plain(tuning_options(settings, 6, 3, 200))
    again = tuner.claim_tuning(settings, folder, 6, 3, 200)
    assert again.finished
    again.release()
    for trials, top, holdout in ((7, 3, 200), (6, 4, 200), (6, 3, 300)):
        with pytest.raises(FolderError, match="holds a finished tune of other options"):
            tuner.claim_tuning(settings, folder, trials, top, holdout)
    other = tmp_path / "other"
    claim = tuner.claim_tuning(settings, other, 5, 2, 100)
    _write_config(other, plain(settings.to_json()))
    claim.release()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(FolderError, match="did not write"):
        tuner.claim_tuning(settings, other, 5, 2, 100)


def test_play_units_passes_the_decks_asked_to_the_right_play_and_counts_player_0(monkeypatch):
    """Deals: head_to_head of (strategy, opponent), ``count`` decks of ``seed`` from deck
    ``first``, each replayed with the seats swapped, read as net points by deck; matches:
    head_to_head_matches of the same, from match ``first``, read as matches won (integers)."""
    calls = []
    hands = pd.DataFrame(
        {"deal": [4, 4, 5, 5], "swapped": [False, True, False, True],
         "winner": [0, 1, 1, -1], "points": np.array([12, 31, 14, 0], np.int16)}
    )  # fmt: skip
    matches = pd.DataFrame(
        {"match": [4, 4, 5, 5], "swapped": [False, True, False, True], "winner": [0, 1, 1, 0]}
    )

    def deals(*args, **kwargs):
        calls.append(("deals", args, kwargs))
        return hands

    def match_play(*args, **kwargs):
        calls.append(("matches", args, kwargs))
        return matches, None

    monkeypatch.setattr(tuner, "head_to_head", deals)
    monkeypatch.setattr(tuner, "head_to_head_matches", match_play)
    rules, me, them = object(), object(), object()
    got = tuner.play_units(rules, me, them, "deals", 2, 77, 4)
    assert got.tolist() == [43, -14]
    assert calls == [("deals", (rules, (me, them), 2, 77, True, 4), {})]
    calls.clear()
    got = tuner.play_units(rules, me, them, "matches", 2, 77, 4)
    assert got.tolist() == [2, 0] and got.dtype.kind == "i"
    assert calls == [("matches", (rules, (me, them), 2, 77), {"first_match": 4})]
    assert wins_by_match(matches).dtype.kind == "i"


def test_optunas_log_and_warnings_become_one_line_gin_sim_warnings_each_once(monkeypatch):
    """Inside optuna_messages: an Optuna log record at WARNING is a GinSimWarning
    "optuna: <message>", shown once however often it comes; a failed trial's record and
    one carrying a traceback are dropped (the caller reports the error); a Python warning
    from Optuna's files is prefixed too, gin-sim's own pass once, another library's
    warning goes on unchanged."""
    import logging
    import sys
    import warnings

    from gin_sim.game.config import GinSimWarning

    logger = logging.getLogger("optuna")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tuner.optuna_messages():
            logger.warning("study %s resumed", "tune")
            logger.warning("study %s resumed", "tune")
            logger.info("not shown")
            logger.warning("Trial 3 failed with parameters: {}")
            try:
                raise ValueError("boom")
            except ValueError:
                logger.warning("a trial stopped", exc_info=sys.exc_info())
            path = f"{os.sep}site{os.sep}optuna{os.sep}x.py"
            warnings.warn_explicit("from optuna", UserWarning, path, 1)
            warnings.warn_explicit("from optuna", UserWarning, path, 2)
            warnings.warn("ours", GinSimWarning, stacklevel=1)
            warnings.warn_explicit("from elsewhere", UserWarning, "/site/other.py", 3)
    shown = [(w.category, str(w.message)) for w in caught]
    assert shown == [
        (GinSimWarning, "optuna: study tune resumed"),
        (GinSimWarning, "optuna: from optuna"),
        (GinSimWarning, "ours"),
        (UserWarning, "from elsewhere"),
    ]
    assert not any(isinstance(h, tuner._OptunaLog) for h in logger.handlers)


def test_a_tuning_folder_that_is_a_file_is_refused_naming_it_a_tuning_folder(tmp_path):
    """optimise and open_study each make the folder; a file in its place is a one-line
    error calling it the tuning folder."""
    path = tmp_path / "out"
    path.write_text("a user's file")
    message = f"cannot create the tuning folder {path}: it is a file, not a folder"
    settings = _settings()
    for make in (
        lambda: tuner.optimise(settings, path, 1),
        lambda: tuner.open_study(settings, path),
    ):
        with pytest.raises(tuner.ConfigError) as caught:
            make()
        assert str(caught.value) == message
    assert path.read_text() == "a user's file"


# -- the tables of a finished study, from made-up trials (no play, no file) ----------------
_TWO = "knock_threshold=0:10,keep_weight=0.0:2.0"


def _made_up_study(*trials):
    """An in-memory study holding ``trials``: (state, params, value, steps, repeat_of)."""
    import optuna

    kinds = {
        "knock_threshold": optuna.distributions.IntDistribution(0, 10),
        "keep_weight": optuna.distributions.FloatDistribution(0.0, 2.0),
    }
    study = optuna.create_study(direction="maximize")
    for state, params, value, steps, repeat_of in trials:
        study.add_trial(
            optuna.trial.create_trial(
                state=getattr(optuna.trial.TrialState, state),
                params=params,
                distributions={name: kinds[name] for name in params},
                value=value,
                intermediate_values=steps,
                user_attrs={} if repeat_of is None else {"repeat_of": repeat_of},
            )
        )
    return study


def test_the_trials_table_lists_each_finished_trial_with_its_last_value_and_blocks():
    """Trials 0 and 3 completed all 3 blocks (3 repeats 0), 1 was pruned after 2 blocks
    and 4 repeats it, 2 failed: the table has the four finished ones in number order, a
    pruned trial's value its last block's, a trial that repeats nothing -1, and one
    column per dimension of the space, the index 0 to 3."""
    settings = settings_from(
        load_strategy("basic"), _TWO, [load_strategy("simple")], load_rules("hollywood"),
        deals=12, blocks=3, seed=9,
    )  # fmt: skip
    good, weak = (
        {"knock_threshold": 3, "keep_weight": 0.5},
        {"knock_threshold": 7, "keep_weight": 1.0},
    )
    study = _made_up_study(
        ("COMPLETE", good, 1.5, {1: 1.0, 2: 1.25, 3: 1.5}, None),
        ("PRUNED", weak, None, {1: -0.5, 2: -0.25}, None),
        ("FAIL", {"knock_threshold": 2, "keep_weight": 0.0}, None, {1: 9.0}, None),
        ("COMPLETE", good, 1.5, {1: 1.0, 2: 1.25, 3: 1.5}, 0),
        ("PRUNED", weak, None, {1: -0.5, 2: -0.25}, 1),
    )
    expected = pd.DataFrame(
        {
            "number": [0, 1, 3, 4],
            "state": ["COMPLETE", "PRUNED", "COMPLETE", "PRUNED"],
            "value": [1.5, -0.25, 1.5, -0.25],
            "blocks": [3, 2, 3, 2],
            "repeat_of": [-1, -1, 0, 1],
            "knock_threshold": [3, 7, 3, 7],
            "keep_weight": [0.5, 1.0, 0.5, 1.0],
        }
    )
    pd.testing.assert_frame_equal(trials_table(study, settings), expected)


def test_the_candidates_are_the_best_completed_trials_with_distinct_parameters():
    """Values 1.0, 2.0 (trial 1), a pruned trial whose last block reached 5.0, 2.0 again
    with trial 1's parameters (3), 2.0 with others (4), 0.5 and a failed trial: the best
    completed are 1 then 4 (a tie goes to the earlier trial; 3 repeats 1), then 0 and 5;
    ``top`` caps the list, and a study with fewer distinct ones gives them all."""
    study = _made_up_study(
        ("COMPLETE", {"knock_threshold": 3}, 1.0, {}, None),
        ("COMPLETE", {"knock_threshold": 5}, 2.0, {}, None),
        ("PRUNED", {"knock_threshold": 9}, None, {2: 5.0}, None),
        ("COMPLETE", {"knock_threshold": 5}, 2.0, {}, 1),
        ("COMPLETE", {"knock_threshold": 6}, 2.0, {}, None),
        ("COMPLETE", {"knock_threshold": 1}, 0.5, {}, None),
        ("FAIL", {"knock_threshold": 10}, None, {}, None),
    )
    settings = _settings()
    ranked = [
        (1, {"knock_threshold": 5}, 2.0),
        (4, {"knock_threshold": 6}, 2.0),
        (0, {"knock_threshold": 3}, 1.0),
        (5, {"knock_threshold": 1}, 0.5),
    ]
    for top in (1, 2, 3, 4, 10):
        got = top_candidates(study, settings, top)
        assert got == ranked[:top]
        assert all(type(value) is float for _, _, value in got)


def test_the_importances_are_optunas_by_the_method_named_or_an_empty_table_saying_why(
    monkeypatch,
):
    """Without scikit-learn: PED-ANOVA, whose figures are Optuna's own for the study (the
    parameter that drives the value first, the importances summing to 1); with it,
    fANOVA with a fixed seed (the same study gives the same figures); an evaluator that
    cannot rank the study gives an empty table and the method with the reason."""
    import sys
    import types

    import optuna

    rng = np.random.default_rng(3)
    study = _made_up_study(
        *(
            ("COMPLETE", {"knock_threshold": i % 11, "keep_weight": float(rng.uniform(0, 2))},
             -float((i % 11 - 6) ** 2), {}, None)
            for i in range(30)
        )
    )  # fmt: skip
    monkeypatch.setitem(sys.modules, "sklearn", None)  # not installed
    table, method = importances(study)
    assert method == "PED-ANOVA"
    direct = optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.PedAnovaImportanceEvaluator()
    )
    pd.testing.assert_frame_equal(
        table, pd.DataFrame({"parameter": list(direct), "importance": list(direct.values())})
    )
    assert list(table["parameter"]) == ["knock_threshold", "keep_weight"]
    assert table["importance"].sum() == pytest.approx(1.0)

    built, asked = [], []

    class Fanova:
        def __init__(self, **options):
            built.append(options)

    def evaluate(study, *, evaluator=None):
        asked.append((study, evaluator))
        return {"keep_weight": 0.75, "knock_threshold": 0.25}

    monkeypatch.setitem(sys.modules, "sklearn", types.ModuleType("sklearn"))  # installed
    monkeypatch.setattr(optuna.importance, "FanovaImportanceEvaluator", Fanova)
    monkeypatch.setattr(optuna.importance, "get_param_importances", evaluate)
    table, method = importances(study)
    assert method == "fANOVA"
    assert len(built) == 1 and isinstance(built[0].get("seed"), int)  # reproducible
    assert len(asked) == 1 and asked[0][0] is study and isinstance(asked[0][1], Fanova)
    pd.testing.assert_frame_equal(
        table,
        pd.DataFrame({"parameter": ["keep_weight", "knock_threshold"], "importance": [0.75, 0.25]}),
    )

    def cannot(study, *, evaluator=None):
        raise ValueError("too few trials")

    monkeypatch.setattr(optuna.importance, "get_param_importances", cannot)
    table, method = importances(study)
    assert method == "fANOVA (not available: too few trials)"
    assert list(table.columns) == ["parameter", "importance"] and table.empty


def test_numpy_values_of_the_candidates_table_become_plain_python_ones():
    """The winner's parameters are read from a table row (numpy scalars) and go into a
    strategy and its TOML file as plain booleans, integers and floats."""
    for value, plain_value in (
        (np.bool_(True), True), (np.bool_(False), False), (np.int64(7), 7),
        (np.float64(0.25), 0.25), ("expert", "expert"), (3, 3),
    ):  # fmt: skip
        got = tuner._plain(value)
        assert got == plain_value and type(got) is type(plain_value)


# -- the winner as a strategy file ----------------------------------------------------------
def test_toml_values_by_hand():
    assert (toml_value(True), toml_value(False)) == ("true", "false")
    assert toml_value('a "quoted" name') == '"a \\"quoted\\" name"'
    assert toml_value((1, [2.5, False], "x")) == '[1, [2.5, false], "x"]'
    assert (toml_value(0.1), toml_value(-3), toml_value([])) == ("0.1", "-3", "[]")


_HAND = """\
name = "hand"
description = "a case by hand"
kind = "family"
knock_schedule = [[6, 0], [0, 10]]
take_melds = false
keep_weight = 0.0

[[adapt]]
when = { undercut_bonus = [20, 1000], gin_bonus = [0, 20] }
undercut_risk = 0.25
take_melds = true

[[adapt]]
when = { oklahoma = true }
keep_weight = 1.5
"""


def test_a_strategys_toml_file_lists_its_name_kind_and_what_differs_then_its_adapt_tables(
    tmp_path,
):
    """By hand: each comment line (split at its line breaks; an empty one a bare "#")
    first, then name, description and kind always, then the keys that differ from the
    family's defaults in the strategy's order (keep_weight = 0.0 is the default: left
    out; knock_threshold unset: left out), then each [[adapt]] table in order, its
    conditions and overrides as the strategy holds them (sorted by key)."""
    from gin_sim.players.strategies import load_strategy as load

    (tmp_path / "hand.toml").write_text(_HAND)
    strategy = load(tmp_path / "hand.toml")
    text = strategy_toml(strategy, ["Tuned by: x", "two\nlines", "", "trailing  "])
    assert text == (
        "# Tuned by: x\n# two\n# lines\n#\n# trailing\n"
        'name = "hand"\ndescription = "a case by hand"\nkind = "family"\n'
        "knock_schedule = [[6, 0], [0, 10]]\ntake_melds = false\n"
        "\n[[adapt]]\nwhen = { gin_bonus = [0, 20], undercut_bonus = [20, 1000] }\n"
        "take_melds = true\nundercut_risk = 0.25\n"
        "\n[[adapt]]\nwhen = { oklahoma = true }\nkeep_weight = 1.5\n"
    )
    # the family's own defaults (named "simple", no description) still name themselves
    from gin_sim.players.strategies import Strategy

    assert strategy_toml(Strategy()) == 'name = "simple"\ndescription = ""\nkind = "family"\n'


def test_every_shipped_strategy_written_as_toml_loads_back_as_itself(tmp_path):
    """Each file of configs/strategies (family, mc and random kinds, adapt tables,
    schedules, panels) written by strategy_toml and read back is the same strategy."""
    from pathlib import Path

    import gin_sim.players.strategies as strategies

    names = sorted(Path(strategies.strategies_dir()).glob("*.toml"))
    assert {"random.toml", "mc-fixed.toml", "expert.toml"} <= {p.name for p in names}
    for path in names:
        strategy = load_strategy(path)
        written = tmp_path / path.name
        written.write_text(strategy_toml(strategy, ["a comment"]))
        assert load_strategy(written) == strategy, path.name


def test_the_confirmation_plays_each_figure_once_and_ranks_and_flags_by_the_interval(monkeypatch):
    """Made-up per-deck figures on 40 holdout decks against one opponent: threshold 2
    gains 0.6 ± 0.2 per hand (an interval inside (0, 1): significant), 3 gains 0.1 ± 1.0
    (an interval across 0 whose top is below 1: not significant), 9 and 10 play exactly as
    the start (a gain of 0 on every deck, 0 wide: not significant). The table ranks by
    holdout figure, ties by trial number, and has exactly its columns on a fresh index;
    every play is of the settings' rules and objective, from deck (match) 0, and progress
    counts one per candidate and one for the final decks. Fewer than 2 decks, or no
    candidate, is refused."""
    settings = _settings(deals=20, blocks=2, opponents=("simple",))
    count = 40
    plays = []

    def play(rules, strategy, opponent, objective, n, seed, first):
        plays.append((rules, opponent.name, objective, n, seed, first))
        decks = np.arange(first, first + n)
        base = (decks * 7) % 5 - 2.0  # the start's figure, per deck (two hands)
        alternate = (decks % 2) * 2 - 1.0
        return base + {2: 1.2 + 0.4 * alternate, 3: 0.2 + 2.0 * alternate}.get(
            strategy.knock_threshold, 0.0
        )

    monkeypatch.setattr(tuner, "play_units", play)
    candidates = [
        (5, {"knock_threshold": 10}, 0.9), (12, {"knock_threshold": 9}, 0.8),
        (3, {"knock_threshold": 2}, 0.7), (7, {"knock_threshold": 3}, 0.6),
    ]  # fmt: skip
    for objective in ("deals", "matches"):
        settings = replace(settings, objective=objective, matches=20)
        plays.clear()
        progress = []
        result = confirm(settings, candidates, count, progress.append)
        table = result.candidates
        assert list(table["trial"]) == [3, 7, 5, 12]
        assert list(table.index) == [0, 1, 2, 3]
        assert list(table.columns) == [
            "trial", "tuning_value", "holdout", "holdout_half_width", "gain",
            "gain_half_width", "gain_low", "gain_high", "significant", "same_as_start", "n",
            "knock_threshold",
        ]  # fmt: skip
        flags = dict(zip(table["trial"], table["significant"], strict=True))
        assert flags == {3: True, 7: False, 5: False, 12: False}
        rows = table.set_index("trial")
        assert 0 < rows.loc[3, "gain_low"] < 1 and 0 < rows.loc[7, "gain_high"] < 1
        assert rows.loc[5, "gain"] == rows.loc[5, "gain_half_width"] == 0.0
        assert result.winner_parameters == {"knock_threshold": 2}
        holdout, final = holdout_seed(9), confirmation_seed(9)
        assert plays == (
            [(settings.rules, "simple", objective, count, holdout, 0)] * 5
            + [(settings.rules, "simple", objective, count, final, 0)] * 2
        )
        assert all(p[0] is settings.rules for p in plays)
        assert progress == [1] * 5
    with pytest.raises(tuner.ConfigError, match=r"^holdout count = 1: allowed 2 or more$"):
        confirm(settings, candidates, 1)
    assert confirm(settings, candidates, 2).count == 2  # two decks are enough
    with pytest.raises(TuneError, match=r"^no completed trial to confirm: run more trials$"):
        confirm(settings, [], count)


# -- a study's storage refused or failing, and the folder's lock ----------------------------
def test_a_database_that_fails_its_quick_check_is_refused_with_sqlites_finding(tmp_path):
    """A table declared NOT NULL holding a NULL (the declaration changed behind SQLite's
    back): the database opens, but its quick check reports the fault, named in the error."""
    path = tmp_path / "study.db"
    _database(path, "CREATE TABLE t (a)", "INSERT INTO t VALUES (NULL)")
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA writable_schema = ON")
    with connection:
        connection.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE t (a NOT NULL)'")
    connection.close()
    assert _refusal(path) == f"{path} {_WHERE} (damaged: NULL value in t.a): {_ADVICE}"


def _tune_folder(settings, folder):
    folder.mkdir()
    (folder / tuner.CONFIG).write_text(json.dumps(settings.to_json(), indent=2) + "\n")
    return folder / tuner.STUDY


def test_a_study_optuna_cannot_use_is_a_one_line_error_naming_its_file(tmp_path, monkeypatch):
    """A study "tune" that minimises; a schema Optuna refuses (another version's); the
    storage failing while the study is opened or while a trial is stored: each a TuneError
    naming study.db."""
    import optuna
    import sqlalchemy.exc

    settings = _settings()
    path = _tune_folder(settings, tmp_path / "min")
    optuna.create_study(study_name="tune", storage=f"sqlite:///{path}", direction="minimize")
    with tuner.optuna_messages(), pytest.raises(TuneError) as caught:
        tuner.open_study(settings, tmp_path / "min")
    assert str(caught.value) == f"{path} is not a usable study (it minimises): use another --out"

    old = "The runtime optuna version 5 is no longer compatible with the table schema"
    path = _tune_folder(settings, tmp_path / "old")

    def refuse(url, *args, **kwargs):
        raise RuntimeError(old)

    with monkeypatch.context() as patch:
        patch.setattr(optuna.storages, "RDBStorage", refuse)
        with pytest.raises(TuneError) as caught:
            tuner.open_study(settings, tmp_path / "old")
    assert str(caught.value) == f"{path} is not a usable study ({old}): use another --out"

    def locked(*args, **kwargs):
        raise sqlalchemy.exc.OperationalError("INSERT", {}, sqlite3.OperationalError("locked"))

    kept = "; the trials it holds are kept (move it away to start afresh, or use another --out)"
    with monkeypatch.context() as patch:
        patch.setattr(optuna, "create_study", locked)
        with pytest.raises(TuneError) as caught:
            tuner.open_study(settings, tmp_path / "old")
    assert str(caught.value) == f"cannot use the study {path}: locked{kept}"

    _fake_play(monkeypatch)
    monkeypatch.setattr(optuna.study.Study, "optimize", locked)
    with pytest.raises(TuneError) as caught:
        tuner.optimise(settings, tmp_path / "old", 1)
    assert str(caught.value) == f"cannot use the study {path}: locked{kept}"


def test_a_study_holds_its_folders_lock_while_it_runs_and_gives_it_back(tmp_path, monkeypatch):
    """While a trial plays, another writer cannot lock the folder (an flock on the lock
    file fails); once optimise returns, or fails, it can."""
    import fcntl

    from gin_sim.experiments.outputs import LOCK

    _fake_play(monkeypatch)
    folder = tmp_path / "tune"
    seen = []

    def try_lock(where=folder):
        descriptor = os.open(where / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        finally:
            os.close(descriptor)  # closing releases a lock taken here
        return True

    def on_block(number, block):
        seen.append(try_lock())

    tuner.optimise(_settings(), folder, 1, on_block=on_block)
    assert seen and not any(seen)  # held during every block
    assert try_lock()

    def interrupt(number, block):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tuner.optimise(_settings(), tmp_path / "cut", 3, on_block=interrupt)
    assert try_lock(tmp_path / "cut")


def test_a_trial_that_played_every_block_is_never_pruned(tmp_path, monkeypatch):
    """Two blocks: the pruner's first rung (2 blocks) is the last block, where a trial has
    played everything and is complete, however weak."""
    import optuna

    _fake_play(monkeypatch)
    settings = settings_from(
        load_strategy("basic"), "knock_threshold=0:10",
        [load_strategy("simple"), load_strategy("defensive")], load_rules("hollywood"),
        deals=4, blocks=2, seed=9,
    )  # fmt: skip
    study = tuner.optimise(settings, tmp_path / "t", 8)
    trials = tuner.finished_trials(study)
    assert len(trials) == 8
    assert {t.state for t in trials} == {optuna.trial.TrialState.COMPLETE}
    played = [t for t in trials if t.user_attrs.get("repeat_of", -1) < 0]
    assert len(played) > 2 and all(len(t.intermediate_values) == 2 for t in played)


# -- the settings' refusals and what reaches the play ----------------------------------------
def test_settings_that_cannot_make_a_study_are_refused_each_in_its_own_words():
    """An unknown objective, no opponent, two opponents of one name, no block, fewer than
    2 decks (matches) per block; 1 block, and exactly 2 decks (matches) a block, allowed."""
    settings = _settings(blocks=3, deals=6)
    for changes, message in (
        ({"objective": "points"}, "objective 'points': allowed deals, matches"),
        ({"opponents": ()}, "opponents: give one or more strategies, e.g. simple,expert"),
        ({"opponents": settings.opponents + settings.opponents[:1]},
         "opponents simple,defensive,simple: two of them have the same name"),
        ({"blocks": 0}, "blocks = 0: allowed 1 or more"),
        ({"deals": 5}, "deals = 5: allowed at least 2 per block (6 with 3 blocks)"),
        ({"objective": "matches", "matches": 5},
         "matches = 5: allowed at least 2 per block (6 with 3 blocks)"),
    ):  # fmt: skip
        with pytest.raises(tuner.ConfigError) as caught:
            replace(settings, **changes)
        assert str(caught.value) == message
    assert replace(settings, blocks=1, deals=2).block_range(0) == (0, 2)
    assert replace(settings, objective="matches", matches=6).units == 6


def test_the_space_is_checked_against_the_strategy_and_the_rules_it_is_tuned_under():
    """samples is a search player's parameter: allowed for mc, refused for basic; a knock
    schedule's thresholds are bounded by the rules' knock limit (8 here, not hollywood's 10)."""
    rules, simple = load_rules("hollywood"), [load_strategy("simple")]
    settings = settings_from(
        load_strategy("mc-fixed"), "samples=8:64", simple, rules, deals=4, blocks=2
    )
    assert [d.name for d in settings.space.dimensions] == ["samples"]
    with pytest.raises(tuner.ConfigError, match="search players"):
        settings_from(load_strategy("basic"), "samples=8:64", simple, rules, deals=4, blocks=2)
    limited = replace(rules, knock_limit=8)
    space = "knock_schedule=18:24/6@0:10"
    assert settings_from(load_strategy("basic"), space, simple, rules, deals=4, blocks=2).space.text
    with pytest.raises(tuner.ConfigError, match="allowed 0 to knock_limit = 8"):
        settings_from(load_strategy("basic"), space, simple, limited, deals=4, blocks=2)


def test_every_block_is_played_under_the_settings_rules_and_objective(monkeypatch):
    plays = []

    def play(rules, strategy, opponent, objective, count, seed, first):
        plays.append((rules, objective, count, seed, first))
        return np.ones(count)

    monkeypatch.setattr(tuner, "play_units", play)
    for objective in ("deals", "matches"):
        settings = replace(_settings(blocks=2, deals=4), objective=objective, matches=6)
        plays.clear()
        assert list(block_values(settings, settings.strategy)) == [0.5, 0.5]
        stops = (2, 4) if objective == "deals" else (3, 6)
        assert plays == [
            (settings.rules, objective, stops[0], 9, 0), (settings.rules, objective, stops[0], 9, 0),
            (settings.rules, objective, stops[0], 9, stops[0]),
            (settings.rules, objective, stops[0], 9, stops[0]),
        ]  # fmt: skip
        assert all(p[0] is settings.rules for p in plays)


def test_a_study_asks_exactly_its_trials_and_plays_a_failed_one_again(tmp_path, monkeypatch):
    """The first trial's play comes out NaN: Optuna fails that trial without an error; it
    is not counted nor reported as progress, and a new trial is played in its place: four
    trials asked for three finished, never a fifth."""
    import optuna

    asked = []
    original = tuner.TuneSettings.candidate

    def candidate(self, parameters):
        asked.append(parameters)
        if len(asked) > 4:
            raise AssertionError("a trial beyond those asked")
        return original(self, parameters)

    def play(rules, strategy, opponent, objective, count, seed, first):
        values = _made_up(strategy, opponent, count, seed, first).astype(float)
        return values * np.nan if len(asked) == 1 else values

    monkeypatch.setattr(tuner.TuneSettings, "candidate", candidate)
    monkeypatch.setattr(tuner, "play_units", play)
    progress = []
    settings = _settings(blocks=1, deals=4)  # one block: no pruning
    study = tuner.optimise(settings, tmp_path / "t", 3, lambda n, r: progress.append((n, r)))
    assert progress == [(1, False)] * 3 and len(asked) == 4
    assert study.trials[0].state == optuna.trial.TrialState.FAIL
    assert len(tuner.finished_trials(study)) == 3
