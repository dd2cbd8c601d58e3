"""Arrays without an owner: work arrays on the stack, and borrowed arrays.

Numba counts references to every array handed around, with calls to its
runtime (atomic ones when the array has an owner), even inside inlined
helpers: in whole deals those calls were the largest cost after the game
itself.  A function that allocates no array can be compiled without them
(numba's ``_nrt=False``: the deal kernel and the built-in strategies, see
``strategy._lean``).

``stack_array(n)`` is the work array such a function may use: n int64 (n a
constant) in the calling function's stack frame, no allocation and no
owner.  Its contents start undefined; it lives until the function returns
(a helper declared ``inline='always'`` puts it in its caller's frame), so
never return one from a function that is not inlined.

``borrowed(a)`` is ``a`` without its owner (ownership pointer NULL, as numba
makes for ``carray``): a function compiled with reference counting then
skips the atomic part for it.  The deal kernel passes borrowed arrays to
strategies compiled that way (plug-ins that allocate).  Valid only while
``a`` is alive; never return it or keep it past the call.

``rows_in(a, start, rows, cols)`` is ``a[start:start + rows * cols]`` as a
rows x cols matrix (rows and cols constants), without owner: numba's
``reshape`` calls its runtime (numba_attempt_nocopy_reshape), nine times a
deal in the state's ``carve`` (1% of a deal's instructions, callgrind).

All three are numba intrinsics (without reference counting numba refuses a
function that returns an array it did not get as an argument, and a stack
array must land in the caller's frame), so from Python they work only
under NUMBA_DISABLE_JIT.

The second part is compile time (``faster_compiles``, ``lazy_signature``): numba's inliner without
its quadratic copies, no literal specializations of this package's functions, numpy's error model
for them, only the wrappers each use needs (none for a callee, C's for a first-class value), numba's
liveness analysis over bit sets, its SSA form built visiting only each variable's blocks, its flags
and variable lists read faster, ABI sizes remembered, declared signatures compiled at first use,
callees finalized only for their callers to link, a root's own functions given cheaper function
passes before the module's, and the types of calls to built-in functions remembered.
"""

import collections
import contextlib
import copy
import importlib.machinery
import importlib.util
import os
import sys

import numpy as np
from llvmlite import binding as ll
from llvmlite import ir as llvm_ir
from numba import njit
from numba.core import analysis, cgutils, config, errors, ir, ir_utils, sigutils, ssa, types
from numba.core.base import BaseContext
from numba.core.codegen import CPUCodeLibrary, JITCPUCodegen
from numba.core.cpu import CPUContext, FastMathOptions
from numba.core.controlflow import CFGraph
from numba.core.dispatcher import Dispatcher, _FunctionCompiler
from numba.core.inline_closurecall import InlineWorker, RewriteArrayOfConsts
from numba.core.target_extension import get_local_target
from numba.core.targetconfig import ConfigStack, TargetConfig
from numba.core.typed_passes import NativeLowering
from numba.core.types.functions import BaseFunction
from numba.np import linalg as numba_linalg
from numba.extending import intrinsic

ITEMSIZE = np.dtype(np.int64).itemsize  # bytes of one int64 cell
MATRIX_DIMS = 2  # rows_in's result: rows and columns


@intrinsic
def _on_stack(typingctx, n):
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value
    arr = types.Array(types.int64, 1, "C")

    def codegen(context, builder, sig, args):
        data = cgutils.alloca_once(builder, llvm_ir.IntType(64), size=size)  # in the entry block: one per call site
        out = context.make_array(arr)(context, builder)
        intp = context.get_value_type(types.intp)
        context.populate_array(out, data=data, shape=[llvm_ir.Constant(intp, size)],
                               strides=[llvm_ir.Constant(intp, ITEMSIZE)], itemsize=llvm_ir.Constant(intp, ITEMSIZE),
                               meminfo=None, parent=None)
        return out._getvalue()

    return arr(n), codegen


@intrinsic
def _without_owner(typingctx, a):
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        context.populate_array(dst, data=src.data, shape=src.shape, strides=src.strides,
                               itemsize=src.itemsize, meminfo=None, parent=None)
        return dst._getvalue()

    return a(a), codegen


@intrinsic
def _rows_in(typingctx, a, start, rows, cols):
    if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" and isinstance(rows, types.IntegerLiteral)
            and isinstance(cols, types.IntegerLiteral)):
        return None
    nrows, ncols = rows.literal_value, cols.literal_value
    out = types.Array(a.dtype, MATRIX_DIMS, "C")

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(out)(context, builder)
        intp = context.get_value_type(types.intp)
        item = context.get_abi_sizeof(context.get_data_type(a.dtype))
        context.populate_array(dst, data=builder.gep(src.data, [args[1]]),
                               shape=[llvm_ir.Constant(intp, nrows), llvm_ir.Constant(intp, ncols)],
                               strides=[llvm_ir.Constant(intp, ncols * item), llvm_ir.Constant(intp, item)],
                               itemsize=llvm_ir.Constant(intp, item), meminfo=None, parent=None)
        return dst._getvalue()

    return out(a, start, rows, cols), codegen


def _new_array(n):
    return np.empty(n, dtype=np.int64)


def _reshaped(a, start, rows, cols):
    return a[start:start + rows * cols].reshape((rows, cols))


def _same(a):
    return a


stack_array = _new_array if config.DISABLE_JIT else _on_stack
borrowed = _same if config.DISABLE_JIT else _without_owner
rows_in = _reshaped if config.DISABLE_JIT else _rows_in


def lean_jit(*signature, **options):
    """``njit(cache=True)`` without reference counting (numba's private ``_nrt=False``), for kernels
    that allocate nothing: the deal's drivers and its once-a-deal phases.  Passing arrays between
    such functions then costs no counting calls.  The one place the option is spelled for the
    kernels (strategy.py compiles lean strategies with it too).  A signature is compiled at the
    first call, not at import (``lazy_signature``)."""
    if not signature:
        return njit(cache=True, _nrt=False, **options)
    (sig,) = signature
    return lambda fn: lazy_signature(njit(cache=True, _nrt=False, **options)(fn), sig)


# ------------------------------------------------------------------ compile time
#
# Changes to how numba compiles, measured by benchmarks/bench_compile.py (per-function
# compile time from numba's event API).  The inliner's gives the same LLVM IR byte for byte (the
# smart follow strategy, checked); without literal specializations a helper gets the code numba
# compiles for it anyway when a call passes a variable.  Results are identical (pinned digests)
# and the speed within noise (benchmarks/ab.py; figures in the commit that brought them).

_INLINING = [False]  # True while inline_function hands a callee's fresh IR to inline_ir
COPY_PROTOCOL = 4  # the pickle protocol copy.deepcopy reduces objects with


def _block_deepcopy(self, memo):
    """ir.Block's deepcopy: the block itself while a callee's fresh IR is inlined, else a copy as
    ``copy.deepcopy`` would make."""
    if _INLINING[0]:
        return self
    return copy._reconstruct(self, memo, *self.__reduce_ex__(COPY_PROTOCOL))


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """numba's InlineWorker.inline_function (the inliner of ``inline='always'``) without the two
    deep copies of the callee's IR that inline_ir makes: one guards an IR that nobody else holds
    (run_untyped_passes built it for this call), the other is returned and thrown away by the one
    caller, InlineInlinables.  Each copy deep-copies the callee's whole scope once per block, so
    their cost grows with the square of the inlined code: the smart follow strategy compiled in
    18 s of CPU with them, 8 s without; the driver (play_from, without its callees) 18 s, 10 s."""
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    _INLINING[0] = True
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
    finally:
        _INLINING[0] = False


# this package and its copies compiled for other game sizes (tractor_sim.play.packages: tractor_sim_sized_p6d2 ...)
_PACKAGE = (__name__.split(".")[0] + ".", "tractor_sim_sized_")
_plain_call_template = Dispatcher.get_call_template


def _in_package(py_func) -> bool:
    """Whether a Python function is this package's (or a size's copy of it): only those are
    compiled the ways below; a plug-in from elsewhere keeps numba's."""
    return getattr(py_func, "__module__", "").startswith(_PACKAGE)


def _ours(dispatcher) -> bool:
    return _in_package(dispatcher.py_func)


@contextlib.contextmanager
def _compiling_for(dispatcher, use: str):
    """While inside, what ``dispatcher`` compiles is for ``use`` (_AS_CALLEE, _AS_VALUE: _callee_flags)."""
    compiler = dispatcher._compiler
    was = getattr(compiler, use, False)
    setattr(compiler, use, True)
    try:
        yield
    finally:
        setattr(compiler, use, was)


def _call_template(self, args, kws):
    """Dispatcher.get_call_template with literal argument types made plain for this package's
    functions, and what it compiles compiled as a callee (``_callee_flags``).  numba types a call
    from compiled code with the constants' literal types and compiles a specialization for each
    combination (events.log_event 15 times, a second whole play_deal for the zeros a match starts
    from, before type inference settles on int64); the functions here gain nothing from it: what
    is hot is inlined, which keeps the constants."""
    if not _ours(self):
        return _plain_call_template(self, args, kws)
    args = tuple(types.unliteral(a) for a in args)
    kws = {k: types.unliteral(v) for k, v in kws.items()}
    with _compiling_for(self, _AS_CALLEE):
        return _plain_call_template(self, args, kws)


# ------------------------------------------------ each compile with only the wrappers its use needs
#
# numba gives every compiled signature two wrappers: one that Python calls (unboxing every argument,
# boxing the result) and one with C's calling convention (for first-class function values).  Each
# use needs at most one of them:
# - a function compiled because compiled code calls it needs neither: its callers link its code
#   (these wrappers were 2 s of a cold first result's 21: their IR, its optimisation, its machine code);
# - one compiled for a first-class use (a deal driver handed to a kernel) needs only the C one (the
#   registry's strategies keep both: the step API calls them from Python too, and a second compile
#   for it would cost more than the wrapper);
# - numba's own implementations of numpy and builtins (``min``, ``np.empty``) are only ever called
#   from compiled code, so they need neither.
# A signature compiled without Python's wrapper is kept out of numba's dispatch from Python; when
# Python (or a first-class use) does want what it lacks, ``_compile`` compiles it again with it,
# and the cache then holds that one.

_AS_CALLEE = "_tractor_sim_as_callee"  # set on a _FunctionCompiler while a compiled caller types a call
_AS_VALUE = "_tractor_sim_as_value"  # set on a _FunctionCompiler while a first-class use compiles
_plain_customize_flags = _FunctionCompiler._customize_flags
_plain_add_overload = Dispatcher.add_overload
_plain_compile = Dispatcher.compile
_plain_compile_result = Dispatcher.get_compile_result


def _callee_flags(self, flags):
    """_FunctionCompiler._customize_flags: no wrappers while compiling for a compiled caller, nor
    for numba's implementations compiled without Python's; only C's for a first-class use."""
    flags = _plain_customize_flags(self, flags)
    if getattr(self, _AS_CALLEE, False) or (flags.no_cpython_wrapper and _numbas(self.py_func)):
        flags.no_cpython_wrapper = flags.no_cfunc_wrapper = True
    elif getattr(self, _AS_VALUE, False):
        flags.no_cpython_wrapper = True
    return flags


def _numbas(py_func) -> bool:
    return getattr(py_func, "__module__", "").startswith("numba.")


def _wrapped(cres) -> bool:
    """Whether Python can call this compile result (numba's entry point is null without a wrapper)."""
    return cres.objectmode or cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name) != 0


def _addressable(cres) -> bool:
    """Whether this compile result has C's wrapper, the address of a first-class function value."""
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name) != 0


def _add_overload(self, cres):
    """Dispatcher.add_overload, keeping a signature without wrappers out of the dispatch from Python."""
    if _ours(self) and not _wrapped(cres):
        self.overloads[tuple(cres.signature.args)] = cres
    else:
        _plain_add_overload(self, cres)


class _SavingOnly:
    """A dispatcher's cache that loads nothing (its entry is the one without wrappers) but saves."""

    def __init__(self, cache):
        self._cache = cache

    def load_overload(self, sig, target_context):
        return None

    def __getattr__(self, name):
        return getattr(self._cache, name)


def _compile(self, sig):
    """Dispatcher.compile; a signature compiled without the wrapper now wanted (from this process or
    the cache) is compiled again with it: Python's for a call from Python, C's for a first-class use."""
    entry = _plain_compile(self, sig)
    if not _ours(self) or getattr(self._compiler, _AS_CALLEE, False):
        return entry
    args = tuple(sigutils.normalize_signature(sig)[0])
    cres = self.overloads.get(args)
    has_wanted = _addressable if getattr(self._compiler, _AS_VALUE, False) else _wrapped
    if cres is None or has_wanted(cres):
        return entry
    del self.overloads[args]
    cache, self._cache = self._cache, _SavingOnly(self._cache)
    try:
        return _plain_compile(self, sig)
    finally:
        self._cache = cache


def _compile_result(self, sig):
    """Dispatcher.get_compile_result (a first-class function's address): compiled with C's wrapper,
    and only with it unless Python wants the signature too."""
    if not _ours(self):
        return _plain_compile_result(self, sig)
    with _compiling_for(self, _AS_VALUE):
        cres = self.overloads.get(tuple(sig.args))
        if cres is not None and self._can_compile and not _addressable(cres):
            self.compile(sig)
        return _plain_compile_result(self, sig)


# ------------------------------------------------ callees linked, never run
#
# numba finalizes every compiled function's library at once: it links its callees' optimised IR,
# optimises the whole module and generates its machine code.  A callee compiled without wrappers
# (above) is never run from its own library: each caller links its IR, optimises it again and
# generates the machine code again for its own module.  So a deep call tree paid the module
# optimisation and the machine code of the code under each of its levels (the search: 81 s of a
# cold 149 s).  Such a library is finalized for linking only: its callees' IR linked in, neither
# optimised as a module nor turned into machine code; the function that Python calls optimises
# the whole tree once, as one module.  The cache keeps such a library's IR (a kind of its own) for
# the callers that a later process compiles.  The results are the same (pinned and sized
# digests); the search compiles in 85 s instead of 149 and runs 3% faster, the expert engine 6%.

LINKING_KIND = "tractor_sim:linking"  # a cached library that only callers' modules link
_LIBRARY_INTERNALS = ("_get_module_for_linking", "_finalize_dynamic_globals", "_verify_declare_only_symbols")
_plain_get_executable = CPUContext.get_executable
_plain_serialize = CPUCodeLibrary.serialize_using_object_code
_plain_unserialize = CPUCodeLibrary._unserialize.__func__
_plain_set_env = JITCPUCodegen.set_env


def _defines(library, name) -> bool:
    try:
        return not library._final_module.get_function(name).is_declaration
    except NameError:
        return False


def _finalize_for_linking(library) -> None:
    """CPUCodeLibrary.finalize without the module's optimisation and its machine code (the
    execution engine): what its callers link."""
    seen = set()
    for callee in library._linking_libraries:
        if callee not in seen:
            seen.add(callee)
            library._reload_init.update(callee._reload_init)
            library._final_module.link_in(callee._get_module_for_linking(), preserve=True)
    library._final_module.verify()
    _only_linked(library)


def _only_linked(library) -> None:
    library._finalize_dynamic_globals()
    library._verify_declare_only_symbols()
    library._finalized = True
    library._tractor_sim_linking = True


def _get_executable(self, library, fndesc, env):
    """CPUContext.get_executable: this package's function compiled without either wrapper is
    finalized for linking only."""
    if not library._finalized and fndesc.modname.startswith(_PACKAGE) \
            and not _defines(library, fndesc.llvm_cpython_wrapper_name) \
            and not _defines(library, fndesc.llvm_cfunc_wrapper_name):
        _finalize_for_linking(library)
    return _plain_get_executable(self, library, fndesc, env)


def _serialize(self):
    """CPUCodeLibrary.serialize_using_object_code (what numba's cache saves); a library only for
    linking has no object code: its linkable IR."""
    if getattr(self, "_tractor_sim_linking", False):
        return self.name, LINKING_KIND, self._get_module_for_linking().as_bitcode()
    return _plain_serialize(self)


def _unserialize(cls, codegen, state):
    name, kind, data = state
    if kind != LINKING_KIND:
        return _plain_unserialize(cls, codegen, state)
    library = codegen.create_library(name)
    library._final_module = library._shared_module = ll.parse_bitcode(data)
    _only_linked(library)
    return library


def _set_env(self, env_name, env):
    """JITCPUCodegen.set_env, which writes the environment's address into its global: a library
    only for linking is not in the engine, nor is its global (its callers' copies are set as
    theirs)."""
    if self._engine.is_symbol_defined(env_name):
        _plain_set_env(self, env_name, env)


# ------------------------------------------------ a root's own functions optimised once
#
# numba runs LLVM's function passes at O3 over each function it lowers, before linking, so that what
# callers link is small.  A root (compiled with a wrapper: what Python or a first-class use calls,
# finalized with machine code) links no caller; its module passes at O3 then simplify every function
# again after linking.  For a root's own functions the first round is done at O1: the clean SSA form
# the module passes start from, at a fraction of the cost.  A cold first basic result: 19.94 ->
# 19.45 s of CPU (bench_compile, alternating children, medians of three); none at all was 0.95 s
# less, but ran 1.5-3.4% slower.  Speed (benchmarks/ab.py, medians of five alternating rounds,
# deals per CPU second, before/after): basic 1.000, expert 0.995, random 1.013.

_ROOT_FUNCTION_PASSES = 1  # the LLVM optimisation level of a root's function passes before linking
_plain_lowering_pass = NativeLowering.run_pass
_plain_optimize_functions = CPUCodeLibrary._optimize_functions
_LOWERING_ROOT = [False]  # True while numba lowers a root of this package


def _lowering_pass(self, state):
    """NativeLowering.run_pass, noting whether it lowers a root of this package."""
    was = _LOWERING_ROOT[0]
    _LOWERING_ROOT[0] = _in_package(state.func_id.func) and not (
        state.flags.no_cpython_wrapper and state.flags.no_cfunc_wrapper)
    try:
        return _plain_lowering_pass(self, state)
    finally:
        _LOWERING_ROOT[0] = was


def _optimize_functions(self, ll_module):
    """CPUCodeLibrary._optimize_functions, at O1 for a root's own functions."""
    if not _LOWERING_ROOT[0]:
        return _plain_optimize_functions(self, ll_module)
    ll_module.data_layout = self._codegen._data_layout
    for func in ll_module.functions:
        passes, builder = self._codegen._function_pass_manager(opt=_ROOT_FUNCTION_PASSES)
        passes.run(func, builder)


_plain_init = Dispatcher.__init__


def _init(self, py_func, locals=None, targetoptions=None, *args, **kwargs):
    """Dispatcher.__init__ with numpy's error model for this package's functions, unless one asks
    for another: under numba's default (Python's) every integer ``//`` and ``%`` and every float
    ``/`` lowers a test of its divisor and the code to raise ZeroDivisionError, 10% of the IR
    numba lowers for a first result (bench_compile: native lowering 7.7 -> 6.9 s, the whole cold
    compile 27.8 -> 26.5 s).  No kernel divides by a value that can be zero (the results are the
    same: pinned digests).  A plug-in strategy from elsewhere keeps numba's default."""
    if _in_package(py_func):
        targetoptions = {"error_model": "numpy", **(targetoptions or {})}
    _plain_init(self, py_func, locals, targetoptions, *args, **kwargs)


_numba_live_map = analysis.compute_live_map  # numba's own, which _live_map replaces


def _live_map(cfg, blocks, var_use_map, var_def_map):
    """numba's analysis.compute_live_map (the variables alive at the entry of each block) over bit
    sets: the same two least fixed points (definitions reaching a block, then liveness), each
    variable a bit of a Python int, so a union is one operation instead of a set's per element.
    numba runs it after most of its passes (to place ``del``s); as sets it was 5% of a cold start."""
    bit = {}

    def bits(names):
        b = 0
        for name in names:
            b |= 1 << bit.setdefault(name, len(bit))
        return b

    order = cfg.topo_order()
    use = {o: bits(var_use_map[o]) for o in blocks}
    dfn = {o: bits(var_def_map[o]) for o in blocks}
    succ = {o: [s for s, _ in cfg.successors(o)] for o in order}
    pred = {o: [p for p, _ in cfg.predecessors(o)] for o in order}
    reach = dict.fromkeys(blocks, 0)
    changed = True
    while changed:
        changed = False
        for o in order:
            r = reach[o] | dfn[o] | use[o]
            reach[o] = r
            for s in succ[o]:
                if reach[s] | r != reach[s]:
                    reach[s] |= r
                    changed = True
    live = dict(use)
    changed = True
    while changed:
        changed = False
        for o in reversed(order):
            here = live[o]
            for p in pred[o]:
                grown = live[p] | (here & reach[p] & ~dfn[p])
                if grown != live[p]:
                    live[p] = grown
                    changed = True
    name_of = list(bit)
    out = {}
    for o in blocks:
        b, names = live[o], set()
        while b:
            low = b & -b
            names.add(name_of[low.bit_length() - 1])
            b ^= low
        out[o] = names
    return out


_plain_config_values = TargetConfig.values
_OPTION_DEFAULTS: dict = {}  # a TargetConfig class -> {option: its default}


def _config_values(self):
    """numba's TargetConfig.values (every option: its set value or its default) without a property
    call per option: typing hashes and compares the compile flags at every overload lookup, 3% of
    a cold start (py-spy)."""
    defaults = _OPTION_DEFAULTS.get(type(self))
    if defaults is None:
        defaults = _OPTION_DEFAULTS[type(self)] = {k: o.default for k, o in self.options.items()}
    values = self._values
    return {k: values.get(k, d) for k, d in defaults.items()}


_plain_config_hash = TargetConfig.__hash__
_plain_config_eq = TargetConfig.__eq__
_OPTION_HASH: dict = {}  # a TargetConfig class -> its flags' hash


def _config_hash(self):
    """TargetConfig.__hash__, remembered per class: numba hashes the sorted option names (its
    ``sorted(self.values())`` sorts a dict's keys), the same for every flags object of a class.
    Typing hashes the flags at every lookup of an overload's implementation."""
    h = _OPTION_HASH.get(type(self))
    if h is None:
        h = _OPTION_HASH[type(self)] = _plain_config_hash(self)
    return h


def _config_eq(self, other):
    """TargetConfig.__eq__, answering at once for flags of one class with the same options set."""
    if type(other) is type(self) and other._values == self._values:
        return True
    return _plain_config_eq(self, other)


_plain_rec_list_vars = ir.Inst._rec_list_vars
_HOLDS_NO_VAR = frozenset({str, int, float, bool, type(None), ir.Loc})


def _rec_list_vars(self, val):
    """numba's Inst._rec_list_vars (the variables in an instruction's fields, in order) answering
    its commonest leaves first: most fields are names, numbers and locations, which numba tests
    against four types each before it returns nothing."""
    kind = type(val)
    if kind in _HOLDS_NO_VAR:
        return []
    if kind is ir.Var:
        return [val]
    if kind is dict:
        fields = val.values()
    elif kind is list or kind is tuple:
        fields = val
    else:
        return _plain_rec_list_vars(self, val)
    found = []
    for field in fields:
        kind = type(field)
        if kind is ir.Var:
            found.append(field)
        elif kind not in _HOLDS_NO_VAR:
            found.extend(self._rec_list_vars(field))
    return found


_plain_abi_sizeof = BaseContext.get_abi_sizeof
_ABI_SIZES: dict = {}  # (target data, an LLVM type's text) -> its size in bytes


def _abi_sizeof(self, ty):
    """BaseContext.get_abi_sizeof, remembered by the type's text: llvmlite answers by printing a
    module that holds the type and having LLVM parse it (1.2% of a cold start).  A type naming an
    identified struct (``%``) is asked afresh: its text does not spell its body."""
    text = str(ty)
    if "%" in text:
        return _plain_abi_sizeof(self, ty)
    key = (self.target_data, text)
    size = _ABI_SIZES.get(key)
    if size is None:
        size = _ABI_SIZES[key] = _plain_abi_sizeof(self, ty)
    return size


_plain_array_of_consts = RewriteArrayOfConsts.match


def _array_of_consts(self, func_ir, block, typemap, calltypes):
    """RewriteArrayOfConsts.match, which rewrites ``np.array([constants])`` after a ``build_list``,
    answering no at once for a block without one (nearly all: numba scanned each block, defining a
    class for the scan each time)."""
    if not any(isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Expr) and inst.value.op == "build_list"
               for inst in block.body):
        return False
    return _plain_array_of_consts(self, func_ir, block, typemap, calltypes)


_plain_function_call_type = BaseFunction.get_call_type
_CALL_TYPES: dict = {}  # (function type, typing context, target, compile flags, argument types, keywords) -> signature


def _flags_key(flags):
    """The compile's flags (numba's ConfigStack) as a key: typing an overloaded function compiles its
    implementation with flags inherited from the caller (without reference counting it refuses an
    allocation), so the answer depends on them."""
    if flags is None:
        return None
    return tuple((k, tuple(sorted(v.flags)) if isinstance(v, FastMathOptions) else v)
                 for k, v in sorted(flags._values.items()))


def _function_call_type(self, context, args, kws):
    """BaseFunction.get_call_type (a call of a built-in or overloaded function typed: its templates
    tried in order until one accepts), remembered per function, argument types and compile flags.
    Type inference asks again at each pass of its fixed point and at each call site: 11,500 asks,
    127,000 templates tried for a cold first result, most of them failing.  A call that fails is
    asked again each time, so its error is numba's own."""
    try:
        key = (self, context, get_local_target(context), _flags_key(ConfigStack.top_or_none()), args,
               tuple(kws.items()))
        sig = _CALL_TYPES.get(key)
    except TypeError:  # an unhashable type or flag: numba's own way
        return _plain_function_call_type(self, context, args, kws)
    if sig is None:
        sig = _CALL_TYPES[key] = _plain_function_call_type(self, context, args, kws)
    return sig


_plain_run_ssa = ssa._run_ssa
_SSA_INTERNALS = ("_run_ssa", "_iterated_domfronts", "_find_defs_violators", "_CacheListVars", "_get_scope",
                  "_FreshVarHandler", "_FixSSAVars", "_compute_phi_locations")


def _blocks_naming(blocks) -> dict:
    """Each variable name -> the labels of the blocks whose statements define or use it."""
    where: dict = {}
    for label, block in blocks.items():
        for stmt in block.body:
            names = {var.name for var in stmt.list_vars()}
            if isinstance(stmt, ir.Assign):
                names.add(stmt.target.name)
            for name in names:
                where.setdefault(name, set()).add(label)
    return where


def _rewrite_blocks(blocks, labels, states, handler):
    """numba's ssa._run_block_rewrite over the blocks of ``labels`` only: every other block gets a
    copy of its statements unchanged, which is what the handlers return for a block that neither
    defines nor uses the variable being fixed."""
    out = {}
    for label, block in blocks.items():
        if label not in labels:
            out[label] = block.copy()
            continue
        states["label"], states["block"] = label, block
        new = ir.Block(scope=block.scope, loc=block.loc)
        new.body = [handler.on_assign(states, stmt) if isinstance(stmt, ir.Assign) else handler.on_other(states, stmt)
                    for stmt in block.body]
        out[label] = new
    return out


def _run_ssa(blocks):
    """numba's ssa._run_ssa (SSA form: each variable defined more than once renamed per definition,
    phi nodes where definitions meet), visiting for each such variable only the blocks that
    define or use it.  numba walked every statement of the function twice per variable: for the
    drivers, a thousand blocks a variable, 820,000 block visits for a cold first result.  The
    variables, phi nodes and their order are the same: the blocks are visited in the same order,
    and a block without the variable is left as numba's handlers leave it."""
    if not blocks:
        return {}
    cfg = analysis.compute_cfg_from_blocks(blocks)
    df_plus = ssa._iterated_domfronts(cfg)
    violators = ssa._find_defs_violators(blocks, cfg)
    where = _blocks_naming(blocks)
    cache_list_vars = ssa._CacheListVars()
    scope = ssa._get_scope(blocks)
    for varname in violators:
        labels = where.get(varname, set())
        defmap, phimap = collections.defaultdict(list), collections.defaultdict(list)
        states = {"scope": scope, "varname": varname, "defmap": defmap}
        blocks = _rewrite_blocks(blocks, labels, states, ssa._FreshVarHandler())
        states = {"scope": scope, "varname": varname, "defmap": defmap, "phimap": phimap, "cfg": cfg,
                  "phi_locations": ssa._compute_phi_locations(df_plus, defmap)}
        blocks = _rewrite_blocks(blocks, labels, states, ssa._FixSSAVars(cache_list_vars))
        for label, phis in phimap.items():
            blocks[label].body = phis + blocks[label].body
    if analysis.compute_cfg_from_blocks(blocks) != cfg:
        raise errors.CompilerError("CFG mutated in SSA pass")
    return blocks


_plain_ensure_blas = numba_linalg.ensure_blas


def _blas_on_disk() -> bool:
    """Whether scipy's BLAS module is installed, found without importing scipy."""
    spec = importlib.util.find_spec("scipy")
    return spec is not None and any(
        os.path.exists(os.path.join(folder, "linalg", "cython_blas" + suffix))
        for folder in spec.submodule_search_locations or () for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _probe_blas():
    """numba.np.linalg.ensure_blas for its first ask: numba.np.arraymath's import (in every process that
    loads a kernel, warm or cold) only wants to know whether a BLAS exists, and numba's answer imported
    scipy.linalg (0.07 s of a warm quick start's 3.2 s of CPU; no kernel here calls BLAS).  Answered
    from the disk; every later ask is numba's own (numba imports the module then, and checks its
    integer width)."""
    numba_linalg.ensure_blas = _plain_ensure_blas
    caller = sys.modules.get("numba.np.arraymath")
    if caller is not None and getattr(caller, "ensure_blas", None) is _probe_blas:
        caller.ensure_blas = _plain_ensure_blas
    if not _blas_on_disk():
        _plain_ensure_blas()  # numba's own ImportError


def faster_compiles() -> None:
    """Install the changes above (core/__init__.py calls it before any kernel is compiled).
    A numba without these internals (the pinned range has them) keeps its own, only slower."""
    if not (hasattr(InlineWorker, "inline_function") and hasattr(InlineWorker, "run_untyped_passes")):
        return
    if not getattr(Dispatcher, "_tractor_sim_faster", False):  # once, whichever copy of the package comes first
        Dispatcher._tractor_sim_faster = True
        ir.Block.__deepcopy__ = _block_deepcopy
        InlineWorker.inline_function = _inline_function
        Dispatcher.get_call_template = _call_template
        _FunctionCompiler._customize_flags = _callee_flags
        Dispatcher.add_overload = _add_overload
        Dispatcher.compile = _compile
        Dispatcher.get_compile_result = _compile_result
        Dispatcher.__init__ = _init
        TargetConfig.values = _config_values
        TargetConfig.__hash__ = _config_hash
        TargetConfig.__eq__ = _config_eq
        ir.Inst._rec_list_vars = _rec_list_vars
        RewriteArrayOfConsts.match = _array_of_consts
        BaseContext.get_abi_sizeof = _abi_sizeof
        if all(hasattr(CPUCodeLibrary, name) for name in _LIBRARY_INTERNALS):
            CPUContext.get_executable = _get_executable
            CPUCodeLibrary.serialize_using_object_code = _serialize
            CPUCodeLibrary._unserialize = classmethod(_unserialize)
            JITCPUCodegen.set_env = _set_env
        if hasattr(CPUCodeLibrary, "_optimize_functions") and hasattr(JITCPUCodegen, "_function_pass_manager"):
            NativeLowering.run_pass = _lowering_pass
            CPUCodeLibrary._optimize_functions = _optimize_functions
        BaseFunction.get_call_type = _function_call_type
        if "numba.np.arraymath" not in sys.modules:
            numba_linalg.ensure_blas = _probe_blas
        if hasattr(CFGraph, "topo_order"):
            analysis.compute_live_map = ir_utils.compute_live_map = _live_map
        if all(hasattr(ssa, name) for name in _SSA_INTERNALS):
            ssa._run_ssa = _run_ssa


def lazy_signature(dispatcher, signature):
    """``dispatcher`` compiled for ``signature`` (only) at its first call, from Python or from
    compiled code, instead of when its module is imported as ``njit(signature)`` does.

    A declared signature is what lets Python pass a tuple of compiled strategies as first-class
    functions (one compile for every matchup); compiled at import, it made ``import
    tractor_sim.runs.engine`` compile the whole deal kernel, and the rollout driver that a run of
    the engine never calls (2 s, and the copy of the driver linked into it)."""
    if not hasattr(dispatcher, "disable_compile"):  # NUMBA_DISABLE_JIT: a plain function
        return dispatcher
    key = tuple(signature.args)

    def ready():
        if dispatcher._can_compile:
            dispatcher.compile(signature)
            dispatcher.disable_compile()

    def get_call_template(args, kws):  # typing a call from compiled code
        ready()
        return type(dispatcher).get_call_template(dispatcher, args, kws)

    def compile_for_args(*args, **kws):  # a call from Python that matched no compiled signature
        ready()
        return dispatcher.overloads[key].entry_point

    dispatcher.get_call_template = get_call_template
    dispatcher._compile_for_args = compile_for_args
    return dispatcher


def lazy_jit(signature, **options):
    """``njit(signature, cache=True)`` compiled at the first call (``lazy_signature``)."""
    return lambda fn: lazy_signature(njit(cache=True, **options)(fn), signature)
