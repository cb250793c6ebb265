// Compression of parameter-server messages, per direction, with the compressors of
// models/compress (real encodings: the wire size is the size of the bytes produced).
//
// push (worker -> shard): each worker compresses, for every shard, that shard's slice of
//   its gradient (each shard's slice is a separate message, so top-k keeps the k largest
//   of each slice). With error feedback, a residual per (worker, shard) carries what
//   compression dropped into the next gradient; with DGC momentum correction, the worker
//   keeps a momentum and a velocity residual per (worker, shard) instead. The shard
//   applies the decoded gradient.
// pull (shard -> worker): version 0 goes out uncompressed (it is the common starting
//   point); every later pull carries a compressed delta that the worker adds to the
//   parameters it holds. With error feedback the delta is taken against the worker's copy
//   (which the shard mirrors), so anything dropped is sent later and the copy tracks the
//   shard; without, against the last version sent, so the worker's copy drifts by the
//   accumulated compression error.
// Cost: `seconds_per_element` for each element encoded or decoded, charged to the
// worker's iteration (its push encodes and pull decodes) and to the shard's update (its
// push decodes and pull encodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "models/compress/compressor.hpp"
#include "models/compress/feedback.hpp"
#include "sim/training/slices.hpp"

namespace pssim::training {

struct DirectionCompression {
  models::CompressorSpec spec;                ///< kind none: uncompressed (4 bytes per parameter, no header)
  bool error_feedback = false;
  std::optional<double> momentum_correction;  ///< push only: DGC momentum m in [0, 1) (implies a residual)
  double seconds_per_element = 0;             ///< cost of encoding or decoding one element
  bool enabled() const { return spec.kind != models::CompressorKind::none; }
};

struct CompressionConfig {
  DirectionCompression push, pull;
};

/// Wire bytes of a message of `params` parameters in a direction when they do not depend
/// on the values: 4 per parameter uncompressed, else the compressor's fixed size
/// (nullopt for threshold; dgc's nominal k entries).
std::optional<double> fixed_message_bytes(const DirectionCompression& d, std::int64_t params);

/// One worker's push compression for every shard. Not thread-safe; a worker's gradients
/// are compressed one after the other (its next one starts after the last was pushed).
class PushCompressor {
 public:
  /// `shard_lengths`: parameters of each shard's slice. Requires d.enabled().
  PushCompressor(const DirectionCompression& d, const std::vector<std::size_t>& shard_lengths);

  /// Compresses shard s's gradient slice in place: on return it holds what the shard
  /// decodes. Returns the message's size in bytes. Same slice, state and seed: same bytes.
  std::size_t compress(std::size_t shard, std::span<float> slice, std::uint64_t seed);

 private:
  models::Compressor compressor_;
  std::vector<models::ErrorFeedback> feedback_;         // per shard, with error feedback
  std::vector<models::MomentumCorrection> momentum_;    // per shard, with momentum correction
  std::vector<float> decoded_;                          // [largest shard]
};

/// One shard's pull compression for every worker: the shard mirrors each worker's copy.
/// Calls for different workers may run in parallel; calls for one worker must not.
class PullCompressor {
 public:
  /// Every worker starts holding `initial` (version 0, sent uncompressed). Requires
  /// d.enabled() and no momentum correction.
  PullCompressor(const DirectionCompression& d, std::size_t workers, const SliceRef& initial);

  struct Message {
    SliceRef held;      ///< the worker's copy once it has decoded the message
    std::size_t bytes;  ///< the message's size
  };
  /// Encodes the delta that brings worker w toward `current`. `fresh` is a buffer of the
  /// slice's length for the worker's new copy; `scratch` a work buffer (per thread).
  Message encode(std::size_t worker, const SliceRef& current, std::shared_ptr<std::vector<float>> fresh,
                 std::vector<float>& scratch, std::uint64_t seed);

 private:
  models::Compressor compressor_;
  bool error_feedback_;
  std::vector<SliceRef> held_;       // per worker: its copy
  std::vector<SliceRef> last_sent_;  // per worker, without error feedback: the last version sent
};

}  // namespace pssim::training
