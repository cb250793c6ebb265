"""The exceptions of pssim. Their messages are the ones the pssim command prints."""


class Error(Exception):
    """Anything pssim reports."""


class InputError(Error, ValueError):
    """The inputs are wrong (the pssim command's exit status 2): a scenario that cannot be
    built, a data file, a value beyond the simulator's range, an output that would
    overwrite an input."""


class ScenarioError(InputError):
    """A scenario, sweep or override is invalid. The message has one line per problem,
    ``file:line:col: error: message``, as the pssim command prints them."""


class RunError(Error, RuntimeError):
    """The results could not be produced or written (exit status 1): an output directory
    that cannot be written or that another pssim is writing, a failed sweep point."""
