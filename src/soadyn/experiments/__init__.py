"""Runnable experiments: the papers' scenarios and reproductions, called by ``soadyn run`` and
``soadyn reproduce``."""
