"""Issue 47, hostile round 4: one test (or more) per class. Each bad input gets one line
naming the problem and what is allowed: exit 2 from the command, a one-line ValueError or
TypeError from the Python API, an error answer from ``serve`` (which keeps answering).

1. GIN_SIM_CONFIGS at a folder without the shipped strategies; 2. a kernel cache folder
that cannot be written; 3. numpy values from Python; 4. a hand end that contradicts its own
hand's decisions; 5. numbers too long to read in a ``serve`` request; 6. Unicode tricks in
card text; 7. empty or repeated items in comma-separated options; 8. NaN and infinite
``[[adapt]]`` bounds; 9. ``distill --out`` a folder or a device; 10. an unusable
MPLCONFIGDIR.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gin_sim.game import environment
from gin_sim.game.cards import parse_card, parse_card_list
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.serve import Server
from gin_sim.players.decide import Decider, parse_hand_end, parse_view
from gin_sim.players.strategies import load_strategy

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "taken": "KD",
    "taken_from_pile": False,
    "pile": "7C",
    "stock_left": 30,
    "opp_turns": 0,
    "own_turns": 1,
    "dealer": "opponent",
}
# The opponent took the upcard (KD) and knocked at once (OpponentMemory.hand_ended's example).
END = {
    "knocker": "opponent",
    "hand": "2C 3C 9C TC JC 2D 3D 9D TD JD",
    "opp_hand": "AS 2S 3S 4H 5H 6H 7C 7D 7S KD",
    "pile": "QH",
    "stock_left": 31,
    "dealer": "me",
    "taken_from_pile": True,
    "taken": "KD",
    "opp_turns": 1,
    "pile_takes": 1,
    "opp_taken": "KD",
    "opp_passed": "QH",
}
# A hand that shares no card with END's hand (nor its opponent's, nor the pile).
NO_COMMON = "4C 5C 6C 8C QC KC 4D 5D 6D 8D"
# The offer before that end, from the same player's side (the dealer: the upcard QH was
# declined by the opponent, R8).
OFFER = {
    "decision": "offer",
    "hand": END["hand"],
    "pile": "QH",
    "stock_left": 31,
    "dealer": "me",
    "opp_passed": "QH",
}


def one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    return stderr


def clear(call, *fragments: str) -> str:
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    message = str(caught.value)
    assert message and "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def command(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``gin-sim ARGS`` in a fresh process (the environment is read at import)."""
    return subprocess.run(
        [sys.executable, "-m", "gin_sim", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(process: subprocess.CompletedProcess, *fragments: str) -> None:
    assert process.returncode == 2, (process.returncode, process.stderr)
    assert process.stderr.startswith("error: ") and process.stderr.count("\n") == 1, process.stderr
    for fragment in fragments:
        assert fragment in process.stderr, (fragment, process.stderr)


@pytest.fixture(scope="module")
def simple() -> Decider:
    return Decider("simple", "hollywood")


# -- 1. GIN_SIM_CONFIGS without the shipped strategies ------------------------------------------
def test_import_reads_no_strategy(tmp_path):
    """``import gin_sim`` validated a default evaluation, reading its strategies."""
    process = subprocess.run(
        [sys.executable, "-c", "import gin_sim; print('imported')"],
        env={**os.environ, "GIN_SIM_CONFIGS": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0 and process.stdout == "imported\n", process.stderr
    assert process.stderr == ""


@pytest.mark.parametrize("args", [["list", "strategies"], ["simulate", "--deals", "2"]])
def test_a_configs_folder_without_strategies_is_one_line(tmp_path, args):
    refused(command({"GIN_SIM_CONFIGS": str(tmp_path)}, *args), "GIN_SIM_CONFIGS", "strategies/")


def test_a_configs_folder_with_no_strategy_in_it_says_so(tmp_path):
    (tmp_path / "strategies").mkdir()
    (tmp_path / "rules").mkdir()
    for rules in (REPO / "configs" / "rules").glob("*.toml"):
        (tmp_path / "rules" / rules.name).write_bytes(rules.read_bytes())
    refused(
        command({"GIN_SIM_CONFIGS": str(tmp_path)}, "simulate", "--deals", "2"),
        "unknown strategy",
        "none",
        "GIN_SIM_CONFIGS",
    )


# -- 2. a kernel cache folder that cannot be written ------------------------------------------
def test_an_unwritable_kernel_cache_moves_to_a_writable_folder(monkeypatch):
    """A read-only install and no home (a container user): numba found no cache folder
    ("no locator available"). /proc refuses every write, root's too."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", "/proc/no-home")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(
        environment, "kernel_cache_folder", lambda: Path("/proc/no-install/numba-0123")
    )
    monkeypatch.setattr(
        sys.modules["numba"].config, "CACHE_DIR", sys.modules["numba"].config.CACHE_DIR
    )
    environment._use_kernel_cache()
    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.name == "numba-0123"
    assert folder.is_relative_to(tempfile.gettempdir()) and environment.writable_folder(folder)


def test_writable_folder_tries_a_write(tmp_path):
    assert environment.writable_folder(tmp_path / "new" / "folder")
    (tmp_path / "file").write_text("x")
    assert not environment.writable_folder(tmp_path / "file")
    assert not environment.writable_folder(Path("/proc/no-such-folder"))


# -- 3. numpy values from Python -------------------------------------------------------------
@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8, np.uint64, np.int8])
def test_numpy_integers_are_the_numbers_they_hold(simple, kind):
    plain = simple.decide(VIEW, 5, deal=3, seat=1, draws=2)
    given = simple.decide(
        VIEW | {"stock_left": kind(30), "own_turns": kind(1), "opp_turns": kind(0)},
        kind(5),
        deal=kind(3),
        seat=kind(1),
        draws=kind(2),
    )
    assert given == plain


def test_numpy_bools_are_truths_not_numbers(simple):
    assert simple.decide(VIEW | {"taken_from_pile": np.False_}) == simple.decide(VIEW)
    for call, name in (
        (lambda: simple.decide(VIEW, np.True_), "seed"),
        (lambda: simple.decide(VIEW, True), "seed"),
        (lambda: simple.decide(VIEW, seat=np.True_), "seat"),
        (lambda: simple.decide(VIEW, draws=True), "draws"),
        (lambda: simple.decide(VIEW, deal=np.False_), "deal"),
        (lambda: simple.decide(VIEW | {"stock_left": np.True_}), "stock_left"),
        (lambda: simple.decide(VIEW | {"taken_from_pile": np.int64(0)}), "taken_from_pile"),
    ):
        message = clear(call, name)
        assert "= True" in message or "= False" in message or "= 0" in message, message


def test_numpy_messages_do_not_contradict_themselves(simple):
    """ "seed = 5: expected a whole number" said of np.int64(5); now the bound alone."""
    message = clear(lambda: simple.decide(VIEW, np.int64(-5)), "seed")
    assert "-5" in message and "0 to 2**64 - 1" in message
    clear(lambda: simple.decide(VIEW | {"stock_left": np.int64(32)}), "stock_left", "0 to 31")


def test_a_numpy_array_as_a_hand_is_one_line(simple):
    hand = np.array(VIEW["hand"].split())
    clear(lambda: simple.decide(VIEW | {"hand": hand}), "'hand'", "card strings")
    clear(lambda: simple.decide(VIEW | {"hand": np.zeros((3, 4))}), "'hand'")


def test_a_hand_end_reads_numpy_values_too():
    rules = load_rules("standard")
    plain = parse_hand_end(END, rules)
    given = END | {"stock_left": np.int16(31), "taken_from_pile": np.True_}
    assert parse_hand_end(given, rules) == plain
    clear(lambda: parse_hand_end(END | {"big_gin": np.int64(1)}, rules), "big_gin")


# -- 4. a hand end that contradicts its own hand's decisions -----------------------------------
@pytest.fixture(scope="module")
def adaptive() -> Decider:
    return Decider(load_strategy("mc", ["samples=8"]), "standard")


def test_a_consistent_hand_end_is_read(adaptive):
    memory = adaptive.memory()
    adaptive.decide(OFFER, memory=memory, hand_number=4)
    before = memory.posterior
    memory.hand_ended(END, hand_number=4)
    assert memory.posterior != before  # the control: this end is evidence


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"stock_left": 30}, "stock_left 31 is above the 30"),
        # no card in common with the offer's hand, and no turn of the player's since
        ({"hand": NO_COMMON}, "keeps 0 of the 10 cards of its last decision, and 0 turns"),
        # one card in common: still 8 more changes than its turns allow
        ({"hand": NO_COMMON.replace("4C", "2C")}, "keeps 1 of the 10 cards"),
    ],
)
def test_a_hand_end_that_cannot_follow_its_hands_decisions_is_refused(adaptive, change, fragment):
    memory = adaptive.memory()
    if "stock_left" in change:  # a decision later in the hand than the end
        view = VIEW | {"pile": "7C", "stock_left": 30}
        adaptive.decide(view, memory=memory, hand_number=4)
    else:
        adaptive.decide(OFFER | change, memory=memory, hand_number=4)
    before = memory.posterior
    clear(lambda: memory.hand_ended(END, hand_number=4), "hand_number 4", fragment)
    assert memory.posterior == before  # nothing read
    memory.hand_ended(END, hand_number=5)  # another number: another hand, read


def test_a_hand_end_may_differ_by_the_cards_its_turns_allow(adaptive):
    """The control of the cards' bound: the last decision's own turn may change one card
    (its discard, or its take and discard), so an end that keeps 9 of its 10 is read."""
    memory = adaptive.memory()
    adaptive.decide(OFFER | {"hand": END["hand"].replace("2C", "4C")}, memory=memory, hand_number=4)
    before = memory.posterior
    memory.hand_ended(END, hand_number=4)
    assert memory.posterior != before


def test_serve_refuses_a_hand_end_with_no_card_in_common_and_keeps_answering():
    server = Server(strategy="mc", rules="standard")
    game = {"game": "g", "hand_number": 1}
    offer = OFFER | {"hand": NO_COMMON}
    first = json.loads(server.answer_line(json.dumps(game | {"id": 1, "view": offer})))
    assert "error" not in first, first
    answer = json.loads(server.answer_line(json.dumps(game | {"id": 2, "hand_end": END})))
    assert answer["id"] == 2 and "keeps 0 of the 10 cards" in answer["error"], answer
    assert "\n" not in answer["error"]
    after = json.loads(server.answer_line(json.dumps(game | {"id": 3, "view": offer})))
    assert "error" not in after, after


def test_serve_refuses_a_contradicting_hand_end_and_keeps_answering():
    server = Server(strategy="mc", rules="standard")
    game = {"game": "g", "hand_number": 1}
    first = json.loads(server.answer_line(json.dumps(game | {"id": 1, "view": VIEW})))
    assert "error" not in first, first
    answer = json.loads(server.answer_line(json.dumps(game | {"id": 2, "hand_end": END})))
    assert answer["id"] == 2 and "stock_left 31 is above" in answer["error"], answer
    after = json.loads(server.answer_line(json.dumps(game | {"id": 3, "view": VIEW})))
    assert "error" not in after, after


# -- 5. numbers too long to read in serve -------------------------------------------------------
@pytest.mark.parametrize(
    "request_text, echoed, field",
    [
        ('{"id": %s, "view": {}}', None, "'id'"),
        ('{"id": 3, "game": "g", "hand_number": %s, "view": {}}', 3, "'hand_number'"),
        ('{"id": 3, "view": {"stock_left": -%s}}', 3, "'view.stock_left'"),
        ('{"id": 3, "seed": %s, "view": {}}', 3, "'seed'"),
        ('{"id": 3, "view": {"pile": [1, 2, %s]}}', 3, "'view.pile'"),
    ],
)
def test_serve_names_the_field_of_a_number_too_long_to_read(request_text, echoed, field):
    server = Server()
    answer = json.loads(server.answer_line(request_text % ("9" * 5000)))
    assert answer["id"] == echoed and field in answer["error"], answer
    assert "5,000 digits" in answer["error"] and "4,300" in answer["error"]
    assert "error" in json.loads(server.answer_line('{"id": 4, "view": {}}'))  # still up


def test_serve_reads_a_long_number_it_can_read_and_refuses_it_by_its_bound():
    server = Server()
    answer = json.loads(server.answer_line('{"id": 5, "seed": %s, "view": {}}' % ("9" * 4000)))
    assert answer["id"] == 5 and "error" in answer


# -- 6. Unicode tricks in card text ---------------------------------------------------------------
@pytest.mark.parametrize(
    "card",
    [
        "kſ",  # long s: folds to S
        "Kſ",
        "ıH",  # dotless i
        "ＫＳ",  # full-width letters
        "１０D",  # full-width digits
        "K\u0301S",  # a combining accent
        "ﬀ",  # a ligature
        "Kß",
        "Ｋs",
    ],
)
def test_card_text_is_ascii(simple, card):
    clear(lambda: parse_card(card), "ASCII")
    clear(lambda: parse_card_list(f"AS {card}"), "ASCII")
    hand = VIEW["hand"].replace("KD", card)
    clear(lambda: simple.decide(VIEW | {"hand": hand, "taken": card}), "'hand'", "ASCII")
    result = runner.invoke(app, ["deadwood", f"AS 2S {card}"])
    one_line(result, "ASCII")


@pytest.mark.parametrize("space", ["\u00a0", "\u3000", "\u2003", "\uff0c"])
def test_card_separators_are_ascii(space):
    clear(lambda: parse_card_list(f"AS{space}2S"), "ASCII", "separated by spaces or commas")


def test_a_hand_end_refuses_a_folded_card():
    rules = load_rules("standard")
    clear(lambda: parse_hand_end(END | {"taken": "kſ"}, rules), "hand end", "ASCII")
    clear(lambda: parse_view(VIEW | {"pile": "7ᴄ"}, rules), "'pile'", "ASCII")


def test_advise_refuses_a_folded_card():
    result = runner.invoke(
        app, ["advise", "--hand", "AS 2S 3S 4H 4D 4C 9H TH JH kſ", "--decision", "offer"]
    )
    one_line(result, "ASCII")


# -- 7. empty or repeated items in comma-separated options --------------------------------------
@pytest.mark.parametrize(
    "args, fragments",
    [
        (["positions", "--keep", "offer=1,offer=0.5"], ["--keep", "'offer' given twice"]),
        (["positions", "--keep", "offer=1,,draw=1"], ["--keep", "empty item"]),
        (["positions", "--keep", ",offer=1"], ["--keep", "empty item"]),
        (["report", "advice", "--compare", ",,"], ["--compare", "empty item"]),
        (["report", "advice", "--compare", "oklahoma,oklahoma"], ["--compare", "given twice"]),
        (["report", "advice", "--compare", "oklahoma,"], ["--compare", "empty item"]),
        (["report", "variants", "--rules", "hollywood,,oklahoma"], ["--rules", "empty item"]),
        (["report", "variants", "--rules", "hollywood,hollywood"], ["--rules", "given twice"]),
        (["report", "tournament", "--players", "simple,,expert"], ["--players", "empty item"]),
        (["report", "equity", "--players", "simple,expert,"], ["--players", "empty item"]),
        (["report", "schedule", "--thresholds", "1,,2"], ["thresholds", "empty item"]),
        (["report", "schedule", "--thresholds", "0,2,2"], ["--thresholds", "given twice"]),
        (["report", "schedule", "--thresholds", "0,2,02"], ["--thresholds", "2 given twice"]),
        (["report", "schedule", "--thresholds", ","], ["--thresholds", "empty item"]),
        (["report", "schedule", "--phases", "20,20"], ["--phases", "given twice"]),
        (["report", "schedule", "--phases", "20,,10"], ["--phases", "empty item"]),
        (["report", "schedule", "--phases", "20,x"], ["--phases", "whole numbers"]),
        (
            ["simulate", "--deals", "2", "--param1", "opponent_panel=simple,,expert"],
            ["opponent_panel", "empty item"],
        ),
        (
            ["simulate", "--deals", "2", "--param1", "knock_schedule=20:10,,0:2"],
            ["knock_schedule", "empty item"],
        ),
    ],
)
def test_empty_and_repeated_items_are_refused(tmp_path, args, fragments):
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    one_line(result, *fragments)
    assert not (tmp_path / "out").exists()


def test_tune_refuses_an_empty_opponent(tmp_path):
    result = runner.invoke(
        app,
        [
            "tune",
            "--space",
            "knock_threshold=0:10",
            "--opponents",
            "simple,,expert",
            "--out",
            str(tmp_path / "out"),
        ],
    )
    one_line(result, "--opponents", "empty item")


# -- 8. NaN and infinite [[adapt]] bounds ------------------------------------------------------
@pytest.mark.parametrize(
    "bounds, fragment",
    [
        ("[nan, 10]", "NaN"),
        ("[0, nan]", "NaN"),
        ("[nan, nan]", "NaN"),
        ("[inf, inf]", "never holds"),
        ("[-inf, -inf]", "never holds"),
        ("[inf, 10]", "never holds"),
        ("[10, 2]", "never holds"),
    ],
)
def test_an_adapt_bound_that_never_holds_is_refused(tmp_path, bounds, fragment):
    path = tmp_path / "adapting.toml"
    path.write_text(
        f'name = "adapting"\nkind = "family"\n[[adapt]]\nwhen = {{ knock_limit = {bounds} }}\nknock_threshold = 3\n'
    )
    clear(lambda: load_strategy(path), "adapt when knock_limit", fragment)
    result = runner.invoke(app, ["simulate", "--deals", "2", "--players", f"{path},simple"])
    one_line(result, "adapt when knock_limit")


def test_an_open_adapt_bound_is_allowed(tmp_path):
    path = tmp_path / "adapting.toml"
    path.write_text(
        'name = "adapting"\nkind = "family"\n[[adapt]]\nwhen = { knock_limit = [-inf, inf] }\nknock_threshold = 3\n'
    )
    assert load_strategy(path).for_rules(load_rules("hollywood")).knock_threshold == 3


# -- 9. distill --out a folder or a device -----------------------------------------------------
@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]])
@pytest.mark.parametrize("target", ["folder", "/dev/null", "link"])
def test_distill_out_that_is_no_regular_file(tmp_path, target, overwrite):
    if target == "folder":
        out = tmp_path / "a-folder"
        out.mkdir()
    elif target == "link":
        out = tmp_path / "link.toml"
        out.symlink_to(tmp_path / "nowhere.toml")
    else:
        out = Path(target)
    result = runner.invoke(
        app, ["distill", str(tmp_path / "report"), "--out", str(out), *overwrite]
    )
    message = one_line(result, "not a regular file")
    assert "give --overwrite" not in message


# -- 10. an unusable MPLCONFIGDIR --------------------------------------------------------------
def test_an_unusable_mplconfigdir_is_one_line(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    for folder in (afile, Path("/proc/no-such-folder")):
        refused(command({"MPLCONFIGDIR": str(folder)}, "list", "strategies"), "MPLCONFIGDIR")


def test_figures_with_an_unwritable_home_warn_nothing(tmp_path):
    """No MPLCONFIGDIR and a home that cannot be written: matplotlib warned on stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME")}
    code = (
        "import gin_sim, os\n"
        "from gin_sim.reports.figures import _pyplot\n"
        "_pyplot().figure()\n"
        "print(os.environ['MPLCONFIGDIR'])\n"
    )
    process = subprocess.run(
        [sys.executable, "-c", code],
        env=env | {"HOME": "/proc/no-home"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0 and process.stderr == "", process.stderr
    assert Path(process.stdout.strip()).is_relative_to(tempfile.gettempdir())
