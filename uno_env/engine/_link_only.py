"""Inner kernels compiled to LLVM code only, for linking into the entry points.

numba compiles each kernel into a code library of its own: it links in the libraries of
the kernels it calls, optimises the result as a whole (LLVM's module passes) and makes
machine code for it. A kernel that calls another kernel that calls a third has the
third's code optimised and compiled three times, and the engine's trees are ten levels
deep: for the ``search`` entry point that was 31 s of a 55 s first compile. But an inner
kernel (``_jit.njit``) is never called from Python, only linked into its callers.

Its library here is a :class:`LinkOnlyLibrary`: its functions get numba's
per-function passes when their code is added, and nothing else; the entry point that
links the whole tree optimises it once and makes the only machine code (a classic
``Game`` move: 11.7 s -> 7.4 s from an empty cache; the search entry point 55 s -> 26
s; docs/performance.md). The code that runs is the entry point's, as before.

This reaches into numba's code generation (``numba.core.codegen``), which is not a
public API. :data:`AVAILABLE` is False when numba's internals are not the expected
ones; the inner kernels then compile the usual way (slower, same results).
"""
from __future__ import annotations

try:
    from numba import _dynfunc
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler import Compiler
except ImportError:  # another numba layout
    AVAILABLE = False
else:
    AVAILABLE = all(hasattr(JITCodeLibrary, name) for name in (
        "_get_module_for_linking", "_raise_if_finalized", "_ensure_finalized",
        "add_linking_library")) and hasattr(Compiler, "compile_extra") \
        and hasattr(_dynfunc, "make_function")


if AVAILABLE:
    class LinkOnlyLibrary(JITCodeLibrary):
        """An inner kernel's library: finalising it links its callees' code in (so a
        caller links the whole tree by linking this), without optimising the module or
        making machine code."""

        def finalize(self):
            self._raise_if_finalized()
            seen = set()
            for library in self._linking_libraries:
                if library not in seen:
                    seen.add(library)
                    self._reload_init.update(library._reload_init)
                    self._final_module.link_in(library._get_module_for_linking(),
                                               preserve=True)
            self._final_module.verify()
            self._finalized = True

    class InnerCompiler(Compiler):
        """numba's pipeline, with a :class:`LinkOnlyLibrary` for the kernel's code
        (``pipeline_class`` of ``_jit.INNER_OPTIONS``)."""

        def compile_extra(self, func):
            if self.state.library is None:
                codegen = self.state.targetctx.codegen()
                library = codegen.create_library(func.__qualname__)
                library.__class__ = LinkOnlyLibrary
                self.state.library = library
            # the target context of this compile only (numba copies it per compile)
            self.state.targetctx.get_executable = _placeholder_executable
            return super().compile_extra(func)

    def _placeholder_executable(library, fndesc, env):
        """What numba keeps as the Python callable of a compiled kernel: for an inner
        kernel, one without machine code, never called (``_jit.InnerKernel.__call__``
        raises first). numba's own version would look the kernel up in the machine
        code, and set its environment there."""
        library._ensure_finalized()
        return _dynfunc.make_function(
            fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
            f"inner kernel {fndesc.qualname!r}, linked into entry points only", 0, env,
            (library,))
