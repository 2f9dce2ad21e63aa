"""The match engine: one game of ``games/`` played between seats, above ``sdk`` and
``games`` and below every service.

A seat is anything that answers a move (``match_engine.seats.Seat``): a remote player over
HTTP (``match_engine.remote``), a strategy in process, a person. ``Match`` runs the game
loop; the seats own their deadlines, retries and faults, and ``match_engine.outcome`` the
one outcome rule. The referee, the playroom and ``league evaluate`` compose it with their
seats; what a match needs and leaves (``plan``, ``rules``, ``match_file``) lives here too.
"""
