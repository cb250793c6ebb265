#!/usr/bin/env bash
# Installs, with apt-get, the Debian 12 packages pssim needs that are not installed yet.
# Does nothing (and needs no privileges) when everything is present.
#
#   scripts/install-deps.sh              the pssim command and its figures (the main job)
#   scripts/install-deps.sh --all        also the tests (C++ and Python), the Python package's
#                                        extension module and PyTorch (model.kind torch)
#   scripts/install-deps.sh --simgrid    also SimGrid, for bench/compare_simgrid.sh
#   scripts/install-deps.sh --torch      also PyTorch and OpenBLAS's OpenMP build, for
#                                        bench/models_vs_torch.sh
#   scripts/install-deps.sh --fuzz       also clang and libFuzzer, for fuzz/run.sh
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libboost-graph-dev libboost-random-dev libeigen3-dev libfmt-dev libyaml-cpp-dev libcli11-dev
  zlib1g-dev                       # models/: reads the gzipped IDX files of (Fashion-)MNIST
  dataset-fashion-mnist            # Fashion-MNIST, gzipped IDX in /usr/share/datasets/fashion-mnist
  fortunes                         # ~2.4 MB of plain English text: the default corpus of the lstm-lm
  python3 python3-matplotlib python3-pandas python3-yaml   # analysis/ plots, run with /usr/bin/python3
)
all=(
  catch2                           # the C++ tests
  python3-dev pybind11-dev         # the Python package's extension module (sim/python)
  python3-torch                    # PyTorch 1.13: model.kind torch (about 0.9 GB installed)
  python3-pytest python3-tqdm      # the Python tests; progress bars of pssim.run
  python3-distributed              # Dask: pssim.sweep(executor=...) on a cluster, and its test
  parallel                         # GNU parallel: cluster-style sweep test
)
for arg in "$@"; do
  case "$arg" in
    --all) packages+=("${all[@]}") ;;
    --simgrid) packages+=(libsimgrid-dev) ;;
    --torch) packages+=(python3-torch libopenblas0-openmp) ;;
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps.sh: unknown option '$arg' (known: --all, --simgrid, --torch, --fuzz)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps.sh: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Package lists on a fresh machine may be stale or absent: refresh once if the first try fails.
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
