"""Lazy stand-ins for the heavy scipy submodules: `stats`, `optimize`, `integrate` and `fft` are
imported on first attribute access, so `import covstudy` and a loky worker do not pay ~0.7 CPU-s for
scipy.stats unless a task uses it."""

import importlib


class _LazyModule:
    """A module imported on the first attribute access (then cached on the instance)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        module = importlib.import_module(self._name)
        self.__dict__.update(module.__dict__)  # later lookups skip __getattr__
        return getattr(module, attr)

    def __repr__(self):
        return f"<lazy module {self._name!r}>"


stats = _LazyModule("scipy.stats")
optimize = _LazyModule("scipy.optimize")
integrate = _LazyModule("scipy.integrate")
fft = _LazyModule("scipy.fft")
