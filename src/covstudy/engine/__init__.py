"""What computes coverage, for every design: the evaluator (core), the public coverage() (coverage),
exact curves of a binomial method (exact_curve) and the performance measures (measures)."""
