"""Namespaces: a network of its own for the zygote, PID and mount namespaces per worker."""
import os
import sys

from .privileges import load_libc

def own_network():
    """Move this process (and its future children) into a network namespace of its own: its
    only interface is a loopback that is down, so no packet leaves it, UDP included. As root
    a plain network namespace; otherwise inside a user namespace of its own (uid and gid
    mapped to themselves). Returns a status string."""
    if not sys.platform.startswith("linux"):
        return "shared (not Linux)"
    ctypes, libc = load_libc()
    clone_newnet, clone_newuser = 0x40000000, 0x10000000
    if os.geteuid() == 0:
        if libc.unshare(clone_newnet) == 0:
            return "own namespace, no interface up"
        return f"shared (unshare: {os.strerror(ctypes.get_errno())})"
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(clone_newuser | clone_newnet) != 0:
        return f"shared (unshare: {os.strerror(ctypes.get_errno())})"
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
    except OSError as exc:
        return f"own namespace (user namespace, ids unmapped: {exc.strerror})"
    return "own namespace (in a user namespace), no interface up"


CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18


def own_pid_namespace():
    """Move this process into mount and IPC namespaces of its own (every mount private:
    nothing propagates back; System V objects and message queues die with the namespace) and
    make its next child the first process (PID 1, the init) of a PID namespace of its own.
    Needs CAP_SYS_ADMIN (as root, or inside the zygote's user namespace). Returns None, or why
    not."""
    ctypes, libc = load_libc()
    if libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID) != 0:
        return f"unshare: {os.strerror(ctypes.get_errno())}"
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return f"making the mounts private: {os.strerror(ctypes.get_errno())}"
    return None


def quota_scratch(scratch, size_bytes):
    """In a mount namespace of one's own: put a tmpfs of ``size_bytes`` (and 4096 files) over
    the scratch folder, owned by this process's uid, and make it the working directory. The
    worker's files then cost at most that much, whatever their number, and vanish with the
    namespace. Returns None, or why not."""
    ctypes, libc = load_libc()
    options = (f"size={int(size_bytes)},nr_inodes=4096,mode=0700,uid={os.getuid()},"
               f"gid={os.getgid()}").encode()
    if libc.mount(b"tmpfs", scratch.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        return f"mounting a tmpfs on the scratch folder: {os.strerror(ctypes.get_errno())}"
    os.chdir(scratch)  # the folder under the mount was the working directory
    return None


def mount_own_proc():
    """In the init of a PID namespace: mount a /proc that lists this namespace's processes
    only (over the machine's). Returns None, or why not."""
    ctypes, libc = load_libc()
    if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
        return f"mounting /proc: {os.strerror(ctypes.get_errno())}"
    return None


def probe_pid_namespace(scratch, size_bytes):
    """Whether workers can have PID namespaces of their own, with their own /proc and a scratch
    quota: tried once in a throwaway process (and its init). Returns ``(status string,
    own_proc, scratch status or None)``: own_proc is None when the namespace itself is refused,
    False when only the /proc mount is; the scratch status is None when the quota works."""
    if not sys.platform.startswith("linux"):
        return "shared (not Linux)", None, "the folder's disk (not Linux)"
    read, write = os.pipe()
    quota = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked child
        try:
            os.close(read)
            os.close(quota[0])
            error = own_pid_namespace()
            if error is None:
                os.write(quota[1], (quota_scratch(scratch, size_bytes) or "ok").encode())
            os.close(quota[1])
            if error is not None:
                os.write(write, b"refused " + error.encode())
            elif os.fork() == 0:
                error = mount_own_proc()
                names = [n for n in os.listdir("/proc") if n.isdigit()] if error is None else []
                if error is None and names != ["1"]:
                    error = f"/proc still lists {len(names)} processes"
                os.write(write, (b"proc " + error.encode()) if error else b"ok")
            else:
                os.wait()
        finally:
            os._exit(0)
    os.close(write)
    os.close(quota[1])
    with os.fdopen(read, "rb") as fh:
        answer = fh.read(500).decode("utf-8", "replace")
    with os.fdopen(quota[0], "rb") as fh:
        scratch_answer = fh.read(500).decode("utf-8", "replace")
    os.waitpid(pid, 0)
    scratch_status = None if scratch_answer == "ok" else \
        f"the folder's disk ({scratch_answer or 'no namespace to mount in'})"
    if answer == "ok":
        return "own namespace and /proc per worker", True, scratch_status
    if answer.startswith("proc "):
        return (f"own namespace per worker, the machine's /proc ({answer[5:]})", False,
                scratch_status)
    return f"shared ({answer[8:] or 'the probe failed'})", None, scratch_status


