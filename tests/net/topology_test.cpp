#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/topology_builders.hpp"

using namespace pssim::net;

TEST_CASE("star routes cross the sender's up and the receiver's down link", "[topology]") {
  const Topology t = build_star({{"a", 10, 20, 5}, {"b", 30, 40, 7}});
  const Route& r = t.route(t.node("a"), t.node("b"));
  REQUIRE(r.resources.size() == 2);
  CHECK(t.capacity(r.resources[0]) == 10);  // a up
  CHECK(t.capacity(r.resources[1]) == 40);  // b down
  CHECK(r.latency == 12);
  CHECK(t.resource_name(r.resources[0]) == "a -> switch");
  CHECK(t.resource_name(r.resources[1]) == "switch -> b");
  CHECK(t.route(t.node("a"), t.node("a")).resources.empty());
}

TEST_CASE("a route found after a link's latency changes has the new latency", "[topology]") {
  // Routes and first hops are cached once asked; a latency change (a dynamics event)
  // must reach both the route table and route_into().
  Topology t = build_star({{"a", 10, 20, 5}, {"b", 30, 40, 7}});
  ResourceId out[kMaxRouteLength];
  pssim::TimeNs latency = 0;
  REQUIRE(t.route_into(t.node("a"), t.node("b"), out, latency) == 2);
  CHECK(latency == 12);
  CHECK(t.route(t.node("a"), t.node("b")).latency == 12);
  t.set_latency(t.access_link(t.node("b")), 100);
  REQUIRE(t.route_into(t.node("a"), t.node("b"), out, latency) == 2);
  CHECK(latency == 105);
  CHECK(t.route(t.node("a"), t.node("b")).latency == 105);
  CHECK(t.route(t.node("b"), t.node("a")).latency == 105);
  CHECK(t.resource_name(out[0]) == "a -> switch");
  CHECK(t.resource_name(out[1]) == "switch -> b");
}

TEST_CASE("two-tier routes cross the rack uplinks, sized by oversubscription", "[topology]") {
  // Racks of two hosts (10 up, 10 down each), oversubscription 4: rack uplinks 20 / 4 = 5.
  const Topology t = build_two_tier({{"h0", 10, 10, 1}, {"h1", 10, 10, 1}, {"h2", 10, 10, 1}, {"h3", 10, 10, 1}},
                                    {0, 0, 1, 1}, 2, 4.0, 100);
  const Route& cross = t.route(t.node("h0"), t.node("h2"));
  REQUIRE(cross.resources.size() == 4);
  CHECK(t.resource_name(cross.resources[1]) == "tor-0 -> core");
  CHECK(t.capacity(cross.resources[1]) == 5.0);
  CHECK(t.resource_name(cross.resources[2]) == "core -> tor-1");
  CHECK(cross.latency == 1 + 100 + 100 + 1);
  CHECK(t.route(t.node("h0"), t.node("h1")).resources.size() == 2);  // stays in the rack
}

TEST_CASE("explicit topologies route by lowest latency, then fewest hops", "[topology]") {
  // a - s1 - b is short in hops but slow (latency 50 + 50); a - s2 - s3 - b takes 30.
  const Topology t = build_explicit({"a", "b"}, {"s1", "s2", "s3"},
                                    {{"a", "s1", 1, 1, 0}, {"s1", "b", 1, 1, 100},
                                     {"a", "s2", 1, 1, 10}, {"s2", "s3", 1, 1, 10}, {"s3", "b", 1, 1, 10}});
  const Route& r = t.route(t.node("a"), t.node("b"));
  CHECK(r.latency == 30);
  CHECK(r.resources.size() == 3);
  CHECK_THROWS_WITH(build_explicit({"a"}, {}, {{"a", "x", 1, 1, 0}}), Catch::Contains("no host or switch named 'x'"));
  CHECK_THROWS_WITH(build_explicit({"a", "b"}, {"s"}, {{"a", "s", 1, 1, 0}}), Catch::Contains("host 'b' has no link"));
}

TEST_CASE("unreachable hosts are an error naming them", "[topology]") {
  Topology t;
  const auto a = t.add_host("a");
  const auto b = t.add_host("b");
  const auto s = t.add_switch("s");
  t.add_link(a, s, 1, 1, 0);
  CHECK_THROWS_WITH(t.route(a, b), Catch::Contains("no route from a to b"));
}

TEST_CASE("route_into agrees with route() between any two nodes, before and after its caches fill",
          "[topology]") {
  // Hosts on one switch take the in-line path once both first hops are known; hosts in
  // other racks, switches and a node to itself take the general one, which route() uses
  // (the reference). Each pair is asked twice: the first call of a pass may fill the
  // caches, the second reads them.
  const Topology t = build_two_tier({{"h0", 10, 10, 1}, {"h1", 10, 20, 2}, {"h2", 10, 10, 3}, {"h3", 30, 10, 4}},
                                    {0, 0, 1, 1}, 2, 4.0, 100);
  for (int pass = 0; pass < 2; ++pass)
    for (NodeId a = 0; a < t.node_count(); ++a)
      for (NodeId b = 0; b < t.node_count(); ++b) {
        const Route& expected = t.route(a, b);
        for (int again = 0; again < 2; ++again) {
          ResourceId out[kMaxRouteLength];
          pssim::TimeNs latency = -1;
          const std::size_t n = t.route_into(a, b, out, latency);
          REQUIRE(std::vector<ResourceId>(out, out + n) == expected.resources);
          CHECK(latency == expected.latency);
        }
      }
}
