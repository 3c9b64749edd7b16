#include "runner/roll_call.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

namespace colltune {
namespace {

constexpr std::uint32_t kMagic = 0x43545243;  // "CTRC"; a byte-swapped peer is ignored too
constexpr std::uint16_t kQuery = 1, kAnswer = 2;
constexpr std::uint16_t kFresh = 1;  // query: the asker was asked by nobody before it asked
constexpr std::uint16_t kArmed = 1;  // answer: PeerAnswer::armed
constexpr std::size_t kMaxIps = 8;   // keeps the all-gathered string short

// Host byte order: the ranks of one job run one build on alike hosts.
struct Datagram {
  std::uint32_t magic;
  std::uint16_t kind, flags;
  std::uint64_t nonce;
  std::uint32_t seq;  // the asker's round, echoed: an answer to an older round does not count
  std::int32_t from, to;
  std::uint32_t reserved;
  std::uint64_t progress;
  std::int64_t idle_ms;
};
static_assert(sizeof(Datagram) == 48, "the wire format has no padding");

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) c == sep ? out.emplace_back() : out.back() += c;
  return out;
}

Datagram datagram(std::uint16_t kind, std::uint16_t flags, std::uint64_t nonce, std::uint32_t seq,
                  int from, int to) {
  return Datagram{kMagic, kind, flags, nonce, seq, from, to, 0, 0, 0};
}

void send_datagram(int fd, const Datagram& d, const sockaddr_in& to) {
  // MSG_DONTWAIT: a full send buffer loses a datagram (retried next round), never blocks.
  (void)sendto(fd, &d, sizeof d, MSG_DONTWAIT | MSG_NOSIGNAL,
               reinterpret_cast<const sockaddr*>(&to), sizeof to);
}

}  // namespace

RollCall::RollCall(std::string host) : host_(std::move(host)) {
  std::replace(host_.begin(), host_.end(), '|', '_');
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || pipe2(wake_, O_CLOEXEC) != 0) {
    if (fd >= 0) close(fd);
    wake_[0] = wake_[1] = -1;
    return;
  }
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    close(fd);
    return;
  }
  fd_ = fd;
  port_ = ntohs(any.sin_port);
  ifaddrs* interfaces = nullptr;
  if (getifaddrs(&interfaces) != 0) return;  // peers on this host still reach it on loopback
  for (ifaddrs* i = interfaces; i != nullptr && ips_.size() < kMaxIps; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    const in_addr a = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr;
    if (ntohl(a.s_addr) >> 24 == 127) continue;
    char text[INET_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET, &a, text, sizeof text) != nullptr) ips_.emplace_back(text);
  }
  freeifaddrs(interfaces);
}

RollCall::~RollCall() {
  stop();
  if (fd_ >= 0) close(fd_);
  for (int end : wake_) {
    if (end >= 0) close(end);
  }
}

std::string RollCall::address() const {
  std::string joined;
  for (const std::string& ip : ips_) joined += (joined.empty() ? "" : ",") + ip;
  return host_ + "|" + (ok() ? std::to_string(port_) : "") + "|" + joined;
}

std::string RollCall::host_of(const std::string& address) { return split(address, '|')[0]; }

std::uint64_t RollCall::make_nonce() {
  std::uint64_t nonce =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
      (static_cast<std::uint64_t>(getpid()) << 40);
  try {  // without an entropy source the clock and the pid still differ between jobs
    std::random_device device;
    nonce ^= (static_cast<std::uint64_t>(device()) << 32) | device();
  } catch (...) {
  }
  return nonce;
}

void RollCall::start(int rank, std::uint64_t nonce, const std::vector<std::string>& addresses,
                     std::function<PeerAnswer()> mine) {
  if (!ok() || responder_.joinable()) return;
  rank_ = rank;
  nonce_ = nonce;
  mine_ = std::move(mine);
  // A peer that cannot be reached would be named silent wrongly, so then nobody is asked.
  std::vector<Peer> peers;
  bool usable = rank >= 0 && static_cast<std::size_t>(rank) < addresses.size();
  for (std::size_t r = 0; usable && r < addresses.size(); ++r) {
    const std::vector<std::string> f = split(addresses[r], '|');
    Peer p;
    p.host = f[0];
    char* end = nullptr;
    const unsigned long port = f.size() == 3 ? std::strtoul(f[1].c_str(), &end, 10) : 0;
    usable = f.size() == 3 && !f[1].empty() && *end == '\0' && port > 0 && port <= 65535;
    p.port = static_cast<std::uint16_t>(port);
    if (p.host == host_) p.ips.push_back(htonl(INADDR_LOOPBACK));
    for (const std::string& ip : f.size() == 3 ? split(f[2], ',') : std::vector<std::string>()) {
      in_addr a{};
      if (inet_pton(AF_INET, ip.c_str(), &a) == 1) p.ips.push_back(a.s_addr);
    }
    usable = usable && !p.ips.empty();
    peers.push_back(std::move(p));
  }
  {
    std::lock_guard lock(mutex_);
    if (usable) peers_ = std::move(peers);
    answers_.assign(peers_.size(), PeerAnswer{});
  }
  try {  // without a thread peers name this rank silent: it cannot answer, true enough
    responder_ = std::thread([this] { respond(); });
    running_.store(true);
  } catch (...) {
  }
}

void RollCall::stop() {
  running_.store(false);  // an ask() under way now reports nothing rather than all silent
  if (!responder_.joinable()) return;
  const char byte = 0;
  while (write(wake_[1], &byte, 1) < 0 && errno == EINTR) {
  }
  responder_.join();
}

void RollCall::respond() {
  // Nothing escapes this loop: malformed datagrams are dropped, errors wait and retry.
  const int size = static_cast<int>(peers_.size());
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int ready = poll(fds, 2, -1);
    if (ready > 0 && fds[1].revents != 0) return;
    unsigned char buffer[sizeof(Datagram) + 1];
    sockaddr_in from{};
    socklen_t length = sizeof from;
    const ssize_t n = ready <= 0 ? -1
                                 : recvfrom(fd_, buffer, sizeof buffer, MSG_DONTWAIT,
                                            reinterpret_cast<sockaddr*>(&from), &length);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {  // never spin on an error that stays
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (n != static_cast<ssize_t>(sizeof(Datagram)) || length != sizeof from) continue;
    Datagram d;
    std::memcpy(&d, buffer, sizeof d);
    if (d.magic != kMagic || d.nonce != nonce_ || d.to != rank_ || d.from < 0 || d.from == rank_ ||
        (size > 0 && d.from >= size)) {
      continue;
    }
    if (d.kind == kQuery) {
      asked_ever_.store(true);
      if ((d.flags & kFresh) != 0) {
        int seen = lowest_fresh_asker_.load();
        while ((seen < 0 || d.from < seen) &&
               !lowest_fresh_asker_.compare_exchange_weak(seen, d.from)) {
        }
      }
      PeerAnswer me;
      try {
        if (mine_) me = mine_();
      } catch (...) {  // alive is the answer that matters
      }
      Datagram a = datagram(kAnswer, me.armed ? kArmed : 0, nonce_, d.seq, rank_, d.from);
      a.progress = me.progress;
      a.idle_ms = me.idle_ms;
      send_datagram(fd_, a, from);  // the query's source address reaches the asker
    } else if (d.kind == kAnswer && size > 0) {
      std::lock_guard lock(mutex_);
      if (d.seq != seq_) continue;
      answers_[static_cast<std::size_t>(d.from)] =
          PeerAnswer{d.from, d.progress, d.idle_ms, (d.flags & kArmed) != 0};
    }
  }
}

void RollCall::send_query(int to, const Peer& peer, std::uint32_t seq, bool fresh) {
  const Datagram q = datagram(kQuery, fresh ? kFresh : 0, nonce_, seq, rank_, to);
  for (std::uint32_t ip : peer.ips) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(peer.port);
    address.sin_addr.s_addr = ip;
    send_datagram(fd_, q, address);
  }
}

RollCallResult RollCall::ask(std::chrono::milliseconds window) {
  RollCallResult result;
  if (!running_.load() || peers_.empty()) return result;
  result.asked = true;
  // Read before asking: a rank that was asked first has an asker that reports.
  const bool fresh = !asked_ever_.load();
  std::unique_lock lock(mutex_);
  const std::uint32_t seq = ++seq_;
  answers_.assign(peers_.size(), PeerAnswer{});
  lock.unlock();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + window;
  const auto every = std::max(std::chrono::milliseconds(20), window / 4);
  for (auto next = start; next < deadline; next += every) {
    for (std::size_t r = 0; r < peers_.size(); ++r) {
      if (static_cast<int>(r) == rank_) continue;
      lock.lock();
      const bool heard = answers_[r].rank >= 0;
      lock.unlock();
      if (!heard) send_query(static_cast<int>(r), peers_[r], seq, fresh);
    }
    std::this_thread::sleep_until(std::min(next + every, deadline));
  }
  lock.lock();
  for (std::size_t r = 0; r < answers_.size(); ++r) {
    if (static_cast<int>(r) == rank_) continue;
    answers_[r].rank >= 0 ? result.answered.push_back(answers_[r])
                          : result.silent.push_back(static_cast<int>(r));
  }
  lock.unlock();
  if (!running_.load()) return RollCallResult{};  // stopped meanwhile: nobody could answer
  // One reporter: the lowest-ranked of the askers that nobody had asked before they asked.
  const int lowest = lowest_fresh_asker_.load();
  result.defer = !fresh || (lowest >= 0 && lowest < rank_);
  return result;
}

}  // namespace colltune
