"""bench/strength.py --save: a saved result is read back only for the players that played it."""

from __future__ import annotations

from pathlib import Path

from bench_scripts import load_bench_script

from gin_sim.game.config import configs_dir


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
