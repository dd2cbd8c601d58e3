"""The default tier's scheduling (tests/conftest.py): under ``-n 2 --dist loadgroup`` the tests of files
that compile one kernel set run on one worker, so a cold suite compiles each set once.  It broke
silently once (pytest 9.2 stopped reading xdist's group suffix back): this runs a small session of
three files of the ``search`` group beside a file of its own and reads where each test ran."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ["tests/test_search.py::test_search_names_and_tables_resolve",
         "tests/test_sampler.py::test_there_are_endgames_to_test",
         "tests/test_learned.py::test_damaged_or_missing_model_files_are_named",
         "tests/test_sprt.py"]


def test_the_files_of_one_kernel_set_run_on_one_worker():
    r = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
                        "no:cacheprovider", *TESTS], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:]
    ran = re.findall(r"\[(gw\d)\] .*?PASSED (tests/\w+\.py)::", r.stdout)
    workers = {}
    for worker, name in ran:
        workers.setdefault(name, set()).add(worker)
    search = [workers[f"tests/{f}.py"] for f in ("test_search", "test_sampler", "test_learned")]
    assert all(len(w) == 1 for w in search) and search[0] == search[1] == search[2], workers
    assert workers["tests/test_sprt.py"].isdisjoint(search[0]), workers  # the other group: the other worker
