// DataError: a data file that is missing, unreadable or does not hold what it claims (an
// IDX image or label file, a text corpus, a .npy parameter file), or two files that do not
// fit together (the training and test splits of one dataset, parameters and a network).
//
// The message names the file, what it claims and what it holds, and the fix. Callers tell
// a bad input (the user's to fix) from a failure of the program by this type.
#pragma once

#include <stdexcept>

namespace pssim::models {

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pssim::models
