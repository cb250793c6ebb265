// The collective algorithms as data flow: every schedule, run with real (symbolic) data
// under rendezvous, must finish (no deadlock) and leave every rank holding every element
// summed over every rank exactly once.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/collective/algorithm.hpp"

using namespace pssim::collective;

namespace {

// What an element holds: how many times each rank's input was added into it.
using Element = std::vector<int>;

struct Outcome {
  bool deadlock = false;
  std::vector<std::vector<Element>> data;  // [rank][element]
  std::vector<double> sent;                // elements sent per rank
};

// Runs one round of `a` the way the runner does: a step sends at its start, from the data
// the rank holds then; a message moves once its receiver has started the step it belongs
// to (rendezvous), and arrives at once; a step completes when its messages have moved
// and its expected ones are in; the next step starts after.
Outcome run(const Algorithm& a, std::int64_t elements) {
  const std::size_t n = a.ranks();
  Outcome out;
  out.data.assign(n, std::vector<Element>(static_cast<std::size_t>(elements), Element(n, 0)));
  for (std::size_t r = 0; r < n; ++r)
    for (auto& e : out.data[r]) e[r] = 1;
  out.sent.assign(n, 0);
  struct Mail {
    std::size_t from;
    Send send;
    Phase phase;
    std::vector<Element> values;
  };
  std::vector<Mail> posted;                                          // sent, not yet moved
  std::map<std::pair<std::size_t, std::size_t>, std::vector<Mail>> mailbox;  // moved: (rank, step)
  std::vector<std::size_t> at(n, 0), outstanding(n, 0);
  std::vector<bool> started(n, false);
  Step step;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t r = 0; r < n; ++r) {
      if (at[r] == a.steps(r) || started[r]) continue;
      a.step(r, at[r], elements, step);
      started[r] = true;
      progress = true;
      outstanding[r] = step.sends.size();
      for (const Send& s : step.sends) {
        REQUIRE(s.offset >= 0);
        REQUIRE(s.offset + s.elements <= elements);
        REQUIRE(s.peer < n);
        REQUIRE(s.peer != r);
        const auto first = out.data[r].begin() + s.offset;
        posted.push_back({r, s, step.phase, {first, first + s.elements}});
        out.sent[r] += static_cast<double>(s.elements);
      }
    }
    for (auto it = posted.begin(); it != posted.end();) {  // messages whose receiver is there
      if (started[it->send.peer] && at[it->send.peer] == it->send.peer_step) {
        --outstanding[it->from];
        mailbox[{it->send.peer, it->send.peer_step}].push_back(std::move(*it));
        it = posted.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (!started[r]) continue;
      a.step(r, at[r], elements, step);
      auto& mail = mailbox[{r, at[r]}];
      if (outstanding[r] > 0 || mail.size() < step.receives) continue;
      REQUIRE(mail.size() == step.receives);
      for (const Mail& m : mail)
        for (std::int64_t i = 0; i < m.send.elements; ++i) {
          Element& mine = out.data[r][static_cast<std::size_t>(m.send.offset + i)];
          const Element& theirs = m.values[static_cast<std::size_t>(i)];
          for (std::size_t k = 0; k < n; ++k) mine[k] = m.phase == Phase::Reduce ? mine[k] + theirs[k] : theirs[k];
        }
      mail.clear();
      ++at[r];
      started[r] = false;
      progress = true;
    }
  }
  for (std::size_t r = 0; r < n; ++r) out.deadlock |= at[r] != a.steps(r);
  out.deadlock |= !posted.empty();
  for (const auto& [key, mail] : mailbox) out.deadlock |= !mail.empty();  // a message nobody took
  return out;
}

void check_all_reduce(const Algorithm& a, std::int64_t elements) {
  const Outcome o = run(a, elements);
  REQUIRE_FALSE(o.deadlock);
  const Element everyone(a.ranks(), 1);
  for (std::size_t r = 0; r < a.ranks(); ++r)
    for (std::int64_t i = 0; i < elements; ++i) {
      INFO("rank " << r << " element " << i);
      REQUIRE(o.data[r][static_cast<std::size_t>(i)] == everyone);
    }
}

}  // namespace

TEST_CASE("every algorithm is an all-reduce, for any rank count and vector length", "[collective]") {
  for (std::size_t n = 1; n <= 17; ++n)
    for (std::int64_t elements : {1, 5, 16, 37}) {
      INFO(n << " ranks, " << elements << " elements");
      for (auto kind : {AlgorithmKind::Ring, AlgorithmKind::HalvingDoubling, AlgorithmKind::RecursiveDoubling,
                        AlgorithmKind::Tree}) {
        INFO(to_string(kind));
        check_all_reduce(*make_algorithm(kind, n), elements);
      }
      for (std::size_t racks = 1; racks <= n; ++racks)
        if (n % racks == 0) {
          INFO("hierarchical, " << racks << " racks");
          check_all_reduce(*make_algorithm(AlgorithmKind::Hierarchical, n, racks), elements);
        }
    }
}

TEST_CASE("ring and halving-doubling send 2(n-1)/n of the vector per rank, recursive doubling log2(n) vectors",
          "[collective]") {
  // The bandwidth terms of the closed forms: with P divisible by n, every rank sends
  // exactly 2(n-1)/n P (ring: 2(n-1) segments of P/n; halving-doubling: P/2 + P/4 + ... +
  // P/n each way), and recursive doubling log2(n) P.
  const std::int64_t p = 64 * 3;
  for (std::size_t n : {2u, 4u, 8u, 16u, 32u, 64u}) {
    const double both_ways = 2.0 * static_cast<double>(n - 1) / static_cast<double>(n) * static_cast<double>(p);
    for (auto kind : {AlgorithmKind::Ring, AlgorithmKind::HalvingDoubling}) {
      const Outcome o = run(*make_algorithm(kind, n), p);
      for (double s : o.sent) CHECK(s == both_ways);
    }
    double levels = 0;
    for (std::size_t k = n; k > 1; k /= 2) ++levels;
    for (double s : run(*make_algorithm(AlgorithmKind::RecursiveDoubling, n), p).sent)
      CHECK(s == levels * static_cast<double>(p));
  }
}

TEST_CASE("steps per rank: ring 2(n-1), halving-doubling 2 log2 n, tree by position", "[collective]") {
  CHECK(make_algorithm(AlgorithmKind::Ring, 8)->steps(3) == 14);
  CHECK(make_algorithm(AlgorithmKind::HalvingDoubling, 8)->steps(3) == 6);
  CHECK(make_algorithm(AlgorithmKind::RecursiveDoubling, 8)->steps(3) == 3);
  // 6 ranks fold onto 4: ranks 0 and 2 hand over (2 steps), 1 and 3 take two more.
  const auto hd6 = make_algorithm(AlgorithmKind::HalvingDoubling, 6);
  CHECK(hd6->steps(0) == 2);
  CHECK(hd6->steps(1) == 6);
  CHECK(hd6->steps(4) == 4);
  const auto tree = make_algorithm(AlgorithmKind::Tree, 6);  // 0: root; 1, 2: internal; 3, 4, 5: leaves
  CHECK(tree->steps(0) == 2);
  CHECK(tree->steps(2) == 4);
  CHECK(tree->steps(5) == 2);
  CHECK(make_algorithm(AlgorithmKind::Hierarchical, 12, 3)->steps(0) == 2 * 3 + 2 * 2);
  CHECK(make_algorithm(AlgorithmKind::Ring, 1)->steps(0) == 0);
  CHECK_THROWS_AS(make_algorithm(AlgorithmKind::Hierarchical, 10, 3), std::invalid_argument);
  CHECK(parse_algorithm("halving-doubling") == AlgorithmKind::HalvingDoubling);
  CHECK_THROWS_AS(parse_algorithm("butterfly"), std::invalid_argument);
}
