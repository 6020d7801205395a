"""``gin-sim play``: a game through a pipe to its end, saved, replayed from its record.

- A dull player (pass, draw, then the lowest card the rules let it discard: it tries every
  card in order, each refusal explained) plays whole games through a pipe; the record
  replays through the engine to the same results, its deals are the seed's, the
  opponent's moves are its strategy's decisions; the same seed and input give the same game.
- The end of the input stops a game cleanly; a file gin-sim did not write is never
  overwritten; moves are read forgivingly and refusals name their rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gin_sim.experiments.simulate import simulate_matches
from gin_sim.game.cards import format_cards, parse_card
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.match_start import parse_start
from gin_sim.game.records import record_to_dict
from gin_sim.game.rng import bounded, deck_for_deal, splitmix64
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.play import Game, GameSettings, MoveError, move_problem, parse_move
from gin_sim.players.decide import Decider
from gin_sim.players.strategies import load_strategy
from gin_sim.reference.engine import BIG_GIN, DISCARD, DRAW, OFFER, OVER, Discard, start_hand
from gin_sim.reference.match import match_key
from gin_sim.reference.views import hand_end_from_hand, view_from_situation

runner = CliRunner()
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
DULL = ("p\nd\n" + "\n".join(CARDS) + "\n") * 400


def _play(*args: str, stdin: str = DULL) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gin_sim", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _results(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("Result:", "The hand is a draw"))]


def _check_record(path: Path, seed: int, opponent: str, rules_name: str) -> dict:
    """The record's deals are the seed's, the opponent's moves its strategy's decisions
    with the score before each hand in its view; ``document["score_mattered"]`` counts the
    moves a view without the score would have decided otherwise."""
    document = json.loads(path.read_text())
    rules = load_rules(rules_name)
    key = match_key(seed, 0)
    decider = Decider(load_strategy(opponent), rules)
    memory = decider.memory()  # as play keeps it: an adaptive opponent learns all game
    assert document["hands"][0]["dealer"] == bounded(splitmix64(key), 2)  # R5
    games = 3 if document["format"] == "hollywood" else 1
    score = None if document["format"] == "hand" else HollywoodScore(rules.game_target, games)
    document["score_mattered"] = document["memory_mattered"] = 0
    for number, hand_record in enumerate(document["hands"]):
        assert hand_record["deck"] == format_cards(deck_for_deal(key, number))
        dealer = hand_record["dealer"]
        hand = start_hand(deck_for_deal(key, number), rules, dealer, deal=number, score=score)
        asked = 0
        for move in hand_record["moves"]:
            if hand.to_move == 1:
                view = view_from_situation(hand.situation(hand.view()))
                decision = decider.decide(
                    view, key, deal=number, seat=1, draws=asked, memory=memory, hand_number=number
                )
                assert decision.action == move
                forgetful = decider.decide(view, key, deal=number, seat=1, draws=asked)
                document["memory_mattered"] += forgetful != decision
                if "score" in view:
                    plain = {k: v for k, v in view.items() if k != "score"}
                    plain_decision = decider.decide(plain, key, deal=number, seat=1, draws=asked)
                    document["score_mattered"] += plain_decision.action != move
                asked += decision.drawn
            hand.apply(parse_move(move, hand.phase))
        assert hand.phase == OVER and hand.result() == hand_record["record"]
        memory.hand_ended(hand_end_from_hand(hand, 1), hand_number=number)  # as play reports it
        if score is not None and hand.result()["winner"] >= 0:
            score.credit(int(hand.result()["winner"]), int(hand.result()["points"]))
    return document


def test_a_game_through_a_pipe_to_its_end_is_saved_and_replayed(tmp_path):
    path = tmp_path / "game.json"
    result = _play("--opponent", "simple", "--format", "game", "--seed", "5", "--save", str(path))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("You (player 1) v simple (player 2): a game to 100")
    assert "wins the game." in lines[-2] and lines[-1].startswith(f"Saved to {path}")
    assert any("not allowed: you do not hold" in line for line in lines)  # refusals explained
    document = _check_record(path, 5, "simple", "hollywood")
    assert document["finished"] and len(document["hands"]) >= 2
    assert max(document["points"][0][0], document["points"][1][0]) >= 100
    replayed = runner.invoke(app, ["replay", "--record", str(path)])
    assert replayed.exit_code == 0, replayed.output
    assert _results(replayed.output.splitlines()) == _results(lines)
    assert len(_results(lines)) == len(document["hands"])


@pytest.mark.full
def test_the_opponent_reads_the_score_of_the_game(tmp_path):
    """An opponent that waits for gin but, once it has any points, knocks whenever allowed
    (``closing_distance`` 90 of the target 100) plays a game: its moves are its decisions
    with the score in its view, and some of them are not the plain hand's."""
    closer = tmp_path / "closer.toml"
    closer.write_text('name = "closer"\nknock_threshold = 0\nclosing_distance = 90\n')
    path = tmp_path / "game.json"
    result = _play(
        "--opponent", str(closer), "--format", "game", "--seed", "4", "--save", str(path)
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    document = _check_record(path, 4, str(closer), "hollywood")
    assert document["finished"] and document["score_mattered"] > 0


@pytest.mark.full
def test_an_adaptive_opponent_learns_across_the_game(tmp_path):
    """mc, the adaptive searcher (few worlds), as the opponent of a game: its moves are the
    decisions of one ``OpponentMemory`` kept all game, and some of them are not a forgetful
    player's."""
    text = (Path(__file__).parents[1] / "configs/strategies/mc.toml").read_text()
    text = text.replace('name = "mc"', 'name = "adaptive6"').replace("samples = 96", "samples = 6")
    adaptive = tmp_path / "adaptive6.toml"
    adaptive.write_text(text.replace("screen = 16", "screen = 0"))
    path = tmp_path / "game.json"
    args = ["--opponent", str(adaptive), "--format", "game", "--rules", "standard"]
    result = _play(*args, "--seed", "6", "--save", str(path))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    document = _check_record(path, 6, str(adaptive), "standard")
    assert document["finished"] and document["memory_mattered"] > 0


@pytest.mark.full
def test_a_hollywood_match_with_hints_shows_three_columns_and_is_reproducible(tmp_path):
    args = ["--opponent", "mc-fast", "--hints", "mc-fast", "--format", "hollywood", "--seed", "8"]
    first = _play(*args, "--save", str(tmp_path / "match.json"))
    assert first.returncode == 0, first.stderr
    assert "game 1  game 2  game 3" in first.stdout and "wins the match." in first.stdout
    assert "hint: mc-fast would" in first.stdout and "95% interval" in first.stdout
    document = _check_record(tmp_path / "match.json", 8, "mc-fast", "hollywood")
    assert document["finished"] and len(document["game_winners"]) == 3
    again = _play(*args)
    assert again.stdout.splitlines() == first.stdout.splitlines()[:-1]  # but "Saved to"


@pytest.mark.full
def test_the_end_of_the_input_stops_the_game_cleanly_and_keeps_the_finished_hands(tmp_path):
    path = tmp_path / "game.json"
    cut = DULL[: len(DULL) // 150]  # some hands in
    result = _play("--opponent", "simple", "--seed", "5", "--save", str(path), stdin=cut)
    assert result.returncode == 0 and result.stderr == ""
    last = result.stdout.splitlines()[-1]
    assert last.startswith("The game stops here, at the end of the input, after ")
    document = json.loads(path.read_text())
    assert not document["finished"] and len(document["hands"]) == int(
        last.split("after ")[1].split()[0]
    )
    replayed = runner.invoke(app, ["replay", "--record", str(path)])
    assert replayed.exit_code == 0, replayed.output
    # The hand left in the middle is kept, its moves so far, and replayed up to the stop.
    unfinished = document["unfinished"]
    assert unfinished["deal"] == len(document["hands"]) and unfinished["moves"]
    stop = replayed.output.strip().splitlines()[-1]
    assert stop == (
        f"(the game stopped here, in hand {len(document['hands']) + 1}, "
        f"after {len(unfinished['moves'])} moves)"
    )
    played = [line for line in result.stdout.splitlines() if line.startswith("You discard")]
    last_hand = replayed.output.split(f"Hand {len(document['hands']) + 1}:")[1]
    card = played[-1].split()[2].rstrip(".")
    assert f"discards {card}" in last_hand  # your last move is in the replay
    unfinished["moves"] += ["d"] * 200  # moves that end the hand: not unfinished any more
    path.write_text(json.dumps(document))
    broken = runner.invoke(app, ["replay", "--record", str(path)])
    assert broken.exit_code == 2 and "hand" in broken.output and "Traceback" not in broken.output
    nothing = runner.invoke(app, ["play", "--opponent", "simple", "--format", "hand"], input="")
    assert nothing.exit_code == 0 and "after 0 finished hands" in nothing.output


@pytest.mark.full
def test_a_file_gin_sim_did_not_write_is_never_overwritten(tmp_path):
    mine = tmp_path / "notes.json"
    mine.write_text('{"my": "notes"}')
    result = _play("--opponent", "simple", "--save", str(mine))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "is not a game record gin-sim wrote" in result.stderr
    assert mine.read_text() == '{"my": "notes"}'
    bad = runner.invoke(app, ["play", "--format", "chess"])
    assert bad.exit_code == 2 and "--format 'chess': allowed hand, game, hollywood" in bad.output
    missing = runner.invoke(app, ["play", "--save", str(tmp_path / "no" / "game.json")])
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_a_record_whose_moves_do_not_hold_is_refused(tmp_path):
    path = tmp_path / "hand.json"
    args = ["play", "--opponent", "simple", "--format", "hand", "--seed", "2", "--save", str(path)]
    assert runner.invoke(app, args, input=DULL).exit_code == 0
    document = json.loads(path.read_text())
    document["hands"][0]["moves"][0] = "knock 7H"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["replay", "--record", str(path)])
    assert result.exit_code == 2 and "hand 1: " in result.output


@pytest.mark.parametrize(
    ("text", "phase", "action"),
    [
        ("t", OFFER, True), ("Take", OFFER, True), ("p", OFFER, False), ("pass", OFFER, False),
        ("decline", OFFER, False), ("d", DRAW, False), ("DRAW", DRAW, False), ("t", DRAW, True),
        ("7h", DISCARD, Discard(parse_card("7H"), False)), ("7H", DISCARD, Discard(parse_card("7H"), False)),
        ("10h", DISCARD, Discard(parse_card("TH"), False)), ("Th", DISCARD, Discard(parse_card("TH"), False)),
        ("k 7h", DISCARD, Discard(parse_card("7H"), True)), ("knock 10H", DISCARD, Discard(parse_card("TH"), True)),
        ("7h k", DISCARD, Discard(parse_card("7H"), True)), ("discard 7h", DISCARD, Discard(parse_card("7H"), False)),
        ("g", DISCARD, BIG_GIN), ("big gin", DISCARD, BIG_GIN),
    ],
)  # fmt: skip
def test_moves_are_read_forgivingly(text, phase, action):
    assert parse_move(text, phase) == action


@pytest.mark.parametrize(
    ("text", "phase", "message"),
    [
        ("d", OFFER, "t (take the upcard) or p (pass)"),
        ("p", DRAW, "d (draw from the stock) or t (take the discard)"),
        ("k", DISCARD, "knock with which card?"),
        ("7x", DISCARD, "unknown suit"),
        ("d", DISCARD, "a card to discard"),
    ],
)
def test_moves_that_cannot_be_read_say_what_can(text, phase, message):
    with pytest.raises(
        MoveError, match=message.replace("?", r"\?").replace("(", r"\(").replace(")", r"\)")
    ):
        parse_move(text, phase)


def test_moves_the_rules_refuse_name_their_rule():
    deck = deck_for_deal(1, 0)
    hand = start_hand(deck, "hollywood", 0)
    hand.apply(True)  # the non-dealer takes the upcard (R7)
    upcard = deck[20]
    assert "(R11)" in move_problem(hand, Discard(upcard, False))
    held = [c for c in range(52) if hand.view().hand >> c & 1 and c != upcard]
    absent = next(c for c in range(52) if not hand.view().hand >> c & 1)
    assert "you do not hold" in move_problem(hand, Discard(absent, False))
    assert "(R12)" in move_problem(hand, Discard(held[0], True))  # 10 random cards: no knock
    assert "(R14)" in move_problem(hand, BIG_GIN)
    assert move_problem(hand, Discard(held[0], False)) is None


def test_the_play_page_transcript_is_what_play_prints(tmp_path, monkeypatch):
    text = (Path(__file__).resolve().parents[1] / "docs" / "play.md").read_text()
    command = text.split("A real single hand\n(`printf '")[1].split("'")[0]
    block = text.split(command)[1].split("```\n")[1]
    monkeypatch.chdir(tmp_path)
    moves = command.replace("\\n", "\n")
    args = ["play", "--format", "hand", "--seed", "4", "--save", "hand.json"]
    result = runner.invoke(app, args, input=moves)
    assert result.exit_code == 0 and result.output == block


class _SimplePerson(Game):
    """A test double for the person at the table: it moves as ``simple`` does."""

    def _your_move(self, hand, deal, move):
        simple = Decider("simple", self.rules)
        decision = simple.decide(view_from_situation(hand.situation(hand.view())))
        return parse_move(decision.action, hand.phase)


@pytest.mark.parametrize(
    ("opponent", "seed"),
    [("mc-fast", 17), ("random", 17)] + [("mc", seed) for seed in (17, 18, 19, 20)],
)
@pytest.mark.first_case
def test_a_game_played_as_a_simulated_player_is_the_simulated_match(opponent, seed):
    """Played with ``simple``'s moves, a game of ``play`` is the kernel's simulated game
    of ``simple`` against the opponent, hand by hand: the same deals and dealers (R5), and
    the opponent reads its random stream where its last decision left it (``drawn``). An
    adaptive opponent learns from the showdowns too (``play`` reports each hand's end to its
    memory): without that it left the simulated game at hands 5, 1, 3 and 1 of seeds 17 to
    20 (issue 26)."""
    rules = load_rules("standard")
    opponent_strategy = load_strategy(opponent).for_rules(rules)
    settings = GameSettings(rules, opponent_strategy, "game", seed=seed)
    game = _SimplePerson(settings, read_line=lambda prompt: None, say=lambda line: None)
    assert game.play()
    start = parse_start(None, "game", rules=rules)
    players = (load_strategy("simple"), load_strategy(opponent))
    _, hands = simulate_matches(rules, players, 1, seed=seed, with_hands=True, start=start)
    assert len(hands) == len(game.hands) >= 2
    for kernel, played in zip(hands, game.hands, strict=True):
        assert record_to_dict(kernel) == played["record"]
