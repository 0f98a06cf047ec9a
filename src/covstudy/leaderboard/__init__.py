"""Leaderboards: k models on one test set — the door to the family measures (``coverage``) and the study (``study``)."""
