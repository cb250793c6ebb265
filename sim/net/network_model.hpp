// NetworkModel: how FlowNetwork turns a message into a flow (network.model in scenarios).
//
// MaxMin (the default): the message waits its route's latency, then moves at its max-min
// fair share of every link direction it crosses (CM02 without corrections).
//
// Tcp: SimGrid's LV08 (Velho, Schnorr, Casanova, Legrand, TOMACS 2013; SimGrid 3.32's
// src/surf/network_cm02.cpp), which corrects the max-min model toward measured TCP:
//   - latency: the message waits latency_factor x the route latency (13.01: slow start,
//     fitted on small messages);
//   - achievable rate: the flow's share x of each link is what it takes from the link, but
//     its payload moves at bandwidth_factor x x (0.97: headers and ACK pacing);
//   - cross-traffic: a flow also takes crosstraffic x x (0.05: its ACKs) of every link
//     direction of the reverse path (dst -> src), so uploads and downloads of a NIC
//     interfere;
//   - window: x <= gamma / (2 x route latency) (gamma: the largest TCP window, 4 MiB;
//     route latency without the factor; no cap for a route without latency);
//   - RTT unfairness: flows share in proportion to weight 1 / p with the penalty
//     p = route latency + sum over its links of weight_s / bandwidth (20537 bytes).
// Set a factor to its neutral value (1, 1, 0, 0, 0) to switch its effect off; with all
// neutral, tcp is the max-min model with weights 1 / route latency, SimGrid's CM02.
#pragma once

namespace pssim::net {

struct TcpFactors {
  double latency_factor = 13.01;
  double bandwidth_factor = 0.97;
  double crosstraffic = 0.05;
  double gamma = 4194304.0;   ///< bytes; 0: no window cap
  double weight_s = 20537.0;  ///< bytes; 0: the penalty is the route latency alone
};

struct NetworkModel {
  enum class Kind { MaxMin, Tcp } kind = Kind::MaxMin;
  TcpFactors tcp;
  /// Messages may be sent with priority classes (Transport::SendOptions::priority): the
  /// solver then serves classes in strict priority (MaxMinSolver, Sharing::General).
  bool priorities = false;
  /// Whether the solver needs general sharing (weights, caps, coefficients or classes).
  bool general() const { return kind == Kind::Tcp || priorities; }
};

}  // namespace pssim::net
