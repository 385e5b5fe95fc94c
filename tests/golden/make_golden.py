"""Regenerate the golden playthroughs (tests/engine/test_golden_replays.py re-plays them).

    PYTHONPATH=. python tests/golden/make_golden.py

Only after a deliberate change of behaviour: the golden files pin down every step of
these games, so regenerating them accepts whatever the engine does now.
"""
import json
from pathlib import Path

from uno_env.apps.replay import golden_states, record
from uno_env.rules import PRESETS

HERE = Path(__file__).parent
#: (players, agents, game index) per golden game of each preset
GAMES = ((2, "heuristic,greedy", 0), (4, "heuristic,random,greedy,heuristic", 1))
#: teams needs 4 players (docs/rules.md section 3)
TEAMS_GAMES = ((4, "heuristic,greedy,heuristic,greedy", 0),
               (4, "heuristic,random,greedy,heuristic", 1))


def main():
    for preset in PRESETS:
        for players, agents, index in (TEAMS_GAMES if preset == "teams" else GAMES):
            tmp = record(agents, preset, players, games=index + 1, seed=2026,
                         out_dir=HERE / "_tmp")
            data = json.loads(tmp[-1].read_text())
            for p in tmp:
                p.unlink()
            states = golden_states(data)
            path = HERE / f"{preset}_{players}p_game{index}.json"
            lines = ['{"replay": ' + json.dumps(data, separators=(",", ":")) + ',',
                     ' "states": [']
            lines += ["  " + json.dumps(s, separators=(",", ":")) +
                      ("," if k < len(states) - 1 else "") for k, s in enumerate(states)]
            lines += [" ]}"]
            path.write_text("\n".join(lines) + "\n")
            print(path, len(data["moves"]), "moves")
    (HERE / "_tmp").rmdir()


if __name__ == "__main__":
    main()
