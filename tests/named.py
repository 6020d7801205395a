"""The named family strategies the reference-engine tests play (one list, so a new named
style joins every such test at once). ``gin-hunter-strong`` is left out of the
record-for-record pairings for their time; tests/test_strategies.py adds it."""

FAMILY_STYLES = (
    "simple",
    "basic",
    "gin-hunter",
    "early-knocker",
    "defensive",
    "expert",
    "gin-hunter-pairs",
)
