"""Issue 29, class 1: no answer can stop the decision server. Answers are encoded in one
place (``serve._dumps``), as ASCII JSON, so that ids with lone surrogates, non-ASCII text
under an ASCII output encoding, ids nested deeply, and error messages quoting any of these
are all answered, one line each, and the server goes on to the next request."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from gin_sim.interfaces.serve import Server, _dumps, serve_lines

GOOD_VIEW = {
    "decision": "draw",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS",
    "pile": "7C 4S",
    "stock_left": 30,
    "opp_turns": 1,
    "dealer": "me",
}
GOOD = json.dumps({"id": "good", "strategy": "simple", "view": GOOD_VIEW})


def _nested(depth: int, opener: str = "[", closer: str = "]", inner: str = "1") -> str:
    return opener * depth + inner + closer * depth


def _objects(depth: int) -> str:
    return '{"a": ' * depth + '"\\ud800"' + "}" * depth


# Lines written as a hostile host would (raw JSON text), each followed by a good request.
HOSTILE = [
    '{"id": "\\ud800", "view": {}}',  # a lone high surrogate
    '{"id": "\\udfff\\ud800x", "view": {}}',  # lone surrogates in the wrong order
    '{"id": ["\\ud83d", {"k\\udc00": "\\udc00"}], "view": {}}',  # in an array, a key
    '{"id": "\u00e9t\u00e9 \u65e5\u672c \U0001f0a1", "view": {}}',  # non-ASCII text
    '{"id": "\\u0000\\u001b[31m", "view": {}}',  # control characters
    '{"id": NaN, "view": {}}',
    '{"id": -Infinity, "view": {}}',
    '{"id": 1e400, "view": {}}',  # read as infinity
    f'{{"id": {_nested(50)}, "view": {{}}}}',
    f'{{"id": {_nested(400)}, "view": {{}}}}',
    f'{{"id": {_nested(900)}, "view": {{}}}}',
    f'{{"id": {_nested(990)}, "view": {{}}}}',
    f'{{"id": {_nested(5000)}, "view": {{}}}}',
    f'{{"id": {_objects(300)}, "view": {{}}}}',
    f'{{"id": 1, "seat": {_nested(700)}, "view": {json.dumps(GOOD_VIEW)}}}',  # quoted in the error
    f'{{"id": 2, "game": {_objects(700)}, "strategy": "mc", "view": {{}}}}',
    '{"id": 3, "strategy": "\\ud800", "view": {}}',  # an error message holding a surrogate
    '{"id": 4, "rules": "r\u00e9gles-\\udfff", "view": {}}',
    '{"id": 5, "view": {"decision": "offer", "hand": "\\ud800 \u00e9", "pile": "5h"}}',
    '{"id": 6, "view": {"decision": "offer", "hand": ' + _nested(600) + "}}",
    '{"\\ud800": 1, "view": {}}',  # an unknown field named by a surrogate
    '{"id": "' + "\u00e9" * 5000 + '", "view": {}}',  # long non-ASCII
    "\u00e9\u00e9\u00e9",  # not JSON, non-ASCII
]


def _serve(lines: list[str], encoding: str = "ascii") -> list[str]:
    requests = io.BytesIO("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
    raw = io.BytesIO()
    answers = io.TextIOWrapper(raw, encoding=encoding, errors="strict", write_through=True)
    count = serve_lines(Server("hollywood", "simple"), requests, answers)
    assert count == len(lines)
    return raw.getvalue().decode(encoding).splitlines()


def _check(lines: list[str], answers: list[str]) -> None:
    assert len(answers) == len(lines)
    for line, answer in zip(lines, answers, strict=True):
        assert answer.isascii(), answer[:200]
        document = json.loads(answer)
        assert document["version"] == 2
        if line == GOOD:
            assert document == {"version": 2, "id": "good", "action": "take", "take": True}
        else:
            assert "error" in document and "\n" not in document["error"], document


@pytest.mark.parametrize("encoding", ["ascii", "utf-8", "latin-1"])
def test_every_hostile_line_is_answered_and_the_server_goes_on(encoding):
    lines = [x for line in HOSTILE for x in (line, GOOD)]
    answers = _serve(lines, encoding)
    _check(lines, answers)
    by_line = dict(zip(lines, answers, strict=True))
    # ids that can be written back are echoed as they came, surrogates and all
    assert json.loads(by_line[HOSTILE[0]])["id"] == "\ud800"
    assert json.loads(by_line[HOSTILE[3]])["id"] == "\u00e9t\u00e9 \u65e5\u672c \U0001f0a1"
    assert json.loads(by_line[HOSTILE[8]])["id"] == json.loads(_nested(50))
    assert json.loads(by_line[HOSTILE[5]])["id"] is None  # NaN: not echoed
    assert "NaN or Infinity" in json.loads(by_line[HOSTILE[5]])["error"]
    assert "unknown strategy '\\ud800'" in json.loads(by_line[HOSTILE[16]])["error"]


def test_an_id_too_deep_to_write_back_is_answered_without_it():
    """Ids at every depth around the reader's limit are answered, one line each; an answer
    whose id cannot be written back (deeper than the writer's recursion allows: built
    here without a reader) is an error answer without it, from the one encoding place."""
    lines = [f'{{"id": {_nested(depth)}, "view": {{}}}}' for depth in range(960, 1001, 4)]
    _check([*lines, GOOD], _serve([*lines, GOOD]))
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    answer = json.loads(_dumps({"version": 2, "id": deep, "action": "take"}))
    assert answer["id"] is None and "nested too deeply to be echoed" in answer["error"]


def test_the_server_process_answers_every_line_under_an_ascii_terminal(tmp_path):
    lines = [x for line in HOSTILE for x in (line, GOOD)]
    data = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
    environment = os.environ | {"PYTHONIOENCODING": "ascii", "LC_ALL": "C", "LANG": "C"}
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "serve", "--strategy", "simple"],
        input=data,
        capture_output=True,
        env=environment,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr == b"", result.stderr[-2000:]
    _check(lines, result.stdout.decode("ascii").splitlines())
