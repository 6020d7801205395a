"""``gin-sim serve``: JSON lines in, one answer per line out, bad lines answered and survived.

- Hundreds of requests through a real process, bad lines among them: every good one is
  answered with ``decide``'s decision (candidates included), every bad one with a one-line
  error naming the problem, in order, ids echoed; the server ends at the end of its input.
- The same driven by a program in another language (node), skipped where node is absent.
"""

from __future__ import annotations

import doctest
import importlib
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gin_sim.interfaces.serve import MAX_LINE, PROTOCOL_VERSION, decision_document
from gin_sim.players.decide import decide
from gin_sim.players.strategies import load_strategy
from gin_sim.reference.engine import decisions_reference
from gin_sim.reference.views import view_from_situation

CLIENT = Path(__file__).parent / "data" / "serve_client.js"
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "taken_from_pile": False,
    "pile": "7C",
    "stock_left": 30,
    "own_turns": 1,
    "opp_turns": 0,
    "dealer": "opponent",
}
# (a bad line, what its error says)
BAD_LINES = [
    (b"nonsense", "the line is not JSON"),
    (b"[1, 2]", "a request is a JSON object, got an array"),
    (b'{"id": 1, "view": {}, "colour": "red"}', "unknown request field 'colour'"),
    (b'{"id": 2}', "request field 'view' is missing"),
    (json.dumps({"id": 3, "view": VIEW | {"hand": "AS XX"}}).encode(), "unknown rank"),
    (json.dumps({"id": 4, "view": VIEW, "strategy": "nope"}).encode(), "unknown strategy 'nope'"),
    (json.dumps({"id": 5, "view": VIEW, "rules": 7}).encode(), "request field 'rules' = 7"),
    (json.dumps({"id": 6, "view": VIEW, "seat": 2}).encode(), "seat = 2"),
    (json.dumps({"id": 7, "view": VIEW, "seed": -1}).encode(), "seed -1 out of range"),
    (b'{"id": 8, "view": \xff}', "the line is not UTF-8"),
    (json.dumps({"id": 9, "view": VIEW, "game": 5}).encode(), "request field 'game' = 5"),
    (
        json.dumps({"id": 10, "view": VIEW, "game": "g", "hand_end": {"knocker": "none"}}).encode(),
        "'view' (a decision) or 'hand_end' (a hand's end), not both",
    ),
    (json.dumps({"id": 11, "hand_end": {"knocker": "none"}}).encode(), "'hand_end' needs 'game'"),
    (
        json.dumps({"id": 12, "game": "g", "hand_end": {"knocker": "him"}}).encode(),
        "hand end: field 'knocker' = 'him'",
    ),
    (
        json.dumps({"id": 13, "game": "g", "view": VIEW, "hand_number": -1}).encode(),
        "hand_number",
    ),
    (
        json.dumps({"id": 14, "game": "g", "hand_end": {"knocker": "none"}, "seed": 3}).encode(),
        "a hand's end draws no random numbers",
    ),
    (b"[" * 100_000, "nested too deeply"),
    (b'{"id": "' + b"x" * (MAX_LINE + 10) + b'"}', "longer than 1,048,576 bytes"),
]


def _requests(count: int) -> list[dict]:
    """Requests at the positions of real hands: several strategies and rule sets."""
    mc = {"strategy": "mc-fast", "seed": 11}
    kinds = [{}, {"strategy": "expert", "rules": "standard"}, {"strategy": "random", "seed": 5}]
    requests: list[dict] = []
    deal = 0
    while len(requests) < count:
        for situation, _ in decisions_reference(3, deal, "hollywood", ("expert", "simple")):
            view = view_from_situation(situation)
            if view["decision"] == "discard" and not view["taken_from_pile"]:
                del view["taken"]  # a host that cannot name its stock card
            kind = mc if len(requests) % 40 == 0 else kinds[len(requests) % 3]
            requests.append({"id": len(requests), "view": view, "seat": situation.player} | kind)
        deal += 1
    return requests[:count]


def _lines(requests: list[dict]) -> tuple[bytes, list]:
    """The request lines with a bad line after every 15th and a blank one; the answers
    expected in order (a request's expected answer, or the substring of an error)."""
    lines, expected = [], []
    for i, request in enumerate(requests):
        lines.append(json.dumps(request).encode())
        expected.append(request)
        if i % 15 == 0:
            bad, message = BAD_LINES[(i // 15) % len(BAD_LINES)]
            lines += [bad, b"   "]
            expected.append(message)
    return b"\n".join(lines) + b"\n", expected


def _check(answers: list[dict], expected: list) -> None:
    assert len(answers) == len(expected)
    for answer, wanted in zip(answers, expected, strict=True):
        assert answer["version"] == PROTOCOL_VERSION
        if isinstance(wanted, str):
            assert set(answer) == {"version", "id", "error"}
            assert wanted in answer["error"] and "\n" not in answer["error"], answer
            continue
        assert answer["id"] == wanted["id"]
        decision = decide(
            wanted["view"],
            wanted.get("rules", "hollywood"),
            wanted.get("strategy", "simple"),
            wanted.get("seed", 0),
            seat=wanted["seat"],
        )
        assert {k: v for k, v in answer.items() if k not in ("version", "id")} == json.loads(
            json.dumps(decision_document(decision))
        )


def test_serve_answers_hundreds_of_requests_and_survives_bad_lines():
    requests = _requests(300)
    data, expected = _lines(requests)
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "serve", "--strategy", "simple"],
        input=data,
        capture_output=True,
        timeout=600,
    )
    assert result.returncode == 0 and result.stderr == b"", result.stderr[-2000:]
    answers = [json.loads(line) for line in result.stdout.decode().splitlines()]
    _check(answers, expected)
    searched = [a for a in answers if "candidates" in a]
    assert searched and all(len(a["candidates"]) >= 2 for a in searched)
    assert len([a for a in answers if "error" in a]) >= len(BAD_LINES)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.full
def test_a_node_program_drives_the_server(tmp_path):
    requests = _requests(2000)  # the issue checks thousands from another language
    data, expected = _lines(requests)
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    result = subprocess.run(
        ["node", str(CLIENT), str(path), sys.executable],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["code"] == 0
    _check(summary["answers"], expected)


def test_bad_defaults_are_one_line_exit_2_before_any_request():
    from typer.testing import CliRunner

    from gin_sim.interfaces.cli import app

    result = CliRunner().invoke(app, ["serve", "--rules", "nope"], input="")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("error: unknown rule set 'nope'"), result.output


def test_a_search_answer_and_the_doctests():
    from gin_sim.interfaces.serve import Server

    server = Server("hollywood", "simple")
    mc = replace(load_strategy("mc-fixed"), samples=5, screen=0)
    assert server.answer({"view": VIEW}) == {"action": "knock KD", "discard": "KD", "knock": True}
    document = decision_document(decide(VIEW, "hollywood", mc, seed=2))
    assert document["worlds"] == 5 and len(document["candidates"]) >= 2
    chosen = document["candidates"][document["chosen"]]
    assert chosen["action"] == document["action"]
    assert chosen["low"] < chosen["mean"] < chosen["high"]
    assert doctest.testmod(importlib.import_module("gin_sim.interfaces.serve")).failed == 0


def test_a_games_memory_outlives_the_prepared_strategy_cache(monkeypatch):
    """A game's memory holds no prepared strategy: when the server lets the ``Decider`` go
    (more than ``PREPARED`` pairs in use), the memory stays (``"memory": "kept"``) and the
    Decider is freed; past ``GAMES`` games the oldest memory goes, and its next request
    says ``"memory": "new"``."""
    import gc
    import weakref

    from gin_sim.interfaces import serve

    monkeypatch.setattr(serve, "PREPARED", 2)
    monkeypatch.setattr(serve, "GAMES", 2)
    small = replace(load_strategy("mc"), samples=4, screen=0)
    situations = list(decisions_reference(5, 0, "hollywood", ("simple", small)))
    views = [view_from_situation(s) for s, _ in situations if s.player == 1]
    server = serve.Server("hollywood", "simple")
    path = Path(__file__).parents[1] / "configs" / "strategies" / "mc.toml"
    request = {"strategy": str(path), "game": "g", "seed": 1}
    first = server.answer(request | {"view": views[0]})
    decider = weakref.ref(server.decider(str(path), "hollywood"))
    for strategy in ("expert", "gin-hunter", "defensive"):  # the adaptive player's pair goes
        server.answer({"strategy": strategy, "view": VIEW})
    gc.collect()
    assert first["memory"] == "new" and decider() is None
    again = server.answer(request | {"view": views[1], "draws": 1})
    assert again["memory"] == "kept"
    for game in ("h", "i"):  # two more games: "g" is the least recently used and goes
        server.answer(request | {"game": game, "view": views[0]})
    assert server.answer(request | {"view": views[2]})["memory"] == "new"


def test_the_same_request_without_a_game_gets_the_same_answer():
    """docs/serve.md: a request without ``game`` is answered from itself alone, so the
    same request gets the same answer, a search's figures included (another seed, other
    worlds: the comparison can fail)."""
    from gin_sim.interfaces.serve import Server

    server = Server("hollywood", "mc-fast")
    request = {"view": VIEW, "seed": 3}
    first = server.answer(request)
    assert first["candidates"] and server.answer({"view": VIEW, "seed": 4}) != first
    assert server.answer(request) == first
