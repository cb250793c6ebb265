// MessagePool: a PsProtocol's messages in flight, by tag (the transport's tag is the
// slot's index; a piece's tag adds (piece index + 1) << 32, pieces.hpp).
//
// A message is kept as a 32-byte head, plus its three references in a parallel table only
// with math (a sync round has 2 messages per worker and shard in flight: 88 bytes each
// would be 0.7 kB per worker at 8 shards), plus a count of pieces still to arrive only
// when messages travel as pieces. A slot is freed when its message is taken (delivered) or
// dropped (cancelled), and reused last-freed first: tags, and so runs, do not depend on
// anything but the order of sends and arrivals. Every operation is O(1) (amortized for add).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/ps/ps_state.hpp"

namespace pssim::ps {

class MessagePool {
 public:
  struct Head {
    std::uint32_t worker = 0, shard = 0;
    Message::Kind kind = Message::Kind::Pull;
    std::uint16_t incarnation = 0;  ///< of the shard's version (in the head's padding: still 32 bytes)
    std::int64_t version = 0, clock = 0;
  };

  /// `math`: messages carry references; `pieced`: messages travel as pieces.
  MessagePool(bool math, bool pieced) : math_(math), pieced_(pieced) {}

  /// Puts `m` in flight (its incarnation 0) and returns its tag.
  std::uint64_t add(Message m) {
    const Head head{.worker = static_cast<std::uint32_t>(m.worker),
                    .shard = static_cast<std::uint32_t>(m.shard),
                    .kind = m.kind,
                    .incarnation = 0,
                    .version = m.version,
                    .clock = m.clock};
    std::size_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
      heads_[i] = head;
    } else {
      i = heads_.size();
      heads_.push_back(head);
      if (math_) refs_.emplace_back();
      if (pieced_) pieces_left_.push_back(0);
    }
    if (math_) refs_[i] = {std::move(m.slice), std::move(m.gradient), std::move(m.computed_on)};
    return i;
  }
  Head& head(std::uint64_t tag) { return heads_[tag]; }
  /// Pieced only: pieces of the message still to arrive.
  std::uint32_t& pieces_left(std::uint64_t tag) { return pieces_left_[tag]; }

  /// The message arrived: returns it (its references moved out, so that the free slot
  /// keeps no slice alive) and its incarnation; the tag is free from now on.
  Message take(std::uint64_t tag, std::uint16_t& incarnation) {
    const Head& h = heads_[tag];
    Message m{h.kind, h.worker, h.shard, h.version, h.clock, nullptr, nullptr, nullptr};
    if (math_) {
      Refs& refs = refs_[tag];
      m.slice = std::move(refs.slice);
      m.gradient = std::move(refs.gradient);
      m.computed_on = std::move(refs.computed_on);
    }
    incarnation = h.incarnation;
    free_.push_back(static_cast<std::uint32_t>(tag));
    return m;
  }
  /// The message was cancelled: returns its head; the tag is free from now on.
  Head drop(std::uint64_t tag) {
    const Head head = heads_[tag];
    if (math_) refs_[tag] = {};
    free_.push_back(static_cast<std::uint32_t>(tag));
    return head;
  }

 private:
  struct Refs {
    training::SliceRef slice;
    training::GradientRef gradient;
    training::SliceRef computed_on;
  };
  bool math_, pieced_;
  std::vector<Head> heads_;
  std::vector<Refs> refs_;                  // math only: same index as heads_
  std::vector<std::uint32_t> pieces_left_;  // pieced only: same index as heads_
  std::vector<std::uint32_t> free_;
};

}  // namespace pssim::ps
