"""Platforms: the availability profile shared by the reservation-based policies."""

from schedlab.platform.profile import Profile

__all__ = ["Profile"]
