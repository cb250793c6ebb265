"""python3 -m pssim: the pssim command, with PyTorch modules as the math.

It runs the same command line as the pssim executable (sim/cli, compiled into the
package's extension module): the same commands and options, the same output lines, files
and messages, the same exit statuses. What it adds: scenarios whose model or data is a
PyTorch module (model.kind torch, data.kind torch), which the executable cannot load, run
and validate here.

    /usr/bin/python3 -m pssim run scenarios/torch/my-net.yaml --set cluster.workers.count=16
    /usr/bin/python3 -m pssim sweep S.yaml --shard 2/8 -o /shared/S
"""
import sys


def main(argv=None):
    from pssim import _native, _torch
    args = [str(a) for a in (sys.argv[1:] if argv is None else argv)]
    provider = _torch.Provider()
    try:
        return _native.native().main(args, provider)
    finally:
        provider.close()


if __name__ == "__main__":
    sys.exit(main())
