"""The one place that sets numba's jit options, and how a variant is compiled in.

Three decorators, used by every module of :mod:`uno_env.engine` (a test,
``tests/project/test_packaging.py``, checks that no module calls ``numba.njit`` directly):

- :func:`njit` for the kernels inside the engine. They are compiled only as part of an
  entry point (below), specialised for the ``Spec`` class of one variant, and are not
  cached on their own: an entry point's cache holds all the code beneath it.
- :func:`by_spec` for the few functions whose body depends on the variant (the face a
  card shows, which wilds are restricted, the variant's legal mask and move ...). The
  implementation is chosen by the class of the ``sp`` argument when a kernel is typed,
  so a classic kernel never types, lowers or optimises Flip code. (:func:`by_class`
  does the same on another argument.)
- :func:`entry_point` for the kernels called from Python (about one per API). Each
  variant gets its own compiled copy, cached on disk in a directory named after the
  variant and a hash of exactly the engine files that variant compiles
  (:func:`variant_files`): editing ``engine/flip.py`` keeps a classic user's cache.
  numba itself checks a cached kernel against its own source file only, which would keep
  stale code of the modules it calls; the hash covers them.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import os
import sys
from pathlib import Path

import numba
from numba.core.registry import CPUDispatcher
from numba.extending import overload

from uno_env.engine import _cache, _link_only
from uno_env.engine.variants import VARIANTS

#: Options shared by every kernel. ``nogil=True`` lets threads run kernels side by side.
JIT_OPTIONS = {"nogil": True, "boundscheck": False}
#: A kernel inside the engine is called only from other kernels, never from Python, so
#: it is compiled without numba's two wrappers (the CPython one, which unboxes the
#: state's and the spec's two dozen arrays, and the C one): each would be generated,
#: optimised and compiled to machine code for every kernel, about a fifth of a first
#: compile (a first classic ``Game`` move: 14.7 s -> 11.6 s). Calling one from Python
#: raises a TypeError (:class:`InnerKernel`); :func:`python_callable` gives a copy that
#: Python may call.
#: Nor is it optimised or compiled to machine code on its own: only linked into the
#: entry points, which optimise and compile the tree once (``_link_only``).
INNER_OPTIONS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
if _link_only.AVAILABLE:
    INNER_OPTIONS["pipeline_class"] = _link_only.InnerCompiler

ENGINE_DIR = Path(__file__).resolve().parent
#: the module of each variant's rules (``Rules.variant``); a variant compiles its own
#: module, the modules it imports, and every engine module that is no variant's
VARIANT_MODULES = {v.name: v.module for v in VARIANTS}


def njit(fn=None, *, allocates=False, **extra):
    """``numba.njit`` with the project's options; ``extra`` adds to them (e.g. inline).

    A kernel is compiled without numba's reference counting unless it says
    ``allocates=True`` (it makes arrays: ``np.zeros``, ``.copy()``, a new ``State``).
    Every call of a reference-counted kernel increments and decrements the count of
    each array it is passed, and a kernel takes the state and the spec: 26 arrays, two
    atomic operations each, which cost more than a plain turn's logic. Without it a
    kernel may not allocate or return a new array (numba refuses to compile it), nor
    return an array it was passed (``tests/project/test_packaging.py`` reads the engine's
    return statements for that)."""
    if fn is None:
        return functools.partial(njit, allocates=allocates, **extra)
    # set either way: a callee inherits the caller's setting unless it states its own
    options = {**JIT_OPTIONS, **INNER_OPTIONS, "_nrt": allocates, **extra}
    kernel = numba.njit(**options)(fn)
    if isinstance(kernel, CPUDispatcher):  # not under NUMBA_DISABLE_JIT=1
        kernel.__class__ = InnerKernel
    return kernel


class InnerKernel(CPUDispatcher):
    """A kernel of the engine compiled without a Python wrapper (``INNER_OPTIONS``):
    other kernels call it, and a call from Python raises instead of crashing.

    A call with a constant argument (``f(st, 0, sp)``) is typed with the argument's
    plain type, not numba's literal type (``Literal[int](0)``): each literal is a type
    of its own, and every distinct one compiled the kernel and its whole tree again."""

    def get_call_template(self, args, kws):
        return super().get_call_template(
            tuple(numba.types.unliteral(a) for a in args),
            {k: numba.types.unliteral(v) for k, v in kws.items()})

    def __call__(self, *args, **kwargs):
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        raise TypeError(
            f"{name} is an engine kernel compiled for calls from other kernels only (no "
            f"Python wrapper, to keep the first compile short). Call it from a kernel, "
            f"through the entry points (uno_env.engine.entry.kernels(variant), Game, "
            f"simulate), or wrap it: uno_env.engine.jit.python_callable({name.split('.')[-1]})")


@functools.lru_cache(maxsize=None)
def python_callable(kernel):
    """A copy of an engine kernel that Python may call (for tests and tools): the same
    function compiled with the Python wrapper. Compiles the kernel's tree once more."""
    if not isinstance(kernel, InnerKernel):
        return kernel
    return numba.njit(**JIT_OPTIONS)(kernel.py_func)


def by_spec(stub=None, *, allocates=False):
    """Make ``stub`` a function whose implementation depends on the ``Spec`` class of
    its ``sp`` argument (one class per variant, ``engine.variants``). Register each
    implementation with ``@stub.register(SpecClass, ...)``, or one for every variant
    without its own with ``@stub.register_default``; a variant's module registers its
    own where the default does not fit it (docs/adding-a-variant.md). numba picks the
    implementation when it types the caller (LLVM inlines the small ones), plain Python
    (``NUMBA_DISABLE_JIT=1``) picks it per call. ``allocates`` as for :func:`njit`
    (``@by_spec(allocates=True)``)."""
    if stub is None:
        return functools.partial(by_spec, allocates=allocates)
    return by_class("sp", allocates=allocates)(stub)


def by_class(argument: str, *, allocates=False):
    """``by_spec`` on another argument: a decorator making ``stub`` a function whose
    implementation is chosen by the class of its argument named ``argument`` -- a
    namedtuple class, or ``type(None)`` for ``None`` (``@stub.register(type(None))``).
    The learner's loops use it to play their opponents with or without search
    (``engine.learner``). ``allocates`` as for :func:`njit`. The function's
    ``implementations`` (class -> implementation, ``None`` -> the default) and
    ``dispatch_argument`` are there for tests (``tests/engine/test_variant_registry.py``)."""
    def decorator(stub):
        impls: dict[type | None, object] = {}
        position = list(inspect.signature(stub).parameters).index(argument)

        def choose(cls):
            impl = impls.get(cls, impls.get(None))
            if impl is None:
                raise numba.core.errors.TypingError(
                    f"{stub.__name__} has no implementation for {cls}")
            return impl

        @functools.wraps(stub)
        def dispatch(*args):
            return choose(type(args[position]))(*args)

        def register(*classes):
            def decorate(impl):
                for cls in classes:
                    impls[cls] = impl
                return impl
            return decorate

        def register_default(impl):
            impls[None] = impl
            return impl

        def typer(*args):
            t = args[position]
            cls = type(None) if isinstance(t, (numba.types.NoneType, numba.types.Omitted)) \
                else getattr(t, "instance_class", None)
            return choose(cls)

        jit_options = {**JIT_OPTIONS, **INNER_OPTIONS, "_nrt": allocates}
        overload(dispatch, strict=False, jit_options=jit_options)(typer)
        dispatch.register = register
        dispatch.register_default = register_default
        dispatch.implementations = impls
        dispatch.dispatch_argument = argument
        return dispatch
    return decorator


# --- entry points: one compiled copy per variant, cached in the variant's directory ---


def _engine_imports(name: str) -> set[str]:
    """Engine modules imported by ``engine/<name>.py`` (its source, not its run)."""
    tree = ast.parse((ENGINE_DIR / f"{name}.py").read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "uno_env.engine":
                out.update(a.name for a in node.names)
            elif node.module.startswith("uno_env.engine."):
                out.add(node.module.split(".")[2])
    return out


def variant_files(variant: str) -> list[Path]:
    """The files whose code a variant's kernels are built from: ``_jit.py`` and
    ``_link_only.py``, every
    engine module except the other variants' rule modules, and the modules the
    variant's own rule module imports."""
    others = set(VARIANT_MODULES.values()) - {VARIANT_MODULES[variant]}
    needed, todo = set(), [VARIANT_MODULES[variant]]
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(_engine_imports(name))
    names = {p.stem for p in ENGINE_DIR.glob("*.py")}
    keep = sorted((names - others) | needed)
    here = Path(__file__).resolve()
    return [ENGINE_DIR / f"{n}.py" for n in keep]


@functools.lru_cache(maxsize=None)
def cache_dir(variant: str) -> str:
    """Where the variant's compiled kernels live on disk (``NUMBA_CACHE_DIR`` or
    ``~/.cache/uno_env/numba``, then ``<variant>-<hash of variant_files>``)."""
    digest = hashlib.sha1()
    for path in variant_files(variant):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    digest.update(f"{sys.version_info[:2]} numba {numba.__version__}".encode())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"),
        "uno_env", "numba")
    return os.path.join(base, f"{variant}-{digest.hexdigest()[:16]}")


def entry_point(py_func, variant: str, **extra):
    """A cached dispatcher of ``py_func`` (a plain Python function of the engine) for
    one variant: the same code, compiled and cached apart from the other variants'.
    An unwritable or corrupt cache warns and compiles instead (``uno_env.engine._cache``)."""
    path = cache_dir(variant)
    cached = _cache.writable(path)
    options = {**JIT_OPTIONS, "cache": cached, **extra}
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = path  # read once, when the locator is made
    try:
        dispatcher = numba.njit(**options)(py_func)
    finally:
        numba.config.CACHE_DIR = previous
    if cached:
        _cache.tolerate_corrupt(dispatcher, f"{variant} {py_func.__name__}")
    return dispatcher


def bind(kernel, *example_args):
    """Compile ``kernel`` for the types of ``example_args`` and return its entry point.

    Calling the entry point skips numba's per-call type dispatch, which dominates the
    cost of a kernel that takes the state record (about 3.6 us -> 1.1 us a call). Only
    call it with arguments of exactly those types."""
    if not hasattr(kernel, "typeof_pyval"):  # NUMBA_DISABLE_JIT=1: a plain function
        return kernel
    signature = tuple(kernel.typeof_pyval(a) for a in example_args)
    return kernel.compile(signature)
