"""The seeded sample of the slow matrices (tests/sampling.py): every value of every axis
in each draw, the same draw for the same seed, and every cell when asked."""

import itertools

import sampling

CELLS = list(itertools.product(["rm", "find", "python", "node", "native"], ["off", "on"]))


def test_every_value_of_every_axis_is_drawn_whatever_the_seed():
    for seed in range(200):
        chosen = sampling.covering("unit", CELLS, extra=1, seed=seed)
        assert {f for f, _ in chosen} == {f for f, _ in CELLS}
        assert {n for _, n in chosen} == {"off", "on"}
        assert len(chosen) == 6 and len(set(chosen)) == 6
        assert chosen == [cell for cell in CELLS if cell in chosen]  # in the matrix's order


def test_a_seed_replays_its_draw_and_other_seeds_draw_otherwise():
    draws = {tuple(sampling.covering("unit", CELLS, extra=2, seed=s)) for s in range(50)}
    assert len(draws) > 10
    for seed in (0, 7, 123456):
        first = sampling.covering("unit", CELLS, extra=2, seed=seed)
        assert sampling.covering("unit", CELLS, extra=2, seed=seed) == first


def test_all_cells_when_asked(monkeypatch):
    monkeypatch.setattr(sampling, "EVERYTHING", True)
    assert sampling.covering("unit", CELLS, extra=0) == CELLS
