"""python3 -m pssim run|sweep: the pssim command's run and sweep, in Python, for scenarios
whose model or data is a PyTorch module (model.kind torch), which the C++ command cannot
load. Same options, files, messages and exit statuses (0, 1, 2, 130 for Ctrl-C)."""
import argparse
import os
import sys

import pssim


def _name(path, fallback):
    """The name a scenario or sweep file gives itself (for the default output directory);
    `fallback` when it cannot be read: pssim.run then reports why, as the pssim command does."""
    from pssim import _scenario
    try:
        return str(_scenario.raw(path).get("name", fallback))
    except Exception:  # noqa: BLE001 - any problem is reported by the run itself
        return fallback


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m pssim", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run", help="simulate a scenario and write its results")
    r.add_argument("scenario")
    r.add_argument("-o", "--output", help="output directory (default: results/<scenario name>)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a key (repeatable)")
    r.add_argument("--seed", type=int)
    r.add_argument("--threads", type=int, help="threads for gradient math (default: all cores)")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success, no progress bar")
    s = commands.add_parser("sweep", help="run a sweep")
    s.add_argument("sweep")
    s.add_argument("-o", "--output", help="output directory (default: sweeps/<sweep name>)")
    s.add_argument("-j", "--jobs", type=int, help="points run at once (default: all cores)")
    s.add_argument("--threads", type=int, default=1, help="gradient-math threads per point (default 1)")
    s.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    progress = False if args.quiet else None
    try:
        if args.command == "run":
            output = args.output or os.path.join("results", _name(args.scenario, "run"))
            result = pssim.run(args.scenario, args.set, args.seed, args.threads, output, progress=progress)
            if not args.quiet:
                print("{}: simulated {:.6g} s in {:.3g} s wall; results in {}".format(
                    result.name, result.summary["sim_time_s"], result.summary["wall_time_s"], output))
        else:
            output = args.output or os.path.join("sweeps", _name(args.sweep, "sweep"))
            result = pssim.sweep(args.sweep, output, args.jobs, args.threads, progress=progress)
            failed = [p for p, ok in zip(result.table["point"], result.points) if ok is None]
            if failed:
                print("pssim: error: {} of {} points failed or are missing (see {}/sweep.csv)".format(
                    len(failed), len(result.points), output), file=sys.stderr)
                return 1
            if not args.quiet:
                print("{}: {} points; table {}/sweep.csv".format(args.sweep, len(result.points), output))
        return 0
    except pssim.ScenarioError as e:
        print(e, file=sys.stderr)
        return 2
    except pssim.Error as e:
        print("pssim: error: {}".format(e), file=sys.stderr)
        return 2 if isinstance(e, pssim.InputError) else 1
    except KeyboardInterrupt:
        print("pssim: interrupted; completed results are kept, and the next run into the same directory "
              "replaces the partial ones", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
