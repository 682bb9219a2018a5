"""The results folder's lock: who holds it, refusal while they live, takeover once they died,
and forked children (sweep workers) never holding it."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from schedlab.errors import ConfigError
from schedlab.experiments.store import ResultStore

HOLDER = """
import sys, time
from schedlab.experiments.store import ResultStore
store = ResultStore(sys.argv[1])
store.open_for_writing()
print("locked", flush=True)
time.sleep(120)
"""


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped): no process has it now."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _start_holder(folder: Path) -> subprocess.Popen[str]:
    """Another process holding the lock of ``folder`` (returns once it holds it)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def _stop(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def test_lock_file_names_the_holder_and_is_emptied_on_close(tmp_path: Path) -> None:
    """While a store is open for writing, .lock holds its pid, host and start time."""
    store = ResultStore(tmp_path)
    store.open_for_writing()
    record = json.loads((tmp_path / ".lock").read_text())
    assert record["pid"] == os.getpid() and record["host"] == os.uname().nodename
    assert record["started_at"]
    assert store.takeover_note is None
    store.close()
    assert (tmp_path / ".lock").read_bytes() == b""


def test_stale_lock_of_a_dead_sweep_is_taken_over_with_a_note(tmp_path: Path) -> None:
    """A lock record whose process no longer runs (the kernel lock free): the folder is
    taken over, and ``takeover_note`` says whose lock it was, for the CLI to show."""
    dead = _dead_pid()
    (tmp_path / ".lock").write_text(
        json.dumps({"pid": dead, "host": os.uname().nodename, "started_at": "2024-01-02T03:04"})
    )
    with ResultStore(tmp_path) as store:
        note = store.takeover_note
        assert note is not None
        assert f"pid {dead}" in note and "2024-01-02T03:04" in note
        assert "no longer running" in note and str(tmp_path) in note
        assert json.loads((tmp_path / ".lock").read_text())["pid"] == os.getpid()
    with ResultStore(tmp_path) as store:  # closed cleanly: nothing to take over
        assert store.takeover_note is None


def test_lock_held_by_a_live_process_is_refused_naming_it(tmp_path: Path) -> None:
    """Another process holding the lock: refused with its pid; once it is killed (SIGKILL,
    no clean-up) the next writer takes over and names it."""
    holder = _start_holder(tmp_path)
    try:
        with pytest.raises(ConfigError, match="no other running sweep") as info:
            ResultStore(tmp_path).open_for_writing()
        assert f"pid {holder.pid} on {os.uname().nodename}" in str(info.value)
    finally:
        _stop(holder)
    with ResultStore(tmp_path) as store:
        assert store.takeover_note is not None and f"pid {holder.pid}" in store.takeover_note


def test_a_second_store_in_the_same_process_is_refused(tmp_path: Path) -> None:
    """flock, not a POSIX record lock: the same process cannot open a folder twice."""
    with ResultStore(tmp_path), pytest.raises(ConfigError, match=f"pid {os.getpid()}"):
        ResultStore(tmp_path).open_for_writing()


FORKS_AND_DIES = """
import multiprocessing, os, sys, time
from schedlab.experiments.store import ResultStore
def worker(ready):
    ready.set()  # the fork hooks have run in this child by now
    time.sleep(60)
store = ResultStore(sys.argv[1])
store.open_for_writing()
context = multiprocessing.get_context("fork")
ready = context.Event()
child = context.Process(target=worker, args=(ready,))
child.start()
ready.wait(30)  # a loaded machine may not have run the child yet
print(child.pid, flush=True)
os._exit(0)  # dies holding the lock, as if killed: no close, no unlock
"""


def test_forked_child_does_not_keep_the_lock_of_its_dead_parent(tmp_path: Path) -> None:
    """A process forked while the folder is open (a sweep worker) and outliving its parent,
    which died without closing, does not hold the lock: the next writer gets in (and takes
    the dead parent's record over) while the child still runs."""
    proc = subprocess.Popen(
        [sys.executable, "-c", FORKS_AND_DIES, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        proc.wait(timeout=30)
        os.kill(child, 0)  # still there
        with ResultStore(tmp_path) as store:
            assert store.takeover_note is not None and f"pid {proc.pid}" in store.takeover_note
        os.kill(child, 0)
    finally:
        _stop(proc)  # its process group: the orphaned child too


def _close_inherited(store: ResultStore) -> None:
    store.close()  # must not unlock the parent's lock


def test_closing_in_a_forked_child_keeps_the_parents_lock(tmp_path: Path) -> None:
    """close() in a forked child neither fails nor unlocks the parent's folder."""
    context = multiprocessing.get_context("fork")
    with ResultStore(tmp_path) as store:
        child = context.Process(target=_close_inherited, args=(store,))
        child.start()
        child.join(30)
        assert child.exitcode == 0
        with pytest.raises(ConfigError, match="no other running sweep"):
            ResultStore(tmp_path).open_for_writing()
        assert json.loads((tmp_path / ".lock").read_text())["pid"] == os.getpid()
