"""Test configuration: Hypothesis keeps its example database in the repository (tests/hypothesis-db),
so an input that failed once is tried again first on every machine.

Profiles: ``default`` (modest: the generated-input properties of tests/test_inputs.py and
tests/test_plugin_grammar.py scale their examples from its max_examples) and ``slow``
(HYPOTHESIS_PROFILE=slow, ten times more; run by the slow-marked test_the_heavier_tier).
Tests that set their own max_examples keep them.
"""

import os
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

DATABASE = DirectoryBasedExampleDatabase(str(Path(__file__).parent / "hypothesis-db"))
settings.register_profile("default", database=DATABASE, deadline=None, max_examples=100,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("slow", parent=settings.get_profile("default"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
