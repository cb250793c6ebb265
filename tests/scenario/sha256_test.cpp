// SHA-256 against the FIPS 180-4 examples and the well-known million-'a' digest.
#include <string>

#include <catch2/catch.hpp>

#include "sim/scenario/sha256.hpp"

using pssim::scenario::Sha256;

namespace {
std::string digest(const std::string& text) {
  Sha256 h;
  h.update(text);
  return h.hex_digest();
}
}  // namespace

TEST_CASE("sha256 of the FIPS 180-4 examples", "[scenario][sha256]") {
  CHECK(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(digest(std::string(1'000'000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 does not depend on how the bytes are cut", "[scenario][sha256]") {
  const std::string text(1000, 'x');
  for (std::size_t piece : {1u, 7u, 55u, 56u, 63u, 64u, 65u, 999u}) {
    CAPTURE(piece);
    Sha256 h;
    for (std::size_t at = 0; at < text.size(); at += piece) h.update(text.substr(at, piece));
    CHECK(h.hex_digest() == digest(text));
  }
}
