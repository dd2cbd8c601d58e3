"""The statistics of duplicate deals: summaries with intervals (``summary``), the ratings of a
pool of policies (``ratings``), the sequential test (``sprt``) and the match chain (``chain``).

Plain numpy, scipy and pandas over result tables; the chain reads the level
table's rules from the compiled package's scoring.
"""
