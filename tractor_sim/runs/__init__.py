"""Running studies: an experiment file (``experiment``) and its contexts (``contexts``), the engine's
plan of seeded chunks (``engine``), the backends that play them (``backends``), the runner and its run
directory (``runner``, ``store``, ``fingerprint``: a run stops and resumes to the same tables), the first
run's compile message (``firstrun``), and the commands built on them: ``compare`` (with the sequential
test), ``tune`` (SPSA), ``analyze`` (the search's regret) and ``train`` (the learned player)."""
