"""covstudy-evaluate: a user's own predictions in, per metric the interval whose audited coverage
meets the target out (result: Evaluation and evaluate; cli: the command)."""
