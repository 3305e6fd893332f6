"""Alembic migrations of the spades database, applied at start by ``spades.storage.migrate``."""
