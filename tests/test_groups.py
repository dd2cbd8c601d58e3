"""The default tier's scheduling (tests/conftest.py): under ``-n 2 --dist loadgroup`` the tests of files
that compile one kernel set run on one worker, so a cold suite compiles each set once.  It broke
silently once (pytest 9.2 stopped reading xdist's group suffix back): this runs a small session with
the suite's own hooks over three files named as the ``search`` group's and a file of its own, and
reads where each test ran."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOKS = f'''import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.conftest import (pytest_collection_modifyitems, pytest_configure, pytest_unconfigure,
                            pytest_xdist_make_scheduler)
'''


def test_the_files_of_one_kernel_set_run_on_one_worker(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(HOOKS)
    for name in ("test_search", "test_sampler", "test_learned", "test_alone"):
        (tmp_path / f"{name}.py").write_text("".join(f"def test_{k}():\n    pass\n\n\n" for k in range(4)))
    r = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v", "-p",
                        "no:cacheprovider", "-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path),
                        str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    workers = {}
    for worker, name in re.findall(r"\[(gw\d)\] .*?PASSED (\w+)\.py::", r.stdout):
        workers.setdefault(name, set()).add(worker)
    search = [workers[name] for name in ("test_search", "test_sampler", "test_learned")]
    assert all(len(w) == 1 for w in search) and search[0] == search[1] == search[2], workers
    assert workers["test_alone"].isdisjoint(search[0]), workers  # the other group: the other worker


def test_a_group_costs_its_files_timed_seconds_for_the_tests_that_were_timed():
    """tests/durations.json orders the groups; a file's seconds count only when as many of its tests run as
    were timed (the default tier): the slow tier's groups keep their order by number of tests."""
    try:
        from tests.conftest import _cost
    except ImportError:  # tests/ on sys.path instead of the project root
        from conftest import _cost

    timed = {"tests/test_a.py": [30.0, 2], "tests/test_b.py": [1.0, 3]}
    a = ["tests/test_a.py::one", "tests/test_a.py::two"]
    b = [f"tests/test_b.py::t{k}" for k in range(3)]
    assert _cost(a, timed) == 30.0 and _cost(a + b, timed) == 31.0
    assert _cost(a[:1], timed) == 0.2  # another selection of the file's tests
    assert _cost(["tests/test_new.py::x", "tests/test_new.py::y"], timed) == 0.4  # a file not timed yet
