"""Contact (Jain 2014): collision geometry and detection (:mod:`~soadyn.contact.geometry`), friction
pyramids (:mod:`~soadyn.contact.pyramid`), the dense LCP formulations (:mod:`~soadyn.contact.formulations`)
and the simulator's contact settings (:mod:`~soadyn.contact.settings`)."""

from .geometry import GEOM_KINDS, Contacts, collide
from .settings import ContactSettings
from . import formulations, pyramid  # noqa: E402  friction pyramids (Eqs. 6-15), LCP formulations (Eqs. 27-53)
from .formulations import ContactLCP, ContactSet, ContactStep, contact_set, lcp_sizes

__all__ = ["GEOM_KINDS", "Contacts", "collide", "ContactSettings",
           "formulations", "pyramid", "ContactLCP", "ContactSet", "ContactStep", "contact_set", "lcp_sizes"]
