"""Territorially distributed computing system with absolute priorities (Baranov and
Tikhomirov, Computational Technologies 2017; SPEC 6).

Clusters of different speeds, each under a preemptive priority manager (`pps` reading the
``priority`` attribute), local streams and a global stream dispatched by the ``tdcs``
dispatcher (or a baseline), all through the one kernel: `workload` builds the streams,
`network` the times between clusters, `dispatch` the registered meta-schedulers and `run`
one run with its per-job table and summary.
"""
