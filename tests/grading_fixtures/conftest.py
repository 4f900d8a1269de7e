# The files under this folder are inputs for tests/test_grading.py (exercises and submissions
# that the grader runs in subprocesses), not tests of their own.
collect_ignore_glob = ["*"]
