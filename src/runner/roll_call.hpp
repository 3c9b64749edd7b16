#pragma once
// A roll call over UDP for the moment a watchdog fires: the ranks still running answer from a
// thread of their own, so a rank that cannot answer (stopped, frozen, its host gone) is named.
// MPI cannot ask this: it runs single-threaded and the job is stuck inside it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace colltune {

// What one rank tells an asker about itself, as its mine() callback filled it in.
struct PeerAnswer {
  int rank = -1;
  std::uint64_t progress = 0;  // progress calls seen so far
  std::int64_t idle_ms = -1;   // since its last progress; -1: not known
  bool armed = false;          // a step is being watched
};

// The outcome of one ask(); silent and answered hold other ranks only, in rank order.
struct RollCallResult {
  bool asked = false;  // false: no roll call was possible (a socket or an address missing)
  std::vector<int> silent;
  std::vector<PeerAnswer> answered;
  // Another rank reports this hang: print later (or never, when its exit ends the job first).
  bool defer = false;
};

class RollCall {
 public:
  // Opens a UDP socket on an ephemeral port of every IPv4 interface. Never throws: on failure
  // ok() is false, address() says so, and ask() reports nothing. `host` names this process's
  // host as the caller's messages do (MpiWorld::host()); ranks with equal hosts use loopback.
  explicit RollCall(std::string host);
  // Stops the responder thread and closes the socket.
  ~RollCall();
  RollCall(const RollCall&) = delete;
  RollCall& operator=(const RollCall&) = delete;

  // Whether the socket opened; any thread.
  bool ok() const { return fd_ >= 0; }
  // "host|port|ip4,ip4,..." (port empty when !ok()); the caller all-gathers it over the ranks.
  std::string address() const;
  // The host part of an address() string.
  static std::string host_of(const std::string& address);
  // A number every rank of one job shares (rank 0's, broadcast), so that datagrams left over
  // from another job on a reused port are ignored.
  static std::uint64_t make_nonce();

  // Starts the responder thread, which answers peers' queries with mine() (called on that
  // thread, so it must be thread-safe; its rank is ignored; an exception from it answers
  // defaults). `addresses` holds every rank's address(), in rank order. Main thread, once.
  void start(int rank, std::uint64_t nonce, const std::vector<std::string>& addresses,
             std::function<PeerAnswer()> mine);
  // Joins the responder: mine() is never called after it returns. Idempotent; call it before
  // whatever mine() reads goes away.
  void stop();

  // Queries every other rank, again every window / 4 to the ones not yet heard, and waits the
  // whole window so that a rank whose watchdog fires at the same time can be heard (defer).
  // One thread at a time (the watchdog's); blocks for `window`.
  RollCallResult ask(std::chrono::milliseconds window);

 private:
  struct Peer {
    std::string host;
    std::uint16_t port = 0;
    std::vector<std::uint32_t> ips;  // network order; loopback comes first for this host
  };
  void respond();
  void send_query(int to, const Peer& peer, std::uint32_t seq, bool fresh);

  std::string host_;
  int fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: a byte written to wake_[1] ends the responder
  std::uint16_t port_ = 0;
  std::vector<std::string> ips_;  // this host's IPv4 addresses, dotted, no loopback

  int rank_ = -1;
  std::uint64_t nonce_ = 0;
  std::vector<Peer> peers_;  // indexed by rank; empty when no roll call is possible
  std::function<PeerAnswer()> mine_;
  std::thread responder_;
  std::atomic<bool> running_{false};  // the responder answers; main thread writes, ask() reads

  // Written by the responder, read by ask(): who asked this rank, so that one rank reports.
  std::atomic<bool> asked_ever_{false};
  std::atomic<int> lowest_fresh_asker_{-1};

  std::mutex mutex_;  // guards seq_ and answers_ between ask() and the responder
  std::uint32_t seq_ = 0;
  std::vector<PeerAnswer> answers_;  // indexed by rank; rank -1 until answered in round seq_
};

// The one line (no newline) a rank prints when its watchdog fires: the step, --timeout, and
// what the roll call found. `hosts` is every rank's host, in rank order. Pure, any thread;
// defined in roll_call_message.cpp.
std::string timeout_message(const std::string& what, double timeout_seconds, int my_rank,
                            const std::vector<std::string>& hosts, const RollCallResult& r);

}  // namespace colltune
