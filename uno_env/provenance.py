"""Where a result came from: the one record every result file of uno-env carries.

    >>> from uno_env.provenance import provenance
    >>> record = provenance(configs=[config], seeds=[1802])

``provenance`` builds it; every writer a person may report from calls it once, where it
writes: a benchmark card (``card.json``, ``card.md``, ``card.png``'s metadata), a
tournament's ``results.json`` and chart, ``uno-bench simulate --out`` and ``uno-bench
evaluate --out``, a replay file, a trained model file (``meta["provenance"]`` of the
``.npz``) and an exported ONNX model (``tests/project/test_provenance.py`` checks each).
The record (``PROVENANCE_FORMAT``):

- ``uno_env``: ``version``, ``commit`` (the git commit of the tree it ran from, None for
  an installed wheel) and ``dirty`` (tracked files differed from that commit);
- ``python``, ``platform``; ``libraries``: numpy, numba, gymnasium, pettingzoo, and the
  optional ones the process had loaded (torch, Stable-Baselines3, sb3-contrib, Ray,
  onnx, onnxruntime, jax, OpenSpiel): a library not loaded was not used;
- ``rules``: per configuration played, the preset, the players and every rule flag (not
  only those that differ from the preset: a preset may change between versions);
- ``seeds``; ``environments``: the registered environment ids and their versions
  (``uno_env.envs.registration``), or those the writer names;
- ``machine``: the CPU model and the cores; ``date`` (UTC); ``command``: the command
  line exactly as the process got it, and the working directory's name.

``describe(record)`` gives the lines of text a card prints; a record that is missing
(a file written before uno-env 0.2.0) reads "unknown" everywhere, never invented.
docs/reproducibility.md says how to reproduce a result from these fields.

This module sits below every package (it imports only ``uno_env.version``) and imports
no kernel: a configuration is read by its attributes (``preset``, ``num_players``,
``rules``).
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import shlex
import sys
from importlib import metadata

from uno_env.version import __version__, commit

#: the version of the record's layout
PROVENANCE_FORMAT = "uno-env-provenance/1"
#: distributions always recorded (the core dependencies)
CORE = ("numpy", "numba", "gymnasium", "pettingzoo")
#: optional libraries, recorded when loaded: import name -> distribution name
OPTIONAL = {"torch": "torch", "stable_baselines3": "stable-baselines3",
            "sb3_contrib": "sb3-contrib", "ray": "ray", "onnx": "onnx",
            "onnxruntime": "onnxruntime", "jax": "jax", "pyspiel": "open_spiel"}
UNKNOWN = "unknown"


def _dist_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def libraries() -> dict:
    """The core libraries' versions, and those of the optional ones this process loaded."""
    out = {name: _dist_version(name) for name in CORE}
    for module, dist in OPTIONAL.items():
        if module in sys.modules:
            out[dist] = getattr(sys.modules[module], "__version__", None) or \
                _dist_version(dist)
    return out


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, ``platform.processor()``
    elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or UNKNOWN


def machine() -> dict:
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    return {"cpu": cpu_model(), "cores": cores, "usable_cores": usable,
            "arch": platform.machine(), "system": platform.system()}


def rules_record(config) -> dict:
    """A configuration's preset, players and every rule flag (JSON-ready)."""
    flags = dataclasses.asdict(config.rules) if dataclasses.is_dataclass(config.rules) \
        else dict(config.rules)
    return {"preset": config.preset, "num_players": int(config.num_players),
            "rules": {k: list(v) if isinstance(v, tuple) else v for k, v in flags.items()}}


def environments() -> dict:
    """The environment ids this process registered (``uno_env.envs.registration``; read
    from the loaded module, since this module imports nothing above it)."""
    registration = sys.modules.get("uno_env.envs.registration")
    if registration is None:
        return {}
    return {"single_seat": registration.SINGLE_SEAT_ID, "aec": registration.AEC_ID}


def command_line() -> str:
    """The command line exactly as this process got it (``python -m uno_env.apps.cli
    ...``, ``uno-bench ...``)."""
    argv = getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv]
    return shlex.join(str(a) for a in argv)


def provenance(configs=(), seeds=(), envs: dict | None = None, **more) -> dict:
    """The record (module docstring) of a result: ``configs`` the configurations played
    (``uno_env.Config``; one or a list), ``seeds`` the seeds it used, ``envs`` the
    environments it stepped (default: the registered ids); ``more`` adds entries of the
    writer's own (agents, models)."""
    if configs is None:
        configs = ()
    elif not isinstance(configs, (list, tuple)):
        configs = [configs]
    if isinstance(seeds, int) or seeds is None:
        seeds = [] if seeds is None else [seeds]
    head, dirty = commit()
    record = {
        "format": PROVENANCE_FORMAT,
        "uno_env": {"version": __version__, "commit": head, "dirty": dirty},
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": libraries(),
        "rules": [rules_record(c) for c in configs],
        "seeds": [s if s is None or isinstance(s, str) else int(s) for s in seeds],
        "environments": environments() if envs is None else dict(envs),
        "machine": machine(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command_line(),
        "cwd": os.path.basename(os.getcwd()),
    }
    record.update(more)
    return record


def of(data: dict | None) -> dict | None:
    """The provenance record in a result file's data (``data["provenance"]``), or None
    when it has none (written before uno-env 0.2.0)."""
    if not isinstance(data, dict):
        return None
    record = data.get("provenance")
    return record if isinstance(record, dict) else None


def describe(record: dict | None) -> list[str]:
    """Lines of text for a card: the version and commit, the libraries, the machine,
    the date and the command; "unknown" for what the record lacks."""
    if not record:
        return ["Provenance: unknown (the file was written before uno-env 0.2.0 "
                "recorded it)."]
    u = record.get("uno_env") or {}
    head = u.get("commit")
    code = f"uno-env {u.get('version', UNKNOWN)}, " + (
        f"commit {head}" + (" (dirty: uncommitted changes)" if u.get("dirty") else "")
        if head else "no git commit (an installed package)")
    libs = ", ".join(f"{k} {v}" for k, v in (record.get("libraries") or {}).items()
                     if v) or UNKNOWN
    m = record.get("machine") or {}
    return [f"Provenance: {code}; Python {record.get('python', UNKNOWN)}; {libs}.",
            f"Machine: {m.get('cpu', UNKNOWN)}, {m.get('cores', UNKNOWN)} cores "
            f"({record.get('platform', UNKNOWN)}); date {record.get('date', UNKNOWN)}.",
            f"Command: `{record.get('command', UNKNOWN)}`."]


def png_metadata(record: dict | None) -> dict:
    """``Figure.savefig(metadata=...)`` entries for a PNG: the software and version, and
    the whole record as JSON text (``Provenance``)."""
    version = ((record or {}).get("uno_env") or {}).get("version", __version__)
    return {"Software": f"uno-env {version}",
            "Provenance": json.dumps(record, separators=(",", ":"))}
