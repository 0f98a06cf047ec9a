"""The calibration wing: the calibration study (study.py), a reliability diagram's bins, bands over bins and
the ECE, scored against the calibration design's truths (designs/calibration.py)."""
