"""``gin-sim replay`` with a search player: each search's candidates, values and intervals."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.records import record_to_dict
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy, parse_players

runner = CliRunner()
ROW = re.compile(
    r"^ {7}([* ]) (\S+(?: \S+)?) +(-?\d+\.\d)  \[ *(-?\d+\.\d), +(-?\d+\.\d)\] +(-?\d+\.\d)$"
)


def _move_matches(action: str, line: str) -> bool:
    """The line after a search table tells the candidate marked ``*``."""
    if action == "take":
        return "takes" in line
    if action == "decline":
        return "declines" in line
    if action == "draw":
        return "draws from the stock" in line
    verb, card = action.split()
    if verb == "discard":
        return f"discards {card}," in line
    return f"discards {card} and" in line


def test_replay_explains_every_search():
    players = "mc,simple"
    seed, deal = 7, 3
    result = runner.invoke(
        app, ["replay", "--players", players, "--seed", str(seed), "--deal", str(deal), "--json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    kernel = simulate_deals(load_rules("hollywood"), parse_players(players), deal + 1, seed=seed)
    assert document["record"] == record_to_dict(kernel[deal])
    lines = document["lines"]
    mc = load_strategy("mc")  # the figures are over the worlds after screening (step 4b)
    heading = f"searches {mc.screen} screening worlds, then {mc.samples - mc.screen} more"
    searches = [i for i, line in enumerate(lines) if heading in line]
    assert len(searches) >= 5
    for start in searches:
        assert "player 1 (mc)" in lines[start]
        assert lines[start + 1].split() == ["candidate", "mean", "95%", "interval", "gain"]
        rows = []
        i = start + 2
        while i < len(lines) and (match := ROW.match(lines[i])):
            rows.append(match.groups())
            i += 1
        assert len(rows) >= 2, lines[start : start + 4]
        assert [r[0] for r in rows].count("*") == 1
        assert float(rows[0][5]) == 0.0  # the first candidate's gain over itself
        for _, _, mean, low, high, _ in rows:
            assert float(low) <= float(mean) <= float(high)
        chosen = next(r[1] for r in rows if r[0] == "*")
        # The move that follows (the offer line, the take or the discard) is the one marked.
        following = next(line for line in lines[i:] if "searches" not in line)
        assert _move_matches(chosen, following), (chosen, following)


def test_replay_names_the_worlds_each_search_played():
    """The worlds a search's figures are over are the ones it played at that decision:
    with ``draw_samples`` below ``screen`` its offers and draws screen nothing (all their
    worlds), while its discards screen on 6 and choose on the other 14."""
    result = runner.invoke(
        app,
        ["replay", "--players", "mc-fixed,simple", "--seed", "3", "--deal", "1",
         "--param1", "samples=20", "--param1", "screen=6", "--param1", "draw_samples=4"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if " searches " in line]
    takes = [line for line in lines if "searches 4 worlds" in line]
    discards = [line for line in lines if "searches 6 screening worlds, then 14 more" in line]
    assert takes and discards and len(takes) + len(discards) == len(lines), lines


def test_replay_text_of_a_search():
    result = runner.invoke(
        app, ["replay", "--players", "mc-fast,simple", "--seed", "3", "--deal", "1"]
    )
    assert result.exit_code == 0, result.output
    text = result.output
    assert f"player 1 (mc-fast) searches {load_strategy('mc-fast').samples} worlds" in text
    assert "* take " in text and "95% interval" in text  # the first upcard, AC
    # A family player never searches.
    plain = runner.invoke(
        app, ["replay", "--players", "simple,simple", "--seed", "3", "--deal", "1"]
    )
    assert "searches" not in plain.output
