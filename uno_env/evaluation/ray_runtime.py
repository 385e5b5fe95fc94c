"""Ray, an optional dependency of RLlib training (``uno_env.integrations.rllib``) and of Ray
tournaments (``uno_env.evaluation.distributed``): connecting to it, and the error that
names the extra to install when it is missing."""
from __future__ import annotations

RAY_EXTRA = ('the Ray backend needs the "ray" extra: pip install -e ".[ray]" '
             '(or pip install "ray>=2.40")')


class MissingExtra(ImportError, ValueError):
    """An optional dependency is not installed (the message names the extra)."""


def require_ray():
    """The ``ray`` module, or ``MissingExtra`` naming the extra to install."""
    try:
        import ray
    except ImportError as err:
        raise MissingExtra(f"{RAY_EXTRA} ({err})") from None
    return ray


def connect(address: str | None = None):
    """Connect to Ray: the instance already connected if any, else ``address`` (a
    cluster's ``"host:6379"``, ``"ray://host:10001"`` or ``"auto"``), else a new local
    instance on this machine's cores. Returns the ``ray`` module."""
    ray = require_ray()
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False,
                 include_dashboard=False if address is None else None)
    return ray
