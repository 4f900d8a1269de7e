"""Hostile: find the reference solution on disk and run it as one's own.

Searches ``--rootdir`` in ``sys.argv``, the folders above the submission and the working
directory, and the command lines and working directories of its ancestors, for
``solution.py``; execs the first one that defines ``rbf_gram``. Defeated when grading uses a
folder without the solution and the student's process cannot read outside its scratch folder.
"""
import os
import sys


def _candidates():
    argv = list(sys.argv)
    for i, arg in enumerate(argv):
        if arg == "--rootdir" and i + 1 < len(argv):
            yield argv[i + 1]
        if arg.startswith("--rootdir="):
            yield arg.split("=", 1)[1]
    folder = os.path.dirname(os.path.abspath(__file__))
    for _ in range(6):
        yield folder
        folder = os.path.dirname(folder)
    yield os.getcwd()
    pid = os.getppid()
    for _ in range(6):
        try:
            yield from open(f"/proc/{pid}/cmdline").read().split("\0")
            yield os.readlink(f"/proc/{pid}/cwd")
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except Exception:
            return


def _find(needle):
    for base in _candidates():
        for path in (os.path.join(base, "solution.py"),
                     os.path.join(base, "exercises", "ch01_kernels", "solution.py")):
            try:
                source = open(path).read()
            except Exception:
                continue
            if needle in source:
                return source
    return None


_source = _find("def rbf_gram")
if _source:
    exec(compile(_source, "solution.py", "exec"), globals())
else:
    def rbf_gram(*args, **kwargs):
        raise NotImplementedError

    center_train_test = kpca_eig = kpca_transform = rbf_gram


# The same attempt against the mini exercise of the self-check (tests/test_grading.py).
add = mul = rbf_gram
