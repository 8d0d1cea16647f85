"""Seeded samples of the slow matrices: every kind every run, the rest drawn in turn.

A matrix is a test parametrized over a few axes (front end x net, attack x deleter, ...)
whose every cell is a whole `safedel run`. Each run takes a *covering* sample: every
value of every axis (each shell, each runtime, each net mode) in at least one cell, then
a few more cells drawn at random. The draw comes from one seed for the whole pytest run:
a fresh one each run, so that runs in turn cover the whole matrix, printed in the pytest
header and again at the end, and fixed by an environment variable to replay a failure:

    SAFEDEL_TEST_SEED=1234 pytest ...   # the same sample as the run that printed 1234
    SAFEDEL_TEST_ALL=1 pytest ...       # every cell of every matrix

Test ids name the cell, never the seed, so `-k` finds a cell whatever the draw. The
tests of a matrix carry the `slow_matrix` mark (`pytest -m slow_matrix` runs only them).
"""

import os
import random

import pytest

SEED_VARIABLE = "SAFEDEL_TEST_SEED"
ALL_VARIABLE = "SAFEDEL_TEST_ALL"


def _seed():
    given = os.environ.get(SEED_VARIABLE, "").strip()
    if given:
        return int(given)
    return random.SystemRandom().randrange(10**6)


SEED = _seed()
EVERYTHING = os.environ.get(ALL_VARIABLE) == "1"
# matrix name -> (cells run, cells in all), for the summary at the end of the run
TALLY = {}


def covering(name, cells, extra=2, seed=None):
    """The cells (tuples) of the matrix `name` to run: all of them under
    SAFEDEL_TEST_ALL=1; else each value of each axis in at least one cell, then `extra`
    more, drawn with the run's seed (and the matrix's name, so that matrices draw
    independently). The order of `cells` is kept."""
    cells = [tuple(cell) for cell in cells]
    if EVERYTHING:
        return cells
    rng = random.Random(f"{SEED if seed is None else seed}:{name}")
    wanted = {(axis, value) for cell in cells for axis, value in enumerate(cell)}
    chosen = []
    while wanted:
        # The cell that covers most of what is still missing, ties broken by the draw.
        best = max(
            rng.sample(cells, len(cells)),
            key=lambda cell: len(wanted & set(enumerate(cell))),
        )
        chosen.append(best)
        wanted -= set(enumerate(best))
    rest = [cell for cell in cells if cell not in chosen]
    chosen += rng.sample(rest, min(extra, len(rest)))
    return [cell for cell in cells if cell in chosen]


def matrix(argnames, cells, name, extra=2, ids=None):
    """A decorator: `pytest.mark.parametrize(argnames, covering(name, cells, extra))`
    and the slow_matrix mark. ids: a function of a cell, for its test id."""
    cells = [tuple(cell) for cell in cells]
    chosen = covering(name, cells, extra)
    TALLY[name] = (len(chosen), len(cells))
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else argnames
    if len(names) == 1:
        chosen = [cell[0] for cell in chosen]
    idlist = [ids(cell) for cell in chosen] if ids else None
    parametrize = pytest.mark.parametrize(argnames, chosen, ids=idlist)

    def decorate(function):
        return pytest.mark.slow_matrix(parametrize(function))

    return decorate


def header():
    if EVERYTHING:
        return f"safedel matrices: every cell ({ALL_VARIABLE}=1)"
    return (
        f"safedel matrices: a covering sample, seed {SEED} ({SEED_VARIABLE}={SEED} replays"
        f" it; {ALL_VARIABLE}=1 runs every cell)"
    )


def summary():
    ran = sum(run for run, _ in TALLY.values())
    every = sum(total for _, total in TALLY.values())
    return f"{header()}: {ran} of {every} cells in {len(TALLY)} matrices"
