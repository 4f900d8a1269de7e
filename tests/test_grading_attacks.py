"""The grader against the second and third rounds of attacks (the tables of issues 20 and 36).

Each hostile fixture in ``grading_fixtures/hostile`` stands for one row; each test grades it and
checks that it scores no more than its honest marks (or 0), that nothing leaves the sandbox, and
that the grader never crashes or prints raw control characters. Where the attack first switches
off the in-process audit hook, the fixture is graded with the hook off (``_sandbox``), so that
what holds is a kernel wall.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from rkmlearn.grading import GradingError, grade

ROOT = Path(__file__).resolve().parents[1]
CH01 = ROOT / "exercises" / "ch01_kernels"
FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
MINI = FIXTURES / "mini_exercise"
HOSTILE = FIXTURES / "hostile"
LINUX_ROOT = sys.platform.startswith("linux") and os.geteuid() == 0
pytestmark = pytest.mark.slow
# Each test grades on its own: each is a unit of work of its own for pytest-xdist (tests/conftest.py).
XDIST_SPLIT = True


def _variant(tmp_path, name, **replace) -> Path:
    text = (HOSTILE / f"{name}.py").read_text()
    for key, value in replace.items():
        text, n = re.subn(rf"^{key} = .*$", f"{key} = {value!r}", text, count=1, flags=re.M)
        assert n == 1, key
    out = tmp_path / f"{name}.py"
    out.write_text(text)
    return out


def _grade_mini(path, **sandbox):
    return grade(MINI, path, jobs=1, timeout=20.0, _sandbox=sandbox or None)


# ------------------------------------------------------------------ tests cannot be fooled
def test_zeroing_the_inputs_earns_nothing(tmp_path):
    mutating = grade(CH01, HOSTILE / "h21_zero_inputs.py", jobs=2)
    honest = grade(CH01, _variant(tmp_path, "h21_zero_inputs", MUTATE=False), jobs=2)
    assert mutating.score <= honest.score, mutating.format_table()


def test_an_error_for_everything_earns_nothing():
    report = grade(CH01, HOSTILE / "h22_raise_everything.py", jobs=2)
    assert report.score == 0, report.format_table()
    voided = [t for t in report.tests if "also passes the tests with valid input" in t.message]
    assert voided, "the bad-input tests should say why their points do not count"


def test_ones_and_identity_columns_earn_nothing():
    report = grade(CH01, HOSTILE / "h23_ones_identity.py", jobs=2)
    assert report.score == 0, [t.name for t in report.tests if t.passed]


def test_a_loop_in_a_child_process_is_not_fast():
    report = grade(CH01, HOSTILE / "h24_child_process_loop.py", jobs=1, include_hidden=False,
                   timeout=60.0)
    speed = next(t for t in report.tests if "vectorised" in t.name)
    assert not speed.passed, speed
    assert report.score <= 5  # rbf_gram's other tests at most: the loop is honest but slow


@pytest.mark.skipif(not LINUX_ROOT, reason="the process limit holds for the sandbox uid (root)")
def test_no_child_process_even_past_the_audit_hook():
    """With the hook off (as if defeated) the kernel refuses the fork: RLIMIT_NPROC is 0."""
    report = _grade_mini(HOSTILE / "mini_memory_children.py", audit=False)
    assert report.score == report.max_score, report.format_table()


def test_work_hidden_in_the_warm_up_call_counts():
    report = grade(CH01, HOSTILE / "h25_warmup_work.py", jobs=1, include_hidden=False,
                   timeout=120.0)
    speed = next(t for t in report.tests if "vectorised" in t.name)
    assert not speed.passed, report.format_table()


# ------------------------------------------------------------------ kernel walls
@pytest.mark.timeout(300)  # a stopped zygote would hang every later test: a hang guard
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux's")
def test_a_worker_cannot_stop_the_zygote():
    report = _grade_mini(HOSTILE / "mini_sigstop_zygote.py", audit=False)
    assert report.score == report.max_score, report.format_table()
    assert not any("instructor" in t.message or "timed out" in t.message for t in report.tests)


def test_deep_folders_are_cleaned_up_and_grading_completes(tmp_path, monkeypatch):
    # The folders this grading makes (the judge makes them all, with tempfile.mkdtemp) must be
    # gone; other gradings may run at the same time (the other xdist worker) and hold folders of
    # their own in the same /tmp, so a new rkmlearn-* folder there is only a leftover if it stays.
    made, mkdtemp = [], tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **k: made.append(mkdtemp(*a, **k)) or made[-1])
    temp = Path(tempfile.gettempdir())
    before = set(temp.glob("rkmlearn-*"))
    report = _grade_mini(HOSTILE / "mini_deep_folders.py")
    assert report.score == report.max_score, report.format_table()
    assert made and not [p for p in made if os.path.exists(p)], f"left behind: {made}"
    deadline = time.monotonic() + 120
    while (left := set(temp.glob("rkmlearn-*")) - before) and time.monotonic() < deadline:
        time.sleep(1)
    assert not left, f"left behind: {sorted(left)}"


@pytest.mark.skipif(not LINUX_ROOT, reason="a network namespace needs root (or user namespaces)")
def test_no_udp_datagram_leaves_the_sandbox(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        report = _grade_mini(_variant(tmp_path, "mini_udp_leak", PORT=port), audit=False)
        received = []
        try:
            while True:
                received.append(listener.recvfrom(4096))
        except socket.timeout:
            pass
    assert report.score == report.max_score, report.format_table()
    assert received == [], f"{len(received)} datagrams left the sandbox: {received[:3]}"
    assert report.sandbox.get("network", "").startswith("own"), report.sandbox


@pytest.mark.skipif(not LINUX_ROOT, reason="PID and mount namespaces need root (or userns)")
@pytest.mark.parametrize("landlock", [True, False], ids=["landlock", "no-landlock"])
def test_a_worker_sees_no_process_of_the_grader(tmp_path, landlock):
    """With the hook off, the worker lists /proc and probes PIDs: it finds neither the judge
    (whose PID it is told) nor any process but its namespace's init and itself."""
    path = _variant(tmp_path, "mini_proc_snoop", JUDGE=os.getpid())
    sandbox = {"audit": False} if landlock else {"audit": False, "landlock": False}
    report = _grade_mini(path, **sandbox)
    honest = sum(t.max_score for t in report.tests if "mul" in t.name)
    assert report.score <= honest, report.format_table()
    for test in report.tests:
        if "add" in test.name:
            assert "observed=[1, 2] (2 in all); judge seen: False" in test.message, test.message
    assert report.sandbox.get("pid", "").startswith("own"), report.sandbox


@pytest.mark.skipif(not LINUX_ROOT, reason="the zygote keeps capabilities only as root")
@pytest.mark.parametrize("uid", ["auto", None], ids=["sandbox-uid", "uid-0"])
def test_the_worker_and_its_init_hold_no_capability(tmp_path, uid):
    """The zygote keeps CAP_SYS_ADMIN to make the namespaces; none of it reaches the worker or
    its init (their /proc/PID/status, read with the hook and Landlock off)."""
    path = tmp_path / "caps.py"
    path.write_text(
        "def add(a, b):\n"
        "    lines = [line.replace('\\t', ' ') for p in ('self', '1')\n"
        "             for line in open(f'/proc/{p}/status').read().splitlines()\n"
        "             if line.startswith(('Cap', 'NoNewPrivs', 'Pid'))]\n"
        "    raise RuntimeError('; '.join(lines))\n"
        "def mul(a, b):\n    return a * b\n")
    report = _grade_mini(path, audit=False, landlock=False, uid=uid)
    message = next(t.message for t in report.tests if t.name.endswith("test_add"))
    for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert message.count(f"{field}: 0000000000000000") == 2, (field, message)
    assert "Pid: 2;" in message and "Pid: 1;" in message and "NoNewPrivs: 1" in message, message


# Run as root in a child process: the judge first loses CAP_SYS_ADMIN (no namespace can be
# made, as for root in a container), then, behind a seccomp filter, the Landlock system calls
# (a kernel without Landlock). What it graded, or why it refused, is printed as JSON.
_WITHOUT_WALLS = """
import ctypes, json, struct, sys
from rkmlearn.grading import GradingError, grade

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(24, 21, 0, 0, 0)  # PR_CAPBSET_DROP CAP_SYS_ADMIN
header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
assert libc.capget(header, data) == 0
data[0] &= ~(1 << 21); data[1] &= ~(1 << 21)
assert libc.capset(header, data) == 0


def attempt(**kwargs):
    try:
        report = grade(sys.argv[1], sys.argv[2], jobs=1, **kwargs)
    except GradingError as exc:
        return {"refused": str(exc)}
    return {"score": report.score, "max": report.max_score, "sandbox": report.sandbox}


out = {"no_namespaces": attempt()}
code = b"".join(struct.pack("<HBBI", *ins) for ins in [
    (0x20, 0, 0, 4), (0x15, 0, 3, 0xC000003E), (0x20, 0, 0, 0),
    (0x35, 0, 1, 444), (0x35, 0, 1, 447),  # landlock_create_ruleset .. restrict_self
    (0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050000 | 38)])  # allow / ENOSYS


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


filters = ctypes.create_string_buffer(code, len(code))
assert libc.prctl(38, 1, 0, 0, 0) == 0  # PR_SET_NO_NEW_PRIVS
assert libc.prctl(22, 2, ctypes.byref(Program(len(code) // 8, ctypes.cast(
    filters, ctypes.c_char_p))), 0, 0) == 0  # PR_SET_SECCOMP, a filter
out["no_walls"] = attempt()
out["no_walls_trusted"] = attempt(trusted=True)
print(json.dumps(out))
"""


@pytest.mark.skipif(not LINUX_ROOT or os.uname().machine != "x86_64",
                    reason="drops root's CAP_SYS_ADMIN and filters x86-64 system calls")
def test_without_namespaces_the_grader_falls_back_and_says_so():
    done = subprocess.run([sys.executable, "-c", _WITHOUT_WALLS, str(MINI),
                           str(MINI / "solution.py")], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    graded = out["no_namespaces"]  # Landlock alone is a wall: graded, the PID layer says why
    assert graded.get("score") == graded.get("max") == 5, graded
    assert graded["sandbox"]["pid"] == "shared (unshare: Operation not permitted)", graded
    assert graded["sandbox"]["network"].startswith("shared (unshare"), graded
    assert graded["sandbox"]["landlock"].startswith("on"), graded
    assert "neither Landlock nor network namespaces" in out["no_walls"].get("refused", ""), out
    trusted = out["no_walls_trusted"]
    assert trusted.get("score") == 5 and trusted["sandbox"]["landlock"].startswith(
        "unavailable"), trusted


def test_proc_self_root_does_not_reach_the_solution(tmp_path):
    path = _variant(tmp_path, "mini_proc_root_read", SOLUTION=str(MINI / "solution.py"))
    report = _grade_mini(path, landlock=False)
    assert report.score == 0, report.format_table()


def test_forged_replies_are_rejected_cleanly():
    report = _grade_mini(HOSTILE / "mini_forged_replies.py", audit=False)
    assert report.score == 0, report.format_table()
    messages = " | ".join(t.message for t in report.tests)
    assert "malformed" in messages, messages  # the huge array is refused before allocation
    # The forged exception name is not trusted as a class name, and nothing reached the test
    # process as a bare error of the grader's (no "instructor: ..." blame).
    assert "\x00" not in messages and "instructor" not in messages, messages


# ------------------------------------------------------------------ what reaches people
def test_no_raw_control_character_reaches_the_terminal_or_the_json(tmp_path):
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "rkmlearn.grading", str(MINI),
                           str(HOSTILE / "mini_ansi_escapes.py"), "--json", str(out),
                           "--jobs", "1"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for text in (done.stdout, done.stderr, out.read_text()):
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text), text[:2000]
    assert "\\x1b" in done.stdout  # shown, escaped
    data = json.loads(out.read_text())
    assert data["score"] == 0


def test_a_submission_must_be_a_regular_file(tmp_path):
    link = tmp_path / "answer.py"
    link.symlink_to(CH01 / "solution.py")
    with pytest.raises(GradingError, match="symbolic link"):
        grade(CH01, link)
    with pytest.raises(GradingError, match="not a regular file"):
        grade(CH01, tmp_path)
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(GradingError, match="not a regular file"):
        grade(CH01, fifo)


def test_an_internal_failure_still_writes_a_result(tmp_path, monkeypatch):
    """The judge never loses a result: its own crash becomes 'grading failed: ...', exit 3."""
    from rkmlearn.grading import cli

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(cli, "grade", broken)
    out = tmp_path / "results.json"
    status = cli.main([str(MINI), str(MINI / "solution.py"), "--json", str(out)])
    assert status == 3
    data = json.loads(out.read_text())
    assert data["score"] == 0 and data["output"].startswith("grading failed: RecursionError")


def test_honest_code_may_use_tempfile_and_makedirs(tmp_path):
    source = (
        "import os, tempfile\n"
        "def add(a, b):\n"
        "    os.makedirs('a/b/c', exist_ok=True)\n"
        "    with tempfile.NamedTemporaryFile('w', delete=False) as fh:\n"
        "        fh.write('x')\n"
        "    os.remove(fh.name)\n"
        "    open('a/b/c/f', 'w').write('z')\n"
        "    os.remove('a/b/c/f')\n"
        "    os.rmdir('a/b/c')\n"
        "    with tempfile.TemporaryDirectory() as d:\n"
        "        open(os.path.join(d, 'f'), 'w').write('y')\n"
        "    return a + b\n"
        "def mul(a, b):\n"
        "    return a * b\n")
    path = tmp_path / "honest.py"
    path.write_text(source)
    report = _grade_mini(path)
    assert report.score == report.max_score, report.format_table()


# ------------------------------------------------------------------ issue 36: the next wall
def _ipc_objects(key: int) -> list[str]:
    """Lines of /proc/sysvipc/{shm,msg,sem} for System V objects of ``key``."""
    return [line for kind in ("shm", "msg", "sem")
            for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
            if int(line.split()[0]) == key]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="System V IPC as Linux shows it")
def test_no_ipc_object_outlives_a_grading_or_reaches_the_next(tmp_path):
    """Row 1: with the hook off, a grading that makes System V objects (and a keyring key) is
    refused, and a second grading finds nothing of the first's."""
    key = 0x52CB0000 + os.getpid() % 0x10000
    try:
        for mode in ("write", "read"):
            path = _variant(tmp_path, "h26_sysv_ipc_leak", KEY=key, MODE=mode)
            report = _grade_mini(path, audit=False)
            assert report.score == report.max_score, (mode, report.format_table())
        assert _ipc_objects(key) == [], "IPC objects outlived the grading"
    finally:  # the old grader's leftovers: never leave them to the next run
        for flag in ("-M", "-Q", "-S"):
            subprocess.run(["ipcrm", flag, hex(key)], capture_output=True)


@pytest.mark.skipif(not LINUX_ROOT, reason="the scratch tmpfs is mounted in the worker's own "
                                           "mount namespace (root)")
def test_a_disk_filling_submission_spoils_no_other_row(tmp_path):
    """Row 3: a worker's scratch folder is a tmpfs of its own with a quota: reserving 240 MiB
    in 60 MiB files is refused past it, and every row of the batch is graded."""
    from rkmlearn.grading.batch import grade_batch

    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(HOSTILE / "h28_fill_scratch.py", subs / "eve.py")
    for student in ("ada", "bo"):
        shutil.copy(MINI / "solution.py", subs / f"{student}.py")
    rows = {row.student: row for row in grade_batch(MINI, subs, tmp_path / "out", jobs=2,
                                                     timeout=20.0)}
    assert {student: row.status for student, row in rows.items()} == dict.fromkeys(
        ("ada", "bo", "eve"), "graded")
    scores = {student: row.report.score for student, row in rows.items()}
    assert scores == dict.fromkeys(("ada", "bo", "eve"), 5.0), scores  # eve: refused past it
    assert "tmpfs" in rows["eve"].report.sandbox.get("scratch", ""), rows["eve"].report.sandbox


def test_an_empty_reply_of_huge_dimensions_is_refused_before_the_test_sees_it():
    """Row 6: np.zeros((0, 6000, 6000)) is 0 bytes, but describes more than a reply may hold
    (a 6000 x 6000 float64 matrix, 288 MB): the judge refuses it, nothing is allocated."""
    report = _grade_mini(HOSTILE / "h31_empty_huge_reply.py")
    add_tests = [t for t in report.tests if "add" in t.name]
    assert add_tests and all("more than a reply may hold" in t.message for t in add_tests), \
        report.format_table()
    assert report.score == sum(t.max_score for t in report.tests if "mul" in t.name)


def test_a_runner_has_a_memory_limit_of_its_own(tmp_path):
    """Row 6: the tests compare in the runner, with values a worker sent; the runner's address
    space is limited too (not only the worker's)."""
    exercise = tmp_path / "mini"
    shutil.copytree(MINI, exercise)
    (exercise / "tests" / "public" / "test_runner_limit.py").write_text(
        "def test_limited(submission):\n"
        "    line = next(l for l in open('/proc/self/limits') if 'address space' in l)\n"
        "    assert line.split()[3] != 'unlimited', line\n")
    report = grade(exercise, MINI / "solution.py", jobs=1)
    assert report.score == report.max_score, report.format_table()


def _with_solution(tmp_path, name, **replace) -> Path:
    """A fixture built on Chapter 1's solution: its source prepended as SOLUTION_SOURCE."""
    path = _variant(tmp_path, name, **replace)
    path.write_text(f"SOLUTION_SOURCE = {(CH01 / 'solution.py').read_text()!r}\n"
                    + path.read_text())
    return path


def test_the_in_place_check_is_the_judges(tmp_path):
    """Row 4: a submission that changes its inputs and makes numpy's comparisons lie in its
    own process still fails the "does not modify its inputs" test: the judge compares the
    arguments it sent with the ones the worker sends back."""
    (tmp_path / "lying").mkdir()
    (tmp_path / "honest").mkdir()
    lying = grade(CH01, _with_solution(tmp_path / "lying", "h29_hide_in_place_changes"), jobs=2)
    honest = grade(CH01, _with_solution(tmp_path / "honest", "h29_hide_in_place_changes",
                                        LIE=False), jobs=2)
    assert lying.score <= honest.score < honest.max_score, (lying.format_table(),
                                                            honest.format_table())
    check = next(t for t in lying.tests if "does_not_modify" in t.name)
    assert not check.passed and "changed its input arrays" in check.message, check


def test_work_done_at_import_counts_as_cpu_time(tmp_path):
    """Row 5: the speed test reads the worker's CPU time over its whole life: a Gram matrix
    computed slowly at import and returned from a cache is still slow."""
    report = grade(CH01, _with_solution(tmp_path, "h30_import_time_work"), jobs=1,
                   include_hidden=False, timeout=120.0)
    speed = next(t for t in report.tests if "vectorised" in t.name)
    assert not speed.passed, report.format_table()
    assert report.score == report.max_score - speed.max_score, report.format_table()


@pytest.mark.skipif(not LINUX_ROOT, reason="the process limit holds for sandbox uids (root)")
def test_threads_of_one_worker_do_not_starve_another_runner():
    """Row 8: 125 threads at import no longer use up a process budget that another runner's
    sandbox shares (each runner has a sandbox uid of its own), and a line a worker prints in
    the form of the sandbox's own is not taken for one."""
    report = grade(MINI, HOSTILE / "h33_thread_flood.py", jobs=2)
    assert report.score == report.max_score, report.format_table()
    assert not any("forged" in t.message for t in report.tests), report.format_table()


def test_a_failing_sandbox_is_retried_then_reported_as_infrastructure(tmp_path):
    """Row 8: a sandbox that cannot start (here: a preload that does not exist) is tried
    again, then reported as an infrastructure error: exit status 3 and a results file that
    says so, never a score."""
    exercise = tmp_path / "mini"
    shutil.copytree(MINI, exercise)
    ini = exercise / "pytest.ini"
    ini.write_text(ini.read_text().replace("allowed_imports = numpy scipy",
                                           "allowed_imports = numpy scipy\n"
                                           "preload = numpy numpy.not_a_module"))
    out = tmp_path / "results.json"
    done = subprocess.run([sys.executable, "-m", "rkmlearn.grading", str(exercise),
                           str(MINI / "solution.py"), "--json", str(out), "--jobs", "1"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    data = json.loads(out.read_text())
    assert data["extra_data"].get("infrastructure_error") is True, data
    assert "infrastructure error" in data["output"] and "twice" in data["output"], data


def test_memory_outside_the_address_space_cap_is_refused():
    """Row 2: with the hook off, memfd pages (which are not address space) cannot hold more
    than the worker's memory limit: memfd_create is refused (as System V shared memory is)."""
    report = grade(MINI, HOSTILE / "h27_memfd_outside_cap.py", jobs=1, memory_mb=128,
                   _sandbox={"audit": False})
    assert report.score == report.max_score, report.format_table()


@pytest.mark.skipif(not hasattr(socket, "AF_VSOCK"), reason="no vsock in this Python")
def test_no_socket_family_but_the_wires(tmp_path):
    """Row 7: with the hook off, AF_VSOCK (bound and listened on locally, never connected),
    AF_NETLINK, AF_PACKET and AF_INET sockets are refused: only AF_UNIX, the wire's, is left."""
    port = 40000 + os.getpid() % 20000
    report = _grade_mini(_variant(tmp_path, "h32_vsock_listen", PORT=port), audit=False)
    assert report.score == report.max_score, report.format_table()
