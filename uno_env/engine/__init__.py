"""numba kernels only: state layout (``state``), integer codes (``codes``), random
streams (``rng``), rules of play (``core``) and observations (``observe``). Nothing here
imports from the rest of ``uno_env`` except the jit options."""
