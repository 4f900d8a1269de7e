"""Hostile: make pytest report every test as passed.

Patches ``_pytest.reports.TestReport`` (and any grading plugin found in ``sys.modules``) so
that each phase reports "passed". Defeated when the tests run in a process that never imports
the submission: there is no pytest in the student's process to patch.
"""
import sys

try:
    import _pytest.reports as _reports

    _original = _reports.TestReport.from_item_and_call.__func__

    def _always_passed(cls, item, call):
        report = _original(cls, item, call)
        report.outcome, report.longrepr = "passed", None
        return report

    _reports.TestReport.from_item_and_call = classmethod(_always_passed)
    for _name, _module in list(sys.modules.items()):
        if "grading" in _name and hasattr(_module, "_describe"):
            _module._describe = lambda excinfo: ""
except BaseException:
    pass


def _not_done(*args, **kwargs):
    raise NotImplementedError


# Chapter 1's functions, and the mini exercise's of the self-check (tests/test_grading.py).
rbf_gram = center_train_test = kpca_eig = kpca_transform = add = mul = _not_done
