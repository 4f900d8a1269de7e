"""Hostile: leave processes running after the grader is killed (SIGKILL) mid-run.

``rbf_gram`` starts a daemon in a new session (when processes can be started at all) and then
loops forever, so that grading is still running when the test harness SIGKILLs the grader.
Both the loop and the daemon carry the marker ``rkmlearn-hostile-h14`` in their command line
or their environment, for the harness to look for afterwards. Defeated by the parent-death
chain (judge -> runner -> zygote -> worker) and the runner's sweep of every descendant (and, as
root, of every process of the sandbox uid) when the judge disappears.
"""
import subprocess
import sys


def rbf_gram(X, Y=None, sigma=1.0):
    try:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)  # rkmlearn-hostile-h14"],
                         start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except BaseException:
        pass
    while True:
        pass


center_train_test = kpca_eig = kpca_transform = rbf_gram
