"""The DIRAC task queue's per-class count of jobs within a work bound (what a pilot agent's
probe asks) equals counting the class's jobs one by one, through adds, put-backs and takes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from schedlab.grid.taskqueue import TaskQueue
from strategies import fuzz

KEYS = [(1, -1), (2, -1), (1, 0)]


@fuzz(200)
@given(
    work=st.lists(st.sampled_from([10.0, 20.0, 20.0, 35.5, 1e6]), min_size=1, max_size=40),
    ops=st.lists(st.tuples(st.sampled_from(["add", "take", "back"]), st.integers(0, 2))),
    bounds=st.lists(st.sampled_from([0.0, 10.0, 20.0, 35.5, 50.0, 1e9]), min_size=1),
)
def test_count_within_matches_a_scan(
    work: list[float], ops: list[tuple[str, int]], bounds: list[float]
) -> None:
    tq = TaskQueue(work)
    nxt = 0
    taken: list[tuple[int, tuple[int, int]]] = []
    for op, k in ops:
        key = KEYS[k]
        if op == "add" and nxt < len(work):
            tq.add(nxt, key)
            nxt += 1
        elif op == "take" and key in dict(tq.classes()):
            taken.append((tq.take(key), key))
        elif op == "back" and taken:
            job, where = taken.pop()
            tq.put_back(job, where)
        for most in bounds:
            for key in KEYS:
                jobs = dict(tq.classes()).get(key, [])
                assert tq.count_within(key, most) == sum(work[j] <= most for j in jobs)
