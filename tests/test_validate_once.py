"""Validate once, at the door: a fit (and a predict / transform) checks each input array exactly once.

The one array checker, ``rkmlearn._validation.check_array``, is wrapped wherever the library bound it
and every call is recorded while one public method runs. Each array the user passed must be checked
exactly once, and nothing else may be checked (the cores trust what the door checked), except
the outputs of code the library does not own (a feature map's features) and array-valued
hyperparameters.
"""

import sys
import warnings

import numpy as np
import pytest

import rkmlearn
from rkmlearn import (KPCA, DeepRKMClassifier, MultiViewKPCA, NARForecaster, ProbabilisticKPCA, RecurrentRKM,
                      TensorMultiViewRKM)
from rkmlearn import _validation
from rkmlearn.features import RandomFourierFeatures
from rkmlearn.models import CommitteeRKM, MultiViewLSSVM, SimulatedAnnealingSearch

#: Checked arrays that are not the user's data: outputs of user code, array-valued hyperparameters.
NOT_DATA = ("feature_map.", "gamma")


@pytest.fixture
def checked(monkeypatch):
    """The list of ``(array, name)`` passed to the array checker, wherever the library calls it."""
    original, calls = _validation.check_array, []

    def counting(X, name="X", **options):
        calls.append((X, name))
        return original(X, name, **options)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("rkmlearn") and getattr(module, "check_array", None) is original:
            monkeypatch.setattr(module, "check_array", counting)
    return calls


def _same(a, b):
    try:
        a = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return a.shape == b.shape and np.array_equal(a, b)


def assert_checked_once(calls, inputs):
    """Each array of ``inputs`` checked exactly once, and no other data array checked."""
    counts = [sum(_same(X, A) for X, _ in calls) for A in inputs]
    others = [name for X, name in calls
              if not any(_same(X, A) for A in inputs) and not name.startswith(NOT_DATA)]
    assert counts == [1] * len(inputs) and not others, (
        f"checks per input array: {counts} (want 1 each); other arrays checked: {others}")


rng = np.random.default_rng(0)
X, X2, y = rng.normal(size=(40, 3)), rng.normal(size=(40, 2)), np.repeat([0, 1], 20)
Xt, Xt2 = rng.normal(size=(7, 3)), rng.normal(size=(7, 2))
SERIES = np.sin(0.3 * np.arange(60))


def _rff(seed):
    return RandomFourierFeatures(n_features=20, random_state=seed)


# (name, make the model, fit's inputs, the call after fit, its inputs)
CASES = [
    ("KPCA", lambda: KPCA(2), lambda m: m.fit(X), [X], lambda m: m.transform(Xt), [Xt]),
    ("KPCA primal", lambda: KPCA(2, setting="primal", feature_map=_rff(0)), lambda m: m.fit(X), [X],
     lambda m: m.transform(Xt), [Xt]),
    ("MultiViewKPCA dual", lambda: MultiViewKPCA(2), lambda m: m.fit([X, X2]), [X, X2],
     lambda m: m.transform([Xt, Xt2]), [Xt, Xt2]),
    ("MultiViewKPCA impute", lambda: MultiViewKPCA(2), lambda m: m.fit([X, X2]), [X, X2],
     lambda m: m.predict_view([Xt, None], 1), [Xt]),
    ("MultiViewKPCA primal", lambda: MultiViewKPCA(2, setting="primal", feature_maps=[_rff(0), _rff(1)]),
     lambda m: m.fit([X, X2]), [X, X2], lambda m: m.transform([Xt, Xt2]), [Xt, Xt2]),
    ("ProbabilisticKPCA", lambda: ProbabilisticKPCA(2), lambda m: m.fit(X), [X],
     lambda m: m.score_samples(Xt), [Xt]),
    ("TensorMultiViewRKM", lambda: TensorMultiViewRKM(), lambda m: m.fit([X, X2], y), [X, X2],
     lambda m: m.predict([Xt, Xt2]), [Xt, Xt2]),
    ("MultiViewLSSVM", lambda: MultiViewLSSVM(), lambda m: m.fit([X, X2], y), [X, X2],
     lambda m: m.predict([Xt, Xt2]), [Xt, Xt2]),
    ("CommitteeRKM", lambda: CommitteeRKM(), lambda m: m.fit([X, X2], y), [X, X2],
     lambda m: m.predict([Xt, Xt2]), [Xt, Xt2]),
    ("SimulatedAnnealingSearch", lambda: SimulatedAnnealingSearch(TensorMultiViewRKM(), {"lam": (0.1, 1.0)},
                                                                  n_iter=1, cv=2, random_state=0),
     lambda m: m.fit([X, X2], y), [X, X2], lambda m: m.predict([Xt, Xt2]), [Xt, Xt2]),
    ("DeepRKMClassifier", lambda: DeepRKMClassifier(n_components=(2,), max_iter=3), lambda m: m.fit(X, y), [X],
     lambda m: m.predict(Xt), [Xt]),
    ("RecurrentRKM", lambda: RecurrentRKM(2, p=2), lambda m: m.fit(SERIES), [SERIES],
     lambda m: m.forecast(3), []),
    ("NARForecaster", lambda: NARForecaster(MultiViewKPCA(2), lag=3), lambda m: m.fit(SERIES), [SERIES],
     lambda m: m.forecast(3, SERIES[:10]), [SERIES[:10]]),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_each_input_array_is_checked_once(case, checked):
    _, make, fit, fit_inputs, then, then_inputs = case
    model = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short runs: convergence warnings are expected
        fit(model)
        assert_checked_once(checked, fit_inputs)
        checked.clear()
        then(model)
    assert_checked_once(checked, then_inputs)


def test_a_public_function_called_by_the_user_still_checks(checked):
    """The checks are skipped only INSIDE a validated call: the same function called directly checks."""
    K = rkmlearn.kernels.RBF(1.0)(X)
    assert_checked_once(checked, [X])
    with pytest.raises(ValueError, match="^X contains NaN"):
        rkmlearn.kernels.RBF(1.0)(np.full((2, 2), np.nan))
    assert K.shape == (40, 40)


def test_messages_do_not_depend_on_scikit_learns_wording(monkeypatch):
    """check_array names the cause from the input itself: scikit-learn rewording its errors changes nothing."""
    from rkmlearn._validation import arrays as array_checks

    def reworded(X, **options):
        raise ValueError("input rejected")  # a future scikit-learn wording, unknown to us

    monkeypatch.setattr(array_checks, "_sk_check_array", reworded)
    cases = [(np.array([[1.0, np.nan]]), "^X contains NaN or infinite values"),
             (np.ones(3), r"^X must be a 2-D array of shape \(n_samples, n_features\)"),
             (np.ones((2, 2)) * 1j, "^X must be real-valued"),
             (np.ones((2, 2, 2)), "^X must be a 2-D array .* Flatten the trailing axes"),
             (np.ones((0, 2)), r"^X is empty"),
             ([[1.0, 2.0], [3.0]], "^X must be a rectangular array"),
             ([["a", "b"]], "^X must contain real numbers")]
    for X_bad, match in cases:
        with pytest.raises(ValueError, match=match):
            _validation.check_array(X_bad, "X")


def test_nested_calls_trust_their_inputs_only_inside_a_validated_call():
    """@validate: the rules run at the door; a validated function called inside another skips them."""
    seen = []

    @_validation.validate(X=_validation.array())
    def inner(X):
        seen.append(type(X))
        return X

    @_validation.validate(X=_validation.array())
    def outer(X):
        return inner([[1.0]])  # a list: inner trusts it (the library passes only what it checked)

    assert isinstance(inner([[1.0]]), np.ndarray)  # called from outside: checked and converted
    assert outer([[1.0]]) == [[1.0]] and seen[-1] is list
    assert not _validation.nested()


def test_generalized_eigenpairs_checks_a_and_b_once(checked):
    from rkmlearn.solvers.generalized import generalized_eigenpairs

    Z = rng.normal(size=(8, 8))
    A, B = Z + Z.T, Z @ Z.T + 8 * np.eye(8)
    generalized_eigenpairs(A, B, 2)
    assert_checked_once(checked, [A, B])


# -- user callbacks see the library's checks --------------------------------------------------------
def test_a_callable_kernel_calling_the_library_on_its_own_data_is_checked():
    """Inside a fit the library trusts what it built, but a user's kernel is not the library: its
    own (wrong) call gets the library's message, not a BLAS shape error."""
    def kernel(A, B):
        return rkmlearn.kernels.RBF()(A, B[:, :1])  # the user's bug: one column of B

    with pytest.raises(ValueError, match="Y has 1 features but X has 3"):
        KPCA(2, kernel=kernel).fit(X)


def test_a_users_feature_map_calling_the_library_is_checked():
    from sklearn.base import BaseEstimator, TransformerMixin

    class Bad(TransformerMixin, BaseEstimator):
        def fit(self, A, y=None):
            return self

        def transform(self, A):
            return rkmlearn.kernels.RBF()(A, np.full((2, 3), np.nan))  # the user's NaN landmarks

    with pytest.raises(ValueError, match="Y contains NaN"):
        KPCA(2, setting="primal", feature_map=Bad()).fit(X)


# -- a real boundary: declared rules, all before any work --------------------------------------------
def test_every_validate_declares_its_rules():
    """No ``@validate()`` without rules: an entry point says what it checks."""
    from pathlib import Path

    root = Path(rkmlearn.__file__).parent
    bare = [f"{path.relative_to(root)}:{i}" for path in sorted(root.rglob("*.py")) if "grading" not in path.parts
            for i, line in enumerate(path.read_text().splitlines(), 1) if line.strip().startswith("@validate()")]
    assert bare == []


def test_recurrent_preimage_parameters_are_checked_before_the_eigenproblem(monkeypatch):
    from rkmlearn.models.recurrent import forecaster

    def no_work(*args, **kwargs):
        raise AssertionError("the T x T eigenproblem ran before the checks")

    monkeypatch.setattr(forecaster, "solve_level", no_work)
    for bad, match in ((dict(preimage="krr", preimage_alpha=-1.0), "preimage_alpha"),
                       (dict(preimage="krr", preimage_sigma=0.0), "preimage_sigma"),
                       (dict(preimage_top_k=10_000), "preimage_top_k")):
        with pytest.raises(ValueError, match=match):
            RecurrentRKM(2, p=2, **bad).fit(SERIES)


def test_forecast_checks_steps_and_history_before_any_step(monkeypatch):
    model = NARForecaster(MultiViewKPCA(2), lag=5).fit(SERIES)
    monkeypatch.setattr(NARForecaster, "_step", lambda self, state: pytest.fail("a step ran"))
    with pytest.raises(ValueError, match="history must have at least lag"):
        model.forecast(3, history=SERIES[:3])
    with pytest.raises(ValueError, match="steps"):
        model.forecast(0)
