"""Throughput table: simulate, VectorEnv, AEC and RLCard side by side (same as
``uno-bench bench``). Run ``python benchmarks/throughput.py --help`` for options."""
from uno_env.apps.throughput import main

if __name__ == "__main__":
    main()
