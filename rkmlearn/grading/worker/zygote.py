"""The sandboxed process: ``python -m rkmlearn.grading.worker.zygote CONFIG_JSON``.

Started by :class:`rkmlearn.grading.sandbox.Sandbox` with a clean environment. It never runs
inside the judge. Before any student code exists in the process (trusted phase), the zygote:

1. dies with its parent (``PR_SET_PDEATHSIG``) and checks that the parent is still the runner;
   moves into a network namespace of its own (no interface up);
2. as root: opens the folders it must read that the sandbox uid cannot reach by path (a
   ``/root/.pyenv`` interpreter), then drops to the sandbox uid and gid (no supplementary groups),
   keeping CAP_SYS_ADMIN and CAP_SETPCAP only, to make each worker's namespaces;
3. sets resource limits (address space, CPU, file size, open files, processes per uid, no core);
4. checks once that a PID namespace with its own /proc can be made, and builds the Landlock
   ruleset of the workers when the kernel has Landlock: read-only access to the interpreter,
   the allowed packages and the submission, read-write access to its scratch folder, no other
   file, no exec (unless the exercise allows processes), no TCP, no signals or abstract sockets
   outside the worker's own domain;
5. imports numpy and the allowed packages, and installs the audit hook that enforces the
   exercise's rules for student code (imports, files, processes, sockets, ctypes, tracing);
6. tells the runner it is ready and waits for ``fork`` requests.

For each request it forks an outer process, which enters mount and IPC namespaces of its own
(mounts private), puts a size-limited tmpfs over the scratch folder (the worker's files cost at
most ``scratch_bytes`` and vanish with it) and forks the init (PID 1) of a new PID namespace;
the init mounts a /proc of that namespace, drops every capability and forks the worker (PID 2):
the worker sees its init and itself, no other process of the machine, and killing the init
kills all it started. The worker re-arms the parent-death signal, limits its CPU time, enforces
the Landlock ruleset in a domain of its own, loads the seccomp filter (:mod:`.seccomp`: no IPC
object that outlives it, no memfd, no socket but AF_UNIX, no new process unless the exercise
allows them), switches the audit hook on, imports the submission and answers ``call`` requests until ``bye``
(:mod:`.serve`).
"""
import json
import os
import signal
import socket
import sys

from . import landlock, namespaces, seccomp
from .audit import install_rules
from .serve import serve
from .privileges import (NAMESPACE_CAPS, PR_SET_DUMPABLE, die_with_parent, drop_capabilities,
                         drop_privileges, limit_resources, load_libc, moved,
                         permitted_capabilities, reach_through_descriptors, set_capabilities)


def _worker(data_fd, init_pid, report, ruleset, cfg, wire, violations):
    """The process that imports the submission: the second of its PID namespace."""
    import resource

    die_with_parent(init_pid)
    cpu = int(cfg["cpu_seconds"]) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    if ruleset is not None:
        # The scratch folder is this worker's own tmpfs (when quotas work): a new inode.
        error = ruleset.allow(cfg["scratch"], ruleset.read_write) or landlock.enforce(ruleset)
        if error is not None:
            _fail(report, error)
    # The kernel refuses what no other wall covers (seccomp.install): IPC objects that outlive
    # the worker, memory outside its address space (memfd), sockets but the wire's (AF_UNIX)
    # and, unless the exercise allows them, processes: a child started past the audit hook
    # (_posixsubprocess runs no hook) could compute unseen by the CPU count and the memory
    # cap, which are per process. Where seccomp cannot be set, new processes are refused by
    # RLIMIT_NPROC 0 (threads too, then).
    if seccomp.install(cfg["seccomp_bindings"], cfg["processes"]) != "on" \
            and not cfg["processes"]:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    report.send(b"worker")  # stamped by the kernel with this process's PID in the zygote's view
    report.close()
    sock = socket.socket(fileno=data_fd)
    try:
        serve(sock, cfg, wire, violations)
    finally:
        sock.close()


def _init(data_fd, parent_pid, report, ruleset, cfg, wire, violations, own_proc):
    """The first process of the worker's PID namespace (its init, PID 1): mounts the /proc
    that lists the namespace alone, forks the worker, reaps what is left to it and reports the
    worker's wait status. When it ends, the kernel kills every process left in the namespace.

    The worker, not this process, imports the submission: an init ignores the signals it has
    no handler for (a worker's own ``raise(SIGSEGV)`` would not end it).
    """
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if own_proc:
        error = namespaces.mount_own_proc()
        if error is not None:
            _fail(report, f"the worker's init: {error}")
    set_capabilities(0)  # nothing for the worker to inherit
    _, libc = load_libc()
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # the worker cannot read this process's memory
    report.send(b"init")
    me = os.getpid()
    worker = os.fork()
    if worker == 0:
        code = 0
        try:
            _worker(data_fd, me, report, ruleset, cfg, wire, violations)
        except BaseException:
            code = 1
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.close(data_fd)
    if ruleset is not None:
        ruleset.close()
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == worker:
            break
    report.send(b"status %d" % status)
    os._exit(0)


def _outer(data_fd, zygote_pid, report, ruleset, cfg, wire, violations, pid_namespace):
    """The zygote's child for one worker: gives it PID and mount namespaces of its own and
    waits for their init. Exits as the init did (killed by the same signal, say)."""
    die_with_parent(zygote_pid)
    if pid_namespace is not None:
        error = namespaces.own_pid_namespace()
        if error is None and cfg["scratch_quota"]:
            error = namespaces.quota_scratch(cfg["scratch"], cfg["scratch_bytes"])
        if error is not None:
            _fail(report, f"the worker's namespaces: {error}")
    me = os.getpid()
    init = os.fork()
    if init == 0:
        code = 0
        try:
            # getppid() is 0 in a PID namespace of one's own: the parent lives outside it.
            _init(data_fd, me if pid_namespace is None else 0, report, ruleset, cfg, wire,
                  violations, bool(pid_namespace))
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(data_fd)
    report.close()
    if ruleset is not None:
        ruleset.close()
    _, status = os.waitpid(init, 0)
    if os.WIFSIGNALED(status):
        try:
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _fail(report, why):
    """The sandbox could not make this worker: say why on the report channel, which only the
    sandbox's processes hold (a worker's own output could imitate any line), and exit."""
    report.send(b"error " + why.encode("utf-8", "replace")[:1000])
    os._exit(75)


def _stamped(sock):
    """The next message on ``sock`` and its sender's PID, which the kernel stamps (SO_PASSCRED)
    and translates into this process's PID namespace; ``(b"", None)`` at end of file."""
    import struct

    data, ancillary, _, _ = sock.recvmsg(256, socket.CMSG_SPACE(12))
    pid = None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= 12:
            pid = struct.unpack("iII", payload[:12])[0]
    return data, pid


def _zygote_loop(ctrl, cfg, wire, violations, ruleset, pid_namespace):
    """Answer ``fork`` requests: zygote -> outer process -> init (PID 1) -> worker (PID 2).

    The runner gets the worker's PID (for its CPU readings) and the init's (killing the init
    kills everything in the namespace), both as the kernel stamped them on a message from that
    process: no PID is taken from anything a worker could write.
    """
    zygote = os.getpid()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(ctrl, 4096, 1)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the runner closed the channel
        request = json.loads(message)
        if request.get("op") != "fork" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            continue
        report, child_report = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        report.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                ctrl.close()
                report.close()
                _outer(fds[0], zygote, child_report, ruleset, cfg, wire, violations,
                       pid_namespace)
            except BaseException:
                code = 1
            finally:
                sys.stdout.flush()
                os._exit(code)
        os.close(fds[0])
        child_report.close()
        senders, why = {}, "its processes ended before it was ready"
        while b"worker" not in senders:
            data, sender = _stamped(report)
            if not data:
                break  # the init and the worker are gone before the worker was ready
            if data.startswith(b"error "):
                why = data[6:].decode("utf-8", "replace")
                break
            senders[data] = sender
        worker, init = senders.get(b"worker"), senders.get(b"init")
        ctrl.send(json.dumps({"op": "forked", "pid": worker, "init": init} if worker
                             else {"op": "fork_failed", "why": why}).encode())
        _, status = os.waitpid(pid, 0)
        report.setblocking(False)
        try:
            data, sender = _stamped(report)
            if sender == init and data.startswith(b"status "):
                status = int(data[7:])  # the worker's own; else the outer process's
        except (BlockingIOError, ValueError):
            pass
        report.close()
        if worker:
            ctrl.send(json.dumps({"op": "exited", "pid": worker, "status": status}).encode())


def main(config_json):
    cfg = json.loads(config_json)
    die_with_parent(cfg["parent_pid"])
    use_namespaces = cfg.get("namespaces", True)
    layers = {"network": namespaces.own_network() if use_namespaces else "shared (off)"}
    # The grader's own modules, read now: after the uid drop its folder may be out of reach,
    # and student code can import nothing of it (the audit hook; Landlock: not readable).
    from .. import wire

    cfg["seccomp_bindings"] = seccomp.load_bindings()
    layers["seccomp"] = ("on (libseccomp)" if cfg["seccomp_bindings"] is not None else
                         "unavailable (no libseccomp bindings; processes: RLIMIT_NPROC 0)")
    # Root in a container may lack CAP_SYS_ADMIN: then there is nothing to keep (and the probe
    # below reports the namespaces refused).
    keep = NAMESPACE_CAPS & permitted_capabilities() \
        if use_namespaces and sys.platform.startswith("linux") and os.geteuid() == 0 else 0
    if cfg.get("uid") is not None and os.geteuid() == 0:
        mapping = reach_through_descriptors(cfg["landlock_read_dirs"] + cfg["landlock_list_dirs"])
        for key in ("read_dirs", "landlock_read_dirs", "landlock_list_dirs"):
            cfg[key] = cfg[key] + [moved(d, mapping) for d in cfg[key] if moved(d, mapping) != d]
        drop_privileges(cfg["uid"], cfg["gid"], keep)
        die_with_parent(cfg["parent_pid"])  # a credential change clears the death signal
        layers["uid"] = f"sandbox uid {cfg['uid']}"
    elif os.geteuid() == 0 and sys.platform.startswith("linux"):
        drop_capabilities(keep)
        layers["uid"] = "uid 0 without capabilities"
    else:
        layers["uid"] = f"the grader's own uid {os.geteuid()}"
    os.umask(0o077)
    os.chdir(cfg["scratch"])
    limit_resources(cfg)
    layers["rlimits"] = (f"address space {cfg['memory_bytes'] // 2**20} MiB, CPU "
                         f"{int(cfg['cpu_seconds']) + 1} s per test, files "
                         f"{cfg['file_bytes'] // 2**20} MiB")
    if use_namespaces:
        layers["pid"], pid_namespace, no_quota = namespaces.probe_pid_namespace(
            cfg["scratch"], cfg["scratch_bytes"])
    else:
        layers["pid"], pid_namespace, no_quota = "shared (off)", None, "the folder's disk (off)"
    cfg["scratch_quota"] = no_quota is None
    layers["scratch"] = no_quota or f"tmpfs of {cfg['scratch_bytes'] // 2**20} MiB per worker"
    if keep and pid_namespace is None:
        set_capabilities(0)  # no namespace to make: the zygote keeps nothing
    ruleset = None
    if cfg.get("landlock", True):
        layers["landlock"], ruleset = landlock.build_ruleset(
            cfg["landlock_read_dirs"], cfg["landlock_list_dirs"], cfg["read_files"],
            [cfg["scratch"]], ["/dev/null"], cfg["processes"])
    else:
        layers["landlock"] = "off"
    ctrl = socket.socket(fileno=cfg["ctrl_fd"])
    # The grader's folder leaves the import path: student code neither lists nor searches it.
    # So does the working directory (the scratch folder), which Python 3.10 puts there.
    leave = {os.path.realpath(cfg["scratch"])} | (
        {os.path.realpath(cfg["grader_root"])} if cfg["grader_root"] else set())
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) not in leave]
    cfg["list_dirs"] = list(sys.path)
    violations = []
    if cfg.get("audit", True):
        install_rules(cfg, violations.append)
        layers["audit"] = "on"
    else:
        layers["audit"] = "off"
    for name in cfg["preload"]:
        __import__(name)
    ctrl.send(json.dumps({"op": "ready", "layers": layers}).encode())
    _zygote_loop(ctrl, cfg, wire, violations, ruleset, pid_namespace)


if __name__ == "__main__":
    main(sys.argv[1])
