"""Datasets of decision positions and their deep evaluation (docs/advice.md).

The kernels (``gin_sim/kernels/advice.py``) against the reference
(``gin_sim/reference/advice.py``): the same positions kept from the same deals, the same
evaluation figures. An evaluation sees only the decider's view (re-dealing the hidden
cards, the deal, the draws and the opponent's last stock draw changes nothing; a
peeking evaluation is caught: the probe of tests/hidden_info.py). Datasets are deterministic
(threads, chunking, resume) and their hands are the hands ``simulate`` plays.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numba
import numpy as np
import pandas as pd
import pytest
from hidden_info import probe
from typer.testing import CliRunner

from gin_sim.experiments.positions import (
    DEFAULT_KEEP,
    KINDS,
    Evaluation,
    PositionsConfig,
    evaluate_positions,
    evaluation_keys,
    execute,
    keep_rates,
    load_positions,
    parse_keep,
    position_arrays,
    sample_positions,
)
from gin_sim.experiments.runs import RunError
from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.cards import parse_card_list
from gin_sim.game.config import ConfigError
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.records import record_to_dict
from gin_sim.game.rng import evaluation_stream_state
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.kernels import advice as kernel_advice
from gin_sim.kernels.advice import MAX_ACTIONS, evaluate_positions_parallel
from gin_sim.kernels.enums import DecisionKind, PositionSlot
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import action_words, max_decisions, parse_view, view_of_position
from gin_sim.players.strategies import load_strategy, parse_players
from gin_sim.reference import advice as reference
from gin_sim.reference.engine import completes_a_meld
from gin_sim.reference.search import describe_action
from gin_sim.reference.views import view_from_situation

HOLLYWOOD = load_rules("hollywood")
TINY_MC = load_strategy("mc-fast", ["samples=2", "candidates=2", "infer=true"])
SMALL = Evaluation(samples=6, select=2)


# A kept row's facts (``kernels.advice.INFO_*``) by short name.
INFO_COLUMNS = {
    "deal": kernel_advice.INFO_DEAL, "kind": kernel_advice.INFO_KIND,
    "decision": kernel_advice.INFO_DECISION, "count": kernel_advice.INFO_COUNT,
    "rate": kernel_advice.INFO_RATE, "action": kernel_advice.INFO_ACTION,
    "own": kernel_advice.INFO_OWN_TAKES, "opp": kernel_advice.INFO_OPP_TAKES,
    "points": kernel_advice.INFO_POINTS,
}  # fmt: skip


def _dataset(players="expert,expert", deals=12, chunk=5, evaluation=SMALL, rules=HOLLYWOOD):
    return PositionsConfig(rules, parse_players(players), 7, deals, chunk, evaluation)


# (rules, players, deals, keep): family and search players, Oklahoma's knock limits (R14a),
# and a variant where big gin can be declared (R14, never sampled) and a pile card discarded
# (R11); the default keep probabilities, every decision, and rates that are not powers of 2.
PAIRINGS = [
    (HOLLYWOOD, (TINY_MC, load_strategy("expert")), 3, DEFAULT_KEEP),
    (load_rules("oklahoma"), (load_strategy("expert"), load_strategy("gin-hunter")), 8, (1,) * 4),
    (
        load_rules("standard", ["big_gin_bonus=31", "may_discard_drawn_upcard=true"]),
        (load_strategy("basic"), load_strategy("expert")),
        8,
        (0.75, 300 / 1024, 0.25, 1000 / 1024),
    ),
]


@pytest.mark.parametrize(("rules", "players", "deals", "keep"), PAIRINGS)
@pytest.mark.first_case
def test_kernel_positions_and_evaluations_are_the_reference_ones(rules, players, deals, keep):
    """Every kept row's position and facts; the evaluation of the first kept row of each
    kind of each deal (the reference's evaluation is slow)."""
    seed, first = 11, 40
    masks, states, info = sample_positions(rules, players, seed, first, deals, keep)
    rates = keep_rates(keep)
    searcher = SMALL.searcher()
    compared, row = set(), 0
    for i in range(deals):
        kept = reference.sample_deal(seed, first + i, rules, players, tuple(rates))
        evaluated = set()
        for sampled in kept:
            situation, kind = sampled.situation, sampled.kind
            facts = {name: int(info[row, column]) for name, column in INFO_COLUMNS.items()}
            assert facts["deal"] == first + i and facts["kind"] == kind
            assert facts["decision"] == sampled.decision
            view = view_of_position(masks[row], states[row])
            assert view == view_from_situation(situation)
            phase = int(states[row, PositionSlot.PHASE])
            played = action_words(facts["action"], phase)
            assert played == describe_action(sampled.action, situation.phase)
            expected = [sampled.count, sampled.rate, sampled.own_takes, sampled.opp_takes]
            assert [facts[k] for k in ("count", "rate", "own", "opp")] == expected
            assert facts["points"] == sampled.points
            row += 1
            if kind in evaluated:
                continue
            evaluated.add(kind)
            key = evaluation_stream_state(seed, first + i, sampled.decision)
            keys = evaluation_keys(seed, np.array([first + i]), np.array([sampled.decision]))
            assert int(keys[0]) == key
            found = evaluate_positions(
                masks[row - 1][None], states[row - 1][None], keys, rules, SMALL
            )
            twin = reference.evaluate(situation, searcher, SMALL.select, key, rules)
            n = int(found.n_actions[0])
            words = [describe_action(a, situation.phase) for a in twin.actions]
            assert [action_words(int(a), phase) for a in found.actions[0, :n]] == words
            assert int(found.baseline[0]) == twin.baseline
            for name in ("sums", "squares", "gains", "gain_squares"):
                assert getattr(found, name)[0, :n].tolist() == list(getattr(twin, name)), name
            compared.add(kind)
    assert row == len(info)  # no row of the kernel's that the reference did not keep
    assert compared == {0, 1, 2, 3}  # every kind was compared


def test_features_say_what_the_card_does_for_the_hand():
    """deadwood, card_lowers and card_melds (docs/advice.md) against the exhaustive
    deadwood search and the reference's meld test, on the rows of a small dataset."""
    frame = pd.concat(execute(_dataset(evaluation=None, deals=30, chunk=30)))
    assert set(frame["kind"]) == set(KINDS)
    for row in frame.itertuples():
        hand = int(row.hand)
        card = parse_card_list(row.card)[0]
        before = hand & ~(1 << card) if row.kind in ("discard", "knock") else hand
        held = before | 1 << card
        allowed = [c for c in range(52) if held >> c & 1 and not (c == card and row.from_pile)]
        after = min(min_deadwood_exhaustive(held & ~(1 << c)) for c in allowed)
        assert row.card_lowers == min_deadwood_exhaustive(before) - after
        assert row.card_melds == completes_a_meld(before, card)
        expected = after if row.kind in ("discard", "knock") else min_deadwood_exhaustive(hand)
        assert row.deadwood == expected
        limit_ok = row.deadwood <= row.knock_limit
        assert (row.kind == "knock") == limit_ok or row.kind in ("offer", "draw")


def _evaluate(params, masks, states, keys):
    n = len(masks)
    sums = [np.zeros((n, MAX_ACTIONS)) for _ in range(4)]
    actions = np.zeros((n, MAX_ACTIONS), np.int64)
    meta = np.zeros((n, 2), np.int64)
    with np.errstate(over="ignore"):
        evaluate_positions_parallel(
            params, SMALL.select, HOLLYWOOD.to_kernel(), load_undercut_table(), masks, states,
            keys, actions, *sums, meta,
        )  # fmt: skip
    return np.concatenate([actions, *sums, meta], axis=1)


def test_hidden_fields_never_change_an_evaluation():
    """The probe of tests/hidden_info.py on the deep evaluation (every action's figures and
    the baseline): every field hidden from the decider varied, the opponent's last stock
    draw at the draw decisions included, and a peeking variant for each field caught."""
    masks, states, _ = sample_positions(
        HOLLYWOOD, parse_players("expert,expert"), 5, 0, 30, (0.25, 1, 0.25, 1)
    )
    keys = np.arange(1, len(masks) + 1, dtype=np.uint64)
    params = SMALL.to_kernel(HOLLYWOOD)

    def evaluated(position, leak):
        masks, state, key = position
        return _evaluate(params, masks[None], state[None], np.array([key ^ leak], np.uint64))

    positions = list(zip(masks, states, keys, strict=True))
    probe(evaluated, positions, seed=3)


def test_datasets_do_not_depend_on_threads_chunks_or_resume(tmp_path):
    config = _dataset(players=(TINY_MC, load_strategy("expert")), deals=6, chunk=3)
    whole = pd.concat(execute(config, threads=numba.config.NUMBA_NUM_THREADS), ignore_index=True)
    other = PositionsConfig(config.rules, config.players, 7, 6, 4, config.evaluation)
    pieces = pd.concat(execute(other, threads=1), ignore_index=True)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    pd.testing.assert_frame_equal(whole, pieces)
    partial = execute(config, tmp_path / "set")
    next(partial)  # one chunk saved, then the dataset stops
    partial.close()
    again = pd.concat(execute(config, tmp_path / "set"), ignore_index=True)
    pd.testing.assert_frame_equal(whole, again)
    loaded = load_positions(tmp_path / "set")
    assert list(loaded["kind"].cat.categories) == list(KINDS)
    pd.testing.assert_frame_equal(whole, loaded.assign(kind=loaded["kind"].astype(str)))
    assert loaded.attrs["config"]["evaluation"]["samples"] == SMALL.samples


def test_the_sampled_hands_are_the_simulated_hands():
    """The deals are played as ``simulate`` plays them: every kept position's final points
    are those of the simulated record, from the decider's side; and the stored position
    reproduces the decider's view through ``decide``'s parser."""
    players = parse_players("expert,basic")
    frame = pd.concat(
        execute(_dataset(players="expert,basic", deals=20, chunk=20, evaluation=None))
    )
    records = simulate_deals(HOLLYWOOD, players, 20, seed=7)
    for row in frame.itertuples():
        record = record_to_dict(records[row.deal])
        points = 0 if record["winner"] < 0 else record["points"]
        sign = 1 if record["winner"] == row.seat else -1
        assert row.hand_points == sign * points
    masks, states = position_arrays(frame)
    for m, s in zip(masks, states, strict=True):
        parse_view(view_of_position(m, s), HOLLYWOOD)  # a legal view, as a person would give it


def test_evaluations_measure_what_they_say():
    """Gains are paired differences from the baseline; the baseline's own gain is 0; the
    headline gain is take's (offer, draw) or knock's (knock) and the knock kind always
    lists a knock first."""
    frame = pd.concat(execute(_dataset(deals=10, chunk=10)))
    for row in frame.itertuples():
        at = row.actions.index(row.baseline)
        assert row.gains[at] == 0.0 and row.gain_ses[at] == 0.0
        if row.kind in ("offer", "draw"):
            assert list(row.actions) == ["decline" if row.kind == "offer" else "draw", "take"]
            assert row.gain == row.gains[1] and row.measure_worlds == SMALL.samples
        else:
            assert row.measure_worlds == SMALL.samples - SMALL.select
            assert row.actions[0].startswith("knock") == (row.kind == "knock")
            assert not row.baseline.startswith("knock")
            if row.kind == "knock":
                assert row.gain == row.gains[0]
            else:
                assert np.isnan(row.gain)
        assert len(row.actions) == len(row.values) == len(row.gains)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"samples": 2}, "evaluation samples = 2"),
        ({"samples": 10, "select": 9}, "evaluation select = 9"),
        ({"rollout": "mc"}, "rollout = 'mc' in the evaluation"),
        ({"infer_weight": 2.0}, "infer_weight = 2.0 in the evaluation"),
    ],
)
def test_bad_evaluations_are_one_line_errors(settings, message):
    with pytest.raises(ConfigError, match=message):
        Evaluation(**settings)


def test_dataset_folders_refuse_what_is_not_theirs(tmp_path):
    config = _dataset(deals=4, chunk=2, evaluation=None)
    list(execute(config, tmp_path / "set"))
    other = _dataset(deals=6, chunk=2, evaluation=None)
    with pytest.raises(RunError, match="holds another dataset"):
        list(execute(other, tmp_path / "set"))
    (tmp_path / "set" / "positions-000001.parquet").write_bytes(b"not parquet")
    with pytest.raises(RunError, match="is damaged"):
        load_positions(tmp_path / "set")
    (tmp_path / "set" / ".positions-000000.parquet.abc123.tmp").write_bytes(b"left by a kill")
    (tmp_path / "set" / "notes.txt").write_text("mine")
    with pytest.raises(RunError, match=r"holds files that are not this run's \(notes.txt\)"):
        list(execute(other, tmp_path / "set", overwrite=True))  # a user's file: refused
    (tmp_path / "set" / "notes.txt").unlink()
    replaced = pd.concat(execute(other, tmp_path / "set", overwrite=True), ignore_index=True)
    pd.testing.assert_frame_equal(replaced, pd.concat(execute(other), ignore_index=True))
    names = sorted(p.name for p in (tmp_path / "set").iterdir())
    assert names == [
        ".gin-sim.lock",
        "manifest.json",
        *(f"positions-00000{i}.parquet" for i in range(3)),
    ]
    # a chunk of another dataset with the same seed and deals (other players) is refused
    theirs = _dataset(deals=6, chunk=2, evaluation=None, players="simple,expert")
    list(execute(theirs, tmp_path / "theirs"))
    shutil.copy(tmp_path / "theirs" / "positions-000001.parquet", tmp_path / "set")
    with pytest.raises(RunError, match=r"positions-000001\.parquet is not this dataset.s"):
        load_positions(tmp_path / "set")
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"format": 1, "config": {}}))
    with pytest.raises(RunError, match="not a gin-sim positions manifest"):
        load_positions(run)


def test_the_command_writes_resumes_and_refuses(tmp_path):
    runner = CliRunner()
    args = ["positions", "--players", "expert,expert", "--deals", "6", "--chunk-size", "3"]
    args += ["--samples", "6", "--select", "2", "--seed", "4", "--quiet", "--json"]
    out = str(tmp_path / "set")
    first = runner.invoke(app, [*args, "--out", out])
    assert first.exit_code == 0, first.output
    document = json.loads(first.output)
    assert [k["kind"] for k in document["kinds"]] == list(KINDS)
    assert sum(k["positions"] for k in document["kinds"]) == len(load_positions(out))
    again = runner.invoke(app, [*args, "--out", out])
    assert again.exit_code == 0 and json.loads(again.output) == document
    for bad, message in (
        (["--select", "5"], "evaluation select = 5"),
        (["--deals", "0"], "deals = 0"),
        (["--rollout", "nobody"], "rollout = 'nobody'"),
        (["--overwrite"], "--overwrite needs --out"),
        (["--no-evaluate"], "--samples sets the evaluation"),
        (["--chunk-size", "100001"], "chunk size = 100,001"),
        (["--keep", "draw=0.3"], "keep draw = 0.3: allowed"),
        (["--keep", "fold=1"], "unknown kind 'fold'"),
    ):
        result = runner.invoke(app, [*args, *bad])
        assert result.exit_code == 2, (bad, result.output)
        assert message in result.output and "Traceback" not in result.output
    changed = runner.invoke(app, [*args, "--out", out, "--samples", "8"])
    assert changed.exit_code == 2 and "holds another dataset" in changed.output


def test_each_decision_is_kept_by_its_own_number_and_kind(monkeypatch):
    """Keeping is Bernoulli per decision (docs/advice.md): the rows kept at lower
    probabilities are the rows of every decision whose sampling number falls below the
    kind's rate, facts unchanged; decisions are numbered in the order of play, below
    ``max_decisions``; and the kernel's batches of deals (memory) change no row."""
    import gin_sim.experiments.positions as positions

    players = parse_players("gin-hunter,expert")
    every = sample_positions(HOLLYWOOD, players, 3, 10, 60, (1,) * 4)
    info = every[2]
    assert (np.diff(info[:, kernel_advice.INFO_DEAL]) >= 0).all()
    for deal in np.unique(info[:, kernel_advice.INFO_DEAL]):
        decisions = info[info[:, kernel_advice.INFO_DEAL] == deal, kernel_advice.INFO_DECISION]
        assert (np.diff(decisions) > 0).all()  # by decision, each once
        kinds = info[info[:, kernel_advice.INFO_DEAL] == deal, kernel_advice.INFO_KIND]
        counts = info[info[:, kernel_advice.INFO_DEAL] == deal, kernel_advice.INFO_COUNT]
        assert (counts == np.bincount(kinds, minlength=4)[kinds]).all()  # kind_count: all of them
    assert info[:, kernel_advice.INFO_DECISION].max() < max_decisions(HOLLYWOOD)
    keep = (0.5, 0.25, 1 / 1024, 1.0)
    some = sample_positions(HOLLYWOOD, players, 3, 10, 60, keep)
    monkeypatch.setattr(positions, "SAMPLE_BATCH_BYTES", 1)  # one deal per kernel call
    for mine, theirs in zip(
        some, sample_positions(HOLLYWOOD, players, 3, 10, 60, keep), strict=True
    ):
        assert np.array_equal(mine, theirs)
    key = [kernel_advice.INFO_DEAL, kernel_advice.INFO_DECISION]
    where = {tuple(row): r for r, row in enumerate(info[:, key])}
    rows = [where[tuple(row)] for row in some[2][:, key]]  # a subset of every decision's rows
    assert 0 < len(rows) < len(info)
    for part in (0, 1):
        assert np.array_equal(some[part], every[part][rows])
    facts = info[rows].copy()
    facts[:, kernel_advice.INFO_RATE] = keep_rates(keep)[facts[:, kernel_advice.INFO_KIND]]
    assert np.array_equal(some[2], facts)
    # The sampling stream's numbers, one per decision with a kind, decide alone.
    from gin_sim.game.rng import Stream, bounded, sample_stream_state

    rates = keep_rates(keep)
    for deal in range(10, 70):
        stream = Stream(sample_stream_state(3, deal))
        mine = info[info[:, kernel_advice.INFO_DEAL] == deal]
        kept = [
            int(row[kernel_advice.INFO_DECISION])
            for row in mine
            if bounded(stream.next(), 1024) < rates[row[kernel_advice.INFO_KIND]]
        ]
        theirs = some[2][some[2][:, kernel_advice.INFO_DEAL] == deal, kernel_advice.INFO_DECISION]
        assert kept == theirs.tolist()


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        ((1, 0.3, 1, 1), "keep draw = 0.3: allowed a probability above 0 and at most 1"),
        ((0, 1, 1, 1), "keep offer = 0: allowed"),
        ((1, 1, 1.5, 1), "keep discard = 1.5: allowed"),
        ((1, 1, 1, True), "keep knock = True: allowed"),
        ((1, 1, 1), "expected 4 probabilities"),
    ],
)
def test_bad_keep_probabilities_are_one_line_errors(keep, message):
    with pytest.raises(ConfigError, match=message):
        PositionsConfig(HOLLYWOOD, parse_players("expert,expert"), 1, 4, 4, None, keep)


def test_keep_is_parsed_and_stored_in_the_manifest(tmp_path):
    assert parse_keep("") == DEFAULT_KEEP == (1.0, 0.5, 0.125, 1.0)
    assert parse_keep(" knock=0.25 , offer=1") == (1.0, 0.5, 0.125, 0.25)
    for text, message in (
        ("fold=1", "unknown kind 'fold'; allowed offer, draw, discard, knock"),
        ("draw", "expected draw=PROBABILITY"),
        ("draw=half", "expected draw=PROBABILITY"),
        ("draw=0.1", "keep draw = 0.1: allowed"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_keep(text)
    config = replace(_dataset(deals=4, chunk=4, evaluation=None), keep=(1, 1, 0.5, 1))
    list(execute(config, tmp_path / "set"))
    manifest = json.loads((tmp_path / "set" / "manifest.json").read_text())
    assert manifest["format"] == 2
    assert manifest["config"]["keep"] == {"offer": 1.0, "draw": 1.0, "discard": 0.5, "knock": 1.0}
    assert load_positions(tmp_path / "set").attrs["config"]["keep"] == manifest["config"]["keep"]


def test_a_format_1_dataset_is_refused_until_rebuilt(tmp_path):
    config = _dataset(deals=4, chunk=4, evaluation=None)
    list(execute(config, tmp_path / "set"))
    path = tmp_path / "set" / "manifest.json"
    document = json.loads(path.read_text())
    path.write_text(json.dumps(document | {"format": 1}))
    for attempt in (
        lambda: load_positions(tmp_path / "set"),
        lambda: list(execute(config, tmp_path / "set")),
    ):
        with pytest.raises(RunError, match=r"of format 1 .* rebuild it .* --overwrite") as error:
            attempt()
        assert "\n" not in str(error.value)
    rebuilt = pd.concat(execute(config, tmp_path / "set", overwrite=True), ignore_index=True)
    pd.testing.assert_frame_equal(rebuilt, load_positions(tmp_path / "set").assign(
        kind=lambda f: f["kind"].astype(str)
    ))  # fmt: skip


def test_rules_whose_hands_could_pass_256_decisions_are_refused():
    long_hands = load_rules("hollywood", ["max_upcard_takes=200"])
    assert max_decisions(long_hands) > 256
    with pytest.raises(ConfigError, match="allowed max_upcard_takes up to 98 with this wall"):
        PositionsConfig(long_hands, parse_players("expert,expert"), 1, 4, 4, None)
    most = load_rules("hollywood", ["max_upcard_takes=98"])
    assert max_decisions(most) == 256
    PositionsConfig(most, parse_players("expert,expert"), 1, 4, 4, None)
    with pytest.raises(ValueError, match="decision numbers 0 to 256"):
        evaluation_keys(1, np.array([0, 0]), np.array([0, 256]))


def test_decision_kinds_are_numbered_as_the_kinds_tuple():
    assert [getattr(DecisionKind, k.upper()) for k in KINDS] == [0, 1, 2, 3]


@pytest.mark.full
def test_datasets_on_dask_workers_are_the_same(tmp_path):
    from distributed import Client, LocalCluster

    config = _dataset(deals=4, chunk=2)
    local = pd.concat(execute(config), ignore_index=True)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        remote = pd.concat(execute(config, tmp_path / "set", client=client), ignore_index=True)
    pd.testing.assert_frame_equal(local, remote)
    resumed = pd.concat(execute(config, tmp_path / "set"), ignore_index=True)
    pd.testing.assert_frame_equal(local, resumed)


def test_doctests():
    import doctest

    import gin_sim.experiments.positions
    import gin_sim.reference.advice

    for module in (gin_sim.experiments.positions, gin_sim.reference.advice):
        assert doctest.testmod(module).failed == 0


def test_stored_positions_evaluate_again_on_the_same_worlds():
    """A dataset's full positions reproduce its evaluation exactly; under other scoring
    (standard: undercut 25) the same positions get the same actions, other values."""
    from gin_sim.experiments.positions import evaluate_frame

    config = _dataset(deals=6, chunk=6)
    frame = pd.concat(execute(config), ignore_index=True)
    again = evaluate_frame(frame, HOLLYWOOD, SMALL, config.seed)
    pd.testing.assert_frame_equal(frame, again)
    standard = evaluate_frame(frame, load_rules("standard"), SMALL, config.seed)
    assert standard["actions"].map(list).tolist() == frame["actions"].map(list).tolist()
    assert standard["values"].map(list).tolist() != frame["values"].map(list).tolist()
