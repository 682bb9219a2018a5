"""Synthetic workload models (SPEC section 2): each module turns a seed into a `Workload`.

`lublin` implements the Lublin-Feitelson 2003 model of rigid parallel jobs; the user run-time
estimate (Tsafrir 2005), M/M/c (`mmc`, the validation against Erlang C) and multi-level (`hlw`,
Lanore and Klein 2013) models live beside it. Every generator takes `seed=` and never touches
numpy's global random state (lublin and tsafrir also take a `numpy.random.Generator`; mmc and
hlw take an integer, which is what their model specs give).
"""
