"""The HLW multi-level application of Lanore and Klein (ComPAS 2013; SPEC section 7) as a
workload of dependants.

Model (the paper's section 2.2): HLW (EDF R&D) is a parameter sweep of n independent top
tasks tau0. A tau0 task T is a chain of opt(T) steps done one after the other; opt(T) is
uniform on the integers [opt_min, opt_max] (the paper knows only the bounds). A step is a
tau1 task (a coarse-mesh Syrthes run, sequential time w1), followed with probability p
(P_tau2 in the paper) by a tau2 task (the fine-mesh rerun when the coarse one was not
precise enough, sequential time w2); the step ends when its tasks have, and the next step
starts. Tasks of different chains are independent; the application ends with its last task.
Every task is moldable (section 2.3): its node count is chosen at its start and kept, and
it runs ((1 - pi) + pi / q) x its sequential time on q nodes (Amdahl), on N identical nodes
without communication costs. The defaults are those of section 5.2: w1 = 1 (the time unit),
w2 = 15, p = 0.33, opt in [1, 60], pi = 0.99 for every task.

The realised instance is drawn up front from the seed, so every policy, online or
clairvoyant, runs the same instance; an online policy sees a task only when it is released.
Draws (numpy Generator, `default_rng(seed)`): opt for chains 1..n in order, then one uniform
per step, chain by chain and step by step, below p meaning the step has a tau2 task.

Encoding (one SWF job per task; docs/model.md, "HLW model"):

* job ids 1..total; run time (field 4) = requested time (field 9) = the sequential time
  (w1 or w2); allocated and requested processors (fields 5 and 8) = 1, so a rigid policy
  runs every task on one node (as the paper's RefN); the `parallel_fraction` attribute is pi for
  every job, which makes the jobs moldable (times at size 1 are the sequential times);
* field 17 = the job id of the previous task of the chain (-1 for a chain's first task) and
  field 18 (think time) = 0: the engine releases a task when its predecessor ends; submit
  times (field 2) are all 0 (roots are released at 0, a dependant's is not used);
* user id (field 12) = the chain number 1..n (so `--by user` gives per-chain figures), queue
  (field 15) = 1 for tau1, 2 for tau2; status 1; other fields -1;
* job order: by step, then tau1 before tau2, then by chain (breadth-first by step, so chains
  interleave): a parent always precedes its child, and when several tasks are released at
  one instant (the engine takes them in job order) the chains furthest behind in their
  optimisation (lowest step) come first, not always chain 1 as chain-by-chain order would;
* machine size (`max_procs`) = nodes; header: Computer, MaxJobs, MaxRecords, MaxProcs,
  MaxNodes, a Note with the parameters and seed, and ``MoldableAmdahlPi: pi`` (the schedlab
  extension of `schedlab.workload.swf` that keeps the moldability in an SWF file).
"""

from __future__ import annotations

import inspect

import numpy as np

from schedlab.errors import ConfigError
from schedlab.validators import check_int, check_number, check_seed
from schedlab.workload.job import MAX_TIME, N_FIELDS, F, Workload, check_max_procs
from schedlab.workload.swf import moldable_pi_header

__all__ = ["MAX_TASKS", "MAX_WORK_RATIO", "check_hlw_params", "generate_hlw"]

# Worst-case task count 2 x n x opt_max, as the other models' job bound: about 1.5 GB of
# SWF fields; more is a typo that would exhaust memory before failing.
MAX_TASKS = 10_000_000
_QUEUE_TAU1 = 1
_QUEUE_TAU2 = 2
_SEED_ALLOWED = "an integer seed >= 0"


def _integer(option: str, value: object, low: int, high: int, what: str) -> int:
    allowed = f"an integer from {low} to {high:,} ({what})"
    return check_int(f"hlw {option}", value, low=low, high=high, allowed=allowed)


def _real(
    option: str, value: object, low: float, high: float, what: str, *, open_low: bool
) -> float:
    """`value` as a finite float in [low, high] (or (low, high] with `open_low`)."""
    allowed = f"a number in {'(' if open_low else '['}{low:g}, {high:g}] ({what})"
    return check_number(
        f"hlw {option}", value, low=low, high=high, open_low=open_low, allowed=allowed
    )


def check_hlw_params(*args: object, **kwargs: object) -> None:
    """Raise ConfigError naming the first parameter of `generate_hlw` out of its range.

    It takes `generate_hlw`'s parameters with their defaults (its signature, so that they
    are written once). Nothing is drawn: a model spec is checked with this when it is read.
    """
    bound = _GENERATE.bind(*args, **kwargs)
    bound.apply_defaults()
    _checked(**bound.arguments)


def _checked(
    n: object,
    nodes: object,
    pi: object,
    seed: object,
    w1: object,
    w2: object,
    p: object,
    opt_min: object,
    opt_max: object,
    max_tasks: object = MAX_TASKS,
) -> tuple[int, int, float, int, float, float, float, int, int]:
    """The parameters as plain numbers, checked (`check_hlw_params`)."""
    ceiling = check_int("hlw max_tasks", max_tasks, low=2, allowed="an integer >= 2")
    check_int("hlw n", n, low=1, allowed="an integer >= 1 (top tasks tau0)")
    size = check_max_procs(nodes, "hlw nodes")
    fraction = _real("pi", pi, 0.0, 1.0, "Amdahl's parallel fraction", open_low=False)
    time1 = _real("w1", w1, 0.0, MAX_TIME, "sequential time of a tau1 task", open_low=True)
    time2 = _real("w2", w2, 0.0, MAX_TIME, "sequential time of a tau2 task", open_low=True)
    prob = _real("p", p, 0.0, 1.0, "probability that a tau2 task follows a tau1", open_low=False)
    half = ceiling // 2
    raise_it = "; raise the ceiling with max_tasks=N"
    low = _integer("opt_min", opt_min, 1, half, "fewest steps of a chain" + raise_it)
    high = _integer(
        "opt_max", opt_max, low, half, "most steps of a chain, at least opt_min" + raise_it
    )
    chains = _integer(
        "n",
        n,
        1,
        ceiling // (2 * high),
        f"top tasks; 2 x n x opt_max at most {ceiling:,}{raise_it}",
    )
    number = check_seed("hlw seed", seed, allowed=_SEED_ALLOWED)
    _check_work(chains, high, time1, time2 if prob > 0 else 0.0, w1, w2)
    return chains, size, fraction, number, time1, time2, prob, low, high


# The most sequential work of an instance over its shortest task: float64 then resolves
# every task on the clock to about a ten-millionth of its time (2.2e-16 x 1e9).
MAX_WORK_RATIO = 1e9


def _check_work(
    chains: int, steps: int, time1: float, time2: float, w1: object, w2: object
) -> None:
    """Refuse an instance whose clock could leave the range where float64 resolves it.

    Any schedule that keeps a node busy while a task is released ends within the sequential
    work of all the tasks, at most n x opt_max x (w1 + w2) (w2 only when tau2 tasks can
    occur): that must stay below `MAX_TIME` and within `MAX_WORK_RATIO` times the shortest
    task, else a task's end rounds away from its start plus its time."""
    work = chains * steps * (time1 + time2)
    longest, key_long, value_long = (time1, "w1", w1) if time1 >= time2 else (time2, "w2", w2)
    shortest, key_short, value_short = (time2, "w2", w2) if 0 < time2 < time1 else (time1, "w1", w1)
    if work > MAX_TIME:
        raise ConfigError(
            f"hlw {key_long}",
            value_long,
            f"shorter tasks: n x opt_max x (w1 + w2) = {work:.3g} s of work, over "
            f"{MAX_TIME:g} s (the clock must stay below it)",
        )
    if work > MAX_WORK_RATIO * shortest:
        raise ConfigError(
            f"hlw {key_short}",
            value_short,
            f"a task time of at least {work / MAX_WORK_RATIO:.3g} s: n x opt_max x (w1 + w2) "
            f"= {work:.3g} s of work is over {MAX_WORK_RATIO:g} times this task's, where the "
            f"clock no longer resolves it (or fewer, shorter chains)",
        )


def generate_hlw(
    n: int,
    nodes: int,
    pi: float = 0.99,
    seed: int = 0,
    w1: float = 1.0,
    w2: float = 15.0,
    p: float = 0.33,
    opt_min: int = 1,
    opt_max: int = 60,
    max_tasks: int = MAX_TASKS,
) -> Workload:
    """One realised HLW instance of `n` chains on `nodes` nodes (model and fields: module
    docstring); the defaults are the paper's section 5.2. Same seed, same workload.

    Ranges (ConfigError naming the parameter otherwise): n >= 1 with 2 x n x opt_max at most
    ``max_tasks`` (`MAX_TASKS` unless raised deliberately: ``max_tasks=N`` in the spec),
    nodes 1 to 2**31 - 1, pi and p in [0, 1], w1 and w2 in (0, 1e15] s with n x opt_max x
    (w1 + w2) (w2 only if p > 0) at most 1e15 s and at most `MAX_WORK_RATIO` times the
    shorter task time (`_check_work`), 1 <= opt_min <= opt_max, seed an integer >= 0.
    """
    chains, size, fraction, seed, time1, time2, prob, low, high = _checked(
        n, nodes, pi, seed, w1, w2, p, opt_min, opt_max, max_tasks
    )
    rng = np.random.default_rng(seed)
    steps = rng.integers(low, high, endpoint=True, size=chains)
    n_steps = int(steps.sum())
    has_tau2 = rng.random(n_steps) < prob

    # Tasks in chain-major order (chain by chain, step by step, tau1 then tau2).
    chain_of_step = np.repeat(np.arange(chains), steps)
    step_index = np.arange(n_steps) - np.repeat(np.cumsum(steps) - steps, steps)
    per_step = 1 + has_tau2.astype(np.int64)
    total = int(per_step.sum())
    step_of_task = np.repeat(np.arange(n_steps), per_step)
    kind = np.arange(total) - np.repeat(np.cumsum(per_step) - per_step, per_step)  # 0 tau1
    chain = chain_of_step[step_of_task]
    step = step_index[step_of_task]
    previous = np.arange(total) - 1
    previous[(step == 0) & (kind == 0)] = -1  # a chain's first task: the tau1 of step 0

    # Job order: by step, then kind, then chain; rank[t] is task t's row in the workload.
    order = np.lexsort((chain, kind, step))
    rank = np.empty(total, dtype=np.int64)
    rank[order] = np.arange(total)
    parent_id = np.where(previous >= 0, rank[np.maximum(previous, 0)] + 1, -1)

    seq_time = np.where(kind == 0, time1, time2)
    fields = np.full((total, N_FIELDS), -1.0)
    fields[:, F["job_id"]] = np.arange(1, total + 1)
    fields[:, F["submit_time"]] = 0.0
    fields[:, F["run_time"]] = seq_time[order]
    fields[:, F["allocated_procs"]] = 1.0
    fields[:, F["requested_procs"]] = 1.0
    fields[:, F["requested_time"]] = seq_time[order]
    fields[:, F["status"]] = 1.0
    fields[:, F["user_id"]] = chain[order] + 1
    fields[:, F["queue_id"]] = np.where(kind[order] == 0, _QUEUE_TAU1, _QUEUE_TAU2)
    fields[:, F["preceding_job_id"]] = parent_id[order]
    fields[:, F["think_time"]] = 0.0
    spec = _spec(chains, size, fraction, seed, time1, time2, prob, low, high)
    if max_tasks != MAX_TASKS:  # the ceiling this instance needed, so the spec remakes it
        spec += f",max_tasks={int(max_tasks)}"
    header = [
        "Version: 2.2",
        "Computer: HLW multi-level application, Lanore and Klein, ComPAS 2013 (schedlab)",
        f"MaxJobs: {total}",
        f"MaxRecords: {total}",
        f"MaxProcs: {size}",
        f"MaxNodes: {size}",
        "Queues: 1 tau1 (coarse mesh), 2 tau2 (fine mesh); user = chain (tau0) number",
        f"Note: generated from {spec}; field 17 = previous task of the chain, think time 0",
        moldable_pi_header(fraction),
    ]
    return Workload.from_fields(
        fields,
        max_procs=size,
        header=header,
        source=spec,
        attributes={"parallel_fraction": np.full(total, fraction)},
    )


# check_hlw_params binds its arguments to generate_hlw's signature and shows it (help, inspect)
_GENERATE = inspect.signature(generate_hlw)
_CHECK = _GENERATE.replace(return_annotation=None)
check_hlw_params.__signature__ = _CHECK  # type: ignore[attr-defined]


def _spec(
    n: int,
    nodes: int,
    pi: float,
    seed: int,
    w1: float,
    w2: float,
    p: float,
    opt_min: int,
    opt_max: int,
) -> str:
    """The model spec that generates this instance again (floats as repr: exact)."""
    return (
        f"hlw:n={n},nodes={nodes},pi={pi!r},seed={seed},w1={w1!r},w2={w2!r},p={p!r},"
        f"opt_min={opt_min},opt_max={opt_max}"
    )
