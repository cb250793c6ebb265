"""Finds the compiled part of pssim, the extension module ``_pssim``.

It is looked for next to this package (an installed copy), then in $PSSIM_BUILD_DIR/python,
then in the build tree of the sources this package belongs to (build/release/python, written
by scripts/build.sh). Imported on first use, so that ``pssim.load`` and ``pssim.plot`` work
without a build.
"""
import glob
import importlib
import os
import sys

_module = None


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    yield here
    if os.environ.get("PSSIM_BUILD_DIR"):
        yield os.path.join(os.environ["PSSIM_BUILD_DIR"], "python")
    yield os.path.join(os.path.dirname(here), "build", "release", "python")


def native():
    """The extension module; raises ImportError saying how to build it."""
    global _module
    if _module is not None:
        return _module
    package = sys.modules[__package__]
    tried = []
    for directory in _candidates():
        tried.append(directory)
        if glob.glob(os.path.join(directory, "_pssim*.so")):
            if directory not in package.__path__:
                package.__path__.append(directory)
            _module = importlib.import_module(__package__ + "._pssim")
            return _module
    raise ImportError(
        "pssim's extension module _pssim is not built (looked in {}): run scripts/build.sh, or set "
        "PSSIM_BUILD_DIR to a build directory holding python/_pssim*.so".format(", ".join(tried)))
