// The collective algorithms of algorithm.hpp, one class each (schedules as described
// there). Each step() is O(1) except halving-doubling's, O(log n).
#pragma once

#include "sim/collective/algorithm.hpp"

namespace pssim::collective {

class Ring final : public Algorithm {
 public:
  explicit Ring(std::size_t n) : n_(n) {}
  std::size_t ranks() const override { return n_; }
  std::size_t steps(std::size_t) const override { return n_ > 1 ? 2 * (n_ - 1) : 0; }
  void step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const override;

 private:
  std::size_t n_;
};

/// Halving-doubling and recursive doubling share the folding of n ranks onto p = 2^k
/// core ranks: extra rank 2i hands its vector to 2i + 1 (i < n - p) and gets the result
/// back at the end.
class PowerOfTwoFold : public Algorithm {
 public:
  explicit PowerOfTwoFold(std::size_t n);
  std::size_t ranks() const override { return n_; }
  std::size_t steps(std::size_t rank) const override;
  void step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const override;

 protected:
  /// Steps of a core rank between the fold and the unfold.
  virtual std::size_t core_steps() const = 0;
  /// Core step k of core rank v (0 .. p-1): its partner (a core id), the elements it
  /// sends [first, first + sent), and the phase.
  virtual void core_step(std::size_t v, std::size_t k, std::int64_t elements, std::size_t& partner,
                         std::int64_t& first, std::int64_t& sent, Phase& phase) const = 0;
  std::size_t p_ = 1, levels_ = 0;  // p = 2^levels

 private:
  bool is_extra(std::size_t rank) const { return rank < 2 * rem_ && rank % 2 == 0; }
  bool has_fold(std::size_t rank) const { return rank < 2 * rem_ && rank % 2 == 1; }
  std::size_t core_id(std::size_t rank) const { return rank < 2 * rem_ ? rank / 2 : rank - rem_; }
  std::size_t rank_of(std::size_t v) const { return v < rem_ ? 2 * v + 1 : v + rem_; }
  std::size_t n_, rem_ = 0;
};

class HalvingDoubling final : public PowerOfTwoFold {
 public:
  explicit HalvingDoubling(std::size_t n) : PowerOfTwoFold(n) {}

 protected:
  std::size_t core_steps() const override { return 2 * levels_; }
  void core_step(std::size_t v, std::size_t k, std::int64_t elements, std::size_t& partner, std::int64_t& first,
                 std::int64_t& sent, Phase& phase) const override;
};

class RecursiveDoubling final : public PowerOfTwoFold {
 public:
  explicit RecursiveDoubling(std::size_t n) : PowerOfTwoFold(n) {}

 protected:
  std::size_t core_steps() const override { return levels_; }
  void core_step(std::size_t v, std::size_t k, std::int64_t elements, std::size_t& partner, std::int64_t& first,
                 std::int64_t& sent, Phase& phase) const override;
};

class Tree final : public Algorithm {
 public:
  explicit Tree(std::size_t n) : n_(n) {}
  std::size_t ranks() const override { return n_; }
  std::size_t steps(std::size_t rank) const override;
  void step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const override;

 private:
  std::size_t children(std::size_t rank) const;
  std::size_t n_;
};

class Hierarchical final : public Algorithm {
 public:
  /// `racks` racks of n / racks ranks each.
  Hierarchical(std::size_t n, std::size_t racks);
  std::size_t ranks() const override { return racks_ * size_; }
  std::size_t steps(std::size_t) const override { return 2 * (size_ - 1) + 2 * (racks_ - 1); }
  void step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const override;

 private:
  std::size_t racks_, size_;
};

}  // namespace pssim::collective
