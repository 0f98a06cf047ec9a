"""The planner: the test-set size that gives a width or power. plan: the door (plan(), size_performance())
over binomial (the exact binomial planner) and sizing (every other design; stochastic_root: its Monte Carlo
root), both on search (PlanResult, the search and its budgets); eval_power: the eval designs' closed forms."""
