"""Persistence: typed SQLAlchemy models, engines and the unit of work."""
