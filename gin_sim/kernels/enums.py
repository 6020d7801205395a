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
    MC: int = 2  # determinized Monte Carlo search over the hidden cards (docs/strategies.md)


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
    CLOSING_DISTANCE: int = 18  # knock whenever allowed this close to winning a game; 0: off
    # The take schedule (``take_schedule``): phases by stock depth, as the knock schedule's.
    TAKE_PHASES: int = 19  # 0 when there is no take schedule: TAKE_MELDS, TAKE_MIN_GAIN hold
    TAKE_MIN_STOCK: int = 20  # 4 slots: 20..23
    TAKE_MELDS_AT: int = 24  # 4 slots: 24..27, each phase's take_melds (1.0 or 0.0)
    TAKE_MIN_GAIN_AT: int = 28  # 4 slots: 28..31, each phase's take_min_gain
    PAIR_WEIGHT: int = 32  # discard: weight of the high pairs kept (docs/strategies.md)
    # kind mc only (docs/strategies.md, "Search players"); 0 for the family and random.
    MC_SAMPLES: int = 33
    MC_CANDIDATES: int = 34
    MC_INFER: int = 35  # 1: weight worlds by the opponent's passes and discards
    MC_INFER_WEIGHT: int = 36  # each pass a world contradicts multiplies its weight by this
    MC_CONFIDENCE: int = 37  # leave the rollout policy's choice only for a gain this many SEs up
    MC_ROLLOUT: int = 38  # the family vector of its own rollout policy (FAMILY_PARAMS slots)
    MC_OPPONENT: int = 71  # the family vector of the opponent model (FAMILY_PARAMS slots)
    MC_SCREEN: int = 104  # worlds in which every discard plays before the best few go on; 0: none
    MC_VALUE: int = 105  # a SearchValue: what a rollout's end is worth where the score is known
    # The opponent panel (docs/strategies.md, "Opponent panel"); 0 models: opponent_model alone.
    MC_PANEL_SIZE: int = 106
    MC_PANEL_MEMORY: int = 107  # a PanelMemory: how long the posterior is kept
    MC_PANEL_WORLDS: int = 108  # 1: the worlds' hidden cards are drawn from the posterior too
    MC_PANEL_PRIOR: int = 109  # MAX_PANEL slots: each model's prior weight (not normalized)
    MC_PANEL: int = 117  # MAX_PANEL family (or random) vectors of FAMILY_PARAMS slots each
    # 1: with infer, each world's opponent hand is built by that world's panel model
    MC_PANEL_INFER: int = 381  # after the MAX_PANEL vectors (asserted below)
    # 1: at the opponent's showdown, read its knocking turn's take and the turn before it
    MC_PANEL_KNOCK_TURN: int = 382
    # 1: read the opponent's choice at the opening upcard offer (R7, R8)
    MC_PANEL_OFFER: int = 383
    # Deeper play late in the hand (issue 46): at a decision with at most this many cards
    # left in the stock the search plays MC_LATE_SAMPLES worlds instead; 0: off
    MC_LATE_STOCK: int = 384
    MC_LATE_SAMPLES: int = 385
    # The undercut priced (issue 46): a knock candidate's rollout that ends in an undercut
    # (R17) counts this many times its value; 1 (or an unset 0): off
    MC_UNDERCUT_WEIGHT: int = 386
    # An undecided choice looks again (issue 46): this many more worlds when the best
    # candidate's gain lies within one standard error of the confidence line; 0: off
    MC_EXTEND_SAMPLES: int = 387
    # Knock decisions by another continuation (issue 46): 1 where the searcher's own later
    # moves are played by the MC_KNOCK_ROLLOUT vector at a decision where a knock is open
    # (every candidate's rollouts then, so the comparison stays paired); 0: MC_ROLLOUT always
    MC_KNOCK_ROLLOUT_ON: int = 388
    MC_KNOCK_ROLLOUT: int = 389  # FAMILY_PARAMS slots
    # The undercut priced late only (issue 46): MC_UNDERCUT_WEIGHT applies at a decision
    # with at most this many cards left in the stock; 0: at every depth
    MC_UNDERCUT_STOCK: int = 422  # after the MC_KNOCK_ROLLOUT vector (asserted below)
    # The hidden hand read more loosely at late knocks (issue 46): at a decision where a
    # knock is open with at most MC_LATE_INFER_STOCK cards left (0: off), each
    # contradicted pass of a world weighs MC_LATE_INFER_WEIGHT instead of MC_INFER_WEIGHT
    MC_LATE_INFER_STOCK: int = 423
    MC_LATE_INFER_WEIGHT: int = 424
    # 1: a world's hand is doubted for each card the opponent passed over or discarded that,
    # kept instead of the hand's least useful card, would have lowered its deadwood
    # (``lowering_passes_nb``), instead of each that would meld with it (issue 46)
    MC_INFER_LOWERING: int = 425
    # 1: each contradicted pass tells against the cards a world's opponent held when it
    # passed (its hand as built to that turn, and the cards it had taken from the pile by
    # then), not its hand now (``timed_contradicted_passes_nb``; issue 46)
    MC_INFER_TIMED: int = 426
    # >0: where a knock is among the candidates the search plays this many worlds instead
    # of MC_SAMPLES (or MC_LATE_SAMPLES); 0: off (issue 46)
    MC_KNOCK_SAMPLES: int = 427
    # With MC_SCREEN: the discards the screening plays, the cheapest by the rollout
    # policy's cost; 0: every discard (issue 46)
    MC_SCREEN_DISCARDS: int = 428
    # >0: a first cut of the screening after this many worlds (made only below MC_SCREEN
    # and MC_SAMPLES), which keeps MC_EARLY_KEEP discards (the best value sums) for the
    # rest of it; 0: off (issue 46)
    MC_EARLY_SCREEN: int = 429
    MC_EARLY_KEEP: int = 430
    # 1: in the search's rollouts the searcher draws from the stock's bottom and the
    # opponent from its top, so each draws the same cards whichever candidate is played
    # (the stock's order is uniform: each draw is still uniform over the cards left)
    MC_PAIRED_DRAWS: int = 431
    # >0: at an offer or a draw (take the pile's top or not) the search plays this many
    # worlds instead of MC_SAMPLES (MC_LATE_SAMPLES still applies late); 0: off (issue 46)
    MC_DRAW_SAMPLES: int = 432


StrategyParam = StrategyParamT()
# The slots a family decision reads: KIND to the pair weight.
FAMILY_PARAMS = StrategyParam.PAIR_WEIGHT + 1
MAX_PANEL = 8  # opponent models a search player may weigh
N_STRATEGY_PARAMS = StrategyParam.MC_DRAW_SAMPLES + 1
assert StrategyParam.MC_UNDERCUT_STOCK == StrategyParam.MC_KNOCK_ROLLOUT + FAMILY_PARAMS
assert StrategyParam.MC_PANEL_INFER == StrategyParam.MC_PANEL + MAX_PANEL * FAMILY_PARAMS
# The slots follow one another: each vector block is FAMILY_PARAMS long.
assert StrategyParam.MC_SAMPLES == FAMILY_PARAMS
assert StrategyParam.MC_ROLLOUT == StrategyParam.MC_CONFIDENCE + 1
assert StrategyParam.MC_OPPONENT == StrategyParam.MC_ROLLOUT + FAMILY_PARAMS
assert StrategyParam.MC_SCREEN == StrategyParam.MC_OPPONENT + FAMILY_PARAMS
assert StrategyParam.MC_PANEL_PRIOR + MAX_PANEL == StrategyParam.MC_PANEL
assert StrategyParam.MC_KNOCK_ROLLOUT == StrategyParam.MC_KNOCK_ROLLOUT_ON + 1


class PositionMaskT(NamedTuple):
    """Slots of a position's uint64 card masks (``kernels/position.py``); +player where two."""

    HAND: int = 0  # 2 slots
    TAKEN: int = 2  # 2 slots: cards each player took from the pile and still holds
    PASSED: int = 4  # 2 slots: cards each player passed over or discarded
    PILE: int = 6  # the cards in the discard pile


PositionMask = PositionMaskT()
N_POSITION_MASKS = 7


class PositionSlotT(NamedTuple):
    """Slots of a position's int64 state vector (``kernels/position.py``)."""

    PHASE: int = 0  # a Phase
    PLAYER: int = 1  # who decides next
    DEALER: int = 2
    STOCK_POS: int = 3  # index in DECK of the stock's top card
    PILE_SIZE: int = 4
    TAKEN_CARD: int = 5  # the card taken this turn (phase DISCARD)
    FROM_PILE: int = 6  # 1 when it came from the discard pile
    TAKES: int = 7  # cards taken from the pile so far (R18a)
    TURNS: int = 8
    TURNS_BY: int = 9  # 2 slots: turns each player has played
    FIRST_TAKER: int = 11  # who took the first upcard (R7, R8), -1 when nobody did
    LIMIT: int = 12  # the hand's knock limit (R12, R14a)
    KNOCKER: int = 13  # -1 until someone knocks
    BIG_GIN: int = 14
    DRAW_REASON: int = 15  # a DrawReason
    PILE: int = 16  # 52 slots: the discard pile, bottom first
    DECK: int = 68  # 52 slots: the deck order (the stock is DECK[STOCK_POS:])
    # The public score before the hand (R19, R20), which ``deal_nb`` leaves as it is:
    SCORE_GAMES: int = 120  # 0: no score (a plain hand); 1: a game to the target; 3: Hollywood
    SCORE_POINTS: int = 121  # 6 slots: player * 3 + game, each column's points
    SCORE_ENTERED: int = 127  # 6 slots: player * 3 + game, 1 when the player has entered it


PositionSlot = PositionSlotT()
N_POSITION_SLOTS = PositionSlot.SCORE_ENTERED + 6


class SearchValueT(NamedTuple):
    """What a search player's rollout is worth at its end (docs/strategies.md)."""

    HAND: int = 0  # the hand's points from its side
    GAME: int = 1  # the change in games expected to be won (game equity, summed over columns)
    MATCH: int = 2  # the change in the probability of winning the match


SearchValue = SearchValueT()


class PanelMemoryT(NamedTuple):
    """How long a search player keeps its opponent panel's posterior (docs/strategies.md)."""

    HAND: int = 0  # from the prior at every hand
    MATCH: int = 1  # across the hands of a match or game (the opponent stays the same)


PanelMemory = PanelMemoryT()


class PhaseT(NamedTuple):
    """Which decision a position waits for."""

    OFFER: int = 0  # take or decline the first upcard (R7, R8)
    DRAW: int = 1  # take the pile's top or draw from the stock (R10)
    DISCARD: int = 2  # 11 cards: declare big gin (R14), or discard and maybe knock (R11, R12)
    OVER: int = 3


Phase = PhaseT()

# Actions: OFFER and DRAW take 1 (take the pile's top) or 0 (decline, draw from the stock);
# DISCARD takes a card, plus KNOCK to knock with that discard, or BIG_GIN.
ACTION_KNOCK = 64
ACTION_BIG_GIN = 128
ACTION_CARD = 63  # the card bits of a DISCARD action


class DrawReasonT(NamedTuple):
    NONE: int = 0
    WALL: int = 1  # R18
    UPCARD_CAP: int = 2  # R18a


DrawReason = DrawReasonT()

NO_PLAYER = -1


class MatchStartSlotT(NamedTuple):
    """Slots of a match's int64 start vector (``MatchStart.to_kernel``, ``kernels/match.py``)."""

    POINTS: int = 0  # 6 slots: player * 3 + game, each player's points in each column
    BOXES: int = 6  # 6 slots: hands credited to each column (R19 entries, R23 box bonuses)
    FIRST_DEALER: int = 12  # 0 or 1; -1: drawn from the match key (R5)
    GAMES: int = 13  # 3: a Hollywood match; 1: a plain game to the target (game 1 alone)


MatchStartSlot = MatchStartSlotT()
N_MATCH_START_SLOTS = MatchStartSlot.GAMES + 1


class DecisionKindT(NamedTuple):
    """The kinds of decision positions a dataset samples (docs/advice.md)."""

    OFFER: int = 0  # take or decline the first upcard (R7, R8)
    DRAW: int = 1  # take the discard pile's top or draw from the stock (R10)
    DISCARD: int = 2  # 11 cards, knocking not allowed: which card to discard (R11)
    KNOCK: int = 3  # 11 cards, knocking allowed (R12): knock, or play on with some discard


DecisionKind = DecisionKindT()
N_DECISION_KINDS = 4
# A positions dataset keeps each decision of a kind with probability rate / KEEP_SCALE, the
# kind's rate an integer 1 .. KEEP_SCALE (docs/advice.md, "Which positions are kept").
KEEP_SCALE = 1024
# Decisions a hand may have for its positions to be keyed: a position's world stream is
# keyed by ``MAX_DEAL_DECISIONS * deal + decision`` (``kernels.rng.evaluation_key_nb``).
MAX_DEAL_DECISIONS = 256
