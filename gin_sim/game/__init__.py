"""The game as values: cards, melds and deadwood, rule sets, Hollywood scoring, hand and
match records, bounds on every number, how a match starts, the random streams that deal each
deck, and the reading of user files (TOML, JSON) with its one error type.

Layer 2 of 7. May import: ``gin_sim.kernels`` (the deadwood API calls its kernel). Nothing
here knows a strategy, plays a hand or writes a file.
"""
