/*
 * vigil-spawner: starts command checks for the daemon so that the daemon (a large Node process)
 * never forks per check. One long-lived helper per daemon; the daemon talks to it over its
 * stdin/stdout with length-framed binary messages. Design: docs/design.md §3.
 *
 * Request frames (daemon -> helper), all integers u32 little-endian:
 *   u32 length of the rest, u8 type, then
 *   'R' run:    u32 id, u32 timeoutMs, u32 keepBytes, cwd\0, command\0, ("KEY=VALUE"\0)*, \0
 *   'C' cancel: u32 id
 * Frames from the helper (helper -> daemon): u32 length of the rest, u8 type, then
 *   'P' pid:    u32 id, u32 pid: sent once for a check still running 50 ms after its start, so
 *               that the daemon can kill its group if the helper itself dies;
 *   'D' done:   u32 id, i32 exitCode (-1: none), i32 signal (0: none),
 *   u32 flags (1 timedOut, 2 spawn failed, 4 stdout cut, 8 stderr cut, 16 output cut,
 *   32 cancelled), i32 spawn errno, u32 durationUs, then u32 length + bytes for each of the
 *   stdout tail, stderr tail and interleaved tail.
 *
 * Each check: vfork, own process group (setpgid), stdin /dev/null, stdout/stderr pipes, chdir, the
 * extra environment applied over the helper's own (the daemon's, inherited at start; secrets
 * arrive only this way, never in argv), then exec /bin/sh -c COMMAND. A failure before exec is
 * reported as a spawn failure with its errno. Frames to the daemon are sent once per turn of the
 * main loop (checks that end together wake the daemon once). At the timeout, or on
 * a cancel, the whole group gets SIGKILL; the result is sent when both pipes are closed and the
 * child is reaped, or 2 s after the kill if a grandchild that left the group holds a pipe.
 * End of stdin (the daemon gone) kills every running group and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLOSE_GRACE_MS 2000
#define PID_NOTICE_MS 50
#define MAX_FRAME (64u * 1024u * 1024u)

enum { F_TIMEDOUT = 1, F_SPAWNFAIL = 2, F_CUT_OUT = 4, F_CUT_ERR = 8, F_CUT_ALL = 16, F_CANCELLED = 32 };

typedef struct {
  char *data;
  size_t len, cap, keep;
  int cut;
} tail_t;

typedef struct check {
  struct check *next;
  uint32_t id;
  pid_t pid;
  int out_fd, err_fd;
  int reaped, status, pid_sent;
  int flags;
  int64_t started_ms, deadline_ms, grace_ms; /* grace_ms: 0 until killed */
  tail_t out, err, all;
  /* Bytes of an incomplete UTF-8 sequence held back from the interleaved tail, per stream. */
  char pend[2][4];
  size_t pend_len[2];
} check_t;

static check_t *checks;
static int sig_pipe[2];
static char *inbuf;
static size_t in_len, in_cap;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what) {
  fprintf(stderr, "vigil-spawner: %s: %s\n", what, strerror(errno));
  exit(70);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) die("out of memory");
  return q;
}

/* Keeps the last `keep` bytes as the daemon's Tail does: appends, and past 2×keep keeps the last keep. */
static void tail_push(tail_t *t, const char *bytes, size_t n) {
  if (n == 0) return;
  if (t->len + n > t->cap) {
    size_t want = t->cap ? t->cap : 4096;
    while (want < t->len + n) want *= 2;
    t->data = xrealloc(t->data, want);
    t->cap = want;
  }
  memcpy(t->data + t->len, bytes, n);
  t->len += n;
  if (t->len > 2 * t->keep) {
    memmove(t->data, t->data + t->len - t->keep, t->keep);
    t->len = t->keep;
    t->cut = 1;
  }
}

/* How many bytes at the end of buf start a UTF-8 sequence that is not complete yet. */
static size_t utf8_incomplete(const char *buf, size_t n) {
  size_t back = 0;
  while (back < 3 && back < n) {
    unsigned char c = (unsigned char)buf[n - 1 - back];
    if ((c & 0xC0) == 0x80) {
      back++;
      continue;
    }
    size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return need > back + 1 ? back + 1 : 0;
  }
  return 0;
}

extern char **environ;

/* The check's environment: this process's own (the daemon's, inherited at start) with the request's
 * KEY=VALUE entries (between start and end, each NUL-terminated, ending at an empty one) over it.
 * Built before vfork, so the child only calls execve. */
static char **child_environment(const char *start, const char *end) {
  size_t own = 0, extra = 0;
  while (environ[own]) own++;
  for (const char *e = start; e < end && *e; e += strnlen(e, (size_t)(end - e)) + 1) extra++;
  char **envp = malloc((own + extra + 1) * sizeof *envp);
  if (!envp) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < own; i++) {
    const char *eq = strchr(environ[i], '=');
    size_t key = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
    int replaced = 0;
    for (const char *e = start; e < end && *e && !replaced; e += strnlen(e, (size_t)(end - e)) + 1) {
      replaced = strncmp(e, environ[i], key) == 0 && e[key] == '=';
    }
    if (!replaced) envp[n++] = environ[i];
  }
  for (const char *e = start; e < end && *e; e += strnlen(e, (size_t)(end - e)) + 1) {
    if (memchr(e, '=', strnlen(e, (size_t)(end - e)))) envp[n++] = (char *)e;
  }
  envp[n] = NULL;
  return envp;
}

static void put_u32(char *p, uint32_t v) {
  p[0] = (char)(v & 0xff);
  p[1] = (char)((v >> 8) & 0xff);
  p[2] = (char)((v >> 16) & 0xff);
  p[3] = (char)((v >> 24) & 0xff);
}

static uint32_t get_u32(const char *p) {
  const unsigned char *u = (const unsigned char *)p;
  return (uint32_t)u[0] | ((uint32_t)u[1] << 8) | ((uint32_t)u[2] << 16) | ((uint32_t)u[3] << 24);
}

static void write_all(const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(STDOUT_FILENO, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        struct pollfd pfd = {STDOUT_FILENO, POLLOUT, 0};
        poll(&pfd, 1, 1000);
        continue;
      }
      exit(0); /* the daemon is gone */
    }
    p += w;
    n -= (size_t)w;
  }
}

/* Frames for the daemon are gathered over one turn of the main loop and sent in one write: each
 * write wakes the daemon, and checks that end together should wake it once. */
static char *outbuf;
static size_t out_len, out_cap;

static void queue_frame(const char *p, size_t n) {
  if (out_cap - out_len < n) {
    out_cap = (out_len + n) * 2;
    outbuf = xrealloc(outbuf, out_cap);
  }
  memcpy(outbuf + out_len, p, n);
  out_len += n;
}

static void flush_frames(void) {
  if (out_len == 0) return;
  write_all(outbuf, out_len);
  out_len = 0;
}

static void send_result(uint32_t id, int exit_code, int sig, int flags, int spawn_errno, int64_t duration_us,
                        tail_t *out, tail_t *err, tail_t *all) {
  size_t body = 1 + 6 * 4 + 3 * 4 + out->len + err->len + all->len;
  char *frame = xrealloc(NULL, 4 + body);
  char *p = frame;
  put_u32(p, (uint32_t)body), p += 4;
  *p++ = 'D';
  put_u32(p, id), p += 4;
  put_u32(p, (uint32_t)exit_code), p += 4;
  put_u32(p, (uint32_t)sig), p += 4;
  put_u32(p, (uint32_t)flags), p += 4;
  put_u32(p, (uint32_t)spawn_errno), p += 4;
  put_u32(p, (uint32_t)(duration_us > 0xffffffffLL ? 0xffffffffLL : duration_us)), p += 4;
  tail_t *tails[3] = {out, err, all};
  for (int i = 0; i < 3; i++) {
    put_u32(p, (uint32_t)tails[i]->len), p += 4;
    if (tails[i]->len) memcpy(p, tails[i]->data, tails[i]->len);
    p += tails[i]->len;
  }
  queue_frame(frame, 4 + body);
  free(frame);
}

static void send_pid(check_t *c) {
  char frame[4 + 1 + 8];
  put_u32(frame, 9);
  frame[4] = 'P';
  put_u32(frame + 5, c->id);
  put_u32(frame + 9, (uint32_t)c->pid);
  queue_frame(frame, sizeof frame);
  c->pid_sent = 1;
}

static void kill_group(check_t *c) {
  if (c->pid > 0) kill(-c->pid, SIGKILL);
  if (c->grace_ms == 0) c->grace_ms = now_ms() + CLOSE_GRACE_MS;
}

static void free_check(check_t *c) {
  if (c->out_fd >= 0) close(c->out_fd);
  if (c->err_fd >= 0) close(c->err_fd);
  free(c->out.data);
  free(c->err.data);
  free(c->all.data);
  free(c);
}

static void finish(check_t *c) {
  int exit_code = -1, sig = 0;
  if (c->reaped) {
    if (WIFEXITED(c->status)) exit_code = WEXITSTATUS(c->status);
    else if (WIFSIGNALED(c->status)) sig = WTERMSIG(c->status);
  }
  int flags = c->flags | (c->out.cut ? F_CUT_OUT : 0) | (c->err.cut ? F_CUT_ERR : 0) | (c->all.cut ? F_CUT_ALL : 0);
  send_result(c->id, exit_code, sig, flags, 0, now_us() - c->started_ms * 1000, &c->out, &c->err, &c->all);
  /* Unlink it. */
  for (check_t **pp = &checks; *pp; pp = &(*pp)->next) {
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  }
  free_check(c);
}

static void spawn_failed(uint32_t id, int err, int64_t started_us) {
  tail_t empty = {0};
  send_result(id, -1, 0, F_SPAWNFAIL, err, now_us() - started_us, &empty, &empty, &empty);
}

static void start_check(const char *p, size_t n) {
  int64_t started_us = now_us();
  if (n < 12) return;
  uint32_t id = get_u32(p), timeout_ms = get_u32(p + 4), keep = get_u32(p + 8);
  const char *cursor = p + 12, *end = p + n;
  const char *cwd = cursor;
  cursor = memchr(cursor, 0, (size_t)(end - cursor));
  if (!cursor) return spawn_failed(id, EINVAL, started_us);
  const char *command = ++cursor;
  cursor = memchr(cursor, 0, (size_t)(end - cursor));
  if (!cursor) return spawn_failed(id, EINVAL, started_us);
  const char *env_start = ++cursor;

  int out[2], errp[2];
  if (pipe2(out, O_CLOEXEC) < 0) return spawn_failed(id, errno, started_us);
  if (pipe2(errp, O_CLOEXEC) < 0) {
    int e = errno;
    close(out[0]), close(out[1]);
    return spawn_failed(id, e, started_us);
  }
  char **envp = child_environment(env_start, end);
  if (!envp) die("out of memory");
  char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
  /* vfork: the child borrows this process's memory until it execs, so nothing is copied (a fork
   * per check cost more than the check's own shell). Every signal is blocked around it so that no
   * handler runs in the child on borrowed memory; the child resets its dispositions and mask. A
   * failure before exec is written to child_errno, which this process reads once vfork returns. */
  volatile int child_errno = 0;
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, &old);
  pid_t pid = vfork();
  if (pid == 0) {
    /* The child: nothing here may return, or touch memory but child_errno. */
    setpgid(0, 0);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(errp[1], 2) < 0) goto fail;
    if (*cwd && chdir(cwd) < 0) goto fail;
    execve("/bin/sh", argv, envp);
  fail:
    child_errno = errno ? errno : EINVAL;
    _exit(127);
  }
  int fork_errno = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  free(envp);
  close(out[1]);
  close(errp[1]);
  if (pid < 0) {
    close(out[0]), close(errp[0]);
    return spawn_failed(id, fork_errno, started_us);
  }
  setpgid(pid, pid); /* also from here, so a kill right away reaches the group */
  if (child_errno != 0) {
    /* It never ran: reap it, report the errno. */
    int e = child_errno;
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    close(out[0]), close(errp[0]);
    return spawn_failed(id, e, started_us);
  }
  check_t *c = calloc(1, sizeof *c);
  if (!c) die("out of memory");
  c->id = id;
  c->pid = pid;
  c->out_fd = out[0];
  c->err_fd = errp[0];
  c->started_ms = started_us / 1000;
  c->deadline_ms = c->started_ms + timeout_ms;
  c->out.keep = c->err.keep = c->all.keep = keep;
  c->next = checks;
  checks = c;
}

static void cancel_check(uint32_t id) {
  for (check_t *c = checks; c; c = c->next) {
    if (c->id == id) {
      c->flags |= F_CANCELLED;
      kill_group(c);
    }
  }
}

static void read_stream(check_t *c, int which) {
  char buf[65536];
  int *fd = which == 0 ? &c->out_fd : &c->err_fd;
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close(*fd);
    *fd = -1;
    if (c->pend_len[which]) tail_push(&c->all, c->pend[which], c->pend_len[which]);
    c->pend_len[which] = 0;
    return;
  }
  tail_push(which == 0 ? &c->out : &c->err, buf, (size_t)n);
  /* The interleaved tail gets whole characters only, so two streams never split one. */
  if (c->pend_len[which]) {
    tail_push(&c->all, c->pend[which], c->pend_len[which]);
    c->pend_len[which] = 0;
  }
  size_t hold = utf8_incomplete(buf, (size_t)n);
  tail_push(&c->all, buf, (size_t)n - hold);
  memcpy(c->pend[which], buf + n - hold, hold);
  c->pend_len[which] = hold;
}

static void reap(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (check_t *c = checks; c; c = c->next) {
      if (c->pid == pid) {
        c->reaped = 1;
        c->status = status;
      }
    }
  }
}

static void on_sigchld(int sig) {
  (void)sig;
  int saved = errno;
  ssize_t ignored = write(sig_pipe[1], "x", 1);
  (void)ignored;
  errno = saved;
}

static void handle_frames(void) {
  size_t at = 0;
  while (in_len - at >= 4) {
    uint32_t len = get_u32(inbuf + at);
    if (len > MAX_FRAME) {
      fprintf(stderr, "vigil-spawner: frame of %u bytes refused\n", len);
      exit(65);
    }
    if (in_len - at - 4 < len) break;
    const char *body = inbuf + at + 4;
    if (len >= 1 && body[0] == 'R') start_check(body + 1, len - 1);
    else if (len >= 5 && body[0] == 'C') cancel_check(get_u32(body + 1));
    at += 4 + len;
  }
  memmove(inbuf, inbuf + at, in_len - at);
  in_len -= at;
}

static void shutdown_all(void) {
  for (check_t *c = checks; c; c = c->next) {
    if (c->pid > 0) kill(-c->pid, SIGKILL);
  }
  exit(0);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) die("pipe");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigchld;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);
  fcntl(STDIN_FILENO, F_SETFD, FD_CLOEXEC);
  fcntl(STDOUT_FILENO, F_SETFD, FD_CLOEXEC);

  struct pollfd *fds = NULL;
  check_t **owners = NULL;
  size_t fds_cap = 0;
  for (;;) {
    size_t count = 2;
    for (check_t *c = checks; c; c = c->next) count += 2;
    if (count > fds_cap) {
      fds_cap = count * 2;
      fds = xrealloc(fds, fds_cap * sizeof *fds);
      owners = xrealloc(owners, fds_cap * sizeof *owners);
    }
    fds[0] = (struct pollfd){STDIN_FILENO, POLLIN, 0};
    fds[1] = (struct pollfd){sig_pipe[0], POLLIN, 0};
    size_t n = 2;
    int64_t now = now_ms(), wake = -1;
    for (check_t *c = checks; c; c = c->next) {
      int64_t at = c->grace_ms ? c->grace_ms : c->deadline_ms;
      if (!c->pid_sent && c->started_ms + PID_NOTICE_MS < at) at = c->started_ms + PID_NOTICE_MS;
      if (wake < 0 || at < wake) wake = at;
      if (c->out_fd >= 0) owners[n] = c, fds[n++] = (struct pollfd){c->out_fd, POLLIN, 0};
      if (c->err_fd >= 0) owners[n] = c, fds[n++] = (struct pollfd){c->err_fd, POLLIN, 0};
    }
    int timeout = wake < 0 ? -1 : wake <= now ? 0 : (int)(wake - now);
    flush_frames();
    int ready = poll(fds, n, timeout);
    if (ready < 0 && errno != EINTR) die("poll");
    if (ready > 0) {
      if (fds[1].revents) {
        char drain[64];
        while (read(sig_pipe[0], drain, sizeof drain) > 0) {
        }
      }
      for (size_t i = 2; i < n; i++) {
        if (!fds[i].revents) continue;
        check_t *c = owners[i];
        read_stream(c, fds[i].fd == c->out_fd ? 0 : 1);
      }
      if (fds[0].revents) {
        if (in_cap - in_len < 65536) {
          in_cap = in_cap ? in_cap * 2 : 131072;
          inbuf = xrealloc(inbuf, in_cap);
        }
        ssize_t got = read(STDIN_FILENO, inbuf + in_len, in_cap - in_len);
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) shutdown_all();
        if (got > 0) {
          in_len += (size_t)got;
          handle_frames();
        }
      }
    }
    reap();
    now = now_ms();
    for (check_t *c = checks, *next; c; c = next) {
      next = c->next;
      if (c->reaped && c->out_fd < 0 && c->err_fd < 0) finish(c);
      else if (c->grace_ms && now >= c->grace_ms) finish(c);
      else {
        if (!c->pid_sent && now >= c->started_ms + PID_NOTICE_MS) send_pid(c);
        if (!c->grace_ms && now >= c->deadline_ms) {
          c->flags |= F_TIMEDOUT;
          kill_group(c);
        }
      }
    }
  }
}
