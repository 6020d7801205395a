"""Integer enums shared by the kernels and the Python side.

NamedTuple instances, so numba compiles their fields to constants.
"""

from __future__ import annotations

from typing import NamedTuple


class RuleParamT(NamedTuple):
    """Positions in the int64 rule vector (``Rules.to_kernel``); names match ``Rules`` fields."""

    KNOCK_LIMIT: int = 0
    GIN_BONUS: int = 1
    UNDERCUT_BONUS: int = 2
    UNDERCUT_ON_TIE: int = 3
    BIG_GIN_BONUS: int = 4
    OKLAHOMA: int = 5
    WALL: int = 6
    MAX_UPCARD_TAKES: int = 7
    MAY_DISCARD_DRAWN_UPCARD: int = 8
    GAME_TARGET: int = 9
    HOLLYWOOD_BONUSES: int = 10


RuleParam = RuleParamT()


class StrategyKindT(NamedTuple):
    SIMPLE: int = 0
    RANDOM: int = 1


StrategyKind = StrategyKindT()


class StrategyParamT(NamedTuple):
    """Positions in a player's float64 strategy vector."""

    KIND: int = 0


StrategyParam = StrategyParamT()
N_STRATEGY_PARAMS = len(StrategyParam)


class DrawReasonT(NamedTuple):
    NONE: int = 0
    WALL: int = 1  # R18
    UPCARD_CAP: int = 2  # R18a


DrawReason = DrawReasonT()

NO_PLAYER = -1
