"""The entry point of the analysis scripts that `pssim` runs (plot, compare): an error is
one line for the user, `pssim <command>: error: ...`, exit status 1; PSSIM_DEBUG=1 shows
the traceback instead."""
import os
import sys


def run(main, command):
    try:
        sys.exit(main())
    except Exception as e:
        if os.environ.get("PSSIM_DEBUG"):
            raise
        print(f"pssim {command}: error: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
