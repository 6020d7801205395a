"""What a search player keeps between its decisions in a game (``OpponentMemory``): its
opponent panel's posterior and its last discard, told which hand each report belongs to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gin_sim.game.config import shown
from gin_sim.game.limits import check_index
from gin_sim.kernels.enums import (
    Phase,
)
from gin_sim.kernels.search import (
    MEMORY_KNOWN,
    forget_nb,
    new_hand_nb,
    prior_nb,
    search_scratch_nb,
    showdown_update_nb,
)
from gin_sim.players.hand_end import parse_hand_end, position_from_end
from gin_sim.players.prepared import PreparedStrategy
from gin_sim.players.view import View, _check_seat


@dataclass(frozen=True)
class _Moment:
    """What the new-hand guess compares between a player's consecutive reports."""

    stock_left: int
    own_turns: int
    opp_turns: int
    pile_takes: int
    hand: int

    def follows(self, last: _Moment) -> bool:
        """Whether this can come after ``last`` in the same hand: the stock only shrinks,
        the turns and takes only grow, and between two of its decisions a player's cards
        change by at most one take and one discard."""
        return self.why_not_after(last) is None

    def why_not_after(self, last: _Moment, cards: bool = True) -> str | None:
        """What keeps this from coming after ``last`` in the same hand (``follows``), in
        words, or None when it can; ``cards``: the hands compared too (not at a hand's
        end, whose cards may differ from the last decision's by more)."""
        kept = (self.hand & last.hand).bit_count()
        least = min(self.hand.bit_count(), last.hand.bit_count())
        if self.stock_left > last.stock_left:
            return (
                f"stock_left {self.stock_left} is above the {last.stock_left} of its last decision"
            )
        for name, now, before in (
            ("own_turns", self.own_turns, last.own_turns),
            ("opp_turns", self.opp_turns, last.opp_turns),
            ("pile_takes", self.pile_takes, last.pile_takes),
        ):
            if now < before:
                return f"{name} {now} is below the {before} of its last decision"
        if cards and kept < least - 1:
            return f"the hand keeps {kept} of the cards of its last decision (one take and one discard change at most one)"
        # At a hand's end: each of the player's turns since changes at most one card, and
        # the last decision's own turn one more (its discard, or its take and discard).
        turns = self.own_turns - last.own_turns
        if not cards and kept < least - turns - 1:
            return f"the hand keeps {kept} of the {least} cards of its last decision, and {turns} turns of yours since change at most {turns + 1}"
        return None


# Where an OpponentMemory stands in the current hand.
_FRESH, _PLAYING, _ENDED = "fresh", "playing", "ended"


class OpponentMemory:
    """What a search player keeps between its decisions in a game: its opponent panel's
    posterior and its last discard (docs/strategies.md, "Opponent panel"), the kernels'
    memory row of a search scratch that lives as long as this object.

    A simulated searcher also learns at the end of a hand, from the cards the showdown
    shows: ``hand_ended`` gives a memory that evidence (docs/strategies.md, "The end of a
    hand"). Hands are told apart, in this order: by ``hand_number`` (a new number is a new
    hand), by ``hand_ended`` (the next report belongs to the next hand) and ``new_hand``,
    and else by a guess from the view (an offer, or a position that cannot follow the last
    one: more cards in the stock, fewer turns or takes, or cards that one take and one
    discard do not explain). At a new hand the player forgets its last discard, and its
    posterior too unless it keeps it across hands (``panel_memory = "match"``), as in a
    simulated match; ``forget`` starts over (a new opponent). A player without a panel
    remembers nothing: its decisions are the same with or without a memory.

    A memory holds its strategy's and rule set's vectors, not its ``Decider``: any
    ``Decider`` of the same strategy and rule set may use it (one prepared again after
    a cache let the first go), and it keeps no prepared strategy or tables alive.
    """

    def __init__(self, decider: PreparedStrategy) -> None:
        if not isinstance(decider, PreparedStrategy):
            raise ValueError(
                f"OpponentMemory({shown(decider)}): a memory is made by a Decider: Decider(strategy, rules).memory()"
            )
        self.rules = decider.rules
        self.strategy = decider.strategy
        self._params = decider._params.copy()
        self._kernel_rules = decider._kernel_rules
        self._undercut = decider._undercut  # the process's one table (load_undercut_table)
        self._search = search_scratch_nb()
        self._seat = 0  # the seat of the last report: its row holds the memory
        self._stage = _FRESH
        self._hand_number: int | None = None
        self._last: _Moment | None = None

    def new_hand(self) -> None:
        """A new hand starts (a new deal of the same game or match)."""
        self._new_hand()
        self._hand_number = None

    def forget(self) -> None:
        """Back to nothing: the prior at the next search (a new opponent)."""
        forget_nb(self._search)
        self._stage = _FRESH
        self._hand_number = None
        self._last = None

    @property
    def posterior(self) -> dict[str, float]:
        """The posterior over the panel by model name (the prior before any decision;
        empty without a panel)."""
        panel = self.strategy.opponent_panel
        row = self._search[17][self._seat]
        if not panel:
            return {}
        if row[MEMORY_KNOWN] == 0.0:  # no search since it was forgotten: the prior
            row = row.copy()
            prior_nb(self._params, len(panel), row)  # as the next search takes it
        return {name: float(row[m]) for m, name in enumerate(panel)}

    def belongs_to(self, decider: PreparedStrategy) -> bool:
        """Whether ``decider`` plays this memory's strategy under its rule set."""
        return (
            isinstance(decider, PreparedStrategy)
            and decider.rules == self.rules
            and np.array_equal(decider._params, self._params)
        )

    def before(
        self, decider: PreparedStrategy, view: View, seat: int, hand_number: int | None = None
    ) -> tuple:
        """The search scratch for ``decider``'s decision at ``view``, after a new hand has
        been taken into account."""
        seat = _check_seat(seat)
        if not self.belongs_to(decider):
            raise ValueError(
                "an OpponentMemory belongs to the strategy and rule set of the Decider that made it"
            )
        moment = _Moment(
            view.stock_left, view.own_turns, view.opp_turns, view.pile_takes, view.hand
        )
        self._begin(moment, hand_number, offer=view.phase == Phase.OFFER)
        self._take_seat(seat)
        self._stage = _PLAYING
        self._last = moment
        return self._search

    def hand_ended(self, end: Mapping[str, Any], *, hand_number: int | None = None) -> None:
        """The hand ended as ``end`` says (plain data, ``END_FIELDS``; docs/strategies.md,
        "The end of a hand"): after a knock, gin or big gin, the posterior reads the cards
        shown as a simulated searcher's does (``kernels.search.showdown_update_nb``: the
        opponent's knock, or the opponent's last turn at the player's own knock). The next
        report belongs to the next hand. ``hand_number``: the hand's number, as given to
        its decisions (a new one: a hand in which this player made no decision). Bad input
        is a one-line ``ValueError``, and the memory is then as it was.

        The opponent took the upcard (KD) and knocked at once with deadwood 10: a gin
        hunter would have waited.

        >>> from gin_sim.players.decision import Decider
        >>> memory = Decider("mc", "standard").memory()
        >>> round(memory.posterior["gin-hunter"], 3)
        0.11
        >>> memory.hand_ended({
        ...     "knocker": "opponent", "hand": "2C 3C 9C TC JC 2D 3D 9D TD JD",
        ...     "opp_hand": "AS 2S 3S 4H 5H 6H 7C 7D 7S KD", "pile": "QH", "stock_left": 31,
        ...     "dealer": "me", "taken_from_pile": True, "taken": "KD", "opp_turns": 1,
        ...     "pile_takes": 1, "opp_taken": "KD", "opp_passed": "QH"})
        >>> round(memory.posterior["gin-hunter"], 3)
        0.014
        """
        if hand_number is not None:
            hand_number = check_index(hand_number, "hand_number")
        parsed = parse_hand_end(end, self.rules)
        if hand_number is not None and hand_number == self._hand_number and self._stage == _ENDED:
            raise ValueError(f"hand_number {hand_number}: that hand's end was reported already")
        moment = None
        if parsed.knocker != "none":
            moment = _Moment(
                parsed.stock_left,
                parsed.own_turns,
                parsed.opp_turns,
                parsed.pile_takes,
                parsed.hand,
            )
        same_hand = (
            hand_number is not None and hand_number == self._hand_number and self._stage == _PLAYING
        )
        if same_hand and moment is not None and self._last is not None:
            # The end of the hand its decisions were in: it must follow the last of them.
            why = moment.why_not_after(self._last, cards=False)
            if why is not None:
                raise ValueError(
                    f"hand end: hand_number {hand_number} is the hand of the last decision, but {why}: allowed the end of that hand, or another hand_number for a new hand"
                )
        self._begin(moment, hand_number, offer=False)
        if parsed.knocker != "none":
            masks, state = position_from_end(parsed, self._seat)
            # showdown_update_nb updates each seat whose vector has a panel: this player's
            # alone (the other row is a family vector without one).
            strategies = np.zeros((2, len(self._params)))
            strategies[self._seat] = self._params
            with np.errstate(over="ignore"):
                showdown_update_nb(
                    masks, state, self._kernel_rules, strategies, self._undercut, self._search
                )
        self._stage = _ENDED
        self._last = None

    # ------------------------------------------------------------------ internals
    def _new_hand(self) -> None:
        # new_hand_nb reads the seat's panel_memory from a strategies matrix: this player's
        # vector in both rows, whichever seat it plays.
        new_hand_nb(self._search, np.stack([self._params, self._params]))
        self._stage = _FRESH
        self._last = None

    def _begin(self, moment: _Moment | None, hand_number: int | None, offer: bool) -> None:
        """Start a new hand before this report if it belongs to one."""
        if hand_number is not None and hand_number == self._hand_number and self._stage == _ENDED:
            raise ValueError(
                f"hand_number {hand_number}: that hand's end was reported; the next hand needs another number"
            )
        if hand_number is not None and self._hand_number is not None:
            new = hand_number != self._hand_number and self._stage != _FRESH
        elif self._stage == _ENDED:
            new = True
        elif self._stage == _PLAYING:  # no number to compare: the guess (a drawn hand's
            # end shows nothing to compare, and ends the hand being played)
            new = offer or (
                moment is not None and (self._last is None or not moment.follows(self._last))
            )
        else:
            new = False
        if new:
            self._new_hand()
        if hand_number is not None or new:
            self._hand_number = hand_number

    def _take_seat(self, seat: int) -> None:
        """The memory belongs to the player, whichever seat it has: its row moves along."""
        if seat != self._seat:
            rows = self._search[17]
            rows[seat] = rows[self._seat]
            rows[self._seat] = 0.0
            self._seat = seat
