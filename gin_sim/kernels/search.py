"""Search players (kind ``mc``): determinized Monte Carlo over the hidden cards.

At a decision the player lists its candidate actions, samples ``samples`` worlds
consistent with its view (the opponent's hidden cards and the stock order, dealt from
the cards it has not seen), plays every candidate out in every world with family
rollout policies (its own and an opponent model), and takes the candidate with the
best mean hand value from its side. Every candidate sees the same worlds (common random
numbers). docs/strategies.md ("Search players") is the exact specification; the
reference engine (``gin_sim.reference.search``) implements it too.

Information hygiene is structural: a world is the position with the opponent's hidden
cards and every undealt card overwritten from the sample, and the cards dealt and drawn
before the stock's top and the opponent's last take blanked, so nothing the player cannot
see reaches the rollouts (tests/test_search.py varies every hidden field of a position).

With ``value`` game or match (``SearchValue``) and a position that carries a score (in a
game to the target or a Hollywood match), a rollout's end is worth the change in the
player's game or match equity (``score_equity_nb``) rather than the hand's points.

Contract: only NumPy arrays and scalars; positions as in ``kernels/position.py``;
``search`` is the scratch tuple of ``search_scratch_nb``; ``streams`` uint64[2] holds
the players' random streams (an mc player draws one number from its stream per search);
``equity`` float64[2, N] holds each seat's value vector from its own side (its game table
and Hollywood match table, ``kernels/match_value.py``; ``gin_sim.players.search_value``), read
only by score-aware searchers (zeros where nobody needs one).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.deadwood import (
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
)
from gin_sim.kernels.decisions import (
    discard_cost_nb,
    discard_or_knock_nb,
    least_cost_scan_nb,
    least_deadwood_discard_nb,
    least_deadwood_drop_from_nb,
    least_deadwood_drop_nb,
    popcount_nb,
    takes_top_nb,
    tie_key_nb,
)
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_CARD,
    ACTION_KNOCK,
    FAMILY_PARAMS,
    MAX_PANEL,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    PanelMemory,
    Phase,
    PositionMask,
    PositionSlot,
    RuleParam,
    SearchValue,
    StrategyKind,
    StrategyParam,
)
from gin_sim.kernels.match_value import game_chance_nb, match_equity_nb
from gin_sim.kernels.position import (
    apply_drawing_nb,
    copy_position_nb,
    family_action_nb,
    hand_value_nb,
    play_out_drawing_nb,
    points_to_close_nb,
)
from gin_sim.kernels.rng import bounded_nb, next_nb, splitmix64_nb
from gin_sim.kernels.tables import CARD_VALUES

_ONE = np.uint64(1)
_CARD_VALUES = CARD_VALUES
_ALL = np.uint64((1 << 52) - 1)
_NONE = np.uint64(0)  # no cards
_S = PositionSlot
_M = PositionMask
HAND_SIZE = 10  # R6: the opponent holds 10 cards whenever the searching player decides
MAX_CANDIDATES = 16  # the heuristic's action, a knock, and up to 11 discards
MAX_WORLD_TRIES = 16  # rejection sampling gives up after this many worlds (infer)
DROP_ERRORS = 2.0
# extend_samples: a choice is undecided while the best gain lies within this many standard
# errors of the confidence line (at confidence 1: between 0 and 2 standard errors).
EXTEND_BAND = 1.0
# A score-aware rollout's value is its equity change plus this much per point of the hand:
# where the score no longer moves the equity (game 3 of a match already won 2-0, R21) the
# search still plays for the points the tallies count (R23), and elsewhere it only breaks
# ties (a 200-point hand adds 0.0002).
POINT_TIE_BREAK = 1e-6
_INV_2_53 = 1.0 / 9007199254740992.0
# The opponent panel (docs/strategies.md, "Opponent panel"):
EVIDENCE_WORLDS = 16  # worlds in which each model's likelihood of the opponent's turn is taken
PANEL_EPSILON = 0.1  # a deterministic model's likelihood of an action it would not take
GOLDEN_STEP = 0.6180339887498949  # world w's model: the posterior quantile frac(0.5 + w * this)
PANEL_WORLD_TRIES = 8  # panel_worlds: hidden hands drawn at most per world, the last kept
# A searcher's panel memory (the ``memory`` float64[2, MEMORY_SLOTS] of the search scratch,
# one row per seat; all zero: nothing remembered, as after ``forget_nb``): its posterior in
# the first MAX_PANEL slots, then these.
MEMORY_KNOWN = MAX_PANEL  # 1 once the posterior holds the prior
MEMORY_DISCARD = MAX_PANEL + 1  # the card of the searcher's last discard
MEMORY_TURN = MAX_PANEL + 2  # the searcher's own turns at that discard, plus 1 (0: none)
# The opponent's last answered turn, as public facts at the time of its discard, kept from
# the update at the searcher's draw for that turn's discard decision (panel_worlds): card
# masks are below 2**52, so a float64 holds them exactly.
EVIDENCE_TURN = MAX_PANEL + 3  # the searcher's own turns after that draw's take (0: none)
EVIDENCE_ANSWERED = MAX_PANEL + 4  # the searcher's discard it answered
EVIDENCE_DISCARD = MAX_PANEL + 5  # its discard
EVIDENCE_TOOK = MAX_PANEL + 6  # 1: it took the answered card from the pile
EVIDENCE_PILE = MAX_PANEL + 7  # the pile's cards when it discarded (without its discard)
EVIDENCE_OWN_TAKEN = MAX_PANEL + 8  # the searcher's cards taken from the pile, then
EVIDENCE_OWN_PASSED = MAX_PANEL + 9  # the searcher's passed cards, then
EVIDENCE_STOCK_LEFT = MAX_PANEL + 10
EVIDENCE_OWN_TURNS = MAX_PANEL + 11  # the searcher's turns, then
EVIDENCE_LIMIT = MAX_PANEL + 12  # the hand's knock limit
# panel_offer: 1 once the opponent's choice at the opening offer (R7, R8) was read this hand
# (or found not to be there: it was never offered, or the hand went past it unread).
MEMORY_OFFER = MAX_PANEL + 13
# infer_timed: when the opponent made the passes and takes its searcher saw, one slot per
# card, kept from public facts at each of the searcher's decisions (``record_history_nb``).
# HISTORY_PASS + card: 1 + the stage of the opponent's hand a pass tells against (its turns
# played before it passed the card over, or with it when it discarded the card); 0: not seen.
HISTORY_PASS = MAX_PANEL + 14
# HISTORY_TAKE + card: 1 + the opponent's turns when it took the card from the pile, while it
# still holds it; 0: not held.
HISTORY_TAKE = HISTORY_PASS + 52
MEMORY_SLOTS = HISTORY_TAKE + 52
OFFER_WORLDS = 32  # hands of the opponent over which the offer's likelihood is averaged


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True)
def search_scratch_nb():
    """Scratch for one thread's searches: world and rollout positions, candidates, values.

    (world masks, world state, rollout masks, rollout state, unseen cards int64[52],
    candidates int64[16], value sums float64[16], sums of squares float64[16],
    rollout policies float64[2, FAMILY_PARAMS], world stream uint64[1], idle streams
    uint64[2], chains int64[16, 2], score int64[8], counts int64[5]: candidates, worlds,
    rollouts played (screened-out candidates' included), candidates before the screening
    (the screened-out ones follow the survivors, their figures over the screening worlds),
    candidates after the screening's first cut (``early_screen``; the ones it dropped come
    last, their figures over its worlds),
    sums and squares of each candidate's value less the first's, float64[16] each,
    a score int64[12] as the position's score slots, the opponent-panel memory
    float64[2, MEMORY_SLOTS]: posterior, then MEMORY_KNOWN, MEMORY_DISCARD, MEMORY_TURN, the
    EVIDENCE_ slots and the HISTORY_ slots, panel likelihoods float64[MAX_PANEL])
    """
    return (
        np.zeros(N_POSITION_MASKS, np.uint64),
        np.zeros(N_POSITION_SLOTS, np.int64),
        np.zeros(N_POSITION_MASKS, np.uint64),
        np.zeros(N_POSITION_SLOTS, np.int64),
        np.zeros(52, np.int64),
        np.zeros(MAX_CANDIDATES, np.int64),
        np.zeros(MAX_CANDIDATES, np.float64),
        np.zeros(MAX_CANDIDATES, np.float64),
        np.zeros((2, FAMILY_PARAMS), np.float64),
        np.zeros(1, np.uint64),
        np.zeros(2, np.uint64),
        np.zeros((16, 2), np.int64),
        np.zeros(8, np.int64),
        np.zeros(5, np.int64),
        np.zeros(MAX_CANDIDATES, np.float64),
        np.zeros(MAX_CANDIDATES, np.float64),
        np.zeros(12, np.int64),
        np.zeros((2, MEMORY_SLOTS), np.float64),
        np.zeros(MAX_PANEL, np.float64),
    )


@njit(cache=True, _nrt=False)
def forget_nb(search):
    """A new deal, match or position: the searchers' panel memory back to nothing (the
    prior at the next search). Every kernel that starts one with a reused scratch calls
    it, so a decision never depends on what the scratch played before."""
    memory = search[17]
    for seat in range(2):
        for j in range(MEMORY_SLOTS):
            memory[seat, j] = 0.0


@njit(cache=True, _nrt=False)
def new_hand_nb(search, strategies):
    """A new hand of the same deal, game or match: each searcher forgets its last discard,
    and its posterior too unless it keeps it across hands (``panel_memory`` match)."""
    memory = search[17]
    for seat in range(2):
        keep = strategies[seat, StrategyParam.MC_PANEL_MEMORY] == PanelMemory.MATCH
        for j in range(MEMORY_SLOTS):
            if j > MEMORY_KNOWN or not keep:  # kept: the posterior and whether it is known
                memory[seat, j] = 0.0


@njit(cache=True, _nrt=False)
def _add_candidate_nb(candidates, n, action):
    for i in range(n):
        if candidates[i] == action:
            return n
    candidates[n] = action
    return n + 1


@njit(cache=True, _nrt=False)
def candidates_nb(
    params, masks, state, rules, undercut_table, idle, player, candidates, cards, costs
):
    """The actions the search compares, the rollout policy's own choice first (ties go to
    it); returns how many. One candidate means the decision needs no search. ``cards``
    and ``costs`` are scratch."""
    own = params[StrategyParam.MC_ROLLOUT : StrategyParam.MC_ROLLOUT + FAMILY_PARAMS]
    heuristic = family_action_nb(own, masks, state, rules, undercut_table, idle, player)
    candidates[0] = heuristic
    if state[_S.PHASE] != Phase.DISCARD:  # take the pile's top (or the offer), or not
        candidates[1] = 1 - heuristic
        return 2
    hand = masks[_M.HAND + player]
    if heuristic == ACTION_BIG_GIN:  # R14: declared as the family does
        return 1
    forbidden = state[_S.TAKEN_CARD] if state[_S.FROM_PILE] else -1
    best, deadwood = least_deadwood_discard_nb(hand, forbidden)
    if deadwood == 0:  # gin (R13): nothing can beat it
        candidates[0] = best | ACTION_KNOCK
        return 1
    n = 1
    if deadwood <= state[_S.LIMIT]:  # R12: knocking is a candidate
        n = _add_candidate_nb(candidates, n, best | ACTION_KNOCK)
    # The cheapest discards by the rollout policy's own cost (docs/strategies.md),
    # ties as the family breaks them.
    opponent = 1 - player
    unseen = _ALL & ~hand & ~masks[_M.PILE] & ~masks[_M.TAKEN + opponent]
    wanted = np.int64(params[StrategyParam.MC_CANDIDATES])
    if params[StrategyParam.MC_SCREEN] > 0:  # every discard, in that order; worlds screen them
        wanted = HAND_SIZE + 1
        if params[StrategyParam.MC_SCREEN_DISCARDS] > 0:  # or the cheapest few
            wanted = np.int64(params[StrategyParam.MC_SCREEN_DISCARDS])
    # Each card's cost once (it does not change between picks), then the picks.
    k = 0
    for card in range(52):
        if hand & _bit(card) and card != forbidden:
            cards[k] = card
            costs[k] = discard_cost_nb(
                own, hand, card, unseen, masks[_M.TAKEN + opponent], masks[_M.PASSED + opponent]
            )
            k += 1
    chosen = np.uint64(0)
    for _ in range(min(wanted, k)):
        pick = -1
        pick_cost = np.inf
        pick_key = -1
        for i in range(k):
            card = cards[i]
            if chosen & _bit(card):
                continue
            key = tie_key_nb(card)
            if costs[i] < pick_cost or (costs[i] == pick_cost and key > pick_key):
                pick = card
                pick_cost = costs[i]
                pick_key = key
        chosen |= _bit(pick)
        n = _add_candidate_nb(candidates, n, pick)
    return n


@njit(cache=True, _nrt=False)
def contradicted_passes_nb(opp_hand, opp_passed):
    """Cards the opponent passed over or discarded that would meld with ``opp_hand`` (R3)."""
    count = 0
    for card in range(52):
        seen = opp_passed & _bit(card) and not opp_hand & _bit(card)
        if seen and melds_with_card_nb(opp_hand, card):
            count += 1
    return count


@njit(cache=True, _nrt=False)
def record_history_nb(masks, state, player, history):
    """``infer_timed``: when the opponent made each pass and take that ``player`` sees,
    into its memory row ``history`` (HISTORY_PASS, HISTORY_TAKE), from public facts only.

    Called at each of the player's decisions, so a fact is seen at the first decision
    after it: the opponent's turns then date it. A card first seen passed at the player's
    draw that lies on the pile's top is the discard of the opponent's last turn (stage:
    its turns, the hand it kept); any other was passed over before its last draw (stage:
    its turns less one; at the opening offer, 0). A card first seen taken was taken at
    its last turn. A card it no longer holds is forgotten as taken (a later take of it
    dates anew)."""
    opponent = 1 - player
    turns = state[_S.TURNS_BY + opponent]
    latest = -1  # the opponent's last discard, on the pile's top at the player's draw
    if state[_S.PHASE] == Phase.DRAW:
        latest = state[_S.PILE + state[_S.PILE_SIZE] - 1]
    passed = masks[_M.PASSED + opponent]
    taken = masks[_M.TAKEN + opponent]
    for card in range(52):
        bit = _bit(card)
        if passed & bit and history[HISTORY_PASS + card] == 0.0:
            stage = turns if card == latest else max(turns - 1, 0)
            history[HISTORY_PASS + card] = 1.0 + stage
        if not taken & bit:
            history[HISTORY_TAKE + card] = 0.0
        elif history[HISTORY_TAKE + card] == 0.0:
            history[HISTORY_TAKE + card] = 1.0 + turns


@njit(cache=True, _nrt=False)
def timed_contradicted_passes_nb(opp_hand, opp_passed, known, cards, hidden, extra, history):
    """``contradicted_passes_nb`` by when each pass was made (``infer_timed``): a card the
    opponent passed over or discarded, not in the built hand ``opp_hand``, counts if it
    makes a meld (R3) with the cards of ``opp_hand`` the build says it held then. The
    build (``built_hand_nb``) gives the hand's cards their turns: ``cards[:hidden]`` from
    the start, ``cards[hidden + j - 1]`` from its j-th turn; a pass of stage s
    (HISTORY_PASS of ``history``; not recorded: stage ``extra``, the hand now) reads those
    of stage at most s, and the ``known`` cards it had taken from the pile by then
    (HISTORY_TAKE; not recorded: from the start). A pass tells against the hand held when
    it passed; late in the hand many of the opponent's cards came after its passes."""
    doubted = opp_passed & ~opp_hand
    count = 0
    held = _NONE
    for j in range(hidden):
        held |= _bit(cards[j])
    for stage in range(extra + 1):
        if stage > 0:
            held |= _bit(cards[hidden + stage - 1])
        then = held & opp_hand
        rest = known
        while rest:
            card = lowest_card_nb(rest)
            rest &= rest - _ONE
            tag = history[HISTORY_TAKE + card]
            if tag == 0.0 or np.int64(tag) - 1 <= stage:
                then |= _bit(card)
        rest = doubted
        while rest:
            card = lowest_card_nb(rest)
            rest &= rest - _ONE
            tag = history[HISTORY_PASS + card]
            at = extra if tag == 0.0 else min(np.int64(tag) - 1, extra)
            if at == stage and melds_with_card_nb(then, card):
                count += 1
    return count


@njit(cache=True, _nrt=False)
def lowering_passes_nb(opp_hand, opp_passed, known):
    """Cards the opponent passed over or discarded that, kept by ``opp_hand`` instead of
    its least useful card (one not ``known`` to be held: those it took to keep), would
    leave less deadwood than ``opp_hand`` holds.

    A card that melds with nothing in the hand (R3) stays unmatched with it, so keeping it
    lowers the deadwood exactly when its value is below ``gap``, the most deadwood one
    droppable card's removal saves: one evaluation serves every such card, and only the
    cards that meld with the hand are tried one by one."""
    whole = min_deadwood_nb(opp_hand)
    allowed = opp_hand & ~known
    if not allowed:
        return 0  # nothing could have made room for a card
    gap = whole - least_deadwood_drop_from_nb(opp_hand, allowed, whole)[1]
    count = 0
    for card in range(52):
        if not opp_passed & _bit(card) or opp_hand & _bit(card):
            continue
        if melds_with_card_nb(opp_hand, card):
            if least_deadwood_drop_nb(opp_hand | _bit(card), allowed)[1] < whole:
                count += 1
        elif _CARD_VALUES[card] < gap:
            count += 1
    return count


@njit(cache=True, _nrt=False)
def _shuffle_nb(cards, start, stop, rng):
    """Fisher-Yates over ``cards[start:stop]``."""
    for j in range(stop - 1, start, -1):
        k = start + bounded_nb(next_nb(rng, 0), j - start + 1)
        tmp = cards[j]
        cards[j] = cards[k]
        cards[k] = tmp


@njit(cache=True, _nrt=False)
def built_hand_nb(known, cards, hidden, extra):
    """The opponent's hand as its model would have built it, turn by turn: its known
    cards and ``cards[:hidden]``; then for each of ``extra`` turns the next card of
    ``cards`` comes in and the least-deadwood rule drops one card that is not known
    (ties: higher value, rank, suit first), as ``simple`` discards."""
    hand = known
    for j in range(hidden):
        hand |= _bit(cards[j])
    for j in range(hidden, hidden + extra):
        hand |= _bit(cards[j])
        hand &= ~_bit(least_deadwood_drop_nb(hand, hand & ~known)[0])
    return hand


@njit(cache=True, _nrt=False)
def weights_zero_nb(model):
    """Whether the family vector ``model``'s discard cost is its deadwood alone (keep,
    safety, disinterest and pair weights all 0): then its least-cost card is the
    least-deadwood one (``simple``'s, the same ties)."""
    return (
        model[StrategyParam.KEEP_WEIGHT] == 0.0
        and model[StrategyParam.SAFETY_WEIGHT] == 0.0
        and model[StrategyParam.DISINTEREST_WEIGHT] == 0.0
        and model[StrategyParam.PAIR_WEIGHT] == 0.0
    )


@njit(cache=True, _nrt=False)
def model_drop_nb(model, hand, allowed, pile, own_taken, own_passed):
    """The card of ``allowed`` that the family vector ``model`` discards from the 11 cards
    ``hand``: least discard cost (``discard_cost_nb``; the model's view: the pile, the
    searcher's taken and passed cards, unseen whatever else it does not hold), ties to the
    higher tie key. With every weight 0 it is the least-deadwood drop (the same card)."""
    if weights_zero_nb(model):
        return least_deadwood_drop_nb(hand, allowed)[0]
    unseen = _ALL & ~hand & ~pile & ~own_taken
    return least_cost_scan_nb(
        model, hand, allowed, unseen, own_taken, own_passed, min_deadwood_nb(hand),
        -1, np.inf, -1, -1,
    )[0]  # fmt: skip


@njit(cache=True, _nrt=False)
def model_built_hand_nb(model, known, cards, hidden, extra, pile, own_taken, own_passed):
    """``built_hand_nb`` with the family vector ``model``'s discard (``model_drop_nb``)
    in place of the least-deadwood rule: the hand as that model would have built it."""
    hand = known
    for j in range(hidden):
        hand |= _bit(cards[j])
    for j in range(hidden, hidden + extra):
        hand |= _bit(cards[j])
        hand &= ~_bit(model_drop_nb(model, hand, hand & ~known, pile, own_taken, own_passed))
    return hand


@njit(cache=True, _nrt=False)
def sample_world_nb(params, masks, state, player, world_masks, world_state, cards, rng):
    """``sample_world_by_nb`` with the least-deadwood build (``simple``'s), for a caller
    that keeps no memory of the hand (its passes undated, read against the hand now)."""
    sample_world_by_nb(
        params, masks, state, player, world_masks, world_state, cards, rng,
        params[StrategyParam.MC_OPPONENT : StrategyParam.MC_OPPONENT + FAMILY_PARAMS], BUILD_SIMPLE,
        params[StrategyParam.MC_INFER_WEIGHT], _NO_HISTORY,
    )  # fmt: skip


_NO_HISTORY = np.zeros(MEMORY_SLOTS, np.float64)  # a memory row with nothing recorded


@njit(cache=True, inline="always")
def pass_weight_nb(params, stock_left, knock_open):
    """The weight of a world's contradicted pass at a search: ``late_infer_weight`` where a
    knock is among the candidates with at most ``late_infer_stock`` cards left, else
    ``infer_weight``. A pass tells against the hand held when it passed, and late in the
    hand many of the opponent's cards came after its passes: there the worlds undercut a
    knock far less often than the real opponent (issue 46; docs/strength.md, "Where the
    worlds are off")."""
    late = params[StrategyParam.MC_LATE_INFER_STOCK]
    if knock_open and late > 0 and stock_left <= late:
        return params[StrategyParam.MC_LATE_INFER_WEIGHT]
    return params[StrategyParam.MC_INFER_WEIGHT]


BUILD_SIMPLE = 0  # with infer: the least-deadwood build (built_hand_nb)
BUILD_MODEL = 1  # with infer: the world's model's discard (model_built_hand_nb)
BUILD_NONE = 2  # as without infer (a random model: its hand is any hand)


@njit(cache=True, inline="always")
def world_build_nb(params, model):
    """How world hands are built for a world played by the panel vector ``model``:
    by the model with ``panel_infer`` (a ``random`` model: as without infer), else as
    ``simple``."""
    if params[StrategyParam.MC_PANEL_INFER] == 0:
        return BUILD_SIMPLE
    if model[StrategyParam.KIND] == StrategyKind.RANDOM:
        return BUILD_NONE
    return BUILD_MODEL


@njit(cache=True, _nrt=False)
def sample_world_by_nb(
    params, masks, state, player, world_masks, world_state, cards, rng, model, build, weight,
    history,
):  # fmt: skip
    """A world consistent with ``player``'s view, into (world_masks, world_state).

    The unseen cards (not in its hand, the pile, or the cards the opponent is known to
    hold) are shuffled; the opponent's hidden cards are drawn from them and the rest,
    shuffled again, are the stock in order. Without ``infer`` the hidden cards are the
    first ones. With ``infer`` the opponent's hand is built as its model would have
    built it (``built_hand_nb``, one extra card per turn it has played), and a world is
    kept with probability ``weight ** contradicted passes`` (``infer_weight``, or the
    search's ``pass_weight_nb``; with ``infer_lowering`` the passes that would have lowered
    its deadwood, ``lowering_passes_nb``; with ``infer_timed`` each read against the hand
    held when it passed, dated by the memory row ``history``, ``timed_contradicted_passes_nb``),
    else drawn again (at most MAX_WORLD_TRIES; the
    last is kept). ``build``: BUILD_SIMPLE as just said;
    BUILD_MODEL the same with the family vector ``model``'s discard in the build
    (``model_built_hand_nb``); BUILD_NONE as without ``infer``.
    """
    opponent = 1 - player
    copy_position_nb(masks, state, world_masks, world_state)
    known = masks[_M.TAKEN + opponent]
    unseen = _ALL & ~masks[_M.HAND + player] & ~masks[_M.PILE] & ~known
    n_unseen = 0
    for card in range(52):
        if unseen & _bit(card):
            cards[n_unseen] = card
            n_unseen += 1
    hidden = HAND_SIZE - popcount_nb(known)
    infer = params[StrategyParam.MC_INFER] != 0 and build != BUILD_NONE
    extra = 0
    if infer:
        extra = min(state[_S.TURNS_BY + opponent], n_unseen - hidden)
    opp_passed = masks[_M.PASSED + opponent]
    lowering = params[StrategyParam.MC_INFER_LOWERING] != 0  # which passes tell (infer_lowering)
    timed = params[StrategyParam.MC_INFER_TIMED] != 0  # against which hand (infer_timed)
    opp_hand = known
    for attempt in range(MAX_WORLD_TRIES):
        _shuffle_nb(cards, 0, n_unseen, rng)
        if not infer:
            for j in range(hidden):
                opp_hand |= _bit(cards[j])
            break
        if build == BUILD_MODEL:
            opp_hand = model_built_hand_nb(
                model, known, cards, hidden, extra, masks[_M.PILE], masks[_M.TAKEN + player],
                masks[_M.PASSED + player],
            )  # fmt: skip
        else:
            opp_hand = built_hand_nb(known, cards, hidden, extra)
        if attempt == MAX_WORLD_TRIES - 1:
            break
        keep = 1.0
        if lowering:
            doubted = lowering_passes_nb(opp_hand, opp_passed, known)
        elif timed:
            doubted = timed_contradicted_passes_nb(
                opp_hand, opp_passed, known, cards, hidden, extra, history
            )
        else:
            doubted = contradicted_passes_nb(opp_hand, opp_passed)
        for _ in range(doubted):
            keep *= weight
        if np.float64(next_nb(rng, 0) >> np.uint64(11)) * _INV_2_53 < keep:
            break
    world_masks[_M.HAND + opponent] = opp_hand
    stock_pos = state[_S.STOCK_POS]
    n_stock = 0
    for j in range(n_unseen):  # the rest, in a fresh order, are the stock
        if not opp_hand & _bit(cards[j]):
            cards[n_stock] = cards[j]
            n_stock += 1
    if infer:  # the cards the built hand dropped must not sit on the stock's top
        _shuffle_nb(cards, 0, n_stock, rng)
    for j in range(stock_pos):  # dealt cards: nothing after the deal reads them
        if j != 20:  # but the record's upcard
            world_state[_S.DECK + j] = -1
    if state[_S.PHASE] != Phase.DISCARD:  # the opponent's last take: maybe a stock draw
        world_state[_S.TAKEN_CARD] = -1
    for j in range(n_stock):
        world_state[_S.DECK + stock_pos + j] = cards[j]


@njit(cache=True, inline="always")
def world_evidence_nb(params, state, player, memory):
    """Whether the worlds of ``player``'s search are drawn given the opponent's answered
    turn (panel_worlds): at the draw where the posterior was just updated and, after the
    take, at the discard decision of the same turn (the opponent's cards are the same).
    ``memory``: the player's memory row."""
    own_turns = state[_S.TURNS_BY + player] + (1 if state[_S.PHASE] == Phase.DRAW else 0)
    return (
        params[StrategyParam.MC_PANEL_WORLDS] != 0
        and state[_S.PHASE] != Phase.OFFER
        and memory[EVIDENCE_TURN] == own_turns
    )


@njit(cache=True, _nrt=False)
def search_world_nb(params, masks, state, rules, undercut_table, player, world_masks,
                    world_state, cards, rng, idle, memory, panel, world, pass_weight,
                    evidence, to_close):  # fmt: skip
    """World ``world`` of a search, into (world_masks, world_state), as the search draws
    it; returns the offset in ``params`` of the family vector that plays its opponent.

    With a panel (``panel`` models, the posterior in ``memory``, the player's row) the
    world's model is the posterior quantile of ``panel_model_nb`` and builds the world
    (``world_build_nb``); without one, ``opponent``. ``pass_weight`` weighs a contradicted
    pass (``pass_weight_nb``). With ``evidence`` (panel_worlds, after the opponent's
    answered turn) a world of a family model is kept with its likelihood of that turn,
    else drawn again (at most PANEL_WORLD_TRIES, the last kept): (model, hidden cards)
    from the joint posterior."""
    opponent = 1 - player
    build = BUILD_SIMPLE
    base = StrategyParam.MC_OPPONENT
    if panel > 0:  # this world's opponent: a model drawn from the posterior
        base = StrategyParam.MC_PANEL + panel_model_nb(memory, panel, world) * FAMILY_PARAMS
        build = world_build_nb(params, params[base : base + FAMILY_PARAMS])
    model = params[base : base + FAMILY_PARAMS]
    sample_world_by_nb(
        params, masks, state, player, world_masks, world_state, cards, rng, model, build,
        pass_weight, memory,
    )  # fmt: skip
    if panel > 0 and evidence and model[StrategyParam.KIND] != StrategyKind.RANDOM:
        for _ in range(PANEL_WORLD_TRIES - 1):
            like = turn_likelihood_nb(
                model, world_masks[_M.HAND + opponent], memory, rules, undercut_table, idle,
                opponent, to_close,
            )  # fmt: skip
            if np.float64(next_nb(rng, 0) >> np.uint64(11)) * _INV_2_53 < like:
                break
            sample_world_by_nb(
                params, masks, state, player, world_masks, world_state, cards, rng, model,
                build, pass_weight, memory,
            )  # fmt: skip
    return base


@njit(cache=True, _nrt=False)
def prior_nb(params, panel, memory):
    """The panel's prior, normalized, into the posterior slots of a seat's ``memory``."""
    total = 0.0
    for m in range(panel):
        total += params[StrategyParam.MC_PANEL_PRIOR + m]
    for m in range(panel):
        memory[m] = params[StrategyParam.MC_PANEL_PRIOR + m] / total
    memory[MEMORY_KNOWN] = 1.0


@njit(cache=True, _nrt=False)
def panel_model_nb(posterior, panel, world):
    """The model that plays the opponent in world ``world``: the first whose cumulative
    posterior passes the quantile frac(0.5 + world * GOLDEN_STEP), so the worlds share out
    the models in proportion to the posterior, the screening worlds too."""
    u = 0.5 + world * GOLDEN_STEP
    u -= np.floor(u)
    cumulative = 0.0
    for m in range(panel):
        cumulative += posterior[m]
        if u < cumulative:
            return m
    return panel - 1  # rounding: the sum may fall a little short of 1


@njit(cache=True, _nrt=False)
def turn_likelihood_nb(model, hand, evidence, rules, undercut_table, idle, opponent, to_close):
    """The likelihood under the family (or random) vector ``model`` of the opponent's
    answered turn (the EVIDENCE_ slots of a seat's memory row ``evidence``), had it held
    ``hand`` (10 cards, now): it took the searcher's discard from the pile or drew from
    the stock, then discarded. Not whether it knocked: with a sampled hand that evidence
    is biased (the worlds are not drawn given that it never knocked, so they hold less
    deadwood than its real hands, and every model that knocks early would lose mass); the
    knock is read at the showdown, from the shown cards (``last_turn_likelihood_nb``).
    docs/strategies.md, "Opponent panel"."""
    answered = np.int64(evidence[EVIDENCE_ANSWERED])
    discard = np.int64(evidence[EVIDENCE_DISCARD])
    took = evidence[EVIDENCE_TOOK] != 0.0
    pile = np.uint64(evidence[EVIDENCE_PILE])
    own_taken = np.uint64(evidence[EVIDENCE_OWN_TAKEN])
    whole = hand | _bit(discard)  # its 11 cards before the discard
    may_discard_taken = rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0
    big_gin = rules[RuleParam.BIG_GIN_BONUS] > 0 and min_deadwood_nb(whole) == 0
    if model[StrategyParam.KIND] == StrategyKind.RANDOM:
        chance = 0.5  # a coin for the take, either way
        if big_gin:
            chance *= 0.5  # a coin declined big gin
        blocked = answered if took and not may_discard_taken else -1
        legal = popcount_nb(whole & ~_bit(blocked)) if blocked >= 0 else popcount_nb(whole)
        return chance / legal
    chance = 1.0
    # The take: with its hand then when it took the card; after a stock draw its hand then
    # is unknown (it held the drawn card instead of one of these), so its hand now stands in.
    # The stock then held the card it drew, if it drew (a take schedule reads it).
    before = whole & ~_bit(answered) if took else hand
    stock_then = np.int64(evidence[EVIDENCE_STOCK_LEFT]) + (0 if took else 1)
    takes = takes_top_nb(
        model, before, answered, pile | _bit(answered), own_taken, stock_then, idle, opponent
    )
    if takes != took:
        chance *= PANEL_EPSILON
    if big_gin:  # the family declares it whenever it may
        return chance * PANEL_EPSILON
    card, _ = answered_turn_decision_nb(
        model, whole, evidence, rules, undercut_table, idle, opponent, to_close
    )
    if card != discard:  # a model that would knock discards its knock card
        chance *= PANEL_EPSILON
    return chance


@njit(cache=True, _nrt=False)
def answered_turn_decision_nb(model, whole, evidence, rules, undercut_table, idle, opponent,
                              to_close):  # fmt: skip
    """The family vector ``model``'s (discard, knock?) with the 11 cards ``whole`` at the
    opponent's answered turn (the EVIDENCE_ slots of ``evidence``)."""
    took = evidence[EVIDENCE_TOOK] != 0.0
    return discard_or_knock_nb(
        model,
        whole,
        np.int64(evidence[EVIDENCE_ANSWERED]) if took else -1,
        rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0,
        np.uint64(evidence[EVIDENCE_PILE]),
        np.uint64(evidence[EVIDENCE_OWN_TAKEN]),
        np.uint64(evidence[EVIDENCE_OWN_PASSED]),
        np.int64(evidence[EVIDENCE_STOCK_LEFT]),
        np.int64(evidence[EVIDENCE_OWN_TURNS]),
        np.int64(evidence[EVIDENCE_LIMIT]),
        undercut_table,
        idle,
        opponent,
        to_close,
    )


@njit(cache=True, _nrt=False)
def last_turn_likelihood_nb(model, hand, evidence, rules, undercut_table, idle, opponent,
                            to_close):  # fmt: skip
    """The likelihood under ``model`` that the opponent did not knock at its answered turn
    (``evidence``), from its 10 cards ``hand`` shown at the searcher's knock: exact, since
    it has not drawn since. A family model: PANEL_EPSILON if it would have knocked (or
    declared big gin, R14), else 1; ``random``: 1/2 for the coin that declined a knock
    its deadwood allowed (R12), else 1."""
    whole = hand | _bit(np.int64(evidence[EVIDENCE_DISCARD]))
    if model[StrategyParam.KIND] == StrategyKind.RANDOM:
        return 0.5 if min_deadwood_nb(hand) <= evidence[EVIDENCE_LIMIT] else 1.0
    if rules[RuleParam.BIG_GIN_BONUS] > 0 and min_deadwood_nb(whole) == 0:
        return PANEL_EPSILON  # counted at the draw already: the family declares big gin
    _, knock = answered_turn_decision_nb(
        model, whole, evidence, rules, undercut_table, idle, opponent, to_close
    )
    return PANEL_EPSILON if knock else 1.0


@njit(cache=True, _nrt=False)
def remember_turn_nb(masks, state, player, memory):
    """The opponent's turn that answered the searcher's last discard, as public facts at
    its discard, into the EVIDENCE_ slots of the searcher's memory row ``memory``."""
    opponent = 1 - player
    answered = np.int64(memory[MEMORY_DISCARD])
    discard = state[_S.PILE + state[_S.PILE_SIZE] - 1]  # its discard, on top of the pile
    memory[EVIDENCE_TURN] = state[_S.TURNS_BY + player] + 1
    memory[EVIDENCE_ANSWERED] = answered
    memory[EVIDENCE_DISCARD] = discard
    # It took the searcher's discard if it holds it, or threw it straight back (R11 allows
    # that under may_discard_drawn_upcard); else the card lies under its discard.
    took = masks[_M.TAKEN + opponent] & _bit(answered) != 0 or discard == answered
    memory[EVIDENCE_TOOK] = 1.0 if took else 0.0
    memory[EVIDENCE_PILE] = np.float64(masks[_M.PILE] & ~_bit(discard))
    memory[EVIDENCE_OWN_TAKEN] = np.float64(masks[_M.TAKEN + player])
    memory[EVIDENCE_OWN_PASSED] = np.float64(masks[_M.PASSED + player])
    memory[EVIDENCE_STOCK_LEFT] = 52 - state[_S.STOCK_POS]
    memory[EVIDENCE_OWN_TURNS] = state[_S.TURNS_BY + player]
    memory[EVIDENCE_LIMIT] = state[_S.LIMIT]


@njit(cache=True, _nrt=False)
def bayes_nb(posterior, likes, panel):
    """Bayes' rule: the first ``panel`` slots of ``posterior`` times ``likes``, normalized
    (the reference's ``OpponentPanel._multiply``, in the same order of operations)."""
    total = 0.0
    for m in range(panel):
        posterior[m] *= likes[m]
        total += posterior[m]
    for m in range(panel):
        posterior[m] /= total


@njit(cache=True, _nrt=False)
def offer_seen_nb(masks, state, player):
    """What ``player``'s position shows of the opponent's choice at the opening upcard
    offer (R7 to R9), from public facts and its own cards only (a ``Decider`` position has
    no deal nor first taker, and may not name a stock draw): (status, upcard, took).
    Status 0: not yet known (the player is the non-dealer at its own offer: the opponent's
    comes after a decline); 1: read it; 2: nothing to read (the player took the upcard
    first as the non-dealer, or the hand is past its first turns).

    - The player deals, neither has had a turn (its offer, R8): the opponent declined the
      pile's one card.
    - The player has had one turn, the opponent none: as the dealer it took the upcard the
      opponent had declined (the card it took from the pile); as the non-dealer, a stock
      draw means both declined (R9: the pile's bottom card), a pile take that it took the
      upcard first.
    - The opponent has had one turn, the player none: a take from the pile so far means
      the opponent took the upcard (the card it took and holds, or, if it threw it
      straight back (R11), its discard); none, that it declined and drew (R9)."""
    opponent = 1 - player
    own = state[_S.TURNS_BY + player]
    opp = state[_S.TURNS_BY + opponent]
    dealer = state[_S.DEALER] == player
    if own == 0 and opp == 0:
        if not dealer:
            return 0, -1, False
        return 1, state[_S.PILE], False
    if own == 1 and opp == 0 and state[_S.PHASE] == Phase.DISCARD:
        if state[_S.FROM_PILE] == 0:  # R9: the non-dealer's stock draw
            return 1, state[_S.PILE], False
        if dealer:
            return 1, lowest_card_nb(masks[_M.TAKEN + player]), False
        return 2, -1, False
    if own == 0 and opp == 1:
        if state[_S.TAKES] == 0:
            return 1, state[_S.PILE], False
        held = masks[_M.TAKEN + opponent]
        upcard = lowest_card_nb(held) if held else state[_S.PILE]
        return 1, upcard, True
    return 2, -1, False


@njit(cache=True, _nrt=False)
def offer_update_nb(params, masks, state, player, search, panel):
    """``panel_offer``: Bayes' rule on the opponent's choice at the opening offer, once a
    hand, at the first search of ``player``'s that shows it (``offer_seen_nb``). Its hand
    then is hidden: each model's likelihood (a family model: 1 if it would have made the
    same choice, ``takes_top_nb`` as at the offer, else PANEL_EPSILON; ``random``: 1/2) is
    the mean over OFFER_WORLDS hands of 10 of the cards that are neither the player's now
    (it held them at the deal, or took them since: the upcard or a stock card, neither in
    the opponent's hand then) nor the upcard: the uniform prior of its hand then, given
    what the player knows. The hands are shuffled from a stream keyed by those cards of
    its own and the upcard alone, so the reading is a function of the view (and of no
    search's stream). docs/strategies.md, "Opponent panel", **The opening offer**."""
    memory = search[17]
    row = memory[player]
    if row[MEMORY_OFFER] != 0.0:
        return
    status, upcard, took = offer_seen_nb(masks, state, player)
    if status == 0:
        return
    row[MEMORY_OFFER] = 1.0
    if status == 2:
        return
    cards = search[4]
    rng = search[9]
    idle = search[10]
    likes = search[18]
    opponent = 1 - player
    pile = _bit(upcard)
    own = masks[_M.HAND + player]
    pool = _ALL & ~own & ~pile
    n = 0
    rest = pool
    while rest:
        cards[n] = lowest_card_nb(rest)
        rest &= rest - _ONE
        n += 1
    saved = rng[0]
    rng[0] = splitmix64_nb(own | (np.uint64(upcard + 1) << np.uint64(52)))
    for m in range(panel):
        likes[m] = 0.0
    for _ in range(OFFER_WORLDS):
        _shuffle_nb(cards, 0, n, rng)
        hand = np.uint64(0)
        for j in range(HAND_SIZE):
            hand |= _bit(cards[j])
        for m in range(panel):
            base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
            model = params[base : base + FAMILY_PARAMS]
            if model[StrategyParam.KIND] == StrategyKind.RANDOM:
                likes[m] += 0.5  # a coin for the take, either way
            elif takes_top_nb(model, hand, upcard, pile, _NONE, 52 - 21, idle, opponent) == took:
                likes[m] += 1.0
            else:
                likes[m] += PANEL_EPSILON
    rng[0] = saved
    for m in range(panel):
        likes[m] /= OFFER_WORLDS
    bayes_nb(row, likes, panel)


@njit(cache=True, _nrt=False)
def update_posterior_nb(params, masks, state, rules, undercut_table, player, search, panel):
    """Bayes' rule on the panel after the opponent's turn, at the searcher's draw: each
    model's likelihood of that turn is its mean over EVIDENCE_WORLDS worlds sampled as the
    search samples them (from the search's stream, before its own worlds). The turn stays
    in the memory row (``remember_turn_nb``) for the worlds of this turn's searches."""
    (world_masks, world_state, _, _, cards, _, _, _, _, rng, idle, _, _, _, _, _, _, memory,
     likes) = search  # fmt: skip
    opponent = 1 - player
    remember_turn_nb(masks, state, player, memory[player])
    to_close = points_to_close_nb(state, rules, opponent)  # the score is public
    for m in range(panel):
        likes[m] = 0.0
    simple = params[StrategyParam.MC_OPPONENT : StrategyParam.MC_OPPONENT + FAMILY_PARAMS]
    for _ in range(EVIDENCE_WORLDS):
        sample_world_by_nb(
            params, masks, state, player, world_masks, world_state, cards, rng, simple,
            BUILD_SIMPLE, params[StrategyParam.MC_INFER_WEIGHT], memory[player],
        )  # fmt: skip
        hand = world_masks[_M.HAND + opponent]
        for m in range(panel):
            base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
            likes[m] += turn_likelihood_nb(
                params[base : base + FAMILY_PARAMS], hand, memory[player], rules,
                undercut_table, idle, opponent, to_close,
            )  # fmt: skip
    for m in range(panel):
        likes[m] /= EVIDENCE_WORLDS
    bayes_nb(memory[player], likes, panel)


@njit(cache=True, _nrt=False)
def knock_likelihood_nb(model, whole, discard, forbidden, pile, masks, state, rules,
                        undercut_table, idle, watcher):  # fmt: skip
    """The likelihood under the family (or random) vector ``model`` of the knock that
    ended the hand: with the 11 cards ``whole`` shown, it knocked with ``discard`` (-1:
    big gin, R14); ``forbidden`` the card it took from the pile that turn (or -1), ``pile``
    the pile's cards then; the rest of its view as the position at the end of the hand
    (``watcher``'s shown cards, the stock, the turns, the limit and the score, which the
    knock did not change). A family model: 1 if it would also knock (big gin: declare
    it), else PANEL_EPSILON; the discard card carries no evidence, since every family
    knocks with the same card (the least-deadwood discard). ``random``: its odds."""
    knocker = 1 - watcher
    big_gin_open = rules[RuleParam.BIG_GIN_BONUS] > 0 and min_deadwood_nb(whole) == 0
    if model[StrategyParam.KIND] == StrategyKind.RANDOM:
        if discard < 0:
            return 0.5  # a coin declared big gin
        chance = 0.5 if big_gin_open else 1.0  # a coin declined big gin
        may_discard_taken = rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0
        blocked = forbidden if not may_discard_taken else -1
        legal = popcount_nb(whole & ~_bit(blocked)) if blocked >= 0 else popcount_nb(whole)
        return chance / legal * 0.5  # its discard, then a coin to knock
    if discard < 0 or big_gin_open:  # the family declares big gin whenever it may
        return 1.0 if discard < 0 else PANEL_EPSILON
    _, knock = discard_or_knock_nb(
        model,
        whole,
        forbidden,
        rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0,
        pile,
        masks[_M.TAKEN + watcher],
        masks[_M.PASSED + watcher],
        52 - state[_S.STOCK_POS],
        state[_S.TURNS_BY + watcher],
        state[_S.LIMIT],
        undercut_table,
        idle,
        knocker,
        points_to_close_nb(state, rules, knocker),
    )
    return 1.0 if knock else PANEL_EPSILON


@njit(cache=True, _nrt=False)
def own_knock_update_nb(masks, state, rules, strategies, undercut_table, search):
    """A searcher with a panel knocked (or went gin, or declared big gin): the opponent's
    10 cards are shown, its cards since its answered turn of this round (the EVIDENCE_
    slots, read at the searcher's draw this turn), so whether it would have knocked then
    is known exactly: the posterior is multiplied by each model's likelihood of not
    knocking (``last_turn_likelihood_nb``) and normalized."""
    knocker = state[_S.KNOCKER]
    params = strategies[knocker]
    panel = np.int64(params[StrategyParam.MC_PANEL_SIZE])
    if params[StrategyParam.KIND] != StrategyKind.MC or panel == 0:
        return
    row = search[17][knocker]
    if row[MEMORY_KNOWN] == 0.0 or row[EVIDENCE_TURN] != state[_S.TURNS_BY + knocker]:
        return  # no answered turn read this turn (its first turn, or after an offer)
    opponent = 1 - knocker
    idle = search[10]
    likes = search[18]
    to_close = points_to_close_nb(state, rules, opponent)  # the score is public
    for m in range(panel):
        base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
        likes[m] = last_turn_likelihood_nb(
            params[base : base + FAMILY_PARAMS], masks[_M.HAND + opponent], row, rules,
            undercut_table, idle, opponent, to_close,
        )  # fmt: skip
    bayes_nb(row, likes, panel)


@njit(cache=True, _nrt=False)
def showdown_update_nb(masks, state, rules, strategies, undercut_table, search):
    """At the end of a hand the opponent ended by a knock, gin or big gin (R12 to R14), its
    cards are shown: a searcher with a panel multiplies its posterior by each model's
    likelihood of that knock (``knock_likelihood_nb``) and normalizes. Call it before
    ``new_hand_nb``; it matters only where the posterior is kept across hands."""
    knocker = state[_S.KNOCKER]
    if state[_S.PHASE] != Phase.OVER or knocker < 0:
        return
    own_knock_update_nb(masks, state, rules, strategies, undercut_table, search)
    watcher = 1 - knocker
    params = strategies[watcher]
    panel = np.int64(params[StrategyParam.MC_PANEL_SIZE])
    if params[StrategyParam.KIND] != StrategyKind.MC or panel == 0:
        return
    memory = search[17]
    idle = search[10]
    likes = search[18]
    if memory[watcher, MEMORY_KNOWN] == 0.0:
        prior_nb(params, panel, memory[watcher])
    whole = masks[_M.HAND + knocker]
    pile = masks[_M.PILE]
    discard = -1
    if state[_S.BIG_GIN] == 0:  # its knock discard lies face up on the pile (R10, R12)
        discard = state[_S.PILE + state[_S.PILE_SIZE] - 1]
        whole |= _bit(discard)
        pile &= ~_bit(discard)
    forbidden = state[_S.TAKEN_CARD] if state[_S.FROM_PILE] else -1
    for m in range(panel):
        base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
        likes[m] = knock_likelihood_nb(
            params[base : base + FAMILY_PARAMS], whole, discard, forbidden, pile, masks, state,
            rules, undercut_table, idle, watcher,
        )  # fmt: skip
    bayes_nb(memory[watcher], likes, panel)
    if params[StrategyParam.MC_PANEL_KNOCK_TURN] != 0.0:
        knock_turn_update_nb(
            params, panel, whole, discard, pile, masks, state, rules, undercut_table, idle,
            watcher, memory[watcher], likes,
        )  # fmt: skip


@njit(cache=True, _nrt=False)
def knock_turn_update_nb(params, panel, whole, discard, pile, masks, state, rules,
                         undercut_table, idle, watcher, row, likes):  # fmt: skip
    """``panel_knock_turn``: the opponent's knocking turn, read from its 11 cards ``whole``
    shown at the showdown (``discard`` its knock card, -1 after big gin; ``pile`` the
    pile's cards after its take, without ``discard``). Its hand at that turn's take was
    ``whole`` less the card ``c`` it took: the pile's top if it took it (public), else one
    of its cards not known to have come from the pile, each alike. Given ``c``, each model's
    likelihood is that of the take (a family model: PANEL_EPSILON if it would have done the
    other, ``takes_top_nb`` on the top it took or declined; ``random``: 1/2) times, if the
    opponent's turn before was read at the watcher's last draw (the EVIDENCE_ slots of its
    memory ``row``), that of its not knocking then with ``whole`` less ``c``
    (``last_turn_likelihood_nb``: it has not drawn since but ``c``). The mean over the
    possible ``c`` multiplies the posterior (Bayes' rule, normalized). docs/strategies.md,
    "Opponent panel", **The knocking turn**."""
    knocker = 1 - watcher
    from_pile = state[_S.FROM_PILE] != 0
    if from_pile:
        top = state[_S.TAKEN_CARD]
        before_pile = pile | _bit(top)  # the pile then held the card it took
        possible = _bit(top)
    else:  # the top it declined lies under its knock discard (after big gin: on top)
        size = state[_S.PILE_SIZE] - (0 if discard < 0 else 1)
        top = state[_S.PILE + size - 1] if size > 0 else -1
        before_pile = pile
        # The stock card it drew: any of its cards but those it took from the pile (the
        # knock discard always counted, as the pile-taken cards it still holds are known).
        taken = masks[_M.TAKEN + knocker]
        if discard >= 0:
            taken &= ~_bit(discard)
        possible = whole & ~taken
    read_last = row[MEMORY_KNOWN] != 0.0 and row[EVIDENCE_TURN] == state[_S.TURNS_BY + watcher]
    stock_then = 52 - state[_S.STOCK_POS] + (0 if from_pile else 1)
    to_close = points_to_close_nb(state, rules, knocker)
    for m in range(panel):
        likes[m] = 0.0
    n = 0
    rest = possible
    while rest:
        c = lowest_card_nb(rest)
        rest &= rest - _ONE
        before = whole & ~_bit(c)
        n += 1
        for m in range(panel):
            base = StrategyParam.MC_PANEL + m * FAMILY_PARAMS
            model = params[base : base + FAMILY_PARAMS]
            like = 1.0
            if top >= 0:
                if model[StrategyParam.KIND] == StrategyKind.RANDOM:
                    like = 0.5  # a coin for the take, either way
                elif takes_top_nb(
                    model, before, top, before_pile, masks[_M.TAKEN + watcher], stock_then,
                    idle, knocker,
                ) != from_pile:  # fmt: skip
                    like = PANEL_EPSILON
            if read_last:
                like *= last_turn_likelihood_nb(
                    model, before, row, rules, undercut_table, idle, knocker, to_close
                )
            likes[m] += like
    if n == 0:
        return
    for m in range(panel):
        likes[m] /= n
    bayes_nb(row, likes, panel)


@njit(cache=True, _nrt=False)
def credit_score_nb(score, games, target, winner, points):
    """R19, R20 on ``score`` int64[12] (points, then entered; player * 3 + game): credit a
    won hand as ``kernels.match.credit_nb`` does. A game has ended when a column reached
    the target."""
    for game in range(games):
        open_game = score[game] < target and score[3 + game] < target
        if score[6 + 3 * winner + game] and open_game:
            score[3 * winner + game] += points
    for game in range(games):  # R19: the win enters the first open game not yet entered
        open_game = score[game] < target and score[3 + game] < target
        if not score[6 + 3 * winner + game] and open_game:
            score[6 + 3 * winner + game] = 1
            score[3 * winner + game] += points
            break


@njit(cache=True, _nrt=False)
def score_equity_nb(score, games, target, table, player, dealer, value):
    """``player``'s equity at ``score`` (as ``credit_score_nb``) with ``dealer`` to deal
    the next hand, from its value vector ``table`` (``kernels/match_value.py``). ``value``
    GAME: the games it is expected to win, each column's chance 1 or 0 when the game has
    ended, else the game table's; MATCH: the chance of winning the match, from the joint
    table of the three columns (a plain game: its game chance)."""
    side = 0 if dealer == player else 1
    if value == SearchValue.MATCH and games == 3:
        equity = match_equity_nb(table, score, player, side)
        if equity >= 0.0:
            return equity
        # A score the match's phases do not hold (a hand-made start): independent columns.
    opponent = 1 - player
    total = 0.0
    first = second = third = 0.0
    for game in range(games):
        mine = score[3 * player + game]
        theirs = score[3 * opponent + game]
        if mine >= target:
            chance = 1.0
        elif theirs >= target:
            chance = 0.0
        else:
            chance = game_chance_nb(table, mine, theirs, side)
        total += chance
        if game == 0:
            first = chance
        elif game == 1:
            second = chance
        else:
            third = chance
    if value == SearchValue.GAME or games != 3:
        return total
    both = first * second
    return both + first * third + second * third - 2.0 * both * third


@njit(cache=True, _nrt=False)
def load_score_nb(state, score):
    """The position's score slots into ``score`` int64[12]."""
    for j in range(6):
        score[j] = state[_S.SCORE_POINTS + j]
        score[6 + j] = state[_S.SCORE_ENTERED + j]


@njit(cache=True, inline="always", _nrt=False)
def search_nb(params, masks, state, rules, undercut_table, equity, streams, player, search):
    """The mc decision of ``player`` at this position; the search's figures stay in
    ``search`` (candidates, value sums and squares, counts) for replay to explain. With
    screening they are over the worlds after it, on which the choice is made. A searcher
    with an opponent panel remembers its discard, for its next search to read the
    opponent's answer to it."""
    if params[StrategyParam.MC_INFER_TIMED] != 0:  # its passes dated, for the worlds
        record_history_nb(masks, state, player, search[17][player])
    action = _search_nb(
        params, masks, state, rules, undercut_table, equity, streams, player, search, True
    )
    if params[StrategyParam.MC_PANEL_SIZE] > 0 and state[_S.PHASE] == Phase.DISCARD:
        memory = search[17]
        memory[player, MEMORY_DISCARD] = action & ACTION_CARD
        memory[player, MEMORY_TURN] = state[_S.TURNS_BY + player] + 1
    return action


@njit(cache=True, _nrt=False)
def search_worlds_nb(params, masks, state, rules, undercut_table, equity, streams, player, search):
    """``search_nb``'s work at this position without its rollouts: its candidates, its
    posterior's update and every world it would draw, as it draws them (the same streams;
    with no figures the screening stops nothing, so every world of ``samples`` is drawn).
    What a search spends outside its rollouts (bench/levers/world_time.py)."""
    _search_nb(params, masks, state, rules, undercut_table, equity, streams, player, search, False)


@njit(cache=True, _nrt=False)
def _search_nb(
    params, masks, state, rules, undercut_table, equity, streams, player, search, rollouts
):  # fmt: skip
    (world_masks, world_state, roll_masks, roll_state, cards, candidates, sums, squares,
     policies, rng, idle, chains, result, counts, gains, gain_squares, score, memory,
     _) = search  # fmt: skip
    n = candidates_nb(
        params, masks, state, rules, undercut_table, idle, player, candidates, cards, gains
    )
    counts[0] = n
    counts[1] = 0
    counts[2] = 0
    counts[3] = n
    counts[4] = n
    if n == 1:
        return candidates[0]
    opponent = 1 - player
    knock_open = False
    for c in range(n):
        if candidates[c] & ACTION_KNOCK:
            knock_open = True
    own = StrategyParam.MC_ROLLOUT
    if knock_open and params[StrategyParam.MC_KNOCK_ROLLOUT_ON] != 0.0:
        own = StrategyParam.MC_KNOCK_ROLLOUT  # a knock is open: its own continuation
    pass_weight = pass_weight_nb(params, 52 - state[_S.STOCK_POS], knock_open)
    for j in range(FAMILY_PARAMS):
        policies[player, j] = params[own + j]
        policies[opponent, j] = params[StrategyParam.MC_OPPONENT + j]
    rng[0] = next_nb(streams, player)  # one number per search: a function of the view
    panel = np.int64(params[StrategyParam.MC_PANEL_SIZE])
    evidence = False  # the worlds' hidden cards drawn given the opponent's answered turn
    to_close = 0
    if panel > 0:
        if memory[player, MEMORY_KNOWN] == 0.0:
            prior_nb(params, panel, memory[player])
        if params[StrategyParam.MC_PANEL_OFFER] != 0.0:  # its choice at the opening offer
            offer_update_nb(params, masks, state, player, search, panel)
        # The opponent's turn since this searcher's last discard (a draw decision follows
        # exactly one turn of the opponent's).
        answered = memory[player, MEMORY_TURN] == state[_S.TURNS_BY + player] + 1
        if state[_S.PHASE] == Phase.DRAW and answered:
            update_posterior_nb(params, masks, state, rules, undercut_table, player, search, panel)
        memory[player, MEMORY_TURN] = 0.0
        evidence = world_evidence_nb(params, state, player, memory[player])
        to_close = points_to_close_nb(state, rules, opponent)
    for c in range(n):
        sums[c] = 0.0
        squares[c] = 0.0
        gains[c] = 0.0
        gain_squares[c] = 0.0
    value_kind = np.int64(params[StrategyParam.MC_VALUE])
    games = state[_S.SCORE_GAMES]
    by_score = value_kind != SearchValue.HAND and games > 0  # a plain hand has no score
    target = rules[RuleParam.GAME_TARGET]
    table = equity[player]
    before = 0.0
    if by_score:
        load_score_nb(state, score)
        before = score_equity_nb(score, games, target, table, player, state[_S.DEALER], value_kind)
    samples = np.int64(params[StrategyParam.MC_SAMPLES])
    if state[_S.PHASE] != Phase.DISCARD and params[StrategyParam.MC_DRAW_SAMPLES] > 0:
        samples = np.int64(params[StrategyParam.MC_DRAW_SAMPLES])  # take or not: draw_samples
    stock_left = 52 - state[_S.STOCK_POS]
    late = params[StrategyParam.MC_LATE_STOCK]
    if late > 0 and stock_left <= late:  # few cards left: a deeper search
        samples = np.int64(params[StrategyParam.MC_LATE_SAMPLES])
    if knock_open and params[StrategyParam.MC_KNOCK_SAMPLES] > 0:  # a knock decision: deeper
        samples = np.int64(params[StrategyParam.MC_KNOCK_SAMPLES])
    screen = np.int64(params[StrategyParam.MC_SCREEN])
    keep = np.int64(params[StrategyParam.MC_CANDIDATES])
    undercut_weight = params[StrategyParam.MC_UNDERCUT_WEIGHT]
    undercut_stock = params[StrategyParam.MC_UNDERCUT_STOCK]
    if undercut_stock > 0 and stock_left > undercut_stock:
        undercut_weight = 1.0  # priced up late only: early knocks are rarely undercut
    extend = np.int64(params[StrategyParam.MC_EXTEND_SAMPLES])
    confidence = params[StrategyParam.MC_CONFIDENCE]
    early = np.int64(params[StrategyParam.MC_EARLY_SCREEN])
    early_keep = np.int64(params[StrategyParam.MC_EARLY_KEEP])
    bottom = player if params[StrategyParam.MC_PAIRED_DRAWS] != 0 else -1  # paired_draws
    start = 0  # the first world of the figures and the choice (after the screening)
    total = samples  # the worlds to play, more if the choice is undecided (extend)
    world = 0
    while world < total:
        if world == screen and screen > 1 and world < samples:
            # the screened-out candidates play no more worlds
            n = screen_nb(n, keep, world, candidates, sums, squares, gains, gain_squares)
            if n == 1:  # the first is clearly best: the search stops here
                break
            # The survivors were picked for doing well on these worlds: the choice is made
            # on the worlds still to come, which the screening did not see.
            start = world
            for c in range(n):
                sums[c] = 0.0
                squares[c] = 0.0
                gains[c] = 0.0
                gain_squares[c] = 0.0
        base = search_world_nb(
            params, masks, state, rules, undercut_table, player, world_masks, world_state,
            cards, rng, idle, memory[player], panel, world, pass_weight, evidence, to_close,
        )  # fmt: skip
        seed = np.uint64(0)
        if panel > 0:
            for j in range(FAMILY_PARAMS):
                policies[opponent, j] = params[base + j]
            seed = next_nb(rng, 0)  # a random model's stream, the same for every candidate
        first = 0.0
        played = n if rollouts else 0  # search_worlds_nb: the worlds alone
        counts[2] += played
        for c in range(played):
            if panel > 0:
                idle[opponent] = seed
            copy_position_nb(world_masks, world_state, roll_masks, roll_state)
            apply_drawing_nb(roll_masks, roll_state, rules, candidates[c], bottom)
            play_out_drawing_nb(
                roll_masks, roll_state, rules, policies, undercut_table, idle, bottom
            )  # fmt: skip
            value = np.float64(hand_value_nb(roll_masks, roll_state, rules, chains, result, player))
            if by_score:
                change = score_value_nb(
                    state, score, games, target, table, player, result, value_kind, before
                )
                value = change + POINT_TIE_BREAK * value
            if undercut_weight > 1.0 and candidates[c] & ACTION_KNOCK and result[3] != 0:
                value *= undercut_weight  # the knock was undercut: its loss priced up
            if c == 0:
                first = value
            sums[c] += value
            squares[c] += value * value
            gains[c] += value - first
            gain_squares[c] += (value - first) * (value - first)
        world += 1
        if world == early and early < screen and world < samples:
            # The screening's first cut: most discards are clearly out after a few worlds,
            # so only the early_keep best (and every knock) play the rest of it. Their sums
            # go on from these worlds: all of them have played the same ones.
            n = screen_nb(n, early_keep, world, candidates, sums, squares, gains, gain_squares)
            counts[4] = n
            if n == 1:  # the first is clearly best
                break
        # An undecided choice looks again: the best gain within one standard error of the
        # confidence line, where more worlds are likeliest to change the choice.
        once = world == samples and total == samples and extend > 0 and n > 1
        if once and undecided_nb(n, samples - start, confidence, gains, gain_squares):
            total = samples + extend
    worlds = world - start
    counts[0] = n
    counts[1] = worlds
    return candidates[choose_nb(params, n, worlds, gains, gain_squares)]


@njit(cache=True, _nrt=False)
def score_value_nb(state, score, games, target, table, player, result, value_kind, before):
    """The change in ``player``'s equity from ``before`` to the score after the hand
    scored in ``result`` (``score_nb``): the winner is credited (R19, R20) and deals next
    (R5); after a hand that scores nothing the same dealer deals again."""
    load_score_nb(state, score)
    dealer = state[_S.DEALER]
    winner = result[0]
    if winner >= 0:
        credit_score_nb(score, games, target, winner, result[1])
        dealer = winner
    return score_equity_nb(score, games, target, table, player, dealer, value_kind) - before


@njit(cache=True, _nrt=False)
def mean_gain_nb(gain, gain_square, worlds):
    """(mean, standard error) of a candidate's gain over the first, paired by world, from
    the sums of the gain and of its square over ``worlds`` (2 or more) worlds."""
    mean = gain / worlds
    variance = (gain_square - worlds * mean * mean) / (worlds - 1)
    return mean, np.sqrt(max(variance, 0.0) / worlds)


@njit(cache=True, _nrt=False)
def clearly_worse_nb(gain, gain_square, worlds):
    """Whether a candidate's mean gain over the first is below 0 by more than
    DROP_ERRORS standard errors (paired by world) after ``worlds`` worlds."""
    mean, error = mean_gain_nb(gain, gain_square, worlds)
    return mean + DROP_ERRORS * error < 0.0


@njit(cache=True, _nrt=False)
def screen_nb(n, keep, worlds, candidates, sums, squares, gains, gain_squares):
    """After the screening worlds: drop every candidate clearly worse than the first
    (``clearly_worse_nb``), then keep of the other discards (not knocks) the ``keep`` with
    the best value sums (ties: earlier). The survivors move to the front in order, the
    dropped ones after them in order with their figures as they were (for advice to show
    why they went); returns how many survive."""
    alive = np.uint64(1)  # bit c: candidate c is not clearly worse than the first
    for c in range(1, n):
        if not clearly_worse_nb(gains[c], gain_squares[c], worlds):
            alive |= _ONE << np.uint64(c)
    stays = np.uint64(1)
    for c in range(1, n):
        if not alive & (_ONE << np.uint64(c)):
            continue
        if candidates[c] & ACTION_KNOCK:
            stays |= _ONE << np.uint64(c)
            continue
        better = 0  # alive discards ranked above this one
        for d in range(1, n):
            rival = d != c and alive & (_ONE << np.uint64(d)) and not candidates[d] & ACTION_KNOCK
            if rival and (sums[d] > sums[c] or (sums[d] == sums[c] and d < c)):
                better += 1
        if better < keep:
            stays |= _ONE << np.uint64(c)
    m = 0
    for c in range(n):
        if stays & (_ONE << np.uint64(c)):
            # A stable partition in place: slots m..c-1 hold dropped candidates (in order),
            # c and after are untouched; bubbling c down to m keeps both orders.
            for j in range(c, m, -1):
                candidates[j], candidates[j - 1] = candidates[j - 1], candidates[j]
                sums[j], sums[j - 1] = sums[j - 1], sums[j]
                squares[j], squares[j - 1] = squares[j - 1], squares[j]
                gains[j], gains[j - 1] = gains[j - 1], gains[j]
                gain_squares[j], gain_squares[j - 1] = gain_squares[j - 1], gain_squares[j]
            m += 1
    return m


@njit(cache=True, _nrt=False)
def leader_nb(n, worlds, gains, gain_squares):
    """The candidate with the greatest summed gain over the first (the earliest on ties),
    and its (mean, standard error) gain over ``worlds`` worlds, paired by world; the error
    is -1 where there is none (the leader is the first, or one world)."""
    best = 0
    for c in range(1, n):
        if gains[c] > gains[best]:
            best = c
    if best == 0 or worlds < 2:
        return best, 0.0, -1.0
    mean, error = mean_gain_nb(gains[best], gain_squares[best], worlds)
    return best, mean, error


@njit(cache=True, _nrt=False)
def undecided_nb(n, worlds, confidence, gains, gain_squares):
    """Whether the choice (``choose_nb``) is undecided after ``worlds`` worlds: the best
    candidate's mean gain over the first is within EXTEND_BAND standard errors of
    ``confidence`` standard errors (paired by world)."""
    _, mean, error = leader_nb(n, worlds, gains, gain_squares)
    return error >= 0.0 and abs(mean - confidence * error) < EXTEND_BAND * error


@njit(cache=True, _nrt=False)
def choose_nb(params, n, samples, gains, gain_squares):
    """The candidate with the best mean gain over the first (the rollout policy's own
    choice), if that gain is above ``confidence`` standard errors (paired by world);
    else the first. Ties go to the earlier candidate."""
    best, mean, error = leader_nb(n, samples, gains, gain_squares)
    if error < 0.0:
        return best
    if mean > params[StrategyParam.MC_CONFIDENCE] * error:
        return best
    return 0
