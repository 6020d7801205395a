"""The check against play has power (issue 25, part 3; issue 47; docs/advice.md, "The check
against play"): it flags a deliberately wrong opponent model and does not flag gains that are
right, and its two parts say which: the policies (play less the search's own rollout policies
from the same real cards and stocks) pass a matched opponent model and flag a wrong one, the
worlds (those rollouts less the search) test the search's inferred hidden cards.

Matched against wrong, ``expert`` against ``expert`` (issue 47's replication): the search's
rollouts are ``expert`` for the player, and its opponent model ``expert`` (matched),
``gin-hunter`` or ``early-knocker`` (wrong). Measured at the published size (1,000 positions
a cell, 4 continuations, 64 worlds) on seeds 4701 (2,500 deals) and 4702 (4,000), the
policies part with the matched model is 0 at every position (deterministic players on the
same cards and stocks play the same hands); with ``gin-hunter`` it is -1.74 ± 0.56 and
-1.71 ± 0.60 at deadwood 6 to 10 (standard error about 0.30: flagged with power above
0.999 at a true -1.7) and -0.93 ± 0.81, -1.16 ± 0.65 at 1 to 5 (power about 0.8); with
``early-knocker`` +0.23 ± 0.34, +0.57 ± 0.36 at 6 to 10 (power about 0.6: a model that
plays much as the real opponent moves the gains little). The whole difference (play less
search) with the matched model is its worlds part, flagged on 4702 (+2.30 ± 0.56 at 6 to
10, -0.92 ± 0.67 at 1 to 5): the search's inferred hands, not its model. The tests below
run on seed 4703, which none of those figures came from.

Positions: `basic` against `basic` under hollywood. `gin-hunter` is `basic` but for its
knocking (it holds out for gin while 6 or more cards are in the stock), so an evaluation
whose opponent model is `gin-hunter` is wrong about exactly one thing: the real opponent
knocks as soon as it may. A `basic` knock position is always the knock itself (it knocks at
its first chance), so the knock rows are the same under any sampling that keeps every knock
decision.

- The wrong model: both knock cells are flagged, play below the search.
- Gains right by construction (the headline's gain measured by the real players from the
  real cards on stock orders of another seed, as a search with the true worlds and the true
  players would find it): in neither knock cell a difference as large as the check could
  detect (``detectable``, under 1 point here). Not "not flagged": on a null a 95% interval
  excludes 0 one time in 20 (measured on other streams of these positions: 1 cell of 8).
- The evaluation with the right policies (rollout and opponent model `basic`) is flagged
  too: measured on these positions, play less search -0.6 to -1.4 at deadwood 1 to 5 and
  +1.4 to +1.7 at 6 to 10 (five sets of streams), because its worlds are not the true
  distribution of the hidden cards: the search's value of a knock less the knock's real
  points runs from about -3 when the opponent has had 2 turns or fewer to +9 after 7 or
  more (its hand inference, docs/strategies.md, "The decision", step 3; 12,000 deals of
  seed 2503). So "right policies" is not "right gains" and is no control; what is asserted
  of it is that the wrong model moves the paired difference down, position by position, in
  both knock cells.
"""

from __future__ import annotations

import pandas as pd
import pytest
from tiers import size

from gin_sim.experiments.advice import check_rows, check_table, per_decision
from gin_sim.experiments.positions import (
    Evaluation,
    PositionsConfig,
    evaluate_frame,
    execute,
    play_headline,
    rollout_headline,
)
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import parse_players

RULES = load_rules("hollywood")
PLAYERS = parse_players("basic,basic")
SEED = 2601
DEALS = 4000
PER_CELL = 2000
CONTINUATIONS = 4
KNOCK_CELLS = ("knock, deadwood 1 to 5", "knock, deadwood 6 to 10")


def _evaluation(opponent_model: str) -> Evaluation:
    return Evaluation(samples=32, select=8, rollout="basic", opponent_model=opponent_model)


def _checks() -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Per evaluation: the evaluated knock rows and the checked ones, with play's gains."""
    config = PositionsConfig(
        rules=RULES, players=PLAYERS, seed=SEED, deals=DEALS, chunk_size=DEALS, evaluation=None
    )
    frame = pd.concat(execute(config), ignore_index=True)
    knocks = frame[frame["kind"].astype(str) == "knock"]
    assert (knocks["played"].str.startswith("knock")).all()  # the knock itself, always
    found = {}
    for name, model in (("right policies", "basic"), ("wrong model", "gin-hunter")):
        evaluated = evaluate_frame(knocks, RULES, _evaluation(model), SEED)
        checked = check_rows(evaluated, PER_CELL)
        checked = checked.join(play_headline(checked, RULES, PLAYERS, CONTINUATIONS, SEED))
        found[name] = (evaluated, checked)
    evaluated, checked = found["right policies"]
    again = play_headline(checked, RULES, PLAYERS, CONTINUATIONS, SEED + 1)["play_gain"]
    found["right gains"] = (evaluated, checked.assign(gain=again))
    return found


@pytest.mark.full
def test_the_check_flags_a_wrong_opponent_model_and_not_right_gains():
    """One test, so that the positions are evaluated and played once (module docstring)."""
    found = _checks()
    tables = {name: check_table(*pair).set_index("cell") for name, pair in found.items()}
    for cell in KNOCK_CELLS:
        wrong, right = tables["wrong model"].loc[cell], tables["right gains"].loc[cell]
        assert wrong["checked"] >= 900
        assert wrong["flagged"] and wrong["difference_high"] < 0, (cell, wrong.to_dict())
        # Right gains are a null: a 95% interval excludes 0 in 5% of checks by chance, so
        # the control asks for no difference as large as the check can detect (2.8
        # standard errors: 0.5% by chance), which a wrong model's is.
        assert abs(right["difference_mean"]) < right["detectable"] < 1.0, (cell, right.to_dict())
    # The right policies' difference against the wrong model's, position by position.
    policies, model = found["right policies"][1], found["wrong model"][1]
    pairs = policies.merge(model, on=["deal", "decision"], suffixes=("", "_wrong"))
    assert len(pairs) == len(policies) == len(model)
    for cell in KNOCK_CELLS:
        part = pairs[pairs["cell"] == cell]
        shift = (part["play_gain_wrong"] - part["gain_wrong"]) - (part["play_gain"] - part["gain"])
        estimate = per_decision(part, shift.to_numpy())
        assert estimate.mean + estimate.half_width < 0, (cell, estimate)


# ------------------------------------------------- matched against wrong (issue 47)
EXPERTS = parse_players("expert,expert")
MATCHED_SEED = 4703  # no figure of the module docstring came from it
# The published size (1,000 positions a cell by 4 continuations) in the full tier; in the
# fast one the knock cells of 1,500 deals (1,000 and about 370 positions) by 2
# continuations, where gin-hunter's -1.7 is flagged with power about 0.98.
MATCHED_DEALS = size(fast=1500, full=4000)
MATCHED_PER_CELL = 1000
MATCHED_CONTINUATIONS = size(fast=2, full=4)
MATCHED_SAMPLES = size(fast=32, full=64)


@pytest.fixture(scope="module")
def matched_and_wrong() -> dict[str, pd.DataFrame]:
    """Per opponent model of the search: the check's table (``check_table``) with the
    policies and the worlds, ``expert`` against ``expert`` under hollywood."""
    config = PositionsConfig(
        rules=RULES, players=EXPERTS, seed=MATCHED_SEED, deals=MATCHED_DEALS,
        chunk_size=MATCHED_DEALS, evaluation=None,
    )  # fmt: skip
    frame = pd.concat(execute(config), ignore_index=True)
    frame["kind"] = frame["kind"].astype(str)
    kinds = ("knock",) if MATCHED_DEALS < 4000 else ("offer", "draw", "knock")
    frame = frame[frame["kind"].isin(kinds)]
    play = None
    tables = {}
    for model in ("expert", "gin-hunter"):
        evaluation = Evaluation(
            samples=MATCHED_SAMPLES, select=MATCHED_SAMPLES // 4, rollout="expert",
            opponent_model=model,
        )  # fmt: skip
        evaluated = evaluate_frame(frame, RULES, evaluation, MATCHED_SEED)
        evaluated["kind"] = evaluated["kind"].astype(str)
        checked = check_rows(evaluated, MATCHED_PER_CELL)
        if play is None:  # play does not depend on the search: the same for every model
            play = play_headline(checked, RULES, EXPERTS, MATCHED_CONTINUATIONS, MATCHED_SEED)
        checked = checked.join(play).join(
            rollout_headline(checked, RULES, evaluation, MATCHED_CONTINUATIONS, MATCHED_SEED)
        )
        tables[model] = check_table(evaluated, checked).set_index("cell")
    return tables


def test_a_matched_opponent_model_passes_the_policies_part(matched_and_wrong):
    """The search's own policies (``expert`` for both, as the real players) on the real
    cards and the same stocks play the very hands the real players play: the policies
    part is 0 at every position, not flagged; the whole difference is then the worlds."""
    table = matched_and_wrong["expert"]
    checked = table[table["checked"] > 0]
    assert len(checked) >= 2 and (checked["checked"] >= 300).all(), checked["checked"]
    for cell, row in checked.iterrows():
        assert row["policies_mean"] == 0.0 and row["policies_se"] == 0.0, cell
        assert not row["policies_flagged"], cell
        assert row["difference_mean"] == pytest.approx(row["worlds_mean"], abs=1e-9), cell
        assert row["rollout_mean"] == pytest.approx(row["play_mean"], abs=1e-9), cell


def test_a_wrong_opponent_model_is_flagged_by_the_policies_part(matched_and_wrong):
    """``gin-hunter`` as the model of an ``expert`` opponent: the policies part flags the
    knock cell of deadwood 6 to 10, play below the search's policies (module docstring:
    -1.7 on two other seeds, power above 0.98 at either tier's size)."""
    row = matched_and_wrong["gin-hunter"].loc["knock, deadwood 6 to 10"]
    assert row["checked"] >= 500
    assert row["policies_flagged"] and row["policies_high"] < 0, row.to_dict()
    assert row["policies_detectable"] < 1.7, row.to_dict()  # the power the docstring says


# ------------------------------------------- play by the player as it plays (issue 47)
def test_a_searcher_plays_each_continuation_from_what_it_knew():
    """``mc`` (an opponent panel, samples cut to 8) against ``expert``: every checked
    position is replayed from its deal (the kernel refuses a row whose replay does not
    reach the stored position, hidden cards and stock order included), and the
    continuations start from the posterior the searcher had there, so play differs from
    play that forgets it (the prior, as before issue 47) at some rows; players who
    remember nothing play the same either way; another seed's deals are not these
    positions, and that is one line."""
    import gin_sim.experiments.positions as positions
    from gin_sim.players.strategies import load_strategy

    players = (load_strategy("mc", ["samples=8"]), load_strategy("expert"))
    config = PositionsConfig(
        rules=RULES, players=players, seed=4711, deals=6, chunk_size=6,
        evaluation=Evaluation(samples=4, select=1),
    )  # fmt: skip
    frame = pd.concat(execute(config), ignore_index=True)
    rows = frame[frame["kind"].astype(str) != "discard"]
    assert len(rows) >= 20 and (rows["decision"] > 0).sum() >= 15
    kept = play_headline(rows, RULES, players, 2, 4711)
    assert kept["play_gain"].notna().all()
    forgot = positions._forced_gains(rows, RULES, players, 2, 4711, None, False)
    assert (kept["play_gain"].to_numpy() != forgot["gain"].to_numpy()).sum() >= 3
    family = parse_players("expert,expert")
    assert not positions.remembers(family) and positions.remembers(players)
    same = play_headline(rows, RULES, family, 2, 4711)
    again = positions._forced_gains(rows, RULES, family, 2, 4711, None, False)
    assert same["play_gain"].tolist() == again["gain"].tolist()
    with pytest.raises(ValueError) as error:
        play_headline(rows, RULES, players, 2, 4712)
    assert "\n" not in str(error.value)
    assert "replayed under seed 4712 by mc,expert it is not the stored position" in str(error.value)
