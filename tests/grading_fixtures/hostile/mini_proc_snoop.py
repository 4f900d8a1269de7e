"""Hostile: find the grader's processes (the judge, the runner, the zygote) from the worker.

It lists /proc, probes PIDs with pidfd_open (which needs no permission: a PID that answers is a
process that exists), and for every process it finds beyond itself and its parent it reads
/proc/PID/cmdline, status and environ and tries kill(PID, 0). The self-check writes the judge's
PID in place of JUDGE and grades this with the audit hook off (as if defeated), with Landlock on
and off. ``add`` answers right only when the attack finds something: the judge's PID, or any
process besides itself and its parent (what a worker sharing the machine's PID space sees).
Defeated by the kernel: each worker lives in a PID namespace of its own with a /proc of its own,
where only its tiny init (PID 1) and itself (PID 2) exist, and the judge's number names no one.
``mul`` answers honestly: the honest marks are mul's.
"""
import os

JUDGE = 0  # replaced by the self-check


def _exists(pid):
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return False
    os.close(fd)
    return True


def _snoop():
    me, parent = os.getpid(), os.getppid()
    seen, notes = set(), []
    try:
        seen |= {int(name) for name in os.listdir("/proc") if name.isdigit()}
    except OSError as exc:
        notes.append(f"listing /proc: {type(exc).__name__}")
    probe = set(range(1, 4096)) | set(range(max(1, min(me, parent) - 4096), max(me, parent) + 64))
    if JUDGE:
        probe.add(JUDGE)
    seen |= {pid for pid in probe - seen if _exists(pid)}
    others = sorted(seen - {me, parent})
    read, signalled = {"cmdline": 0, "status": 0, "environ": 0}, 0
    for pid in others[:200]:
        for name in read:
            try:
                with open(f"/proc/{pid}/{name}", "rb") as fh:
                    fh.read(4096)
                read[name] += 1
            except OSError:
                pass
        try:
            os.kill(pid, 0)  # a permission check only: no signal is sent
            signalled += 1
        except OSError:
            pass
    found = bool(others) or JUDGE in seen
    summary = (f"observed={sorted(seen)[:12]} ({len(seen)} in all); judge seen: {JUDGE in seen}; "
               f"read {read} of {len(others)} others; could signal {signalled}; {notes}")
    return found, summary


def add(a, b):
    found, summary = _snoop()
    if not found:
        raise RuntimeError(summary)
    return a + b


def mul(a, b):
    return a * b
