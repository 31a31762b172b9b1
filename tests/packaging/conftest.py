"""Fixtures of the packaging tests (spack_session.py: one Spack and one
install of the gpcnet builds per session)."""
from spack_session import installed, spack  # noqa: F401 (fixtures)
