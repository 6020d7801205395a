"""The ways in for people and other programs: the ``gin-sim`` command line (``cli``, one
module per command), playing against a strategy (``play``), replaying a recorded game
(``replay``), advice on one position (``advise``), the decision server (``serve``) and the
OpenSpiel bot (``openspiel_bot``).

Layer 7 of 7, the top. May import every layer below.
"""
