"""Moldable multi-level applications (Lanore and Klein, ComPAS 2013; SPEC 7): the FS
family of online schedulers, the reference schedulers (rand, Ref4, RefN) and clairvoyant CPA.

They are ordinary registered policies: importing this package registers them.
"""

from schedlab.schedulers.moldable import cpa, fs, references  # noqa: F401
