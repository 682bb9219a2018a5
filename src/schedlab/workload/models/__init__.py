"""Synthetic workload models (SPEC section 2): each module turns a seed into a `Workload`.

`lublin` implements the Lublin-Feitelson 2003 model of rigid parallel jobs; the user run-time
estimate (Tsafrir 2005), grid load (DIRAC paper) and multi-level (HLW paper) models live
beside it. Every generator takes `seed=` (int, `numpy.random.Generator` or None) and never
touches numpy's global random state.
"""
