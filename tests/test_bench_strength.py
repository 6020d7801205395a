"""bench/strength.py --save: a saved result is read back only for the players that played it."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_scripts import load_bench_script

from gin_sim.game.config import configs_dir
from gin_sim.game.rules import load_rules


def test_a_saved_result_is_keyed_by_what_the_players_play(tmp_path):
    """The file's name follows the player's kernel vector (its rollout policies included):
    a player changed in place since a run is not given that run's results, and a player
    given by an absolute path still saves inside the folder."""
    strength = load_bench_script("strength.py", "bench_strength")
    player = tmp_path / "lever.toml"
    text = (
        (configs_dir() / "strategies" / "mc.toml")
        .read_text()
        .replace('name = "mc"', 'name = "lever"')
    )
    player.write_text(text)
    where = strength.saved_result("runs/x", str(player), "standard", "expert", 1, 10)
    assert where == strength.saved_result("runs/x", str(player), "standard", "expert", 1, 10)
    assert Path("runs/x") in where.parents and where.name.startswith(
        "lever.toml_standard_expert_1_10_"
    )
    player.write_text(text.replace("samples = 96", "samples = 95"))
    assert strength.saved_result("runs/x", str(player), "standard", "expert", 1, 10) != where
    player.write_text(text.replace('rollout = "gin-hunter-strong"', 'rollout = "gin-hunter-tuned"'))
    assert strength.saved_result("runs/x", str(player), "standard", "expert", 1, 10) != where
    # the rollout under hollywood is expert, whichever runs under standard
    hollywood = strength.saved_result("runs/x", str(player), "hollywood", "expert", 1, 10)
    player.write_text(text)
    assert strength.saved_result("runs/x", str(player), "hollywood", "expert", 1, 10) == hollywood


def test_a_bad_player_ends_the_bench_at_once_with_one_line(tmp_path, capsys):
    """An unknown name or a value out of range (in an [[adapt]] table too) is one line
    naming it, exit code 2, before anything is played; good players come back as they play
    under the rules."""
    strength = load_bench_script("strength.py", "bench_strength")
    standard = load_rules("standard")
    mc, expert = strength.checked_players("x.py", ["mc", "expert"], standard)
    assert (mc.name, expert.name) == ("mc", "expert")
    assert mc.undercut_weight == 3.0  # standard's adaptation applied
    heavy = tmp_path / "heavy.toml"
    mc_text = (configs_dir() / "strategies" / "mc.toml").read_text()
    heavy.write_text(mc_text.replace("undercut_weight = 3.0", "undercut_weight = 5.0"))
    for bad, named in (("nobody", "unknown strategy 'nobody'"), (str(heavy), "undercut_weight")):
        with pytest.raises(SystemExit) as stopped:
            strength.checked_players("x.py", ["mc", bad], standard)
        assert stopped.value.code == 2
        message = capsys.readouterr().err
        assert message.startswith("x.py: ") and named in message
        assert message.count("\n") == 1 and "Traceback" not in message


def test_an_unknown_rule_set_ends_the_bench_at_once_with_one_line(monkeypatch, capsys):
    """--rules names a rule set or a TOML file: an unknown one is one line naming what is
    allowed, exit code 2, before anything is played (no traceback)."""
    strength = load_bench_script("strength.py", "bench_strength")
    monkeypatch.setattr("sys.argv", ["strength.py", "--seed", "5", "--rules", "nosuch"])
    with pytest.raises(SystemExit) as stopped:
        strength.main()
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "strength.py: unknown rule set 'nosuch': known rule sets are hollywood, "
        "hollywood-gin20, oklahoma, standard\n"
    )
    assert strength.checked_rules("x.py", "standard").name == "standard"
