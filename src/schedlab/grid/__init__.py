"""Grids (Caron et al., LIP RR-2005-13; SPEC 5): meta-schedulers over the pools of a platform.

A meta-scheduler is a set of actors (`engine.actors`) built for a platform: centralized push
through an information system, DIRAC pull with a task queue, a matcher and site agents,
pilots. Which job runs and where are separate decisions: a meta-scheduler picks the pool,
the pool's registry policy picks what runs. Meta-schedulers register by name like policies.

The built-in meta-schedulers (`grid.push`, `grid.dirac`, `grid.direct`, `grid.tdcs`) are
imported by the registry at its first lookup (`grid.registry`), not here: a cluster run
imports this package and needs none of them.
"""
