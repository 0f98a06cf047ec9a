"""The Hydra study pipeline, data flowing one way: config -> grid -> cost -> tasks -> progress -> store ->
runner, and summary (the numbers a finished table gives, for the report and the figures)."""
