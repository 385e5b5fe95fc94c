"""Execute the notebooks in ``notebooks/`` and save them with their outputs.

    python benchmarks/notebooks.py                 # full run, every notebook, in place
    python benchmarks/notebooks.py --quick agents  # UNO_QUICK=1, one notebook

Prints each notebook's run time (the full-mode times go in the README). The test suite
runs the same function in quick mode on copies (``tests/applications/test_notebooks.py``)."""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def execute(path: Path, quick: bool, out: Path | None = None, timeout: int = 3600):
    """Run ``path`` top to bottom in a fresh kernel (``UNO_QUICK`` set from ``quick``)
    and write the executed notebook to ``out`` (default: in place). Returns the
    executed notebook and the seconds it took; a failing cell raises
    ``nbclient.exceptions.CellExecutionError`` naming the cell and the error."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # UNO_ENV_QUIET: a kernel compiled on this run would otherwise leave its
    # "compiling ..." notice in the saved outputs
    settings = {"UNO_QUICK": "1" if quick else "0", "UNO_ENV_QUIET": "1"}
    previous = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    start = time.perf_counter()
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        for k, v in previous.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.perf_counter() - start
    nbformat.write(nb, out or path)
    return nb, seconds


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: all)")
    parser.add_argument("--quick", action="store_true", help="UNO_QUICK=1 (under a minute)")
    args = parser.parse_args(argv)
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.names:
        wanted = {n.removesuffix(".ipynb") for n in args.names}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            parser.error(f"unknown notebook(s) {sorted(unknown)}; have "
                         f"{', '.join(p.stem for p in paths)}")
        paths = [p for p in paths if p.stem in wanted]
    for path in paths:
        _, seconds = execute(path, args.quick)
        print(f"{path.name}: {seconds:.0f} s ({'quick' if args.quick else 'full'} mode)",
              flush=True)


if __name__ == "__main__":
    main()
