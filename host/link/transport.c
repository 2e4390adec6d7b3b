/* Host transports: child process pipes, serial port, TCP, QEMU (see utvm/host.h). */
#define _DEFAULT_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "link_internal.h"

/* How long a child gets to exit after SIGTERM before SIGKILL. */
#define CHILD_TERM_GRACE_MS 300
/* Timeout of a TCP connect. */
#define TCP_CONNECT_TIMEOUT_MS 5000

/* Most child processes alive at once (one per open child transport). */
#define MAX_LIVE_CHILDREN 16

typedef struct {
  int in_fd;   /* we read from it */
  int out_fd;  /* we write to it */
  pid_t pid;   /* child process (group leader), or -1 */
  char **argv; /* malloc'd copy of the child's command line (for restart), or NULL */
  bool kill_at_once; /* SIGKILL without SIGTERM first (QEMU: nothing to save, and no
                        "terminating on signal" notice on our stderr) */
} fd_transport_t;

/* Process groups of the live children, for utvm_host_kill_children (a signal handler reads
 * them: each slot is written whole, 0 when free). */
static volatile sig_atomic_t live_children[MAX_LIVE_CHILDREN];

static void track_child(pid_t pid, bool alive) {
  for (size_t i = 0u; i < MAX_LIVE_CHILDREN; i++) {
    if (alive ? (live_children[i] == 0) : (live_children[i] == (sig_atomic_t)pid)) {
      live_children[i] = alive ? (sig_atomic_t)pid : 0;
      return;
    }
  }
}

void utvm_host_kill_children(void) {
  for (size_t i = 0u; i < MAX_LIVE_CHILDREN; i++) {
    pid_t pid = (pid_t)live_children[i];
    if (pid > 0) {
      (void)kill(-pid, SIGKILL);
      (void)kill(pid, SIGKILL);
      (void)waitpid(pid, NULL, 0);
      live_children[i] = 0;
    }
  }
}

void host_format(char *buf, size_t size, const char *fmt, ...) {
  if ((buf == NULL) || (size == 0u)) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  (void)vsnprintf(buf, size, fmt, ap);
  va_end(ap);
}

int64_t host_now_ms(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + (int64_t)(ts.tv_nsec / 1000000);
}

static long fd_read(void *ctx, uint8_t *buf, size_t n, int32_t timeout_ms) {
  fd_transport_t *t = (fd_transport_t *)ctx;
  struct pollfd pfd = {t->in_fd, POLLIN, 0};
  int rc = poll(&pfd, 1, (timeout_ms < 0) ? 0 : (int)timeout_ms);
  if (rc < 0) {
    return (errno == EINTR) ? 0 : -1;
  }
  if (rc == 0) {
    return 0;
  }
  ssize_t got = read(t->in_fd, buf, n);
  if (got > 0) {
    return (long)got;
  }
  if ((got < 0) && ((errno == EAGAIN) || (errno == EINTR))) {
    return 0;
  }
  return -1;
}

static int fd_write(void *ctx, const uint8_t *data, size_t n, int32_t timeout_ms) {
  fd_transport_t *t = (fd_transport_t *)ctx;
  int64_t deadline = host_now_ms() + timeout_ms;
  size_t done = 0u;
  while (done < n) {
    int64_t left = deadline - host_now_ms();
    if (left <= 0) {
      return -1;
    }
    struct pollfd pfd = {t->out_fd, POLLOUT, 0};
    int rc = poll(&pfd, 1, (int)left);
    if ((rc < 0) && (errno != EINTR)) {
      return -1;
    }
    if (rc > 0) {
      if ((pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        return -1;
      }
      ssize_t put = write(t->out_fd, &data[done], n - done);
      if (put > 0) {
        done += (size_t)put;
      } else if ((put < 0) && (errno != EAGAIN) && (errno != EINTR)) {
        return -1;
      } else {
        /* Retried until the deadline. */
      }
    }
  }
  return 0;
}

/* Kills the child's process group and reaps it (bounded wait); at once with SIGKILL, or
 * SIGTERM first with a grace period. */
static void reap_child(pid_t pid, bool kill_at_once) {
  track_child(pid, false);
  int signal_first = kill_at_once ? SIGKILL : SIGTERM;
  (void)kill(-pid, signal_first);
  (void)kill(pid, signal_first);
  int64_t deadline = host_now_ms() + CHILD_TERM_GRACE_MS;
  while (host_now_ms() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if ((r == pid) || ((r < 0) && (errno != EINTR))) {
      (void)kill(-pid, SIGKILL);
      return;
    }
    struct timespec pause = {0, 5000000};
    (void)nanosleep(&pause, NULL);
  }
  (void)kill(-pid, SIGKILL);
  (void)kill(pid, SIGKILL);
  int status = 0;
  (void)waitpid(pid, &status, 0);
}

static void fd_close_descriptors(fd_transport_t *t) {
  if (t->out_fd >= 0) {
    (void)close(t->out_fd);
  }
  if ((t->in_fd >= 0) && (t->in_fd != t->out_fd)) {
    (void)close(t->in_fd);
  }
  t->in_fd = -1;
  t->out_fd = -1;
}

static void free_argv(char **argv) {
  if (argv != NULL) {
    for (size_t i = 0u; argv[i] != NULL; i++) {
      free(argv[i]);
    }
    free(argv);
  }
}

static void fd_close(void *ctx) {
  fd_transport_t *t = (fd_transport_t *)ctx;
  fd_close_descriptors(t);
  if (t->pid > 0) {
    reap_child(t->pid, t->kill_at_once);
  }
  free_argv(t->argv);
  free(t);
}

static fd_transport_t *fd_transport_new(utvm_host_transport_t *out) {
  fd_transport_t *t = (fd_transport_t *)calloc(1u, sizeof(*t));
  if (t != NULL) {
    t->in_fd = -1;
    t->out_fd = -1;
    t->pid = -1;
    out->read = fd_read;
    out->write = fd_write;
    out->close = fd_close;
    out->ctx = t;
  }
  return t;
}

static void set_nonblocking_cloexec(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) {
    (void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  }
  (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void ignore_sigpipe(void) {
  struct sigaction old;
  if ((sigaction(SIGPIPE, NULL, &old) == 0) && (old.sa_handler == SIG_DFL)) {
    struct sigaction ign;
    (void)memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    (void)sigemptyset(&ign.sa_mask);
    (void)sigaction(SIGPIPE, &ign, NULL);
  }
}

/* Starts argv[0] with stdin/stdout connected to pipes (stderr inherited) and stores its
 * descriptors and pid in t. */
static utvm_host_err_t spawn_process(char *const argv[], fd_transport_t *t, char *errbuf,
                                     size_t errbuf_size) {
  int to_child[2];
  int from_child[2];
  if (pipe(to_child) != 0) {
    host_format(errbuf, errbuf_size, "pipe: %s", strerror(errno));
    return UTVM_HOST_ERR_CONNECT;
  }
  if (pipe(from_child) != 0) {
    host_format(errbuf, errbuf_size, "pipe: %s", strerror(errno));
    (void)close(to_child[0]);
    (void)close(to_child[1]);
    return UTVM_HOST_ERR_CONNECT;
  }
  ignore_sigpipe();
  pid_t pid = fork();
  if (pid < 0) {
    host_format(errbuf, errbuf_size, "fork: %s", strerror(errno));
    (void)close(to_child[0]);
    (void)close(to_child[1]);
    (void)close(from_child[0]);
    (void)close(from_child[1]);
    return UTVM_HOST_ERR_CONNECT;
  }
  if (pid == 0) {
    (void)setpgid(0, 0);
    (void)dup2(to_child[0], STDIN_FILENO);
    (void)dup2(from_child[1], STDOUT_FILENO);
    (void)close(to_child[0]);
    (void)close(to_child[1]);
    (void)close(from_child[0]);
    (void)close(from_child[1]);
    struct sigaction dfl;
    (void)memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    (void)sigaction(SIGPIPE, &dfl, NULL);
    (void)execvp(argv[0], argv);
    (void)fprintf(stderr, "utvm: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  (void)setpgid(pid, pid);
  track_child(pid, true);
  (void)close(to_child[0]);
  (void)close(from_child[1]);
  t->in_fd = from_child[0];
  t->out_fd = to_child[1];
  t->pid = pid;
  set_nonblocking_cloexec(t->in_fd);
  set_nonblocking_cloexec(t->out_fd);
  return UTVM_HOST_OK;
}

/* malloc'd deep copy of a NULL-terminated argument vector, or NULL. */
static char **copy_argv(char *const argv[]) {
  size_t n = 0u;
  while (argv[n] != NULL) {
    n++;
  }
  char **copy = (char **)calloc(n + 1u, sizeof(char *));
  if (copy == NULL) {
    return NULL;
  }
  for (size_t i = 0u; i < n; i++) {
    size_t len = strlen(argv[i]) + 1u;
    copy[i] = (char *)malloc(len);
    if (copy[i] == NULL) {
      free_argv(copy);
      return NULL;
    }
    (void)memcpy(copy[i], argv[i], len);
  }
  return copy;
}

/* Spawns argv[0] as a child transport; the command line is kept for restarts. */
static utvm_host_err_t spawn_child(char *const argv[], bool kill_at_once,
                                   utvm_host_transport_t *out, char *errbuf, size_t errbuf_size) {
  fd_transport_t *t = fd_transport_new(out);
  char **saved = copy_argv(argv);
  if ((t == NULL) || (saved == NULL)) {
    free(t);
    free_argv(saved);
    host_format(errbuf, errbuf_size, "out of memory");
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  t->argv = saved;
  t->kill_at_once = kill_at_once;
  utvm_host_err_t rc = spawn_process(argv, t, errbuf, errbuf_size);
  if (rc != UTVM_HOST_OK) {
    fd_close(t);
  }
  return rc;
}

utvm_host_err_t utvm_host_transport_restart(const utvm_host_transport_t *transport,
                                            char *errbuf, size_t errbuf_size) {
  if ((transport == NULL) || (transport->close != fd_close)) {
    host_format(errbuf, errbuf_size, "restart: not a child-process transport");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  fd_transport_t *t = (fd_transport_t *)transport->ctx;
  if (t->argv == NULL) {
    host_format(errbuf, errbuf_size, "restart: not a child-process transport");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  fd_close_descriptors(t);
  if (t->pid > 0) {
    track_child(t->pid, false);
    (void)kill(-t->pid, SIGKILL);
    (void)kill(t->pid, SIGKILL);
    int status = 0;
    while ((waitpid(t->pid, &status, 0) < 0) && (errno == EINTR)) {
    }
    t->pid = -1;
  }
  return spawn_process(t->argv, t, errbuf, errbuf_size);
}

static speed_t baud_constant(unsigned long baud) {
  static const struct {
    unsigned long rate;
    speed_t constant;
  } rates[] = {{9600u, B9600},       {19200u, B19200},     {38400u, B38400},
               {57600u, B57600},     {115200u, B115200},   {230400u, B230400},
               {460800u, B460800},   {921600u, B921600},   {1000000u, B1000000},
               {2000000u, B2000000}, {3000000u, B3000000}, {4000000u, B4000000}};
  for (size_t i = 0u; i < sizeof(rates) / sizeof(rates[0]); i++) {
    if (rates[i].rate == baud) {
      return rates[i].constant;
    }
  }
  return (speed_t)0;
}

/* The part of arg before sep (all of arg when sep is NULL) into out[cap]; false when it is
 * empty or does not fit. */
static bool copy_prefix(const char *arg, const char *sep, char *out, size_t cap) {
  const size_t len = (sep != NULL) ? (size_t)(sep - arg) : strlen(arg);
  if ((len == 0u) || (len >= cap)) {
    return false;
  }
  (void)memcpy(out, arg, len);
  out[len] = '\0';
  return true;
}

static utvm_host_err_t open_serial(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                   size_t errbuf_size) {
  char path[512];
  unsigned long baud = 115200u;
  const char *at = strrchr(arg, '@');
  if (!copy_prefix(arg, at, path, sizeof(path))) {
    host_format(errbuf, errbuf_size, "serial: expected serial:PATH[@BAUD]");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  if (at != NULL) {
    char *end = NULL;
    baud = strtoul(at + 1, &end, 10);
    if ((end == at + 1) || (*end != '\0')) {
      host_format(errbuf, errbuf_size, "serial: bad baud rate '%s'", at + 1);
      return UTVM_HOST_ERR_ARGUMENT;
    }
  }
  speed_t speed = baud_constant(baud);
  if (speed == (speed_t)0) {
    host_format(errbuf, errbuf_size, "serial: unsupported baud rate %lu", baud);
    return UTVM_HOST_ERR_ARGUMENT;
  }
  int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    host_format(errbuf, errbuf_size, "serial: cannot open %s: %s", path, strerror(errno));
    return UTVM_HOST_ERR_CONNECT;
  }
  struct termios tio;
  if (tcgetattr(fd, &tio) != 0) {
    host_format(errbuf, errbuf_size, "serial: %s is not a terminal: %s", path, strerror(errno));
    (void)close(fd);
    return UTVM_HOST_ERR_CONNECT;
  }
  cfmakeraw(&tio);
  tio.c_cflag |= (tcflag_t)(CLOCAL | CREAD);
  tio.c_cflag &= (tcflag_t)~(tcflag_t)CRTSCTS;
  tio.c_cc[VMIN] = 0;
  tio.c_cc[VTIME] = 0;
  (void)cfsetispeed(&tio, speed);
  (void)cfsetospeed(&tio, speed);
  if (tcsetattr(fd, TCSANOW, &tio) != 0) {
    host_format(errbuf, errbuf_size, "serial: cannot configure %s: %s", path, strerror(errno));
    (void)close(fd);
    return UTVM_HOST_ERR_CONNECT;
  }
  (void)tcflush(fd, TCIOFLUSH);
  fd_transport_t *t = fd_transport_new(out);
  if (t == NULL) {
    (void)close(fd);
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  t->in_fd = fd;
  t->out_fd = fd;
  return UTVM_HOST_OK;
}

/* Connects fd to addr within TCP_CONNECT_TIMEOUT_MS; 0 on success. */
static int connect_bounded(int fd, const struct sockaddr *addr, socklen_t len) {
  if (connect(fd, addr, len) == 0) {
    return 0;
  }
  if (errno != EINPROGRESS) {
    return -1;
  }
  struct pollfd pfd = {fd, POLLOUT, 0};
  if (poll(&pfd, 1, TCP_CONNECT_TIMEOUT_MS) <= 0) {
    errno = ETIMEDOUT;
    return -1;
  }
  int so_error = 0;
  socklen_t so_len = sizeof(so_error);
  if ((getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &so_len) != 0) || (so_error != 0)) {
    errno = so_error;
    return -1;
  }
  return 0;
}

static utvm_host_err_t open_tcp(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                size_t errbuf_size) {
  char host[256];
  const char *colon = strrchr(arg, ':');
  size_t host_len = (colon != NULL) ? (size_t)(colon - arg) : 0u;
  if ((colon == NULL) || (host_len == 0u) || (host_len >= sizeof(host)) || (colon[1] == '\0')) {
    host_format(errbuf, errbuf_size, "tcp: expected tcp:HOST:PORT");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  (void)memcpy(host, arg, host_len);
  host[host_len] = '\0';
  struct addrinfo hints;
  (void)memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo *list = NULL;
  int rc = getaddrinfo(host, colon + 1, &hints, &list);
  if (rc != 0) {
    host_format(errbuf, errbuf_size, "tcp: cannot resolve %s: %s", host, gai_strerror(rc));
    return UTVM_HOST_ERR_CONNECT;
  }
  int fd = -1;
  int last_errno = 0;
  for (struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    if (connect_bounded(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      break;
    }
    last_errno = errno;
    (void)close(fd);
    fd = -1;
  }
  freeaddrinfo(list);
  if (fd < 0) {
    host_format(errbuf, errbuf_size, "tcp: cannot connect to %s: %s", arg, strerror(last_errno));
    return UTVM_HOST_ERR_CONNECT;
  }
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  fd_transport_t *t = fd_transport_new(out);
  if (t == NULL) {
    (void)close(fd);
    return UTVM_HOST_ERR_NO_MEMORY;
  }
  t->in_fd = fd;
  t->out_fd = fd;
  return UTVM_HOST_OK;
}

/* QEMU machine of a board preset, or the board name itself. */
static const char *qemu_machine(const char *board) {
  static const struct {
    const char *preset;
    const char *machine;
  } boards[] = {{"cortex-m3", "mps2-an385"},
                {"cortex-m4", "mps2-an386"},
                {"cortex-m4-crc-bitwise", "mps2-an386"},
                {"cortex-m55", "mps3-an547"}};
  for (size_t i = 0u; i < sizeof(boards) / sizeof(boards[0]); i++) {
    if (strcmp(board, boards[i].preset) == 0) {
      return boards[i].machine;
    }
  }
  return board;
}

/* The firmware of qemu:BOARD without an ELF: <dir>/BOARD/bin/utvm-server.elf for the build
 * folders $UTVM_BUILD_DIR, ./build, the one this tool was built in (its executable's
 * ../..) and the source tree's build/ (UTVM_HOST_BUILD_ROOT, set at build time). False with
 * the places looked at in errbuf if none is readable. */
static bool find_board_image(const char *board, char *elf, size_t elf_size, char *errbuf,
                             size_t errbuf_size) {
  char exe_dir[1024] = "";
  ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof(exe_dir) - 1u);
  if (n > 0) {
    exe_dir[n] = '\0';
    char *slash = strrchr(exe_dir, '/');
    if (slash != NULL) {
      host_format(slash, sizeof(exe_dir) - (size_t)(slash - exe_dir), "/../..");
    }
  }
  const char *env = getenv("UTVM_BUILD_DIR");
  const char *dirs[4] = {(env != NULL) ? env : "", "build", exe_dir, UTVM_HOST_BUILD_ROOT};
  char looked[1024] = "";
  size_t used = 0u;
  for (size_t i = 0u; i < 4u; i++) {
    if (dirs[i][0] == '\0') {
      continue;
    }
    host_format(elf, elf_size, "%s/%s/bin/utvm-server.elf", dirs[i], board);
    if (access(elf, R_OK) == 0) {
      return true;
    }
    if (used < sizeof(looked)) {
      int w = snprintf(&looked[used], sizeof(looked) - used, "%s%s", (used > 0u) ? ", " : "",
                       elf);
      used += (w > 0) ? (size_t)w : 0u;
    }
  }
  host_format(errbuf, errbuf_size, "qemu: no firmware for board %s (looked for %s): build the "
              "%s preset, set UTVM_BUILD_DIR, or give qemu:BOARD:ELF", board, looked, board);
  return false;
}

static utvm_host_err_t open_qemu(const char *arg, utvm_host_transport_t *out, char *errbuf,
                                 size_t errbuf_size) {
  char board[128];
  char elf[1024];
  const char *colon = strchr(arg, ':');
  if (!copy_prefix(arg, colon, board, sizeof(board))) {
    host_format(errbuf, errbuf_size, "qemu: expected qemu:BOARD[:ELF]");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  if ((colon != NULL) && (colon[1] != '\0')) {
    host_format(elf, sizeof(elf), "%s", colon + 1);
    if (access(elf, R_OK) != 0) {
      host_format(errbuf, errbuf_size, "qemu: cannot read firmware %s: %s", elf,
                  strerror(errno));
      return UTVM_HOST_ERR_CONNECT;
    }
  } else if (!find_board_image(board, elf, sizeof(elf), errbuf, errbuf_size)) {
    return UTVM_HOST_ERR_CONNECT;
  }
  char machine[128];
  host_format(machine, sizeof(machine), "%s", qemu_machine(board));
  char *argv[] = {"qemu-system-arm", "-M",        machine,   "-nographic", "-monitor",
                  "none",            "-serial",   "stdio",   "-icount",    "shift=0",
                  "-kernel",         elf,         NULL};
  return spawn_child(argv, true, out, errbuf, errbuf_size);
}

utvm_host_err_t utvm_host_transport_open(const char *spec, utvm_host_transport_t *out,
                                         char *errbuf, size_t errbuf_size) {
  if ((spec == NULL) || (out == NULL)) {
    host_format(errbuf, errbuf_size, "no transport given");
    return UTVM_HOST_ERR_ARGUMENT;
  }
  (void)memset(out, 0, sizeof(*out));
  if (strncmp(spec, "exec:", 5u) == 0) {
    if (spec[5] == '\0') {
      host_format(errbuf, errbuf_size, "exec: expected exec:COMMAND");
      return UTVM_HOST_ERR_ARGUMENT;
    }
    char command[4096];
    host_format(command, sizeof(command), "%s", spec + 5);
    char *argv[] = {"/bin/sh", "-c", command, NULL};
    return spawn_child(argv, false, out, errbuf, errbuf_size);
  }
  if (strncmp(spec, "serial:", 7u) == 0) {
    return open_serial(spec + 7, out, errbuf, errbuf_size);
  }
  if (strncmp(spec, "tcp:", 4u) == 0) {
    return open_tcp(spec + 4, out, errbuf, errbuf_size);
  }
  if (strncmp(spec, "qemu:", 5u) == 0) {
    return open_qemu(spec + 5, out, errbuf, errbuf_size);
  }
  if (strncmp(spec, "fault:", 6u) == 0) {
    return host_fault_open(spec + 6, out, errbuf, errbuf_size);
  }
  host_format(errbuf, errbuf_size,
              "unknown transport '%s' (use exec:CMD, serial:PATH[@BAUD], tcp:HOST:PORT or "
              "qemu:BOARD[:ELF] or fault:OPTIONS/SPEC)", spec);
  return UTVM_HOST_ERR_ARGUMENT;
}
