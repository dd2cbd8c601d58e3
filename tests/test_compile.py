"""What keeps a cold start short (kernels.unowned): lazy signatures, no literal specializations,
numba's inliner without its copies, its liveness over bit sets.  Times are measured by benchmarks/bench_compile.py, not here."""

import copy
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from hypothesis import given, strategies as st
from numba.core.controlflow import CFGraph
from numba.core import ir, types
from numba.core import config as numba_config

from tractor_sim.runs import engine
from tractor_sim.core.kernels import events, match as M, rng, unowned
from tractor_sim.rules.options import Rules

jit_only = pytest.mark.skipif(numba_config.DISABLE_JIT, reason="compiled dispatchers only")


def _in_a_process(source, cache, *args) -> list:
    """The lines ``source`` prints, run as a new process with numba's disk cache in ``cache``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", source, *args], capture_output=True, text=True, check=True,
                          env=env).stdout.splitlines()


@jit_only
def test_importing_the_engine_compiles_nothing():
    code = ("import tractor_sim.runs.engine\n"
            "from tractor_sim.core.kernels import deal, match\n"
            "print(len(deal.rollouts.signatures), len(deal.play_from.signatures), len(match.play_chunk.signatures))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["0", "0", "0"]


@pytest.mark.slow
@jit_only
def test_a_chunk_calls_the_driver_without_compiling_a_copy(tmp_path):
    """From an empty cache (a cached play_chunk would not show what it compiles): a chunk compiles
    its driver once, and no play_deal linking a copy of it (match.play_chunk calls it by address);
    rules without the auction compile the driver without it, and only rules with it compile the
    auction's phases.  Slow: both 4/2 drivers compiled again from nothing (over a minute on CI)."""
    code = ("from tractor_sim.runs import engine\n"
            "from tractor_sim.core.kernels import deal, phases\n"
            "from tractor_sim.rules.options import Rules\n"
            "def counts():\n"
            "    return [len(f.signatures) for f in (deal.play_from_without_auction, deal.play_from, deal.play_deal,"
            " phases.apply_bid)]\n"
            "for rules in (Rules(), Rules(declaring='auction')):\n"
            "    engine.run_chunk(engine.ChunkSpec('t', ('random', 'random'), ('random', 'random'), 0, 'fixed', 0, 2,"
            " 1, rules.to_dict()))\n"
            "    print(*counts())\n")
    assert _in_a_process(code, tmp_path) == ["1 0 0 0", "1 1 0 1"]


@jit_only
def test_one_chunk_kernel_for_every_matchup():
    rules = Rules().to_dict()
    for a, b in (("basic", "random"), ("expert", "basic")):
        engine.run_chunk(engine.ChunkSpec("t", (a, b), (a, b), 0, "fixed", 0, 2, 1, rules))
    assert M.play_chunk.signatures == [M.CHUNK_SIG.args]
    assert not M.play_chunk._can_compile  # a new strategy tuple converts, it does not compile again


@jit_only
def test_a_literal_argument_does_not_make_a_new_specialization():
    log = types.int64[:, ::1]
    vec = types.int64[::1]
    _, _, args, _ = events.log_event.get_call_template(
        (log, types.literal(3), types.int64, types.literal(0), types.int64, vec), {})
    assert not any(isinstance(t, types.Literal) for t in args)
    assert all(not isinstance(t, types.Literal) for sig in events.log_event.signatures for t in sig)


@st.composite
def flow_graphs(draw):
    """A control-flow graph from block 0 (loops, branches, unreachable blocks) and each block's
    variables used and defined, from a pool small enough that they meet."""
    n = draw(st.integers(1, 12))
    names = st.sets(st.sampled_from([f"v{i}" for i in range(10)]), max_size=4)
    cfg = CFGraph()
    for b in range(n):
        cfg.add_node(b)
    for b in range(n):
        for t in draw(st.sets(st.integers(0, n - 1), max_size=3)):
            cfg.add_edge(b, t)
    cfg.set_entry_point(0)
    cfg.process()
    return cfg, {b: None for b in range(n)}, {b: draw(names) for b in range(n)}, {b: draw(names) for b in range(n)}


@given(flow_graphs())
def test_liveness_over_bit_sets_is_numbas_own(graph):
    cfg, blocks, uses, defs = graph
    assert unowned._live_map(cfg, blocks, uses, defs) == unowned._numba_live_map(cfg, blocks, uses, defs)


@jit_only
def test_the_bit_set_liveness_is_the_one_numba_runs():
    from numba.core import analysis, ir_utils
    assert analysis.compute_live_map is unowned._live_map and ir_utils.compute_live_map is unowned._live_map


@jit_only
def test_the_ssa_form_numba_builds_is_the_one_visiting_each_variables_blocks():
    from numba.core import ssa
    assert ssa._run_ssa is unowned._run_ssa


@given(st.data())
def test_flags_read_faster_are_numbas_own(data):
    from numba.core.compiler import Flags
    flags = Flags()
    booleans = sorted(k for k, o in Flags.options.items() if o.type is bool)
    for name in data.draw(st.lists(st.sampled_from(booleans), unique=True, max_size=8)):
        setattr(flags, name, data.draw(st.booleans()))
    fast, plain = unowned._config_values(flags), unowned._plain_config_values(flags)
    assert fast == plain and list(fast) == list(plain)


@given(st.data())
def test_flags_hashed_and_compared_faster_as_numba_does(data):
    """Two generated flags objects (some options set, some to their defaults): the same hash and the
    same equality as numba's own."""
    from numba.core.compiler import Flags
    booleans = sorted(k for k, o in Flags.options.items() if o.type is bool)
    pair = []
    for _ in range(2):
        flags = Flags()
        for name in data.draw(st.lists(st.sampled_from(booleans), unique=True, max_size=4)):
            setattr(flags, name, data.draw(st.booleans()))
        pair.append(flags)
    a, b = pair
    assert unowned._config_hash(a) == unowned._plain_config_hash(a)
    assert unowned._config_eq(a, b) == unowned._plain_config_eq(a, b)
    assert unowned._config_eq(a, Flags(a)) and unowned._config_eq(a, 1) is NotImplemented


@pytest.mark.parametrize("name", ["apply_lead", "apply_follow", "_advance_draw", "_deal"])
def test_variable_lists_read_faster_are_numbas_own(name, monkeypatch):
    """Every statement of a kernel's numba IR lists the same variables, in the same order."""
    from numba.core.compiler import run_frontend
    from tractor_sim.core.kernels import phases
    fn = getattr(phases, name)
    blocks = run_frontend(getattr(fn, "py_func", fn)).blocks.values()
    stmts = [stmt for block in blocks for stmt in block.body]
    assert len(stmts) > 50
    monkeypatch.setattr(ir.Inst, "_rec_list_vars", unowned._rec_list_vars)
    fast = [[v.name for v in stmt.list_vars()] for stmt in stmts]
    monkeypatch.setattr(ir.Inst, "_rec_list_vars", unowned._plain_rec_list_vars)
    assert fast == [[v.name for v in stmt.list_vars()] for stmt in stmts]


def _ir_text(blocks) -> list:
    """Each block's statements as text, and each phi node's incoming variables and blocks."""
    return [(label, [str(stmt) for stmt in block.body],
             [([getattr(v, "name", str(v)) for v in stmt.value.incoming_values], list(stmt.value.incoming_blocks))
              for stmt in block.body if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr)
              and stmt.value.op == "phi"])
            for label, block in blocks.items()]


@pytest.mark.parametrize("module, name", [("phases", "apply_lead"), ("phases", "_deal"), ("deal", "_drive"),
                                          ("combos", "decompose"), ("combos", "tractor_cover")])
def test_ssa_visiting_only_the_blocks_a_variable_is_in_gives_numbas_ir(module, name):
    """unowned._run_ssa and numba's own on copies of one kernel's IR: the same statements, new
    variables and phi nodes, in the same order (the kernels have variables defined in several
    blocks, so phi nodes are made)."""
    import importlib
    from numba.core import ssa
    from numba.core.compiler import run_frontend
    fn = getattr(importlib.import_module(f"tractor_sim.core.kernels.{module}"), name)
    blocks = run_frontend(getattr(fn, "py_func", fn)).blocks
    assert len(ssa._find_defs_violators(blocks, ssa.compute_cfg_from_blocks(blocks))) >= 3
    ours = unowned._run_ssa(copy.deepcopy(blocks))
    numbas = unowned._plain_run_ssa(copy.deepcopy(blocks))
    assert _ir_text(ours) == _ir_text(numbas)
    assert sum(len(phis) for _, _, phis in _ir_text(ours)) >= 3


@jit_only
def test_the_array_of_constants_rewrite_answers_as_numbas_own(monkeypatch):
    """unowned._array_of_consts says no at once only where numba's own scan says no too."""
    from numba import njit
    from numba.core.inline_closurecall import RewriteArrayOfConsts
    answers = []

    def both(self, func_ir, block, typemap, calltypes):
        fast = unowned._array_of_consts(self, func_ir, block, typemap, calltypes)
        plain = unowned._plain_array_of_consts(self, func_ir, block, typemap, calltypes)
        answers.append((fast, plain))
        return plain

    monkeypatch.setattr(RewriteArrayOfConsts, "match", both)

    @njit
    def sums(x, n):
        total = 0.0
        for i in range(n):
            if i % 2:
                a = np.array([x, 1.0, 2.0])
            else:
                a = np.array([3.0, x])
            total += a.sum()
        return total

    assert sums(0.5, 3) == 10.5
    assert (True, True) in answers and (False, False) in answers
    assert all(fast == plain for fast, plain in answers)


def llvm_types():
    from llvmlite import ir as llvm_ir
    leaves = st.sampled_from([llvm_ir.IntType(w) for w in (1, 8, 16, 32, 64)] + [llvm_ir.DoubleType(),
                                                                                 llvm_ir.FloatType()])
    return st.recursive(leaves, lambda inner: st.one_of(
        st.builds(llvm_ir.ArrayType, inner, st.integers(0, 9)),
        st.builds(llvm_ir.LiteralStructType, st.lists(inner, max_size=4)),
        st.builds(llvm_ir.PointerType, inner)), max_leaves=8)


@given(st.lists(llvm_types(), min_size=1, max_size=6))
def test_abi_sizes_remembered_are_llvms_own(tys):
    """Generated LLVM types, asked twice each: the remembered size is the one LLVM gives."""
    from numba.core.registry import cpu_target
    context = cpu_target.target_context
    for ty in tys + tys:
        assert unowned._abi_sizeof(context, ty) == unowned._plain_abi_sizeof(context, ty)


def test_an_identified_struct_is_sized_afresh():
    """Its text names it without its body, so its size is never taken from the memory."""
    from llvmlite import ir as llvm_ir
    from numba.core.registry import cpu_target
    context = cpu_target.target_context
    ty = llvm_ir.global_context.get_identified_type("tractor_sim.test_sized_afresh")
    ty.set_body(llvm_ir.IntType(64), llvm_ir.IntType(8))
    assert unowned._abi_sizeof(context, ty) == 16
    assert not any(text == str(ty) for _, text in unowned._ABI_SIZES)


def test_blocks_are_deep_copied_outside_the_inliner():
    scope = ir.Scope(None, ir.Loc("f", 1))
    block = ir.Block(scope, ir.Loc("f", 1))
    block.append(ir.Assign(ir.Const(1, ir.Loc("f", 1)), scope.redefine("x", ir.Loc("f", 1)), ir.Loc("f", 1)))
    other = copy.deepcopy(block)
    assert other is not block and other.body[0] is not block.body[0]
    assert other.body[0].target.name == block.body[0].target.name


@jit_only
def test_an_inlined_helper_still_computes_the_same():
    from numba import njit

    @njit(inline='always')
    def helper(a, k):
        s = 0
        for i in range(a.shape[0]):
            if a[i] > k:
                s += a[i]
        return s

    @njit
    def twice(a):
        return helper(a, 1) + 10 * helper(a, 2)

    a = np.arange(5, dtype=np.int64)
    assert twice(a) == twice.py_func(a) == (2 + 3 + 4) + 10 * (3 + 4)


SLOW_TO_COMPILE = '''
import time
from numba import njit, types
time.sleep(1.0)  # both processes are inside the import at once


@njit(types.int64(types.int64), cache=True)
def triple(x):
    return 3 * x
'''

COUNT_COMPILES = '''
import sys
from numba.core import event
compiled = []

class Count(event.Listener):
    def on_start(self, e):
        compiled.append(1)

    def on_end(self, e):
        pass

event.register("numba:compile", Count())
from tractor_sim.play import packages
print(packages.import_compiled("slow_kernel").triple(2), len(compiled))
'''


@jit_only
def test_two_processes_importing_a_compiled_kernel_compile_it_once(tmp_path):
    """play/packages.import_compiled: the first process compiles a module of explicit signatures (the
    search, the drivers), the other waits for its lock and loads the numba cache it wrote (a cold test
    suite's workers compiled the search twice before: benchmarks/bench_suite_compiles.py)."""
    (tmp_path / "slow_kernel.py").write_text(SLOW_TO_COMPILE)
    env = {**os.environ, "TRACTOR_SIM_CACHE": str(tmp_path / "cache"), "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])}
    runs = [subprocess.Popen([sys.executable, "-c", COUNT_COMPILES], env=env, stdout=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = sorted(r.communicate(timeout=120)[0].split() for r in runs)
    assert [o[0] for o in outs] == ["6", "6"]
    assert [o[1] for o in outs] == ["0", "1"]  # one compiled, one loaded what it compiled


def test_a_cache_folder_that_cannot_be_written_imports_without_the_lock(tmp_path, monkeypatch):
    """import_compiled on a machine whose cache folder is read-only (or a file): the import goes on alone."""
    from tractor_sim.play import packages

    blocker = tmp_path / "not_a_folder"
    blocker.write_text("")
    monkeypatch.setenv("TRACTOR_SIM_CACHE", str(blocker))  # cache_root() lies below a file
    (tmp_path / "plain_module_for_the_lock_test.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert packages.import_compiled("plain_module_for_the_lock_test").VALUE == 7


# A process that compiles a caller of rng.stream_key (the package's: compiled as a callee, without
# wrappers), or calls stream_key from Python; it prints what it found.
CALLEE_PROBE = r'''
import ctypes, sys
import numpy as np
from numba import njit, types
from numba.experimental.function_type import _get_wrapper_address
from tractor_sim.core.kernels import rng, unowned
from tractor_sim.core.kernels.unowned import _wrapped

def only(dispatcher):
    (cres,) = dispatcher.overloads.values()
    return cres

@njit
def outside(x):  # not the package's: numba's own way, wrappers and all
    return x + 1

@njit
def caller(seed, state):
    return rng.stream_key(seed, 1, 2, 3), outside(seed), rng.mix64(seed), rng.next_u64(state)

if sys.argv[1] == "callee":
    got = caller(np.uint64(7), np.zeros(1, np.uint64))
    print(*(_wrapped(only(f)) for f in (rng.stream_key, rng.mix64, rng.next_u64, outside)))
    print(rng.next_u64(np.zeros(1, np.uint64)) == got[3])  # Python calls a callee compiled without wrappers
    address = _get_wrapper_address(rng.mix64, types.uint64(types.uint64))  # a first-class use of another
    print(ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(address)(7) == got[2] == rng.mix64(np.uint64(7)))
    print(got[0], got[1] == 8)
else:  # from Python, the cache filled by a process as above
    key = rng.stream_key(np.uint64(7), 1, 2, 3)
    print(key, _wrapped(only(rng.stream_key)))
    stats = rng.stream_key.stats
    print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
'''


@jit_only
def test_a_callee_compiles_without_wrappers_and_gets_them_when_python_wants_it(tmp_path):
    """The package's functions compiled for a compiled caller have no wrappers (unowned._callee_flags),
    others keep numba's; Python's call, a first-class use, or a later process calling from Python
    gets a compile with them (it is cached: the process after that loads it)."""
    def run(mode):
        return _in_a_process(CALLEE_PROBE, tmp_path, mode)

    callee = run("callee")
    key = callee[3].split()[0]
    assert callee == ["False False False True", "True", "True", f"{key} True"]
    assert run("python") == [f"{key} True", "1 1"]  # loaded without wrappers, then compiled with them
    assert run("python") == [f"{key} True", "1 0"]  # the cache now holds the compile with wrappers


# A process that uses rng.mix64 as a first-class value (C's wrapper only, unowned._AS_VALUE), calls
# it from Python, or compiles a caller of it (no wrappers); it prints what it found, and the module of
# every C wrapper numba lowered (numba's own implementations, np.empty here, get none).
VALUE_PROBE = r"""
import ctypes, sys
import numpy as np
from numba import njit, types
from numba.core import lowering
from numba.experimental.function_type import _get_wrapper_address
from tractor_sim.core.kernels import rng, unowned

c_wrapped = []
plain_cfunc_wrapper = lowering.Lower.create_cfunc_wrapper
def create_cfunc_wrapper(self):
    c_wrapped.append(self.fndesc.modname.split(".")[0])
    return plain_cfunc_wrapper(self)
lowering.Lower.create_cfunc_wrapper = create_cfunc_wrapper

@njit
def caller(seed):
    out = np.empty(2, np.uint64)
    out[0] = rng.mix64(seed)
    return out[0]

x = np.uint64(7)
for step in sys.argv[1].split(","):  # what asks for rng.mix64, in order
    if step == "callee":
        print(caller(x))
    elif step == "value":
        address = _get_wrapper_address(rng.mix64, types.uint64(types.uint64))
        print(ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(address)(7))
    else:
        print(rng.mix64(x))
(cres,) = rng.mix64.overloads.values()
stats = rng.mix64.stats
print(unowned._wrapped(cres), unowned._addressable(cres), sum(stats.cache_hits.values()),
      sum(stats.cache_misses.values()), *sorted(set(c_wrapped)))
"""


@jit_only
def test_a_first_class_use_compiles_only_cs_wrapper_and_python_gets_its_own(tmp_path):
    """A package function compiled for a first-class use gets C's wrapper and not Python's
    (unowned._compile_result); one compiled for a caller is compiled again with it; a call from Python
    gets Python's; each is cached and loaded by a later process.  numba's own implementations
    (np.empty's, called by compiled code only) get no C wrapper."""
    def run(mode):
        return _in_a_process(VALUE_PROBE, tmp_path, mode)

    value = str(rng.mix64(np.uint64(7)))
    assert run("callee") == [value, "False False 0 1 __main__"]  # the caller's wrapper only
    assert run("callee,value") == [value, value, "False True 1 1 __main__ tractor_sim"]  # again, C's only
    assert run("value") == [value, "False True 1 0"]  # loaded (numba keys a first-class use apart)
    assert run("python") == [value, "True True 1 1 tractor_sim"]  # the callee's loaded, compiled again
    assert run("python,value") == [value, value, "True True 1 0"]  # loaded with both


@jit_only
def test_the_idle_strategy_is_typed_as_a_strategy_function():
    """idle_function is compiled for a first-class use only, and numba types it as the strategy
    function, so a tuple of strategies holding it is typed as a tuple of that function."""
    from tractor_sim.play.registry import idle_function
    from tractor_sim.core.kernels.view import STRATEGY_TYPE

    idle = idle_function()
    (cres,) = idle.overloads.values()
    assert idle.get_function_type() == STRATEGY_TYPE and unowned._addressable(cres)
    assert numba.typeof((idle, idle)) == types.UniTuple(STRATEGY_TYPE, 2)


# A process that calls rng.stream_key from Python (a root of the package: its callees mix64 and
# siphash24 compiled as callees), and a root of its own; it prints the LLVM optimisation level of the
# function passes run over each function before linking (None: numba's own, O3), by function.
ROOT_PASSES_PROBE = r"""
import numpy as np
from numba import njit
from numba.core.codegen import JITCPUCodegen
from tractor_sim.core.kernels import rng

levels = {}
plain = JITCPUCodegen._function_pass_manager
def recording(self, **kwargs):
    passes, builder = plain(self, **kwargs)
    class Recorded:
        def run(self, func, builder):
            for name in ("stream_key", "mix64", "siphash24", "outside"):
                if name in func.name and not func.is_declaration and "cpython" not in func.name \
                        and not func.name.startswith("cfunc"):
                    levels.setdefault(name, set()).add(kwargs.get("opt"))
            return passes.run(func, builder)
    return Recorded(), builder
JITCPUCodegen._function_pass_manager = recording

@njit
def outside(x):  # not the package's: numba's own way
    return x + 1

print(rng.stream_key(np.uint64(7), 1, 2, 3), outside(1))
print(*(f"{name}:{sorted(levels.get(name, ()), key=str)}" for name in ("stream_key", "mix64", "siphash24", "outside")))
"""


@jit_only
def test_a_roots_own_functions_get_the_cheaper_function_passes_before_linking(tmp_path):
    """A root of the package (called from Python: compiled with its wrappers) gets O1 function passes
    before linking (unowned._optimize_functions), its module passes after linking being numba's;
    its callees and a function from elsewhere keep numba's (O3).  The results are the same."""
    out = _in_a_process(ROOT_PASSES_PROBE, tmp_path)
    assert out == [f"{rng.stream_key(np.uint64(7), 1, 2, 3)} 2",
                   f"stream_key:[{unowned._ROOT_FUNCTION_PASSES}] mix64:[None] siphash24:[None] outside:[None]"]


# A process that compiles a caller of the package's rng functions (compiled as callees: finalized for
# linking only) and a function of its own; then another caller, in the same process or, with the cache
# the first filled, in a new one.
LINKING_PROBE = r'''
import sys
import numpy as np
from numba import njit
from tractor_sim.core.kernels import rng, unowned

def library(dispatcher):
    (cres,) = dispatcher.overloads.values()
    return cres.library

@njit
def outside(x):  # not the package's: numba's own way
    return x + 1

@njit
def caller(seed, state):
    return rng.stream_key(seed, 1, 2, 3), outside(seed), rng.next_u64(state)

@njit
def another(seed):
    return rng.stream_key(seed, 1, 2, 3) ^ rng.mix64(seed)

if sys.argv[1] == "first":
    got = caller(np.uint64(7), np.zeros(1, np.uint64))
    libs = [library(f) for f in (rng.stream_key, rng.next_u64, outside, caller)]
    print(*(getattr(lib, "_tractor_sim_linking", False) for lib in libs))
    print(*(lib._compiled_object is not None for lib in libs))  # machine code: the callers' only
print(another(np.uint64(7)), sum(rng.stream_key.stats.cache_hits.values()))
'''


@jit_only
def test_a_callee_is_finalized_for_linking_only_and_its_cached_ir_links_into_new_callers(tmp_path):
    """The package's callees get no machine code of their own (unowned._finalize_for_linking): their
    callers' modules hold it; a function from elsewhere keeps numba's.  The cache keeps a callee's IR
    (unowned.LINKING_KIND): a new process compiling another caller links it and computes the same."""
    def run(mode):
        return _in_a_process(LINKING_PROBE, tmp_path, mode)

    first = run("first")
    assert first[:2] == ["True True False False", "False False True True"]
    value, hits = first[2].split()
    assert hits == "0"  # compiled here
    kinds = [unowned.LINKING_KIND.encode() in p.read_bytes() for p in tmp_path.rglob("*.nbc")
             if p.name.startswith("rng.stream_key")]
    assert kinds and all(kinds)
    assert run("again") == [f"{value} 1"]  # stream_key from the cache, linked into a new caller
    x = np.uint64(7)
    assert int(value) == int(rng.stream_key(x, 1, 2, 3) ^ rng.mix64(x))


def _flags_of(key):
    """Compile flags again from their key (unowned._flags_key)."""
    from numba.core.compiler import Flags
    from numba.core.cpu import FastMathOptions

    flags = Flags()
    for name, value in key:
        setattr(flags, name, FastMathOptions(set(value)) if name == "fastmath" else value)
    return flags


@jit_only
def test_remembered_call_types_are_numbas_own_and_failures_are_not_remembered():
    """unowned._function_call_type answers what numba's BaseFunction.get_call_type answers (asked
    again, under the same compile flags, for every call type a compile remembered); a call that
    fails to type is not remembered, and fails with numba's message every time."""
    import operator

    from numba import njit
    from numba.core.errors import TypingError
    from numba.core.targetconfig import ConfigStack

    @njit
    def busy(a, k):
        out = np.empty(k, np.int64)
        total = 0
        for i in range(min(k, a.size)):
            out[i] = a[i] * 3 // 2 - (a[i] % 5)
            total = max(total, out[i]) + abs(-i)
        return total, out[:k].sum()

    unowned._CALL_TYPES.clear()  # a cache: what busy's typing asks is remembered afresh
    assert busy(np.arange(9), 6) == busy.py_func(np.arange(9), 6)
    assert len(unowned._CALL_TYPES) >= 10
    for (fn, context, _, flags, args, kws), sig in list(unowned._CALL_TYPES.items()):
        assert flags is not None  # asked inside a compile
        with ConfigStack().enter(_flags_of(flags)):
            assert unowned._plain_function_call_type(fn, context, args, dict(kws)) == sig

    @njit
    def bad(a):
        return a + "text"

    messages = set()
    for _ in range(2):
        before = len(unowned._CALL_TYPES)
        with pytest.raises(TypingError) as info:
            bad(np.zeros(2))
        messages.add(str(info.value).split("\n")[0])
        added = list(unowned._CALL_TYPES)[before:]
        assert not any(getattr(fn, "typing_key", None) is operator.add for fn, *_ in added)
    assert len(messages) == 1


BLAS_PROBE = r'''
import sys
import numpy as np
from numba import njit
from tractor_sim.runs import runner
from tractor_sim.core.kernels import unowned
import numba.np.arraymath as arraymath, numba.np.linalg as linalg

runner.simulate([("basic", "random")], n=2, seed=0, chunk_size=2)
print("scipy.linalg" in sys.modules, arraymath._HAVE_BLAS,
      arraymath.ensure_blas is linalg.ensure_blas is unowned._plain_ensure_blas)

@njit
def dot(a, b):
    return np.dot(a, b)

print(dot(np.arange(3.0), np.ones(3)), "scipy.linalg.cython_blas" in sys.modules)
'''


@jit_only
def test_numbas_first_blas_ask_imports_no_scipy_and_blas_still_works():
    """unowned._probe_blas: a run imports no scipy.linalg (numba's import-time ask answered from the
    disk, the same answer), every later ask is numba's own, and a function calling BLAS compiles and
    computes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", BLAS_PROBE], capture_output=True, text=True, check=True,
                         env=env).stdout.splitlines()
    assert out == ["False True True", "3.0 True"]
    assert unowned._blas_on_disk()
