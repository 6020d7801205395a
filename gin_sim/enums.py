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
    FAMILY: int = 0  # the parameterised family (docs/strategies.md); simple is its default
    RANDOM: int = 1


StrategyKind = StrategyKindT()

MAX_SCHEDULE_PHASES = 4
UNDERCUT_TABLE_TURNS = 21  # rows t = 0..20 of the undercut-risk table (t >= 20 share a row)
UNDERCUT_TABLE_DEADWOOD = 11  # columns k = 0..10


class StrategyParamT(NamedTuple):
    """Positions in a player's float64 strategy vector (``Strategy.to_kernel``)."""

    KIND: int = 0
    KNOCK_THRESHOLD: int = 1
    SCHEDULE_PHASES: int = 2  # 0 when there is no schedule
    SCHEDULE_MIN_STOCK: int = 3  # 4 slots: 3..6
    SCHEDULE_THRESHOLD: int = 7  # 4 slots: 7..10
    UNDERCUT_RISK: int = 11
    TAKE_MELDS: int = 12
    TAKE_MIN_GAIN: int = 13
    IMPROVE_WEIGHT: int = 14
    KEEP_WEIGHT: int = 15
    SAFETY_WEIGHT: int = 16
    DISINTEREST_WEIGHT: int = 17


StrategyParam = StrategyParamT()
N_STRATEGY_PARAMS = StrategyParam.DISINTEREST_WEIGHT + 1


class DrawReasonT(NamedTuple):
    NONE: int = 0
    WALL: int = 1  # R18
    UPCARD_CAP: int = 2  # R18a


DrawReason = DrawReasonT()

NO_PLAYER = -1
