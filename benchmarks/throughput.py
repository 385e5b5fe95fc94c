"""Throughput table: simulate, EverySeatBatch, AEC and RLCard side by side (the same as
``uno-bench bench``, whose options it takes: ``--seconds``, ``--players``, ``--preset``,
``--rule``, ``--json``; ``python benchmarks/throughput.py --help``)."""
import sys

from uno_env.apps.cli import app

if __name__ == "__main__":
    app(["bench", *sys.argv[1:]], prog_name="python benchmarks/throughput.py")
