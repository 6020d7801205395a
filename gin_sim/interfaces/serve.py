"""``gin-sim serve``: decisions as JSON lines, one request per line in, one answer per line out.

The protocol is docs/serve.md. A request is a JSON object: the ``view`` as ``decide`` takes
it, and optionally ``rules``, ``strategy``, the random stream (``seed``, ``deal``, ``seat``,
``draws``), a ``game`` whose opponent memory it uses (and its ``hand_number``) and an ``id``
echoed back; or, for a game, the ``hand_end`` of a hand (``OpponentMemory.hand_ended``).
An answer carries ``version`` and either the decision (with a search's candidates), the
posterior after a hand's end, or ``error``: one line saying what is wrong with the request.
A bad request never stops the server. Each strategy is prepared once per rule set
(``Decider``) and kept while it is in use; a game's memory does not depend on it.

>>> server = Server()
>>> answer = server.answer_line(
...     '{"id": 7, "strategy": "simple", "view": {"decision": "offer", '
...     '"hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS", "pile": "5S", "stock_left": 31, '
...     '"dealer": "opponent"}}'
... )
>>> answer
'{"version": 2, "id": 7, "action": "decline", "take": false}'
>>> print(json.loads(server.answer_line('{"id": 8, "view": {}}'))["error"])
view field 'decision' is missing: "offer", "draw" or "discard"
"""

from __future__ import annotations

import json
import math
import traceback
from collections import OrderedDict
from collections.abc import Iterator
from typing import IO, Any

from gin_sim.game.config import shown
from gin_sim.players.decide import Candidate, Decider, Decision, OpponentMemory

PROTOCOL_VERSION = 2  # 2: hand_end requests, hand_number, the memory answer field
MAX_LINE = 1 << 20  # bytes of one request line: a view is a few hundred
PREPARED = 16  # strategies kept prepared at once (a request may name any TOML file)
GAMES = 4096  # games whose opponent memories are kept at once (least recently used go)
MAX_GAME_NAME = 200
REQUEST_FIELDS = {
    "id": "any JSON value, echoed in the answer",
    "view": "the position as decide() takes it (docs/strategies.md, 'Decisions from outside')",
    "rules": "a rule set's name or TOML path (default: the server's --rules)",
    "strategy": "a strategy's name or TOML path (default: the server's --strategy)",
    "seed": "the random stream's seed (default 0)",
    "deal": "the deal of that seed (default 0)",
    "seat": "the deciding player's seat in that deal, 0 or 1 (default 0)",
    "draws": "numbers already drawn from that stream (default 0)",
    "game": "a name for one player's game (text): a search player with an opponent panel remembers its opponent across the requests that give it (default: none, every view from the prior)",
    "hand_number": "with game: the hand's number in the game, the same for every request of a hand (default: a new hand is guessed from the view)",
    "hand_end": "with game, instead of view: how the hand ended (docs/strategies.md, 'The end of a hand')",
}


def decision_document(decision: Decision) -> dict[str, Any]:
    """A decision as plain data: ``action`` always; ``take`` at an offer or a draw;
    ``discard`` and ``knock`` for a discard; ``big_gin``; ``drawn`` (random numbers
    used, when any); for a search, ``worlds``,
    ``chosen`` and each candidate's ``action``, ``mean``, ``low``, ``high`` and ``gain``
    (an interval that is not known, from fewer than 2 worlds, is null); for a search whose
    screening dropped candidates, ``screen_worlds`` and those in ``screened_out``, alike
    (their figures over the screening worlds), and for one whose first cut dropped some
    (``early_screen``), ``early_screen_worlds`` and ``early_screened_out``."""
    document: dict[str, Any] = {"action": decision.action}
    if decision.take is not None:
        document["take"] = decision.take
    if decision.discard is not None:
        document["discard"] = decision.discard
        document["knock"] = decision.knock
    if decision.big_gin:
        document["big_gin"] = True
    if decision.drawn:
        document["drawn"] = decision.drawn
    if decision.candidates:
        document["worlds"] = decision.worlds
        document["chosen"] = decision.chosen
        document["candidates"] = [_candidate_document(c) for c in decision.candidates]
    if decision.screened_out:
        document["screen_worlds"] = decision.screen_worlds
        document["screened_out"] = [_candidate_document(c) for c in decision.screened_out]
    if decision.early_screened_out:
        document["early_screen_worlds"] = decision.early_screen_worlds
        document["early_screened_out"] = [
            _candidate_document(c) for c in decision.early_screened_out
        ]
    return document


def _candidate_document(c: Candidate) -> dict[str, Any]:
    return {
        "action": c.action,
        "mean": c.mean,
        "low": None if math.isnan(c.low) else c.low,
        "high": None if math.isnan(c.high) else c.high,
        "gain": c.gain,
    }


class RequestError(ValueError):
    """A request the server cannot answer with a decision: its answer is an error line."""


class Server:
    """Answers request lines; ``rules`` and ``strategy`` are the defaults of requests that
    name none. Not for use from several threads at once."""

    def __init__(self, rules: str = "hollywood", strategy: str = "mc") -> None:
        self.rules = rules
        self.strategy = strategy
        self._deciders: OrderedDict[tuple[str, str], Decider] = OrderedDict()
        self._memories: OrderedDict[tuple[str, str, str], OpponentMemory] = OrderedDict()
        self.decider(strategy, rules)  # a bad default is refused before any request

    def decider(self, strategy: str, rules: str) -> Decider:
        """The prepared strategy for ``(strategy, rules)``; the least recently used one
        goes when more than ``PREPARED`` are kept."""
        key = (strategy, rules)
        if key in self._deciders:
            self._deciders.move_to_end(key)
            return self._deciders[key]
        decider = Decider(strategy, rules)
        self._deciders[key] = decider
        if len(self._deciders) > PREPARED:
            self._deciders.popitem(last=False)
        return decider

    def answer(self, request: Any) -> dict[str, Any]:
        """The answer to one parsed request (a ``RequestError`` or ``ValueError`` when bad)."""
        if not isinstance(request, dict):
            raise RequestError(f"a request is a JSON object, got {_json_type(request)}")
        unknown = [key for key in request if key not in REQUEST_FIELDS]
        if unknown:
            raise RequestError(
                f"unknown request field {shown(unknown[0])}: allowed {', '.join(REQUEST_FIELDS)}"
            )
        ends = "hand_end" in request
        if "view" not in request and not ends:
            raise RequestError(f"request field 'view' is missing: {REQUEST_FIELDS['view']}")
        if "view" in request and ends:
            raise RequestError(
                "a request has 'view' (a decision) or 'hand_end' (a hand's end), not both"
            )
        for key in ("hand_number", "hand_end"):
            if key in request and "game" not in request:
                raise RequestError(
                    f"request field {key!r} needs 'game': it is about one player's game"
                )
        if ends:
            for key in ("seed", "deal", "seat", "draws"):
                if key in request:
                    raise RequestError(
                        f"request field {key!r}: a hand's end draws no random numbers (allowed with 'view' only)"
                    )
        names = {}
        for key in ("rules", "strategy"):
            value = request.get(key, getattr(self, key))
            if not isinstance(value, str):
                raise RequestError(
                    f"request field {key!r} = {shown(value)}: allowed {REQUEST_FIELDS[key]}"
                )
            names[key] = value
        decider = self.decider(names["strategy"], names["rules"])
        if "game" not in request:
            decision = decider.decide(
                request["view"],
                request.get("seed", 0),
                deal=request.get("deal", 0),
                seat=request.get("seat", 0),
                draws=request.get("draws", 0),
            )
            return decision_document(decision)
        memory, new = self.memory(request["game"], names["strategy"], names["rules"], decider)
        hand_number = request.get("hand_number")
        try:
            if ends:
                memory.hand_ended(request["hand_end"], hand_number=hand_number)
                return {"posterior": memory.posterior, "memory": new}
            decision = decider.decide(
                request["view"],
                request.get("seed", 0),
                deal=request.get("deal", 0),
                seat=request.get("seat", 0),
                draws=request.get("draws", 0),
                memory=memory,
                hand_number=hand_number,
            )
        except ValueError:
            if new == "new":  # a refused first request leaves no memory behind
                del self._memories[(request["game"], names["strategy"], names["rules"])]
            raise
        return decision_document(decision) | {"memory": new}

    def memory(
        self, game: Any, strategy: str, rules: str, decider: Decider
    ) -> tuple[OpponentMemory, str]:
        """The opponent memory of game ``game`` for this strategy and rule set, and
        ``"kept"``, or ``"new"`` when this request starts it: the game's first, or one
        after the server let its memory go (the least recently used of more than
        ``GAMES``, or one whose strategy file now says something else). A memory holds
        no prepared strategy, so letting a ``Decider`` go loses no memory."""
        if not isinstance(game, str) or not 1 <= len(game) <= MAX_GAME_NAME:
            raise RequestError(
                f"request field 'game' = {shown(game)}: allowed text of 1 to {MAX_GAME_NAME} characters naming one player's game"
            )
        key = (game, strategy, rules)
        memory = self._memories.get(key)
        new = "kept"
        if memory is None or not memory.belongs_to(decider):
            memory, new = decider.memory(), "new"
            self._memories[key] = memory
            if len(self._memories) > GAMES:
                self._memories.popitem(last=False)
        self._memories.move_to_end(key)
        return memory, new

    def answer_line(self, line: str | bytes) -> str:
        """The answer line (without its newline) to one request line."""
        request_id = None
        try:
            if isinstance(line, bytes):
                try:
                    line = line.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise RequestError(f"the line is not UTF-8 ({error.reason})") from None
            try:
                request = json.loads(line, parse_int=_parse_int)
            except json.JSONDecodeError as error:
                raise RequestError(
                    f"the line is not JSON: {error.msg} at character {error.pos + 1}"
                ) from None
            except RecursionError:
                raise RequestError(
                    "the line is not JSON the server can read: nested too deeply"
                ) from None
            if isinstance(request, dict):
                request_id = request.get("id")
                if isinstance(request_id, _LongNumber):
                    request_id = None
            _refuse_long_numbers(request)
            document = {"version": PROTOCOL_VERSION, "id": request_id} | self.answer(request)
        except (ValueError, OSError) as error:
            if isinstance(error, OSError):  # a rule set or strategy file that cannot be read
                message = f"cannot use {shown(error.filename)}: {error.strerror or error}"
            else:
                message = str(error)
            document = error_document(request_id, message)
        except Exception as error:  # a bug: said on the line and kept going, traceback on stderr
            traceback.print_exc()
            document = error_document(
                request_id, f"internal error ({type(error).__name__}): please report it"
            )
        return _dumps(document)


# Python reads a JSON number of at most this many digits (sys.get_int_max_str_digits()'s
# default): a longer one is kept as its length, and the request is refused naming its field.
MAX_DIGITS = 4300


class _LongNumber(int):
    """A JSON whole number too long to read (its digits' count stands in for it)."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    return _LongNumber(digits) if digits > MAX_DIGITS else int(text)


def _refuse_long_numbers(request: Any) -> None:
    """A ``RequestError`` naming the first field holding a number too long to read."""
    stack: list[tuple[str, Any]] = [("", request)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _LongNumber):
            where = f"field {path!r}" if path else "the request"
            raise RequestError(
                f"{where}: a whole number of {int(value):,} digits: allowed at most {MAX_DIGITS:,} digits (no field takes one so long)"
            )
        if isinstance(value, dict):
            stack.extend(
                (f"{path}.{key}" if path else str(key), item)
                for key, item in reversed(value.items())
            )
        elif isinstance(value, list):
            stack.extend((path, item) for item in reversed(value))


def error_document(request_id: Any, message: str) -> dict[str, Any]:
    return {"version": PROTOCOL_VERSION, "id": request_id, "error": " ".join(message.split())}


def _dumps(document: dict[str, Any]) -> str:
    """The one place an answer becomes a line. Always ASCII (any other character as a JSON
    escape), so that the line can be written whatever the output's encoding, and a lone
    surrogate in an id is echoed as the escape it came as. An id that cannot be echoed
    (NaN or Infinity, which Python's JSON reads; nested too deeply to write back) gets an
    error answer without it: no answer can stop the server."""
    try:
        return json.dumps(document, allow_nan=False)
    except ValueError:
        reason = "the request's id is not valid JSON (NaN or Infinity)"
    except RecursionError:
        reason = "the request's id is nested too deeply to be echoed"
    return json.dumps(error_document(None, f"{reason}: it is not echoed"))


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def request_lines(stream: IO[bytes]) -> Iterator[bytes | None]:
    """The lines of ``stream`` (without their newline), blank ones skipped; a line longer
    than ``MAX_LINE`` bytes is read to its end and given as None."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # skip the rest of that line
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        if line.strip():
            yield line.rstrip(b"\r\n")


def serve_lines(server: Server, requests: IO[bytes], answers: IO[str]) -> int:
    """Answer every request line of ``requests`` on ``answers`` (flushed after each, so
    that a host waiting for its answer gets it), until the end of ``requests``; the number
    of lines answered."""
    count = 0
    for line in request_lines(requests):
        if line is None:
            answer = _dumps(
                error_document(None, f"the line is longer than {MAX_LINE:,} bytes: not read")
            )
        else:
            try:
                answer = server.answer_line(line)
            except Exception as error:  # a bug outside answer_line's own guard: kept going
                traceback.print_exc()
                internal = f"internal error ({type(error).__name__}): please report it"
                answer = _dumps(error_document(None, internal))
        answers.write(answer + "\n")
        answers.flush()
        count += 1
    return count
