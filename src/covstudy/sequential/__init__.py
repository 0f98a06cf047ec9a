"""The sequential wing: studies of test sets that grow and are looked at after every batch.

Its design and door are designs/sequential.py (``sequential_coverage``: the exact dynamic
programme over (look, successes), and Monte Carlo), its confidence sequences methods/sequential.py;
``study.py`` here runs a study config with a ``sequential:`` key (``covstudy study=peeking``),
writes its table and report.md, and hands the table to the figures (plots/sequential.py).
"""
