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
//
// Framing (both models; network.framing in scenarios): a wire carries headers as well as
// payload, so a message of b payload bytes puts b / framing bytes on the wire, and the
// flow model moves those. Under maxmin one flow of b bytes alone on a link of capacity B
// takes b / (framing x B); under tcp the two factors multiply, b / (framing x
// bandwidth_factor x B). LV08's 0.97 was fitted with its testbed's headers inside it, so
// with framing set, bandwidth_factor should be what TCP loses beyond the framing (1: none).
// The default 1 leaves every time unchanged (b / 1 is b exactly).
#pragma once

namespace pssim::net {

struct TcpFactors {
  double latency_factor = 13.01;
  double bandwidth_factor = 0.97;
  double crosstraffic = 0.05;
  double gamma = 4194304.0;   ///< bytes; 0: no window cap
  double weight_s = 20537.0;  ///< bytes; 0: the penalty is the route latency alone
};

/// Payload bytes per wire byte of TCP over Ethernet with this MTU (bytes of an IP packet)
/// and `header_bytes` of IP and TCP headers in each packet (52: IPv4 20 + TCP 20 + the
/// timestamps option 12, Linux's default): each packet carries mtu - header_bytes of
/// payload, and the wire adds 38 bytes to the packet (Ethernet header 14, frame check 4,
/// preamble and start delimiter 8, inter-frame gap 12). MTU 1500: 1448 / 1538 = 0.9415;
/// 9000: 8948 / 9038 = 0.9900. Needs header_bytes < mtu.
constexpr double ethernet_framing(double mtu, double header_bytes = 52) {
  return (mtu - header_bytes) / (mtu + 38);
}

struct NetworkModel {
  enum class Kind { MaxMin, Tcp } kind = Kind::MaxMin;
  TcpFactors tcp;
  /// Payload bytes per wire byte, in (0, 1]: a message of b bytes moves b / framing bytes
  /// through the flow model (both kinds). 1: no framing, as SimGrid's models.
  double framing = 1.0;
  /// Messages may be sent with priority classes (Transport::SendOptions::priority): the
  /// solver then serves classes in strict priority (GeneralSharingSolver).
  bool priorities = false;
  /// Whether the solver needs general sharing (weights, caps, coefficients or classes).
  bool general() const { return kind == Kind::Tcp || priorities; }
};

}  // namespace pssim::net
