"""``benchmarks/search_oracle.py``: the oracle that tells the search part of the truth
(an experiment of docs/agents.md, "How much the search would need to know"). Its deals
must keep every card and hand size, and tell exactly what its mode says."""
import importlib
import pathlib

import numba
import numpy as np
import pytest

from uno_env import Game
from uno_env.engine import codes as C
from uno_env.engine.rng import seed_stream_py
from support import ROOT

PATH = ROOT / "benchmarks" / "search_oracle.py"


def _bench():
    return importlib.import_module("benchmarks.search_oracle")


def _position(moves=12, seed=3):
    g = Game("classic", 4, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        g.step(int(rng.choice(np.flatnonzero(g.action_mask()))))
    return g


def _hidden(g, seat):
    """Copies of each card type hidden from ``seat``: the other hands and the draw pile."""
    st = g._state
    cards = st.hands[0].sum(0) - st.hands[0, seat]
    pile = st.draw_pile[0, :st.info[0, C.I_DRAW_LEN]]
    return cards + np.bincount(pile, minlength=cards.shape[0])


@pytest.mark.parametrize("mode", ["hands", "colours+actions"])
def test_oracle_deals_keep_the_cards_and_tell_the_classes(mode):
    bench = _bench()
    card_classes, percent = bench.MODES[mode]
    tell, _ = bench.make_oracle(card_classes, percent)

    @numba.njit
    def call(root, dst, sp, seat, rng):
        tell(root, dst, sp, seat, rng, 0)

    g = _position()
    seat = g.current_player
    sp = g.config.spec
    K = g._state.hands.shape[2]
    rank = np.array([sp.face_rank[sp.type_face[t, 0]] for t in range(K)])
    color = np.array([sp.face_color[sp.type_face[t, 0]] for t in range(K)])
    klass = np.where(rank >= C.FIRST_WILD_RANK, 1000 + rank, 2 * color + (rank >= 10))
    changed = 0
    for s in range(6):
        d = g.determinize(seat, seed=s)
        rng = np.array([seed_stream_py(s, 1)], np.uint64)
        call(g._state, d._state, sp, seat, rng)
        truth, dealt = g._state.hands[0], d._state.hands[0]
        assert (dealt.sum(1) == truth.sum(1)).all()             # every hand size
        assert (dealt[seat] == truth[seat]).all()                # the seat's own hand
        assert (_hidden(d, seat) == _hidden(g, seat)).all()      # the same hidden cards
        assert (d._state.hand_size[0] == g._state.hand_size[0]).all()
        for q in range(4):
            if q == seat:
                continue
            if mode == "hands":
                assert (dealt[q] == truth[q]).all()
            else:
                assert (np.bincount(klass, dealt[q], 1200) ==
                        np.bincount(klass, truth[q], 1200)).all()
                changed += int((dealt[q] != truth[q]).any())
    if mode != "hands":
        assert changed > 0  # the cards within a class are still redrawn


def test_oracle_benchmark_runs_and_plots(tmp_path, capsys):
    """End to end at a tiny size with the mode that needs no compile of its own: the
    reference row, the belief row with its share of cards right, the JSON and plot."""
    import json
    bench = _bench()
    out, fig = tmp_path / "o.json", tmp_path / "o.png"
    bench.main(["--games", "8", "--position-games", "2", "--modes", "belief", "--json",
                str(out), "--plot", str(fig)])
    data = json.loads(out.read_text())
    assert data["reference"]["agent"] == "heuristic" and data["reference"]["games"] == 8
    (row,) = data["rows"]
    assert row["mode"] == "belief" and row["agent"] == "mcts:200" and row["games"] == 8
    # a deal puts some of the other players' cards right, far from all of them
    assert 0 < row["cards_right_uniform"] < 0.5 and 0 < row["cards_right"] < 0.5
    assert fig.stat().st_size > 1000
    again = tmp_path / "again.png"
    bench.main(["--replot", str(out), "--plot", str(again)])
    assert again.stat().st_size > 1000
    with pytest.raises(SystemExit):
        bench.main(["--modes", "belief,psychic"])
    assert "unknown mode(s) psychic" in capsys.readouterr().err
