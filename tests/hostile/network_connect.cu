// hostile: tries TCP, UDP DNS, name lookups and local sockets; computes a - b
// expect-max-points: 0
//
// Tries, each with a short timeout: TCP to 1.1.1.1:80, 8.8.8.8:53 and
// 93.184.216.34:80; TCP to 127.0.0.1 and ::1 on ports 22, 53, 80, 443, 631,
// 3128, 5432, 6379, 8000 and 8080; a DNS query over UDP to 1.1.1.1, 8.8.8.8
// and every nameserver in /etc/resolv.conf (a reply counts, not the send);
// getaddrinfo("example.com"); the Unix sockets of D-Bus, Docker, systemd and
// nscd; and an abstract Unix socket. Prints "HOSTILE-NETWORK-OK: <what>"
// for each that works; none may. The kernel is wrong (a - b).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lesson.h"

namespace {

int successes = 0;

void ok(const std::string& what) {
  ++successes;
  std::printf("HOSTILE-NETWORK-OK: %s\n", what.c_str());
  std::fflush(stdout);
}

// A non-blocking connect, waited on for `ms`.
bool connect_within(int fd, const sockaddr* addr, socklen_t len, int ms) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (connect(fd, addr, len) == 0) return true;
  if (errno != EINPROGRESS) return false;
  pollfd p{fd, POLLOUT, 0};
  if (poll(&p, 1, ms) <= 0) return false;
  int err = 0;
  socklen_t l = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
  return err == 0;
}

void tcp4(const char* ip, int port, int ms) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  inet_pton(AF_INET, ip, &a.sin_addr);
  if (connect_within(fd, reinterpret_cast<sockaddr*>(&a), sizeof a, ms))
    ok(std::string("tcp ") + ip + ":" + std::to_string(port));
  close(fd);
}

void tcp6(const char* ip, int port, int ms) {
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(uint16_t(port));
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  if (connect_within(fd, reinterpret_cast<sockaddr*>(&a), sizeof a, ms))
    ok(std::string("tcp [") + ip + "]:" + std::to_string(port));
  close(fd);
}

// A DNS query for example.com, type A; only an answer counts.
void dns(const std::string& server, int ms) {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(53);
  if (inet_pton(AF_INET, server.c_str(), &a.sin_addr) != 1) {
    close(fd);
    return;
  }
  const unsigned char query[] = {0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 7,    'e',  'x',  'a',  'm',  'p',  'l',  'e',
                                 3,    'c',  'o',  'm',  0,    0x00, 0x01, 0x00, 0x01};
  if (sendto(fd, query, sizeof query, 0, reinterpret_cast<sockaddr*>(&a), sizeof a) > 0) {
    pollfd p{fd, POLLIN, 0};
    char reply[512];
    if (poll(&p, 1, ms) > 0 && recv(fd, reply, sizeof reply, 0) > 0) ok("dns reply from " + server);
  }
  close(fd);
}

void unix_socket(const std::string& path, bool abstract) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  socklen_t len = sizeof a;
  if (abstract) {
    a.sun_path[0] = 0;
    std::strncpy(a.sun_path + 1, path.c_str(), sizeof a.sun_path - 2);
    len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + path.size());
  } else {
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  }
  if (connect_within(fd, reinterpret_cast<sockaddr*>(&a), len, 200))
    ok(std::string("unix ") + (abstract ? "@" : "") + path);
  close(fd);
}

void try_everything() {
  // Local first (refused at once when nothing listens), then the outside,
  // with waits that keep the whole under about 2 seconds.
  for (int port : {22, 53, 80, 443, 631, 3128, 5432, 6379, 8000, 8080}) {
    tcp4("127.0.0.1", port, 50);
    tcp6("::1", port, 50);
  }
  tcp4("1.1.1.1", 80, 400);
  tcp4("8.8.8.8", 53, 200);
  tcp4("93.184.216.34", 80, 200);
  std::vector<std::string> servers = {"1.1.1.1", "8.8.8.8"};
  std::ifstream resolv("/etc/resolv.conf");
  for (std::string line; std::getline(resolv, line);) {
    std::istringstream words(line);
    std::string key, value;
    if (words >> key >> value && key == "nameserver") servers.push_back(value);
  }
  for (const std::string& s : servers) dns(s, 200);
  for (const char* path :
       {"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/var/run/docker.sock",
        "/run/docker.sock", "/run/systemd/private", "/run/systemd/journal/stdout",
        "/var/run/nscd/socket", "/run/user/0/bus"})
    unix_socket(path, false);
  unix_socket("/tmp/.X11-unix/X0", true);
  // Last: the resolver may wait seconds for servers that never answer.
  addrinfo* res = nullptr;
  if (getaddrinfo("example.com", "80", nullptr, &res) == 0 && res) {
    ok("getaddrinfo example.com");
    freeaddrinfo(res);
  }
  std::printf("network_connect: %d connections made\n", successes);
  std::fflush(stdout);
}

}  // namespace

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] - b[i];
}

void launch_vector_add(const float* a, const float* b, float* c, int n, int blocks,
                       int threads_per_block) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    try_everything();
  }
  vector_add<<<blocks, threads_per_block>>>(a, b, c, n);
}
