"""Round-robin tournaments: the cross table against head-to-head runs on the same decks, the
ranking model on synthetic results, resume after an interruption, Dask, and the command."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.ranking import bootstrap_ratings, cycles, fit_ratings
from gin_sim.experiments.simulate import head_to_head, head_to_head_matches
from gin_sim.experiments.summary import match_summary, player_summary
from gin_sim.experiments.tournament import GAME1_WON, MATCHES_WON, NET, play_tournament
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy

runner = CliRunner()
PLAYERS = ("simple", "expert", "gin-hunter")
RULES = ("hollywood", "standard")
DEALS, MATCHES, SEED = 600, 40, 5


def _play(runs=None, client=None, on_run=None):
    return play_tournament(
        [load_rules(r) for r in RULES],
        [load_strategy(p) for p in PLAYERS],
        DEALS,
        MATCHES,
        SEED,
        runs,
        client=client,
        on_run=on_run,
    )


@pytest.fixture(scope="module")
def tournament():
    return _play()


def test_cross_table_equals_the_head_to_head_runs(tournament):
    cross = tournament.cross_table().set_index(["rules", "player", "opponent", "figure"])
    for rules_name, (a, b) in itertools.product(RULES, itertools.combinations(PLAYERS, 2)):
        rules, pair = load_rules(rules_name), (load_strategy(a), load_strategy(b))
        hands = head_to_head(rules, pair, DEALS, SEED)
        matches, _ = head_to_head_matches(rules, pair, MATCHES, SEED)
        for player, (row, column) in enumerate(((a, b), (b, a))):
            expected = {
                NET: player_summary(hands, player)[NET],
                MATCHES_WON: match_summary(matches, player)[MATCHES_WON],
                GAME1_WON: match_summary(matches, player)[GAME1_WON],
            }
            for figure, estimate in expected.items():
                cell = cross.loc[(rules_name, row, column, figure)]
                assert cell["mean"] == pytest.approx(estimate.mean, rel=1e-12, abs=1e-12)
                assert cell["half_width"] == pytest.approx(estimate.half_width, rel=1e-9)
                assert cell["n"] == estimate.n
    # the pairings really differ, so the comparison above is not vacuous
    net = cross.xs(NET, level="figure")["mean"]
    assert net.abs().min() > 0 and net.nunique() > 4


def test_ranking_recovers_a_known_order():
    truth = np.array([0.9, 0.4, 0.0, -0.5, -0.8])
    names = ["a", "b", "c", "d", "e"]
    pairs = list(itertools.combinations(range(5), 2))
    generator = np.random.default_rng(0)
    decks = 4_000
    shared = generator.normal(0, 4, decks)  # the luck of a deck, common to every pairing
    per_deck = np.stack(
        [2 * (truth[a] - truth[b]) + 0.3 * shared + generator.normal(0, 6, decks) for a, b in pairs]
    ).round()  # whole net points, as games give
    ratings = bootstrap_ratings(names, pairs, per_deck, 2, seed=1, replicates=400)
    table = ratings.table()
    assert list(table["player"]) == names
    by_name = table.set_index("player")
    for name, value in zip(names, truth, strict=True):
        assert by_name.loc[name, "low"] < value - truth.mean() < by_name.loc[name, "high"]
    assert abs(ratings.rating.sum()) < 1e-9
    assert by_name.loc["a", "rank_high"] == 1  # clearly first
    # the same seed gives the same resamples; another seed other ones
    again = bootstrap_ratings(names, pairs, per_deck, 2, seed=1, replicates=400)
    np.testing.assert_array_equal(again.draws, ratings.draws)
    other = bootstrap_ratings(names, pairs, per_deck, 2, seed=2, replicates=400)
    assert not np.array_equal(other.draws, ratings.draws)


def test_exact_ratings_and_cycles():
    pairs = [(0, 1), (0, 2), (1, 2)]
    np.testing.assert_allclose(
        fit_ratings(pairs, np.array([0.5, 1.5, 1.0]), 3), [2 / 3, 1 / 6, -5 / 6]
    )
    with pytest.raises(ValueError, match="complete round robin"):
        fit_ratings([(0, 1), (1, 2)], np.array([1.0, 1.0]), 3)
    beats = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=bool)
    assert cycles(["r", "s", "p"], beats) == [("r", "s", "p")]
    assert cycles(["r", "s", "p"], np.triu(np.ones((3, 3), dtype=bool), 1)) == []


def _ratings_bytes(coretype: str | None) -> bytes:
    """Ratings of a fixed synthetic round robin computed in a fresh process, with OpenBLAS
    told to use the kernels of ``coretype`` (as on another CPU), as CSV and raw draws."""
    script = (
        "import sys, numpy as np\n"
        "from gin_sim.experiments.ranking import bootstrap_ratings\n"
        "pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]\n"
        "per_deck = np.random.default_rng(3).integers(-60, 61, (15, 20_000))\n"
        "r = bootstrap_ratings(list('abcdef'), pairs, per_deck, 2, 1, replicates=200)\n"
        "sys.stdout.buffer.write(r.table().to_csv().encode() + r.draws.tobytes())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    return subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, check=True
    ).stdout


@pytest.mark.full
def test_ratings_are_exact_and_byte_identical_on_every_cpu():
    # A pseudo-inverse gave other last digits under other BLAS kernels (issue 18, item 15).
    assert _ratings_bytes(None) == _ratings_bytes("Prescott")
    # and the ratings are the exact fractions, one rounding each
    pairs = list(itertools.combinations(range(4), 2))
    per_deck = np.random.default_rng(5).integers(-40, 41, (6, 999))
    ratings = bootstrap_ratings(list("abcd"), pairs, per_deck, 2, seed=1, replicates=20)
    for player in range(4):
        total = sum(
            int(per_deck[row].sum()) * (1 if a == player else -1)
            for row, (a, b) in enumerate(pairs)
            if player in (a, b)
        )
        assert ratings.rating[player] == float(Fraction(total, 4 * 2 * 999))
    with pytest.raises(ValueError, match="whole net points"):
        bootstrap_ratings(list("abcd"), pairs, per_deck + 0.5, 2, seed=1)


def test_interrupted_tournament_resumes_with_identical_results(tmp_path, tournament):
    runs = tmp_path / "runs"
    finished = 0

    def stop_after_three(_):
        nonlocal finished
        finished += 1
        if finished == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _play(runs, on_run=stop_after_three)
    saved = {p: p.stat().st_mtime_ns for p in runs.rglob("*.parquet")}
    assert saved, "the finished runs are on disk"
    resumed = _play(runs)
    pd.testing.assert_frame_equal(resumed.cross_table(), tournament.cross_table())
    for path, mtime in saved.items():
        assert path.stat().st_mtime_ns == mtime, f"{path} was played again"
    manifests = list(runs.rglob("manifest.json"))
    assert len(manifests) == len(RULES) * 3 * 2  # pairings x (hands, matches)


def test_tournament_on_dask_equals_in_process(tmp_path, tournament):
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        remote = _play(tmp_path / "runs", client=client)
    pd.testing.assert_frame_equal(remote.cross_table(), tournament.cross_table())


def test_tournament_command_writes_the_report_and_refuses_another_configuration(tmp_path):
    out = tmp_path / "reports" / "tournament"
    arguments = ["report", "tournament", "--players", "simple,basic,expert", "--rules"]
    arguments += ["hollywood,standard", "--deals", "300", "--matches", "20", "--quiet"]
    result = runner.invoke(app, [*arguments, "--out", str(out)])
    assert result.exit_code == 0, result.output
    markdown = (out / "report.md").read_text()
    for text in ("## Findings", "## Ranking under `hollywood`", "## Ranking under `standard`"):
        assert text in markdown
    assert "cross-table-hollywood.png" in markdown and (out / "cross-table-standard.png").exists()
    assert "gin-sim report tournament --players simple,basic,expert" in markdown
    ranking = pd.read_parquet(out / "ranking.parquet")
    assert sorted(ranking["rules"].unique()) == ["hollywood", "standard"]
    assert "tournament/report.md" in (out.parent / "index.md").read_text()
    # the same command again: nothing played or rewritten (an edit survives)
    (out / "report.md").write_text("my edit")
    result = runner.invoke(app, [*arguments, "--out", str(out)])
    assert result.exit_code == 0 and "nothing played or rewritten" in result.output
    assert (out / "report.md").read_text() == "my edit"
    changed = [a if a != "300" else "400" for a in arguments]
    result = runner.invoke(app, [*changed, "--out", str(out)])
    assert result.exit_code == 2
    assert "holds a finished report tournament of other options (deals 300 there" in result.output
    # the runs folder of another report's tournament refuses another configuration per run
    other = tmp_path / "other"
    result = runner.invoke(app, [*changed, "--out", str(other), "--runs", str(out / "runs")])
    assert result.exit_code == 2 and "holds another run" in result.output


@pytest.mark.parametrize(
    "players, message",
    [("simple", "two or more"), ("simple,simple", "same name"), ("simple,nobody", "unknown")],
)
def test_bad_tournament_players_are_one_line_errors(tmp_path, players, message):
    result = runner.invoke(
        app, ["report", "tournament", "--players", players, "--deals", "10", "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_significance_in_words_is_adjusted_for_every_pairing(tournament):
    from gin_sim.experiments.holdout import bonferroni_factor
    from gin_sim.reports.tournament import ratings_by_rules, rules_findings

    cross = tournament.cross_table()
    ratings = ratings_by_rules(tournament)
    family = 3 * len(RULES)  # 3 pairings of 3 players under each rule set
    factor = bonferroni_factor(family)
    for rules in RULES:
        findings = rules_findings(tournament, rules, cross, ratings[rules])
        net = cross[(cross["rules"] == rules) & (cross["figure"] == NET)]
        expected = [
            f"`{row.player}`–`{row.opponent}`"
            for row in net.itertuples()
            if PLAYERS.index(row.player) < PLAYERS.index(row.opponent)
            and abs(row.mean) <= row.half_width * factor
        ]
        sentence = next(f for f in findings if f.startswith("Not significant"))
        assert sentence.count("–") == len(expected) and all(e in sentence for e in expected)
        head = next(f for f in findings if f.startswith("Head to head"))
        assert f"adjustment for the {family} pairings" in head
        # a pairing named as beaten is beaten with the adjusted interval above 0
        for row in net.itertuples():
            if row.mean - row.half_width * factor > 0:
                assert f"`{row.player}` beats" in head
        steps = next(f for f in findings if f.startswith("Steps of the ranking"))
        assert f"adjusted for the {2 * len(RULES)} steps" in steps
