"""The planner: the test-set size that gives a width or power (plan: binomial and the door; sizing:
every other design; stochastic_root: its Monte Carlo root; eval_power: the eval designs' closed forms)."""
