"""A progress bar for runs and sweeps: tqdm on a terminal or in a notebook, nothing otherwise."""
import sys


def interactive():
    """True in a notebook or when standard error is a terminal."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Bar:
    """Progress of one run (simulated time or updates toward the stop condition) or of a
    sweep (points done). `show`: None = when interactive."""

    def __init__(self, show, description, total):
        self._bar = None
        if show is None:
            show = interactive()
        if not show:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:  # python3-tqdm is not installed: no bar
            return
        self._bar = tqdm(total=total, desc=description, leave=False, dynamic_ncols=True,
                         bar_format="{desc} {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]")

    def run_progress(self, fraction, sim_time_s, updates):
        if self._bar is not None:
            self._bar.n = round(fraction * self._bar.total, 3)
            self._bar.set_postfix_str("sim {:.4g} s, {} updates".format(sim_time_s, updates), refresh=False)
            self._bar.refresh()

    def sweep_progress(self, done, total, failed):
        if self._bar is not None:
            self._bar.total = total
            self._bar.n = done
            self._bar.set_postfix_str("{} failed".format(failed) if failed else "", refresh=False)
            self._bar.refresh()

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
