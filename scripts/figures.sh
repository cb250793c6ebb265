#!/usr/bin/env bash
# Regenerates the figures the README and docs/ show (docs/figures/*.png) from scratch: runs the
# science sweeps of scenarios/sweeps/ into results/, plots them, and copies the figures.
# About 5 minutes on 2 cores after the build.
#
#   scripts/figures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh pssim
pssim=build/release/sim/cli/pssim
jobs=$(nproc)
mkdir -p docs/figures

sweep() {  # sweep NAME: run scenarios/sweeps/NAME.yaml into results/sweeps/NAME and plot it
  "$pssim" sweep "scenarios/sweeps/$1.yaml" -o "results/sweeps/$1" -j "$jobs" -q
  "$pssim" plot "results/sweeps/$1" -o "results/sweeps/$1/plots" >/dev/null
}
keep() {  # keep SWEEP FIGURE [NAME]: copy a figure into docs/figures
  cp "results/sweeps/$1/plots/$2.png" "docs/figures/${3:-$1_$2}.png"
}

sweep quickstart && keep quickstart accuracy_vs_time
sweep stragglers && keep stragglers accuracy_vs_time
sweep staleness && keep staleness staleness_vs_workers && keep staleness accuracy_vs_workers
sweep shards && keep shards round_time_vs_shards
sweep compression && keep compression accuracy_vs_time && keep compression accuracy_vs_bytes
sweep local-sgd && keep local-sgd accuracy_vs_time && keep local-sgd accuracy_vs_bytes
sweep schemes-accuracy && keep schemes-accuracy accuracy_vs_time  # async, local SGD and EASGD

# Parameter server or all-reduce: iteration time against workers, every scheme together.
for s in schemes-ps schemes-allreduce-star schemes-allreduce-two-tier; do
  "$pssim" sweep "scenarios/sweeps/$s.yaml" -o "results/sweeps/$s" -j "$jobs" -q
done
"$pssim" plot results/sweeps/schemes-ps results/sweeps/schemes-allreduce-star results/sweeps/schemes-allreduce-two-tier \
  -o results/sweeps/schemes-plots >/dev/null
cp results/sweeps/schemes-plots/iteration_time_vs_workers.png docs/figures/schemes_iteration_time_vs_workers.png
# Overlap and priority scheduling on VGG-16's and ResNet-50's layer profiles, one figure.
for s in overlap-vgg16 overlap-resnet50; do
  "$pssim" sweep "scenarios/sweeps/$s.yaml" -o "results/sweeps/$s" -j "$jobs" -q
done
"$pssim" plot results/sweeps/overlap-vgg16 results/sweeps/overlap-resnet50 -o results/sweeps/overlap-plots >/dev/null
cp results/sweeps/overlap-plots/iteration_time_vs_bandwidth.png docs/figures/overlap_iteration_time_vs_bandwidth.png
# The quickstart job with a ring all-reduce instead of servers, against the quickstart sweep.
"$pssim" run scenarios/allreduce.yaml -o results/allreduce -q
"$pssim" plot results/sweeps/quickstart results/allreduce -o results/allreduce/plots >/dev/null
cp results/allreduce/plots/accuracy_vs_time.png docs/figures/allreduce_accuracy_vs_time.png
# Hybrid PS + all-reduce on a word-level LSTM: dense, sparse and hybrid (about 2.5 minutes).
sweep hybrid && keep hybrid accuracy_vs_bytes

# One synchronous straggler run with its trace: the per-worker timeline.
"$pssim" run scenarios/stragglers.yaml --set training.stop.sim_time=1s --set output.trace=true \
  -o results/stragglers-trace -q
"$pssim" plot results/stragglers-trace -o results/stragglers-trace/plots >/dev/null
cp results/stragglers-trace/plots/worker_timeline.png docs/figures/stragglers_worker_timeline.png
cp results/stragglers-trace/plots/link_utilization.png docs/figures/stragglers_link_utilization.png

# Dynamics: a worker crash and a server crash in one synchronous run (its timeline around
# the worker crash: the barrier waits failure_timeout), and progress against the
# checkpoint interval under random server crashes.
"$pssim" run scenarios/failures.yaml --set output.trace=true -o results/failures -q
"$pssim" plot results/failures -o results/failures/plots --window 3.98:5.03 >/dev/null
cp results/failures/plots/accuracy_vs_time.png docs/figures/failures_accuracy_vs_time.png
cp results/failures/plots/worker_timeline.png docs/figures/failures_worker_timeline.png
sweep checkpoint-interval && keep checkpoint-interval progress_vs_checkpoint_interval checkpoint_interval
ls -l docs/figures
