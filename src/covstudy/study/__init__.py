"""The Hydra study pipeline, data flowing one way: config -> grid -> cost -> tasks -> progress -> store ->
kinds (what a study kind supplies) -> intervals (the interval study, a kind) -> runner (``run_kind``, the one
loop of every kind), and summary (the numbers a finished table gives, for the report and the figures)."""
