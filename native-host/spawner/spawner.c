/*
 * vigil-spawner: starts command checks for the daemon so that the daemon (a large Node process)
 * never forks per check. One long-lived helper per daemon; the daemon talks to it over its
 * stdin/stdout with length-framed binary messages. Design: docs/design.md §3.
 *
 * Request frames (daemon -> helper), all integers u32 little-endian:
 *   u32 length of the rest, u8 type, then
 *   'R' run:    u32 id, u32 timeoutMs, u32 keepBytes, cwd\0, command\0, ("KEY=VALUE"\0)*, \0
 *               (that last empty entry is the frame's last byte; anything else is refused)
 *   'C' cancel: u32 id
 * Frames from the helper (helper -> daemon): u32 length of the rest, u8 type, then
 *   'P' pid:    u32 id, u32 pid: sent once for a check still running 50 ms after its start, so
 *               that the daemon can kill its group if the helper itself dies;
 *   'D' done:   u32 id, i32 exitCode (-1: none), i32 signal (0: none),
 *   u32 flags (1 timedOut, 2 spawn failed, 4 stdout cut, 8 stderr cut, 16 output cut,
 *   32 cancelled), i32 spawn errno, u32 durationUs, then u32 length + bytes for each of the
 *   stdout tail, stderr tail and interleaved tail;
 *   'E' error:  u32 id (0 when the frame carried none), then the reason as text: the answer to a
 *               malformed frame (too short, unterminated, unknown type, over the size limit). Every
 *               'R' gets a 'D' or an 'E'.
 *
 * Each check: vfork, own process group (setpgid), SIGKILL if the helper dies (Linux), stdin
 * /dev/null, stdout/stderr pipes and no other descriptor (everything here is O_CLOEXEC), chdir,
 * the extra environment applied over the helper's own (the daemon's, inherited at start; secrets
 * arrive only this way, never in argv), then exec /bin/sh -c COMMAND. A failure before exec is
 * reported as a spawn failure with its errno. Frames to the daemon are sent once per turn of the
 * main loop (checks that end together wake the daemon once).
 *
 * A group is only ever killed while its leader (the check's shell) is not reaped: a zombie still
 * holds its pid, so `kill(-pid)` cannot reach a group that reused it. At the timeout, or on a
 * cancel, the whole group gets SIGKILL; when the shell exits, what it left in its group is killed
 * then (seen with waitid(WNOWAIT), before the reap), and the pid is never used again. The result
 * is sent when both pipes are closed and the shell is reaped, or 2 s after the kill if a process
 * that left the group holds a pipe.
 * Every way out (end of stdin, SIGTERM/SIGINT/SIGHUP, an oversized frame, an internal error)
 * kills every running group first; only SIGKILL cannot, and then each shell gets SIGKILL from the
 * kernel and the daemon kills the groups whose pids it was told.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

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
  /* Its result was sent before its shell could be reaped (stuck past the kill): kept only to reap it. */
  int reported;
  int flags;
  int64_t started_ms, deadline_ms, grace_ms; /* grace_ms: 0 until its group was killed */
  tail_t out, err, all;
  /* Bytes of an incomplete UTF-8 sequence held back from the interleaved tail, per stream. */
  char pend[2][4];
  size_t pend_len[2];
} check_t;

static check_t *checks;
static int sig_pipe[2];
static int dev_null = -1;
static pid_t helper_pid;
/* Set by SIGTERM, SIGINT or SIGHUP: the main loop kills every group and exits. */
static volatile sig_atomic_t stop_requested;
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

/*
 * Every group whose shell is not reaped yet gets SIGKILL: the helper is leaving, and nothing would
 * end them after it. A reaped shell's group was killed when it exited (see reap), and its pid may
 * belong to someone else by now, so it is never used again.
 */
static void kill_all_groups(void) {
  for (check_t *c = checks; c; c = c->next) {
    if (c->pid > 0 && !c->reaped) kill(-c->pid, SIGKILL);
  }
}

/* The only ways out of the helper: each kills the running groups first. */
static void leave(int code) {
  kill_all_groups();
  exit(code);
}

static void die(const char *what) {
  fprintf(stderr, "vigil-spawner: %s: %s\n", what, strerror(errno));
  leave(70);
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
 * KEY=VALUE entries over it. `extra` is the request's list, already checked by start_check: each
 * entry ends with a NUL inside the frame and the list ends with an empty entry. Entries without
 * '=' are left out. Built before vfork, so the child only calls execve. */
static char **child_environment(const char *extra) {
  size_t own = 0, count = 0;
  while (environ[own]) own++;
  for (const char *e = extra; *e; e += strlen(e) + 1) count++;
  char **envp = malloc((own + count + 1) * sizeof *envp);
  if (!envp) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < own; i++) {
    const char *eq = strchr(environ[i], '=');
    size_t key = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
    int replaced = 0;
    for (const char *e = extra; *e && !replaced; e += strlen(e) + 1) {
      replaced = strncmp(e, environ[i], key) == 0 && e[key] == '=';
    }
    if (!replaced) envp[n++] = environ[i];
  }
  for (const char *e = extra; *e; e += strlen(e) + 1) {
    if (strchr(e, '=')) envp[n++] = (char *)e;
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
      leave(0); /* the daemon is gone */
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

/* The answer to a frame that cannot be carried out: its id (0 if it had none) and why, as text. */
static void send_error(uint32_t id, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void send_error(uint32_t id, const char *format, ...) {
  char frame[4 + 1 + 4 + 200];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(frame + 9, sizeof frame - 9, format, args);
  va_end(args);
  if (n < 0) n = 0;
  if ((size_t)n > sizeof frame - 9 - 1) n = (int)(sizeof frame - 9 - 1);
  put_u32(frame, (uint32_t)(1 + 4 + n));
  frame[4] = 'E';
  put_u32(frame + 5, id);
  queue_frame(frame, 9 + (size_t)n);
}

/* SIGKILL to the whole group, only while its shell is unreaped (its pid cannot have been reused). */
static void kill_group(check_t *c) {
  if (c->pid > 0 && !c->reaped) kill(-c->pid, SIGKILL);
  if (c->grace_ms == 0) c->grace_ms = now_ms() + CLOSE_GRACE_MS;
}

static void unlink_check(check_t *c) {
  for (check_t **pp = &checks; *pp; pp = &(*pp)->next) {
    if (*pp == c) {
      *pp = c->next;
      break;
    }
  }
}

static void close_streams(check_t *c) {
  if (c->out_fd >= 0) close(c->out_fd);
  if (c->err_fd >= 0) close(c->err_fd);
  c->out_fd = c->err_fd = -1;
  free(c->out.data);
  free(c->err.data);
  free(c->all.data);
  c->out.data = c->err.data = c->all.data = NULL;
}

/* Sends the check's result. A check whose shell is not reaped yet (stuck past its SIGKILL) stays in
 * the list, reported, until reap() takes it, so that its group is still killed on the way out. */
static void finish(check_t *c) {
  int exit_code = -1, sig = 0;
  if (c->reaped) {
    if (WIFEXITED(c->status)) exit_code = WEXITSTATUS(c->status);
    else if (WIFSIGNALED(c->status)) sig = WTERMSIG(c->status);
  }
  int flags = c->flags | (c->out.cut ? F_CUT_OUT : 0) | (c->err.cut ? F_CUT_ERR : 0) | (c->all.cut ? F_CUT_ALL : 0);
  send_result(c->id, exit_code, sig, flags, 0, now_us() - c->started_ms * 1000, &c->out, &c->err, &c->all);
  close_streams(c);
  c->reported = 1;
  if (c->reaped) {
    unlink_check(c);
    free(c);
  }
}

static void spawn_failed(uint32_t id, int err, int64_t started_us) {
  tail_t empty = {0};
  send_result(id, -1, 0, F_SPAWNFAIL, err, now_us() - started_us, &empty, &empty, &empty);
}

/* Makes `from` the child's descriptor `to`, inherited across exec (dup2 clears O_CLOEXEC on the copy;
 * when they are already the same descriptor the flag is cleared by hand). */
static int move_fd(int from, int to) {
  if (from == to) return fcntl(to, F_SETFD, 0);
  return dup2(from, to) < 0 ? -1 : 0;
}

/* An 'R' body (after the type byte): u32 id, u32 timeoutMs, u32 keepBytes, cwd\0, command\0,
 * ("KEY=VALUE"\0)*, \0 with that empty entry as its last byte. Anything else gets an 'E' answer
 * and runs nothing. */
static void start_check(const char *p, size_t n) {
  int64_t started_us = now_us();
  if (n < 12) {
    send_error(n >= 4 ? get_u32(p) : 0, "Expected a run frame of at least 13 bytes, got %zu", n + 1);
    return;
  }
  uint32_t id = get_u32(p), timeout_ms = get_u32(p + 4), keep = get_u32(p + 8);
  const char *cursor = p + 12, *end = p + n;
  const char *cwd = cursor;
  cursor = memchr(cursor, 0, (size_t)(end - cursor));
  if (!cursor) return send_error(id, "Expected the folder to end with NUL, got the end of the frame");
  const char *command = ++cursor;
  cursor = memchr(cursor, 0, (size_t)(end - cursor));
  if (!cursor) return send_error(id, "Expected the command to end with NUL, got the end of the frame");
  const char *env_start = ++cursor;
  for (;;) {
    if (cursor >= end) {
      return send_error(id, "Expected the environment to end with an empty entry, got the end of the frame");
    }
    const char *nul = memchr(cursor, 0, (size_t)(end - cursor));
    if (!nul) {
      return send_error(id, "Expected each environment entry to end with NUL, got %zu bytes without one at the end",
                        (size_t)(end - cursor));
    }
    if (nul == cursor) break;
    cursor = nul + 1;
  }
  if (cursor + 1 != end) {
    size_t more = (size_t)(end - cursor - 1);
    return send_error(id, "Expected the frame to end after the environment, got %zu more byte%s", more,
                      more == 1 ? "" : "s");
  }

  int out[2], errp[2];
  if (pipe2(out, O_CLOEXEC) < 0) return spawn_failed(id, errno, started_us);
  if (pipe2(errp, O_CLOEXEC) < 0) {
    int e = errno;
    close(out[0]), close(out[1]);
    return spawn_failed(id, e, started_us);
  }
  char **envp = child_environment(env_start);
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
#ifdef __linux__
    /* If the helper dies (even by SIGKILL) the shell dies too; the daemon kills the rest of the
     * group. A helper already gone before this line is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != helper_pid) goto fail;
#endif
    /* The helper's own dispositions, back to the default before signals are let in (a handler
     * would run here on borrowed memory; exec resets handlers but not SIG_IGN). */
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (move_fd(dev_null, 0) < 0 || move_fd(out[1], 1) < 0 || move_fd(errp[1], 2) < 0) goto fail;
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
  if (!c) {
    kill(-pid, SIGKILL);
    die("out of memory");
  }
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
    if (c->id == id && !c->reported) {
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

/*
 * Takes every check's shell that has exited. waitid(WNOWAIT) sees it while it is still a zombie,
 * whose pid no one else can have: what it left in its group is killed then, and only after that is
 * it reaped. From then on its pid is never used again (kill_group, kill_all_groups skip it). Leaving
 * a group alive after its shell exits would either leak those processes or mean killing them
 * later by a pid that may, by then, be someone else's.
 */
static void reap(void) {
  for (;;) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == 0) return;
    pid_t pid = info.si_pid;
    kill(-pid, SIGKILL);
    int status = 0;
    pid_t got;
    do got = waitpid(pid, &status, 0);
    while (got < 0 && errno == EINTR);
    if (got != pid) return; /* cannot happen for a child of ours; never loop on it */
    for (check_t *c = checks; c; c = c->next) {
      if (c->pid == pid && !c->reaped) {
        c->reaped = 1;
        c->status = status;
        /* A process that left the group may still hold a pipe: the result comes 2 s from now at most. */
        if (c->grace_ms == 0) c->grace_ms = now_ms() + CLOSE_GRACE_MS;
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

static void on_stop(int sig) {
  int saved = errno;
  stop_requested = sig;
  ssize_t ignored = write(sig_pipe[1], "x", 1);
  (void)ignored;
  errno = saved;
}

static void handle_frames(void) {
  size_t at = 0;
  while (in_len - at >= 4) {
    uint32_t len = get_u32(inbuf + at);
    if (len > MAX_FRAME) {
      /* The framing cannot be trusted any more: answer, then leave (killing every group). */
      fprintf(stderr, "vigil-spawner: frame of %u bytes refused\n", len);
      send_error(0, "Expected a frame of at most %u bytes, got %u; vigil-spawner exits", MAX_FRAME, len);
      flush_frames();
      leave(65);
    }
    if (in_len - at - 4 < len) break;
    const char *body = inbuf + at + 4;
    if (len == 0) send_error(0, "Expected a frame type, got an empty frame");
    else if (body[0] == 'R') start_check(body + 1, len - 1);
    else if (body[0] == 'C' && len == 5) cancel_check(get_u32(body + 1));
    else if (body[0] == 'C') {
      send_error(len >= 5 ? get_u32(body + 1) : 0, "Expected a cancel frame of 5 bytes, got %u", len);
    }
    else send_error(0, "Expected a frame of type R or C, got type 0x%02x", (unsigned char)body[0]);
    at += 4 + len;
  }
  memmove(inbuf, inbuf + at, in_len - at);
  in_len -= at;
}

/* Descriptors the helper inherited past 0–2 (from whatever started the daemon) must not reach the
 * checks: each is marked close-on-exec. */
static void close_on_exec_from(int lowest) {
#if defined(__linux__) && defined(SYS_close_range)
  if (syscall(SYS_close_range, (unsigned)lowest, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
  DIR *dir = opendir("/dev/fd");
  if (dir) {
    int own = dirfd(dir);
    struct dirent *entry;
    while ((entry = readdir(dir))) {
      char *rest;
      long fd = strtol(entry->d_name, &rest, 10);
      if (rest != entry->d_name && *rest == 0 && fd >= lowest && fd != own) fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    }
    closedir(dir);
    return;
  }
  long max = sysconf(_SC_OPEN_MAX);
  if (max < 0 || max > 65536) max = 65536;
  for (int fd = lowest; fd < max; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int main(void) {
  helper_pid = getpid();
  close_on_exec_from(3);
  signal(SIGPIPE, SIG_IGN);
  if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0) die("pipe");
  dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (dev_null < 0) die("/dev/null");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigchld;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, NULL);
  sa.sa_handler = on_stop;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
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
      if (c->reported) continue; /* only waits for its SIGCHLD */
      int64_t at = c->grace_ms ? c->grace_ms : c->deadline_ms;
      if (!c->pid_sent && !c->reaped && c->started_ms + PID_NOTICE_MS < at) at = c->started_ms + PID_NOTICE_MS;
      if (wake < 0 || at < wake) wake = at;
      if (c->out_fd >= 0) owners[n] = c, fds[n++] = (struct pollfd){c->out_fd, POLLIN, 0};
      if (c->err_fd >= 0) owners[n] = c, fds[n++] = (struct pollfd){c->err_fd, POLLIN, 0};
    }
    int timeout = wake < 0 ? -1 : wake <= now ? 0 : (int)(wake - now);
    flush_frames();
    int ready = poll(fds, n, timeout);
    if (ready < 0 && errno != EINTR) die("poll");
    if (stop_requested) {
      /* SIGTERM, SIGINT or SIGHUP: every group dies, then the helper, of that same signal. */
      int sig = stop_requested;
      kill_all_groups();
      signal(sig, SIG_DFL);
      raise(sig);
      exit(128 + sig);
    }
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
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) leave(0); /* the daemon is gone */
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
      if (c->reported) {
        if (c->reaped) unlink_check(c), free(c);
      } else if (c->reaped && c->out_fd < 0 && c->err_fd < 0) finish(c);
      else if (c->grace_ms && now >= c->grace_ms) finish(c);
      else {
        if (!c->pid_sent && !c->reaped && now >= c->started_ms + PID_NOTICE_MS) send_pid(c);
        if (!c->grace_ms && now >= c->deadline_ms) {
          c->flags |= F_TIMEDOUT;
          kill_group(c);
        }
      }
    }
  }
}
