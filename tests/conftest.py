import os

# Tests must not depend on the developer's terminal or on Hydra's full tracebacks.
os.environ.pop("HYDRA_FULL_ERROR", None)
