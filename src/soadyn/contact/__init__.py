"""Contact (Jain 2014): collision geometry and detection (:mod:`~soadyn.contact.geometry`)."""

from .geometry import GEOM_KINDS, Contacts, collide

__all__ = ["GEOM_KINDS", "Contacts", "collide"]
