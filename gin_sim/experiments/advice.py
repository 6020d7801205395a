"""How the advice and knock tables cut decision positions into cells: the stock bands, what
the card on offer does for the hand, and when a cell is too thin to read (docs/advice.md).

Kept here, below the reports, because ``distill`` reads the advice report's tables by the
same cells that ``reports.advice`` writes them in.
"""

# Cards left in the stock when knocking, in bands from the start of a hand to its end.
STOCK_BANDS = ((25, 31), (19, 24), (13, 18), (7, 12), (0, 6))
# What the card on offer does for the hand (``take_positions``), from most to least.
CARD_DOES = (
    "completes a meld",
    "lowers deadwood by 5 or more",
    "lowers deadwood by 1 to 4",
    "lowers nothing",
)
# A cell with fewer positions than this is marked thin: at 30 positions the interval of a
# mean gain is about ±0.4 standard deviations of a position's gain wide.
MIN_CELL_POSITIONS = 30
