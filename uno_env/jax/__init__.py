"""``uno_env.jax``: the classic variant in pure JAX, the numba engine's games by seed
(docs/jax-identity.md). Needs the ``jax`` extra (``pip install -e ".[jax]"``);
``import uno_env`` never imports this package.

``make_params`` (``table_params``: any table size in one program), ``init``, ``step``, ``observe``, ``seed_stream``, ``State`` and
``Params`` are the functional engine (``uno_env.jax.core``); ``simulate`` plays random
games (``uno_env.jax.simulate``); ``greedy`` and ``heuristic`` are the panel's baseline
agents (``uno_env.jax.policies``). The pgx and JaxMARL environments load on first use.

==================  ==============================================================
module              holds
==================  ==============================================================
``core``            the engine: ``Params``, ``State``, ``init``, ``step``, ``observe``
``_rng``            the numba engine's per-game streams in pairs of 32-bit words
``simulate``        whole games of random play in one ``lax.while_loop``
``policies``        ``greedy``, ``heuristic``: the numba baseline agents' moves
``_identity``       the comparisons with the numba engine (tests, benchmark)
``pgx_env``         ``UnoPgx``: the game as a pgx environment (pgx's conventions)
``jaxmarl_env``     ``UnoJaxMARL``: the game as a JaxMARL ``MultiAgentEnv``
==================  ==============================================================
"""
from uno_env.jax.core import (  # noqa: F401
    SUPPORTED_PRESETS, Params, State, init, make_params, observe, seed_stream, step,
    supported_flags, table_params)
from uno_env.jax.simulate import simulate  # noqa: F401
from uno_env.jax.policies import greedy, heuristic  # noqa: F401

#: lazily loaded adapters: name -> module (their frameworks load only when asked for)
_LAZY = {"UnoPgx": "uno_env.jax.pgx_env", "UnoJaxMARL": "uno_env.jax.jaxmarl_env"}

__all__ = ["SUPPORTED_PRESETS", "Params", "State", "init", "make_params", "observe",
           "seed_stream", "step", "supported_flags", "table_params", "simulate", "greedy", "heuristic", *_LAZY]


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'uno_env.jax' has no attribute {name!r}")
