"""Contact (Jain 2014): collision geometry and detection (:mod:`~soadyn.contact.geometry`)."""

from .geometry import GEOM_KINDS, Contacts, collide
from . import formulations, pyramid  # noqa: E402  friction pyramids (Eqs. 6-15), LCP formulations (Eqs. 27-53)
from .formulations import ContactLCP, ContactSet, ContactStep, contact_set, lcp_sizes

__all__ = ["GEOM_KINDS", "Contacts", "collide",
           "formulations", "pyramid", "ContactLCP", "ContactSet", "ContactStep", "contact_set", "lcp_sizes"]
