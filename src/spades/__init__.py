"""Spades for every table: rules engine, computer players, online play and fair dealing."""

__version__ = "0.1.0"
