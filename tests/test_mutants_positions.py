"""The positions dataset's bookkeeping pinned by properties, not by today's output (issue 27;
docs/testing.md): the evaluation's columns from made-up search sums (means, standard errors,
the headline and played gains, the best action), the summary by kind by hand, the keep
probabilities and their refusals, a dataset played chunk by chunk with the play replaced
(resume, a cluster's window of tasks), and a dataset folder's refusals. No deal is played:
the file takes seconds.
"""

from __future__ import annotations

import json
import math

import numba
import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments import positions as module
from gin_sim.experiments.positions import (
    DEFAULT_KEEP,
    EVALUATION_COLUMNS,
    KINDS,
    Evaluated,
    Evaluation,
    PositionsConfig,
    check_keep,
    evaluation_columns,
    evaluation_keys,
    execute,
    headline_actions,
    keep_rates,
    load_positions,
    parse_keep,
    position_arrays,
    read_positions_manifest,
    row_keys,
    summary_by_kind,
    view_features,
)
from gin_sim.experiments.runs import RunError
from gin_sim.experiments.summary import Z95
from gin_sim.game.cards import format_card, parse_card, parse_card_list
from gin_sim.game.config import ConfigError
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rules import load_rules
from gin_sim.kernels.advice import (
    INFO_ACTION,
    INFO_COUNT,
    INFO_DEAL,
    INFO_DECISION,
    INFO_KIND,
    INFO_OPP_TAKES,
    INFO_OWN_TAKES,
    INFO_POINTS,
    INFO_RATE,
    MAX_ACTIONS,
    N_INFO,
)
from gin_sim.kernels.enums import (
    ACTION_KNOCK,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    Phase,
    PositionSlot,
)
from gin_sim.kernels.rng import STREAM_DOMAINS, evaluation_key_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import (
    action_words,
    max_decisions,
    parse_view,
    position_from_view,
    view_of_position,
)
from gin_sim.players.strategies import MAX_SAMPLES, parse_players, strategies_to_kernel

HOLLYWOOD = load_rules("hollywood")


@pytest.fixture(autouse=True)
def _all_threads_after():
    """Some tests here ask for one thread and check that it reaches the kernels; numba's
    setting is the process's, so each test leaves it as ``use_threads(None)`` would."""
    yield
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


# ------------------------------------------------------------------ keep probabilities
def test_keep_probabilities_are_multiples_of_1_1024_up_to_1():
    assert check_keep([1, 0.5, 1 / 1024, 1]) == (1.0, 0.5, 1 / 1024, 1.0)
    assert all(type(p) is float for p in check_keep((1, 1, 1, 1)))
    assert keep_rates((1, 0.5, 0.125, 3 / 1024)).tolist() == [1024, 512, 128, 3]
    assert keep_rates(DEFAULT_KEEP).dtype == np.int64
    allowed = (
        "allowed a probability above 0 and at most 1 that is a multiple of 1/1024 (1, 0.5, "
        "0.125, 3/1024 = 0.0029296875, ...)"
    )
    for keep, shown in (
        ((1, 1, 1, 0), "knock = 0"),
        ((1, 1, 1, 1 + 1 / 1024), "knock = 1.0009765625"),
        ((1, 1, 1, 1 / 2048), "knock = 0.00048828125"),
        ((1, True, 1, 1), "draw = True"),
        ((1, 1, "0.5", 1), "discard = '0.5'"),
        ((None, 1, 1, 1), "offer = None"),
    ):
        with pytest.raises(ConfigError) as error:
            check_keep(keep)
        assert str(error.value) == f"keep {shown}: {allowed}"
    for keep in ((1, 1, 1), (1, 1, 1, 1, 1), "1,1,1,1", {"offer": 1}):
        with pytest.raises(ConfigError) as error:
            check_keep(keep)
        assert str(error.value) == (
            f"keep = {keep!r}: expected 4 probabilities, one per kind (offer, draw, discard, knock)"
        )


def test_keep_is_read_from_kind_probability_pairs():
    assert parse_keep("") == DEFAULT_KEEP
    for text in (",, ,", ", knock=0.5", "draw=0.25,offer=0.5, "):  # issue 47: no empty part
        with pytest.raises(ConfigError, match="empty item"):
            parse_keep(text)
    assert parse_keep(" knock=0.5") == (1.0, 0.5, 0.125, 0.5)
    assert parse_keep("discard=1") == (1.0, 0.5, 1.0, 1.0)
    assert parse_keep(" draw = 0.25 ,offer=0.5 ") == (0.5, 0.25, 0.125, 1.0)
    for text, message in (
        ("fold=1", "--keep 'fold=1': unknown kind 'fold'; allowed offer, draw, discard, knock"),
        (" draw ", "--keep 'draw': expected draw=PROBABILITY, such as draw=0.5"),
        ("knock=", "--keep 'knock=': expected knock=PROBABILITY, such as knock=0.5"),
        ("knock=x", "--keep 'knock=x': expected knock=PROBABILITY, such as knock=0.5"),
        ("draw=0.30", "keep draw = 0.30: allowed a probability above 0"),  # as written
    ):
        with pytest.raises(ConfigError) as error:
            parse_keep(text)
        assert str(error.value).startswith(message), str(error.value)


# ------------------------------------------------------------------------ evaluation
def test_an_evaluation_names_its_settings_and_refuses_others():
    assert Evaluation().name == (
        "512 worlds (128 choose the baseline discard), expert rollouts, simple opponent model, "
        "inference weight 0.25"
    )
    assert Evaluation(samples=3, select=1, infer=False).name == (
        "3 worlds (1 choose the baseline discard), expert rollouts, simple opponent model, "
        "no inference"
    )
    assert Evaluation(infer_weight=0.5).name.endswith("inference weight 0.5")
    Evaluation(samples=10, select=8)  # two worlds left to measure
    for settings, message in (
        ({"samples": 10, "select": 9},
         "evaluation select = 9: allowed 1 to samples - 2 = 8 (at least 2 worlds must measure "
         "the gains)"),
        ({"samples": 10, "select": 0}, "evaluation select = 0: allowed 1 to samples - 2 = 8"),
        ({"samples": 2, "select": 1}, "evaluation samples = 2: allowed 3 to "),
        ({"samples": True}, "evaluation samples = True: expected a whole number"),
        ({"select": 2.0}, "evaluation select = 2.0: expected a whole number"),
        ({"infer": 1}, "evaluation infer = 1: allowed true or false"),
    ):  # fmt: skip
        with pytest.raises(ConfigError) as error:
            Evaluation(**settings)
        assert str(error.value).startswith(message), str(error.value)
    with pytest.raises(ConfigError) as error:
        Evaluation(rollout="nobody")
    assert "in the evaluation" in str(error.value) and "'evaluation'" not in str(error.value)


def _evaluated(rows: list[dict]) -> tuple[np.ndarray, Evaluated]:
    """States (only the phase set) and an ``Evaluated`` made up row by row: each row's
    actions (kernel codes), value sums and squares, gain sums and squares, baseline."""
    n = len(rows)
    states = np.zeros((n, N_POSITION_SLOTS), np.int64)
    arrays = [np.zeros((n, MAX_ACTIONS), np.float64) for _ in range(4)]
    actions = np.full((n, MAX_ACTIONS), -1, np.int64)
    for r, row in enumerate(rows):
        states[r, PositionSlot.PHASE] = row["phase"]
        k = len(row["actions"])
        actions[r, :k] = row["actions"]
        for array, key in zip(arrays, ("sums", "squares", "gains", "gain_squares"), strict=True):
            array[r, :k] = row[key]
    return states, Evaluated(
        actions, *arrays, np.array([len(r["actions"]) for r in rows]),
        np.array([r["baseline"] for r in rows]),
    )  # fmt: skip


def _mean_se(total: float, squares: float, n: int) -> tuple[float, float]:
    """A mean and its standard error from a sum and a sum of squares over n draws."""
    mean = total / n
    return mean, math.sqrt(max((squares - n * mean * mean) / (n - 1), 0.0) / n)


def test_the_evaluation_columns_read_each_action_of_each_row():
    """Three made-up positions, 10 worlds of which 4 choose the baseline after a take: a
    draw (its gains measured on all 10 worlds; take is the headline), a discard whose first
    action knocks (measured on 6; knock is the headline) and a discard without a knock (no
    headline), whose two best gains tie (the first is best)."""
    evaluation = Evaluation(samples=10, select=4)
    knock, discard, other = ACTION_KNOCK | 5, 5, 17
    rows = [
        {"phase": Phase.DRAW, "actions": [0, 1], "baseline": 0, "sums": [20.0, 35.0],
         "squares": [50.0, 130.0], "gains": [0.0, 15.0], "gain_squares": [0.0, 30.0]},
        {"phase": Phase.DISCARD, "actions": [knock, discard, other], "baseline": 1,
         "sums": [-10.0, 4.0, 1.0], "squares": [30.0, 9.0, 5.0],
         "gains": [-12.0, 0.0, -3.0], "gain_squares": [40.0, 0.0, 6.0]},
        {"phase": Phase.DISCARD, "actions": [discard, other], "baseline": 0,
         "sums": [3.0, 3.0], "squares": [2.0, 2.0], "gains": [3.0, 3.0],
         "gain_squares": [4.0, 4.0]},
    ]  # fmt: skip
    states, found = _evaluated(rows)
    words = [[action_words(a, r["phase"]) for a in r["actions"]] for r in rows]
    frame = pd.DataFrame(
        {"deal": [3, 3, 4], "played": ["take", words[1][2], "discard 2C"]}, index=[7, 8, 9]
    )
    out = evaluation_columns(frame, states, found, evaluation)
    assert list(out.columns) == ["deal", "played", *EVALUATION_COLUMNS]
    assert list(out.index) == [7, 8, 9]
    assert out["evaluation"].tolist() == [evaluation.name] * 3
    assert out["worlds"].tolist() == [10, 10, 10]
    assert out["measure_worlds"].tolist() == [10, 6, 6]  # after a take, 4 chose the baseline
    assert out["actions"].tolist() == words
    assert words[0] == ["draw", "take"] and words[1][0].startswith("knock ")
    for r, row in enumerate(rows):
        measure = out["measure_worlds"].iat[r]
        values = [_mean_se(s, q, 10) for s, q in zip(row["sums"], row["squares"], strict=True)]
        gains = [
            _mean_se(g, q, measure) for g, q in zip(row["gains"], row["gain_squares"], strict=True)
        ]
        assert out["values"].iat[r] == pytest.approx([v[0] for v in values])
        assert out["value_ses"].iat[r] == pytest.approx([v[1] for v in values])
        assert out["gains"].iat[r] == pytest.approx([g[0] for g in gains])
        assert out["gain_ses"].iat[r] == pytest.approx([g[1] for g in gains])
    assert out["baseline"].tolist() == ["draw", words[1][1], words[2][0]]
    assert out["best"].tolist() == ["take", words[1][1], words[2][0]]  # ties: the first
    assert out["gain"].iat[0] == 1.5 and out["gain"].iat[1] == -2.0  # 15 / 10, -12 / 6
    assert out["gain_se"].iat[0] == pytest.approx(math.sqrt((30 - 10 * 1.5**2) / 9 / 10))
    assert out["gain_se"].iat[1] == pytest.approx(math.sqrt((40 - 6 * 4.0) / 5 / 6))
    assert math.isnan(out["gain"].iat[2]) and math.isnan(out["gain_se"].iat[2])
    assert out["played_gain"].iat[0] == 1.5  # take was played
    assert out["played_gain"].iat[1] == -0.5  # the third action, -3 / 6
    assert out["played_gain_se"].iat[1] == pytest.approx(math.sqrt((6 - 6 * 0.25) / 5 / 6))
    assert math.isnan(out["played_gain"].iat[2]) and math.isnan(out["played_gain_se"].iat[2])


def test_a_positions_streams_are_its_seed_deal_and_decision():
    deals, decisions = np.array([0, 5, 5]), np.array([0, 3, 255])
    keys = evaluation_keys(9, deals, decisions)
    assert keys.dtype == np.uint64
    assert keys.tolist() == [
        int(evaluation_key_nb(np.uint64(9), int(d), int(k)))
        for d, k in zip(deals, decisions, strict=True)
    ]
    frame = pd.DataFrame({"deal": deals, "decision": decisions})
    assert row_keys(9, frame).tolist() == keys.tolist()
    assert evaluation_keys(9, np.array([], np.int64), np.array([], np.int64)).size == 0
    for bad in ([-1, 0, 0], [0, 0, 256]):
        with pytest.raises(ValueError) as error:
            evaluation_keys(9, deals, np.array(bad))
        low, high = min(bad), max(bad)
        assert str(error.value) == (
            f"decision numbers {low} to {high}: a position's streams are keyed by a decision "
            "number 0 to 255"
        )
    masks, states = position_arrays(frame.iloc[:0])
    assert masks.shape == (0, N_POSITION_MASKS) and masks.dtype == np.uint64
    assert states.shape == (0, N_POSITION_SLOTS) and states.dtype == np.int64
    stored = pd.DataFrame(
        {"position_masks": [np.arange(N_POSITION_MASKS, dtype=np.uint64)] * 2,
         "position_state": [np.arange(N_POSITION_SLOTS, dtype=np.int16)] * 2}
    )  # fmt: skip
    masks, states = position_arrays(stored)
    assert masks.shape == (2, N_POSITION_MASKS) and states.dtype == np.int64
    assert states[1].tolist() == list(range(N_POSITION_SLOTS))


# ------------------------------------------------------------------------- summary
def test_the_summary_by_kind_is_per_decision_by_hand():
    """Knocks of weight 1 and 3 in two deals, draws of weight 2 (one not evaluated):
    per decision means as ratios of weighted sums, the gain's interval by deal."""
    frame = pd.DataFrame(
        {
            "deal": [0, 0, 1, 2, 3, 3],
            "kind": ["knock", "knock", "knock", "draw", "draw", "draw"],
            "weight": [1.0, 3.0, 1.0, 2.0, 2.0, 2.0],
            "deadwood": [2, 6, 4, 10, 20, 30],
            "gain": [1.0, 3.0, -2.0, 5.0, np.nan, 1.0],
            "played": ["knock 2C", "knock 3C", "discard 4C", "take", "draw", "draw"],
            "best": ["knock 2C", "discard 5C", "discard 4C", "take", "take", "take"],
        }
    )
    table = summary_by_kind(frame).set_index("kind")
    assert list(table.index) == list(KINDS)
    assert table["positions"].tolist() == [0, 3, 0, 3]
    knock = table.loc["knock"]
    assert knock["mean_deadwood"] == pytest.approx((2 + 18 + 4) / 5)
    # deals 0 and 1: weighted gain sums 10 and -2 over weights 4 and 1
    mean = 8 / 5
    half = Z95 * math.sqrt(2 * ((10 - 4 * mean) ** 2 + (-2 - mean) ** 2) / 25)
    assert knock["gain"] == pytest.approx(mean)
    assert (knock["gain_low"], knock["gain_high"]) == pytest.approx((mean - half, mean + half))
    assert knock["played_is_best"] == pytest.approx(2 / 5)
    draw = table.loc["draw"]
    assert draw["mean_deadwood"] == pytest.approx(20.0)
    assert draw["gain"] == pytest.approx(3.0)  # the row without a gain left out
    assert draw["played_is_best"] == pytest.approx(1 / 3)
    assert math.isnan(table.loc["offer", "mean_deadwood"])
    plain = summary_by_kind(frame.drop(columns="gain"))
    assert list(plain.columns) == ["kind", "positions", "mean_deadwood"]


# ------------------------------------------------------------------------- datasets
def _config(deals=5, chunk=2, evaluation=None, keep=DEFAULT_KEEP) -> PositionsConfig:
    return PositionsConfig(
        HOLLYWOOD, parse_players("expert,expert"), 3, deals, chunk, evaluation, keep
    )


def _fake_play(monkeypatch, played: list[int]):
    """``play_chunk`` replaced: chunk c's rows are deals of its range, kind by deal."""

    def play(config, chunk, threads=None):
        played.append(chunk)
        start, stop = config.chunk_range(chunk)
        return pd.DataFrame(
            {"deal": range(start, stop), "kind": [KINDS[d % 4] for d in range(start, stop)]}
        )

    monkeypatch.setattr(module, "play_chunk", play)


def test_a_dataset_is_played_chunk_by_chunk_and_resumed(monkeypatch, tmp_path):
    played, progress = [], []
    _fake_play(monkeypatch, played)
    config = _config()
    frames = list(execute(config, tmp_path / "set", on_chunk=lambda *a: progress.append(a)))
    assert played == [0, 1, 2] and progress == [(2, False), (2, False), (1, False)]
    assert [f["deal"].tolist() for f in frames] == [[0, 1], [2, 3], [4]]
    loaded = load_positions(tmp_path / "set")
    assert loaded["deal"].tolist() == [0, 1, 2, 3, 4]
    assert list(loaded["kind"].cat.categories) == list(KINDS)
    assert loaded.attrs["config"] == config.to_json()
    assert read_positions_manifest(tmp_path / "set") == config
    (tmp_path / "set" / "positions-000001.parquet").unlink()
    with pytest.raises(RunError) as error:
        load_positions(tmp_path / "set")
    assert str(error.value) == (
        f"{tmp_path / 'set'} is unfinished: 1 of 3 chunks missing; run the same command again "
        "to finish it"
    )
    played.clear(), progress.clear()
    list(execute(config, tmp_path / "set", on_chunk=lambda *a: progress.append(a)))
    assert played == [1] and progress == [(2, True), (2, False), (1, True)]
    assert load_positions(tmp_path / "set")["deal"].tolist() == [0, 1, 2, 3, 4]
    played.clear()
    assert [f["deal"].tolist() for f in execute(config)] == [[0, 1], [2, 3], [4]]  # no folder
    assert played == [0, 1, 2]


class _Task:
    def __init__(self, result):
        self._result = result

    def result(self):
        return self._result


class _Client:
    """A Dask client's ``submit`` and ``nthreads``, playing at once and recording."""

    def __init__(self, threads: int):
        self.threads, self.submitted, self.pending = threads, [], 0
        self.most_pending = 0

    def nthreads(self):
        return {"worker": self.threads}

    def submit(self, function, config, chunk, threads, pure, retries):
        assert (pure, retries) == (False, 3)
        # Each chunk is submitted once and none past the last: a lookahead that submits
        # again or runs past the end fails here at once instead of looping (mutants 11 and
        # 33 of ``_play_dataset`` looped until their timeout, over an hour each).
        assert 0 <= chunk < config.n_chunks and chunk not in self.submitted, (chunk, self.submitted)
        self.submitted.append(chunk)
        self.pending += 1
        self.most_pending = max(self.most_pending, self.pending)
        task = _Task(function(config, chunk, threads))
        original = task.result

        def result():
            self.pending -= 1
            return original()

        task.result = result
        return task


def test_a_cluster_plays_the_missing_chunks_a_window_ahead(monkeypatch, tmp_path):
    from gin_sim.experiments.cluster import MIN_TASKS_AHEAD

    played, looks = [], []
    _fake_play(monkeypatch, played)
    deals = 2 * (MIN_TASKS_AHEAD + 3)
    is_done = module.PositionSet.is_done

    def counted(self, chunk):
        # A chunk is looked at by the lookahead once and at its collection once, a few
        # more times by opening and loading: far fewer than this bound. A lookahead
        # that looks at a finished chunk again and again without moving on fails here
        # instead of looping until mutmut's timeout.
        looks.append(chunk)
        assert len(looks) <= 20 * deals, "a finished chunk looked at without end"
        return is_done(self, chunk)

    monkeypatch.setattr(module.PositionSet, "is_done", counted)
    config = _config(deals=deals, chunk=1)
    client = _Client(threads=1)  # a window of MIN_TASKS_AHEAD tasks
    frames = list(execute(config, tmp_path / "set", client=client))
    assert client.submitted == list(range(deals)) and client.most_pending == MIN_TASKS_AHEAD
    assert [f["deal"].tolist() for f in frames] == [[d] for d in range(deals)]
    for chunk in (0, 3, deals - 1):  # resumed: only the missing chunks are submitted
        (tmp_path / "set" / f"positions-{chunk:06d}.parquet").unlink()
    client, progress = _Client(threads=1), []
    frames = list(
        execute(config, tmp_path / "set", client=client, on_chunk=lambda *a: progress.append(a))
    )
    assert client.submitted == [0, 3, deals - 1]
    assert [resumed for _, resumed in progress] == [
        chunk not in (0, 3, deals - 1) for chunk in range(deals)
    ]
    assert [f["deal"].tolist() for f in frames] == [[d] for d in range(deals)]
    wide = _Client(threads=MIN_TASKS_AHEAD)  # twice the threads ahead
    list(execute(_config(deals=deals, chunk=1), tmp_path / "wide", client=wide))
    assert wide.most_pending == min(deals, 2 * MIN_TASKS_AHEAD)


def test_a_dataset_folder_refuses_what_is_not_a_dataset(tmp_path):
    folder = tmp_path / "set"
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value) == f"dataset folder {folder} does not exist or is not a folder"
    folder.mkdir()
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value) == f"{folder} is not a dataset folder: it has no manifest.json"
    manifest = folder / "manifest.json"
    manifest.write_bytes(b"\xff{")
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value).startswith(f"{manifest} is damaged or not gin-sim's (")
    assert str(error.value).endswith(
        "): it cannot be read as JSON; restore it, or move it away or choose another --out"
    )
    config = _config().to_json()
    for document in (
        [1, 2],
        {"dataset": "positions", "format": 3, "config": config},
        {"dataset": "run", "format": 2, "config": config},
        {"dataset": "positions", "format": 2, "config": [config]},
        {"dataset": "positions", "format": 2},
    ):
        manifest.write_text(json.dumps(document))
        with pytest.raises(RunError) as error:
            read_positions_manifest(folder)
        assert str(error.value) == (
            f"{manifest} is not a gin-sim positions manifest (a run folder's, perhaps)"
        )
    manifest.write_text(json.dumps({"dataset": "positions", "format": 1, "config": config}))
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value).startswith(f"{manifest} is a positions dataset of format 1 (")
    document = {"dataset": "positions", "format": 2, "config": config}
    manifest.write_text(json.dumps(document))
    assert read_positions_manifest(folder) == _config()
    for change, words in (
        ({"seed": -1}, "restore it or start the dataset again with --overwrite"),
        ({"extra": 1}, "is not a gin-sim positions manifest (KeyError(['extra'])"),
        ({"keep": {"offer": 1}}, "is not a gin-sim positions manifest (KeyError(\"keep: ['offer']\")"),
    ):  # fmt: skip
        manifest.write_text(json.dumps(document | {"config": config | change}))
        with pytest.raises(RunError) as error:
            read_positions_manifest(folder)
        assert str(error.value).startswith(f"{manifest}") and words in str(error.value)


def test_a_configuration_reads_back_as_itself():
    config = _config(keep=(1, 0.25, 0.125, 1), evaluation=None)
    document = config.to_json()
    assert document["keep"] == {"offer": 1.0, "draw": 0.25, "discard": 0.125, "knock": 1.0}
    assert document["evaluation"] is None and document["seed"] == 3 and document["deals"] == 5
    assert PositionsConfig.from_json(json.loads(json.dumps(document)), "here") == config
    evaluated = PositionsConfig(
        HOLLYWOOD, parse_players("expert,simple"), 3, 5, 5, Evaluation(samples=6, select=2)
    )
    assert PositionsConfig.from_json(evaluated.to_json(), "here") == evaluated
    assert evaluated.total == 5 and config.keep == (1.0, 0.25, 0.125, 1.0)


# ------------------------------------------------------------- the check against play
def _headline_rows() -> pd.DataFrame:
    """Three positions built by hand from views (no deal played), as an evaluated dataset
    stores them: an offer (seat 0) and a draw (seat 1) holding three melds and the KH, and
    a knock decision after drawing the 2D from the stock, whose least-deadwood discard is
    the KH (deadwood 2, at most the knock limit of 10: R12). ``actions`` are the words of
    docs/advice.md's order (decline or draw, take; the knock, then every card ascending as
    a discard) and ``baseline`` one of them, not the first discard. Index 10, 11, 12."""
    melds = "AS 2S 3S 4H 4D 4C 7C 8C 9C"
    views = (
        ({"decision": "offer", "hand": f"{melds} KH", "pile": ["2D"], "stock_left": 31,
          "dealer": "opponent"}, 0),
        ({"decision": "draw", "hand": f"{melds} KH", "pile": ["2D", "QD"], "stock_left": 30,
          "dealer": "me", "opp_turns": 1}, 1),
        ({"decision": "discard", "hand": f"{melds} KH 2D", "pile": ["QD"], "stock_left": 30,
          "dealer": "opponent", "taken": "2D", "taken_from_pile": False, "own_turns": 1}, 0),
    )  # fmt: skip
    positions = [position_from_view(parse_view(view, HOLLYWOOD), seat) for view, seat in views]
    held = sorted(parse_card_list(f"{melds} KH 2D"))
    return pd.DataFrame(
        {
            "deal": [4, 4, 9],
            "decision": [0, 3, 5],
            "kind": ["offer", "draw", "knock"],
            "actions": [
                ["decline", "take"],
                ["draw", "take"],
                ["knock KH", *(f"discard {format_card(c)}" for c in held)],
            ],
            "baseline": ["decline", "draw", "discard 2D"],
            "position_masks": [m for m, _ in positions],
            "position_state": [s.astype(np.int16) for _, s in positions],
        },
        index=[10, 11, 12],
    )


def test_the_headline_is_take_or_the_least_deadwood_knock_and_the_baseline_is_the_stored_one():
    """``headline_actions``: take (code 1) at an offer or a draw, knocking with the
    least-deadwood discard at a knock (docs/advice.md; R12: a knock leaves deadwood at
    most the knock limit), and the kernel code of the stored baseline word (decline and draw are 0, a discard is its
    card); a discard position has no headline."""
    rows = _headline_rows()
    hand = sum(1 << c for c in parse_card_list("AS 2S 3S 4H 4D 4C 7C 8C 9C KH 2D"))
    # the KH is the one discard that leaves the least deadwood, by exhaustive search
    after = {c: min_deadwood_exhaustive(hand & ~(1 << c)) for c in range(52) if hand >> c & 1}
    assert [c for c, d in after.items() if d == min(after.values())] == [parse_card("KH")]
    assert min(after.values()) == 2 <= HOLLYWOOD.knock_limit
    headline, baseline = headline_actions(rows)
    assert headline.dtype == baseline.dtype == np.int64
    assert headline.tolist() == [1, 1, parse_card("KH") | ACTION_KNOCK]
    assert baseline.tolist() == [0, 0, parse_card("2D")]
    # the words each code stands for, as the evaluation wrote them
    phases = [Phase.OFFER, Phase.DRAW, Phase.DISCARD]
    assert [action_words(int(a), p) for a, p in zip(headline, phases, strict=True)] == [
        "take", "take", "knock KH"
    ]  # fmt: skip
    assert headline_actions(rows.iloc[[2, 0]])[0].tolist() == [headline[2], 1]
    empty = headline_actions(rows.iloc[:0])
    assert empty[0].shape == empty[1].shape == (0,)
    discard = rows.assign(kind=["offer", "discard", "knock"])
    with pytest.raises(ValueError) as error:
        headline_actions(discard)
    assert str(error.value) == "row 1: a discard position has no headline"
    with pytest.raises(AssertionError):  # stored words that are not the kernel's actions
        headline_actions(rows.iloc[2:].assign(actions=[["knock KH", "discard 2D"]]))


# What the made-up play gives a forced action, by continuation: take, decline or draw, the
# knock with the KH and the discard of the 2D.
_MADE_UP = {
    1: [3.0, 1.0, 2.0],
    0: [1.0, 1.0, 0.0],
    parse_card("KH") | ACTION_KNOCK: [2.0, 4.0, 0.0],
    parse_card("2D"): [0.0, 0.0, 0.0],
}


def _record_play(monkeypatch) -> list[dict]:
    """``play_forced_parallel`` replaced by a recorder of its arguments and of numba's
    threads and numpy's overflow setting at the call; row i's value in continuation r is
    ``_MADE_UP[action][r]`` plus an offset of its key alone, so that the gain of a row is
    the made-up difference only when the headline and the baseline share their key."""
    calls = []

    def play(
        rules, strategies, undercut, equity, masks, states, actions, keys, values_out, seed,
        deals, decisions,
    ):  # fmt: skip
        calls.append(
            {"rules": rules, "strategies": strategies, "undercut": undercut,
             "equity": equity, "masks": masks, "states": states, "actions": actions.copy(),
             "keys": keys, "seed": seed, "deals": deals.copy(), "decisions": decisions.copy(),
             "values": values_out.copy(), "shape": values_out.shape,
             "dtype": values_out.dtype, "threads": numba.get_num_threads(),
             "over": np.geterr()["over"]}
        )  # fmt: skip
        for i, action in enumerate(actions):
            offset = float(keys[i] % np.uint64(1000))
            values_out[i] = [
                _MADE_UP[int(action)][r % 3] + offset for r in range(len(values_out[i]))
            ]

    monkeypatch.setattr(module, "play_forced_parallel", play)
    return calls


def test_play_forces_the_headline_and_the_baseline_on_the_same_streams(monkeypatch):
    """``play_headline`` with the kernel's forced play replaced (``_record_play``): every
    row played twice, the headline first then the baseline, with the row's own position,
    the same key (the check's stream of its seed, deal and decision) and the kernels'
    rules, players, undercut table and score tables; the gain per row is the mean over the
    continuations of headline less baseline, with its standard error across them."""
    calls = _record_play(monkeypatch)
    tables, score_tables = [], np.full((2, 3), 7.0)  # a score-aware player's (made up)
    monkeypatch.setattr(module, "equity_tables", lambda *a: tables.append(a) or score_tables)
    rules, players, seed = HOLLYWOOD, parse_players("expert,simple"), 5
    rows = _headline_rows()
    out = module.play_headline(rows, rules, players, 3, seed, threads=1)
    (call,) = calls
    assert call["threads"] == 1 and call["over"] == "ignore"
    np.testing.assert_array_equal(call["rules"], rules.to_kernel())
    np.testing.assert_array_equal(call["strategies"], strategies_to_kernel(players, rules))
    np.testing.assert_array_equal(call["undercut"], load_undercut_table())
    assert call["equity"] is score_tables and tables == [(players, rules)]
    masks = np.stack(rows["position_masks"].tolist())
    states = np.stack(rows["position_state"].tolist()).astype(np.int64)
    np.testing.assert_array_equal(call["masks"], np.concatenate([masks, masks]))
    np.testing.assert_array_equal(call["states"], np.concatenate([states, states]))
    assert call["masks"].dtype == np.uint64 and call["states"].dtype == np.int64
    knock = parse_card("KH") | ACTION_KNOCK
    assert call["actions"].tolist() == [1, 1, knock, 0, 0, parse_card("2D")]
    # the check's own stream (not the worlds'): its domain xor the seed, by deal and decision
    check = np.uint64(STREAM_DOMAINS["check"] ^ seed)
    keys = [int(evaluation_key_nb(check, d, k)) for d, k in ((4, 0), (4, 3), (9, 5))]
    assert call["keys"].tolist() == keys + keys
    # family players remember nothing from one decision to the next: no replay (-1)
    assert call["seed"] == seed and call["deals"].tolist() == [4, 4, 9] * 2
    assert call["decisions"].tolist() == [-1] * 6
    # a searcher with an opponent panel remembers: each row replayed from its deal of seed
    module.play_headline(rows, rules, parse_players("mc,expert"), 3, seed, threads=1)
    assert calls[-1]["seed"] == seed and calls[-1]["deals"].tolist() == [4, 4, 9] * 2
    assert calls[-1]["decisions"].tolist() == [0, 3, 5] * 2
    calls.pop()
    assert call["shape"] == (6, 3) and call["dtype"] == np.float64
    assert not call["values"].any()
    # by hand: take less decline or draw [2, 0, 2]; the knock less the discard [2, 4, 0]
    assert list(out.columns) == ["play_gain", "play_gain_se"]
    assert list(out.index) == [10, 11, 12]
    assert out["play_gain"].tolist() == pytest.approx([4 / 3, 4 / 3, 2.0])
    assert out["play_gain_se"].tolist() == pytest.approx([2 / 3, 2 / 3, 2 / math.sqrt(3)])
    # one continuation: no standard error; all threads when none are named
    one = module.play_headline(rows, rules, players, 1, seed)
    assert calls[-1]["threads"] == numba.config.NUMBA_NUM_THREADS
    assert calls[-1]["shape"] == (6, 1)
    assert one["play_gain"].tolist() == [2.0, 2.0, 2.0] and one["play_gain_se"].isna().all()
    # another seed, other streams
    two = module.play_headline(rows, rules, players, 2, seed + 1)
    # two continuations: take less decline or draw [2, 0], the knock less the discard
    # [2, 4]; the standard error of two is their half difference
    assert two["play_gain"].tolist() == [1.0, 1.0, 3.0]
    assert two["play_gain_se"].tolist() == pytest.approx([1.0, 1.0, 1.0])
    assert calls[-1]["keys"].tolist()[:3] != keys
    assert calls[-1]["keys"].tolist()[:3] == calls[-1]["keys"].tolist()[3:]
    for continuations, said in ((0, "0"), (100_001, "100,001")):
        with pytest.raises(ConfigError) as error:
            module.play_headline(rows, rules, players, continuations, seed)
        assert str(error.value) == f"continuations = {said}: allowed 1 to 100,000"
    most = module.play_headline(rows.iloc[:1], rules, players, 100_000, seed)
    assert calls[-1]["shape"] == (2, 100_000)
    assert most["play_gain"].iat[0] == pytest.approx(4 / 3, abs=1e-4)


# ------------------------------------------------------------------------ features
def _view(**change) -> dict:
    """A discard decision as plain data (decide's view): the 9C just drawn from the stock
    makes a run with the 7C and 8C; the AD to 4D and the three fives are melds, so
    discarding the 2C is gin. The opponent holds four cards taken from the pile: ranks 2,
    3, Q and K, suits hearts and spades (no ace, no club: bit 0 of neither is set; the 2H
    and 3S are cards 27 and 41, whose suits a miscount by 14 would get wrong)."""
    view = {
        "decision": "discard", "hand": "AD 2D 3D 4D 5H 5S 5C 7C 8C 9C 2C", "pile": "QH",
        "stock_left": 20, "dealer": "me", "opp_turns": 2, "own_turns": 3, "pile_takes": 1,
        "opp_taken": "KH 2H 3S QS", "knock_limit": 10, "taken": "9C", "taken_from_pile": False,
    }  # fmt: skip
    return view | change


def _cards(text: str) -> int:
    return sum(1 << c for c in parse_card_list(text))


def test_the_features_of_a_view_by_hand():
    """``view_features`` on hand-made views (docs/advice.md, "Columns"): deadwood after
    the best allowed discard (R11: the card just taken from the pile may not be discarded
    at once, a card from the stock may), what the card did for the hand, the opponent's
    pile cards by rank and suit as bit sets, the turns and the dealer from the mover's
    side."""
    rank_bits = sum(1 << r for r in (1, 2, 11, 12))  # 2, 3, Q, K (ace = bit 0)
    suit_bits = (1 << 2) | (1 << 3)  # hearts, spades (clubs = bit 0)
    public = {
        "dealer": True, "stock_left": 20, "turns": 5, "own_turns": 3, "opp_turns": 2,
        "pile_takes": 1, "opp_holds": 4, "opp_taken": _cards("KH 2H 3S QS"),
        "opp_taken_ranks": rank_bits, "opp_taken_suits": suit_bits, "knock_limit": 10,
    }  # fmt: skip
    hand = _cards("AD 2D 3D 4D 5H 5S 5C 7C 8C 9C 2C")
    # drawn from the stock: the 2C may go, which is gin; before the 9C, the 7C, 8C and 2C
    # were loose (17); the 9C completes their run
    drawn = view_features(_view())
    assert list(drawn) == [*public, "deadwood", "card", "from_pile", "card_melds",
                           "card_lowers", "hand"]  # fmt: skip
    expected = public | {"deadwood": 0, "card": "9C", "from_pile": False, "card_melds": True,
                         "card_lowers": 17, "hand": hand}  # fmt: skip
    assert drawn == expected
    assert type(drawn["opp_taken"]) is type(drawn["hand"]) is np.uint64
    # the 2C taken from the pile may not go back: the AD (or 4D) goes, 2 left; the 2C made
    # no meld and raised the deadwood of the hand it joined (0) by 2
    taken = view_features(_view(taken="2C", taken_from_pile=True, dealer="opponent"))
    assert taken == expected | {"dealer": False, "deadwood": 2, "card": "2C",
                                "from_pile": True, "card_melds": False, "card_lowers": -2}  # fmt: skip
    # an offer: the pile's top is the card, the deadwood is the 10 cards' own (7C, 8C, KD
    # loose: 25); taken, the 9C melds and the KD goes, 0 left
    offer = view_features(
        _view(
            decision="offer",
            hand="AD 2D 3D 4D 5H 5S 5C 7C 8C KD",
            pile="QH 9C",
            opp_turns=4,
            own_turns=1,
        )
    )
    assert offer == expected | {"turns": 5, "own_turns": 1, "opp_turns": 4, "deadwood": 25,
                                "card": "9C", "from_pile": True, "card_lowers": 25,
                                "hand": _cards("AD 2D 3D 4D 5H 5S 5C 7C 8C KD")}  # fmt: skip


def test_the_rows_of_kept_positions_by_hand():
    """``positions_frame`` on the three hand-built positions of ``_headline_rows`` with
    made-up kernel facts: every column of docs/advice.md in its order, each fact from its
    own ``INFO_*`` slot, the strategy of the seat to move, the weight 1 / the keep
    probability, the played action in the words of its phase, the view's features, and
    the position itself (the state as int16, as stored). Arrays of different lengths are
    an error, not rows dropped."""
    built = _headline_rows()
    masks = np.stack(built["position_masks"].tolist())
    states = np.stack(built["position_state"].tolist()).astype(np.int64)
    info = np.zeros((3, N_INFO), np.int64)
    knock = parse_card("KH") | ACTION_KNOCK
    for r, (deal, kind, decision, count, rate, action, own, opp, points) in enumerate(
        ((4, 0, 0, 1, 1024, 1, 0, 0, 25), (4, 1, 3, 6, 512, 0, 2, 1, -25),
         (9, 3, 5, 2, 256, knock, 1, 3, 12))
    ):  # fmt: skip
        info[r, [INFO_DEAL, INFO_KIND, INFO_DECISION, INFO_COUNT, INFO_RATE, INFO_ACTION,
                 INFO_OWN_TAKES, INFO_OPP_TAKES, INFO_POINTS]] = (
            deal, kind, decision, count, rate, action, own, opp, points
        )  # fmt: skip
    players = parse_players("expert,simple")
    frame = module.positions_frame(players, masks, states, info)
    features = list(view_features(view_of_position(masks[0], states[0])))
    assert list(frame.columns) == [
        "deal", "kind", "seat", "strategy", "decision", "kind_count", "keep_probability",
        "weight", *features, "own_takes", "opp_takes", "played", "hand_points",
        "position_masks", "position_state",
    ]  # fmt: skip
    assert frame["deal"].tolist() == [4, 4, 9]
    assert frame["kind"].tolist() == ["offer", "draw", "knock"]
    assert frame["seat"].tolist() == [0, 1, 0]
    assert frame["strategy"].tolist() == ["expert", "simple", "expert"]
    assert frame["decision"].tolist() == [0, 3, 5]
    assert frame["kind_count"].tolist() == [1, 6, 2]
    assert frame["keep_probability"].tolist() == [1.0, 0.5, 0.25]
    assert frame["weight"].tolist() == [1.0, 2.0, 4.0]
    assert frame["own_takes"].tolist() == [0, 2, 1]
    assert frame["opp_takes"].tolist() == [0, 1, 3]
    assert frame["played"].tolist() == ["take", "draw", "knock KH"]
    assert frame["hand_points"].tolist() == [25, -25, 12]
    for r in range(3):
        view = view_features(view_of_position(masks[r], states[r]))
        assert {key: frame[key].iat[r] for key in features} == view
        stored = frame["position_state"].iat[r]
        assert stored.dtype == np.int16 and stored.tolist() == states[r].tolist()
        np.testing.assert_array_equal(frame["position_masks"].iat[r], masks[r])
    masks[0, 0] ^= 1  # the stored masks are a copy
    assert frame["position_masks"].iat[0][0] != masks[0, 0]
    with pytest.raises(ValueError):
        module.positions_frame(players, masks, states[:2], info)


def test_a_single_positions_stream_and_arrays_given_as_lists():
    """``evaluation_keys`` of one position (its decision number both the least and the
    most), and of deals and decisions of different lengths (an error, not a shorter list
    of keys); ``position_arrays`` of masks and states stored as plain lists."""
    assert evaluation_keys(9, np.array([5]), np.array([3])).tolist() == [
        int(evaluation_key_nb(np.uint64(9), 5, 3))
    ]
    with pytest.raises(ValueError):
        evaluation_keys(9, np.array([0, 1, 2]), np.array([0, 1]))
    lists = pd.DataFrame(
        {"position_masks": [[1, 2, 3, 4, 5, 6, 7]], "position_state": [list(range(133))]}
    )
    masks, states = position_arrays(lists)
    assert masks.dtype == np.uint64 and states.dtype == np.int64
    assert masks.tolist() == [[1, 2, 3, 4, 5, 6, 7]]


def test_an_evaluation_of_the_most_worlds_is_allowed():
    most = Evaluation(samples=MAX_SAMPLES, select=1)
    assert most.samples == MAX_SAMPLES and most.searcher().samples == MAX_SAMPLES


def test_a_manifests_errors_name_its_file(tmp_path):
    """A manifest nested too deep, a manifest that is a folder, and rules or players that
    cannot be read: each a one-line error that names the file (and which part of it)."""
    folder = tmp_path / "set"
    folder.mkdir()
    manifest = folder / "manifest.json"
    manifest.write_text("[" * 20 + "]" * 20)
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value) == (
        f"{manifest}: tables and arrays nested more than 16 deep: allowed at most 16"
    )
    manifest.unlink()
    manifest.mkdir()
    with pytest.raises(RunError) as error:
        read_positions_manifest(folder)
    assert str(error.value) == f"cannot read {manifest}: Is a directory"
    manifest.rmdir()
    config = _config().to_json()
    for change, part in (
        ({"rules": config["rules"] | {"bogus": 1}}, "rules"),
        ({"players": [config["players"][0] | {"bogus": 1}, config["players"][1]]}, "players"),
    ):
        document = {"dataset": "positions", "format": 2, "config": config | change}
        manifest.write_text(json.dumps(document))
        with pytest.raises(RunError) as error:
            read_positions_manifest(folder)
        assert str(error.value).startswith(
            f"{manifest}: unknown key 'bogus' in {manifest} ({part}): allowed keys are "
        )


# ------------------------------------------------------------------------- threads
def test_the_threads_asked_reach_every_kernel_call(monkeypatch):
    """``threads`` is handed down from ``execute`` to each chunk, from a chunk to its
    sampling and its evaluation, and from there to the kernel (numba's threads at the
    call; any threads give the same rows, so only passing them on shows it). The
    evaluation's kernel gets the evaluation's settings and select, the rules, the
    undercut table and the positions as contiguous uint64 / int64 / uint64 arrays, its
    outputs zero (actions -1) of the shapes it fills."""
    calls = []

    def evaluate(params, select, rules, undercut, masks, states, keys, actions, *out):
        calls.append(
            {"threads": numba.get_num_threads(), "params": params, "select": select,
             "rules": rules, "undercut": undercut, "masks": masks, "states": states,
             "keys": keys, "actions": actions.copy(), "out": [o.copy() for o in out]}
        )  # fmt: skip
        actions[:, :2] = [0, 1]
        for k, o in enumerate(out[:4]):
            o[:, :2] = k + 1
        out[4][:] = [2, 1]

    monkeypatch.setattr(module, "evaluate_positions_parallel", evaluate)
    evaluation = Evaluation(samples=6, select=2)
    rows = _headline_rows()
    masks = np.stack(rows["position_masks"].tolist())
    states = np.stack(rows["position_state"].tolist())  # int16, as stored
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    found = module.evaluate_positions(
        masks.astype(np.int64), states, np.array([1, 2, 3]), HOLLYWOOD, evaluation, threads=1
    )
    (call,) = calls
    assert call["threads"] == 1 and call["select"] == 2
    np.testing.assert_array_equal(call["params"], evaluation.to_kernel(HOLLYWOOD))
    np.testing.assert_array_equal(call["rules"], HOLLYWOOD.to_kernel())
    np.testing.assert_array_equal(call["undercut"], load_undercut_table())
    for key, dtype in (("masks", np.uint64), ("states", np.int64), ("keys", np.uint64)):
        assert call[key].dtype == dtype and call[key].flags.c_contiguous, key
    assert call["keys"].tolist() == [1, 2, 3]
    assert call["actions"].shape == (3, MAX_ACTIONS) and (call["actions"] == -1).all()
    assert [o.shape for o in call["out"]] == [(3, MAX_ACTIONS)] * 4 + [(3, 2)]
    assert all(o.dtype == np.float64 for o in call["out"][:4]) and call["out"][4].dtype == np.int64
    assert not any(o.any() for o in call["out"])
    assert found.actions[:, :3].tolist() == [[0, 1, -1]] * 3
    for k, name in enumerate(("sums", "squares", "gains", "gain_squares")):
        assert getattr(found, name)[:, :2].tolist() == [[k + 1, k + 1]] * 3, name
    assert found.n_actions.tolist() == [2, 2, 2] and found.baseline.tolist() == [1, 1, 1]

    # evaluate_frame and play_chunk hand their threads on
    seen = []
    monkeypatch.setattr(module, "evaluate_positions", lambda *a: seen.append(a[-1]) or found)
    module.evaluate_frame(rows.assign(played="take"), HOLLYWOOD, evaluation, 3, threads=1)
    assert seen == [1]
    sampled = []

    def sample(rules, players, seed, first, deals, keep, threads):
        sampled.append((first, deals, threads))
        return "masks", "states", "info"

    monkeypatch.setattr(module, "sample_positions", sample)
    monkeypatch.setattr(module, "positions_frame", lambda *a: rows)
    evaluated = []
    monkeypatch.setattr(module, "evaluate_frame", lambda *a: evaluated.append(a[-1]) or "evaluated")
    assert module.play_chunk(_config(), 1, threads=1) is rows  # no evaluation
    assert module.play_chunk(_config(evaluation=evaluation), 2, threads=1) == "evaluated"
    assert sampled == [(2, 2, 1), (4, 1, 1)] and evaluated == [1]

    # execute hands them to every chunk, in process and on a cluster
    asked = []
    monkeypatch.setattr(module, "play_chunk", lambda c, k, t=None: asked.append(t) or rows)
    list(execute(_config(), threads=1))
    list(execute(_config(), threads=1, client=_Client(threads=1)))
    assert asked == [1] * 6


# ------------------------------------------------------------------------ sampling
def test_deals_are_sampled_in_batches_and_kept_rows_come_by_deal_then_decision(monkeypatch):
    """``sample_positions`` with the kernel replaced by a recorder that keeps deal d's
    first d % 3 decisions (row j of deal d holds d * 10 + j): the kernel gets the seed,
    each batch's first deal, the keep rates, the rules, the players, the undercut and score
    tables and the threads asked; the deals go in batches whose output fits the byte
    budget (here 8 deals; 20 deals are 8, 8 and 4), and the rows come back by deal, then
    decision, whatever the batches. A hand that kept more rows than it has is an error."""
    slots = max_decisions(HOLLYWOOD)
    row_bytes = 8 * (N_POSITION_MASKS + N_POSITION_SLOTS + N_INFO)
    monkeypatch.setattr(module, "SAMPLE_BATCH_BYTES", 8 * slots * row_bytes)
    calls, too_many = [], []

    def sample(seed, first, rules, rates, strategies, undercut, equity, masks, states, info,
               kept):  # fmt: skip
        calls.append(
            {"seed": seed, "first": first, "rules": rules, "rates": rates,
             "strategies": strategies, "undercut": undercut, "equity": equity,
             "threads": numba.get_num_threads(), "kept": kept.copy(),
             "shapes": [a.shape for a in (masks, states, info)],
             "dtypes": [a.dtype for a in (masks, states, info, kept)]}
        )  # fmt: skip
        for i in range(len(kept)):
            deal = first + i
            kept[i] = too_many[-1] if too_many else deal % 3
            for j in range(min(kept[i], slots)):
                masks[i, j], states[i, j], info[i, j] = deal * 10 + j, deal * 10 + j, deal

    monkeypatch.setattr(module, "sample_positions_parallel", sample)
    tables, score_tables = [], np.full((2, 3), 7.0)  # a score-aware player's (made up)
    monkeypatch.setattr(module, "equity_tables", lambda *a: tables.append(a) or score_tables)
    players, keep = parse_players("expert,simple"), (1, 0.5, 0.25, 1)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    masks, states, info = module.sample_positions(HOLLYWOOD, players, 7, 100, 20, keep, 1)
    assert [(c["first"], len(c["kept"])) for c in calls] == [(100, 8), (108, 8), (116, 4)]
    for call in calls:
        assert call["seed"] == np.uint64(7) and type(call["seed"]) is np.uint64
        assert call["threads"] == 1 and not call["kept"].any()
        n = len(call["kept"])
        assert call["shapes"] == [(n, slots, N_POSITION_MASKS), (n, slots, N_POSITION_SLOTS),
                                  (n, slots, N_INFO)]  # fmt: skip
        assert call["dtypes"] == [np.uint64, np.int64, np.int64, np.int64]
        assert call["rates"].tolist() == [1024, 512, 256, 1024]
        np.testing.assert_array_equal(call["rules"], HOLLYWOOD.to_kernel())
        np.testing.assert_array_equal(call["strategies"], strategies_to_kernel(players, HOLLYWOOD))
        np.testing.assert_array_equal(call["undercut"], load_undercut_table())
        assert call["equity"] is score_tables
    assert tables == [(players, HOLLYWOOD)]
    expected = [d * 10 + j for d in range(100, 120) for j in range(d % 3)]
    assert masks[:, 0].tolist() == states[:, 0].tolist() == expected
    assert info[:, 0].tolist() == [e // 10 for e in expected]
    assert masks.shape == (len(expected), N_POSITION_MASKS) and masks.dtype == np.uint64
    assert states.shape == (len(expected), N_POSITION_SLOTS) and states.dtype == np.int64
    assert info.shape == (len(expected), N_INFO) and info.dtype == np.int64
    calls.clear()  # one batch when the budget holds every deal
    monkeypatch.setattr(module, "SAMPLE_BATCH_BYTES", 64 << 20)
    one = module.sample_positions(HOLLYWOOD, players, 7, 100, 20, keep, 1)
    assert [(c["first"], len(c["kept"])) for c in calls] == [(100, 20)]
    assert one[0].tolist() == masks.tolist()
    calls.clear()  # a budget below one deal's output: one deal at a time
    monkeypatch.setattr(module, "SAMPLE_BATCH_BYTES", 1)
    module.sample_positions(HOLLYWOOD, players, 7, 100, 3, keep, 1)
    assert [(c["first"], len(c["kept"])) for c in calls] == [(100, 1), (101, 1), (102, 1)]
    too_many.append(slots)  # every row of a hand kept: allowed
    assert len(module.sample_positions(HOLLYWOOD, players, 7, 0, 2, keep)[0]) == 2 * slots
    too_many.append(slots + 1)
    with pytest.raises(RuntimeError) as error:
        module.sample_positions(HOLLYWOOD, players, 7, 0, 3, keep)
    assert str(error.value) == f"a hand kept {slots + 1} decisions, more than its {slots} rows"
    for seed, deals, message in ((7, 0, "deals = 0: allowed 1 to "),
                                 (-1, 3, "seed -1 out of range: allowed 0 to ")):  # fmt: skip
        with pytest.raises(ConfigError) as error:
            module.sample_positions(HOLLYWOOD, players, seed, 0, deals, keep)
        assert str(error.value).startswith(message), str(error.value)


def test_the_evaluations_searcher_has_its_settings():
    """The evaluation's settings reach the kernels through its ``mc`` searcher: each one,
    none left at an ``mc`` strategy's own default (32 worlds, simple rollouts, no
    inference, weight 0.25)."""
    evaluation = Evaluation(samples=6, select=2, rollout="expert", opponent_model="expert",
                            infer=True, infer_weight=0.5)  # fmt: skip
    searcher = evaluation.searcher()
    assert (searcher.name, searcher.kind) == ("evaluation", "mc")
    assert (searcher.samples, searcher.rollout, searcher.opponent_model) == (6, "expert", "expert")
    assert searcher.infer is True and searcher.infer_weight == 0.5
    np.testing.assert_array_equal(evaluation.to_kernel(HOLLYWOOD), searcher.to_kernel(HOLLYWOOD))


def test_a_configurations_refusals_name_what_is_wrong():
    with pytest.raises(ConfigError) as error:
        PositionsConfig(HOLLYWOOD, parse_players("expert,expert"), 3, 5, 5, "deep")
    assert str(error.value) == "evaluation = 'deep': expected an Evaluation"
    with pytest.raises(ConfigError) as error:
        _config(deals=1_000_001, chunk=1)
    assert str(error.value) == (
        "chunk size = 1 makes 1,000,001 chunks of 1,000,001 deals: allowed at most 1,000,000 "
        "chunks (a chunk size of 2 or more)"
    )
    listed = _config(keep=[1, 1, 0.5, 1])  # stored as the checked tuple of floats
    assert listed.keep == (1.0, 1.0, 0.5, 1.0) and type(listed.keep) is tuple
