"""Awkward inputs of the Part III classifiers (TensorMultiViewRKM, CommitteeRKM, SimulatedAnnealingSearch):
view_sizes, one array or a list of views, subset sizes, folds, random states. Each gives the right
result or an error that names the parameter; where a message gives advice, the test follows it."""

import re

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn import KPCA, TensorMultiViewRKM
from rkmlearn.datasets import load_digits_split, load_mfeat
from rkmlearn.features import IdentityFeatures
from rkmlearn.models.committee import CommitteeRKM
from rkmlearn.models.selection import SimulatedAnnealingSearch, cv_accuracy

X_MOONS, Y_MOONS = make_moons(60, noise=0.1, random_state=0)
_rng = np.random.default_rng(0)
XS = [X_MOONS[:, :1] + 0.1 * _rng.normal(size=(60, 2)), np.hstack([X_MOONS, X_MOONS[:, :1]]) + 0.1 * _rng.normal(size=(60, 3))]
SPACE = {"lam": (0.01, 1, "log")}


def test_view_sizes_that_do_not_describe_a_list_of_views_are_an_error():
    with pytest.raises(ValueError, match=r"view_sizes=\[4, 4\] does not describe Xs.*view_sizes=\[2, 3\]") as info:
        TensorMultiViewRKM("rbf", view_sizes=[4, 4]).fit(XS, Y_MOONS)
    advised = [int(d) for d in re.search(r"Pass view_sizes=\[(\d+), (\d+)\]", str(info.value)).groups()]
    model = TensorMultiViewRKM("rbf", view_sizes=advised).fit(XS, Y_MOONS)
    reference = TensorMultiViewRKM("rbf").fit(XS, Y_MOONS)
    assert np.array_equal(model.dual_coef_, reference.dual_coef_)


def test_view_sizes_split_a_list_holding_one_concatenated_array():
    model = TensorMultiViewRKM("rbf", view_sizes=[2, 3]).fit([np.hstack(XS)], Y_MOONS)
    reference = TensorMultiViewRKM("rbf").fit(XS, Y_MOONS)
    assert model.n_views_ == 2 and model.n_features_in_ == [2, 3]
    assert np.array_equal(model.dual_coef_, reference.dual_coef_)
    assert np.array_equal(model.decision_function([np.hstack(XS)]), reference.decision_function(XS))


def test_annealing_passes_one_array_on_to_a_view_sizes_estimator():
    X = np.hstack(XS)
    search = SimulatedAnnealingSearch(TensorMultiViewRKM("rbf", view_sizes=[2, 3]), SPACE, n_iter=1, cv=3,
                                      random_state=0).fit(X, Y_MOONS)
    assert search.best_estimator_.n_views_ == 2  # rho couples two views, not one
    assert search.score(X, Y_MOONS) == search.best_estimator_.score(X, Y_MOONS)
    scores = cross_val_score(search, X, Y_MOONS, cv=3)
    assert np.isfinite(scores).all() and scores.min() > 0.5
    # the same folds and candidates as the search on the list of views
    by_views = SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE, n_iter=1, cv=3, random_state=0).fit(XS, Y_MOONS)
    assert search.history_ == by_views.history_


def test_primal_weights_reject_a_negative_max_tensor_size():
    model = TensorMultiViewRKM(feature_maps=[IdentityFeatures(), IdentityFeatures()]).fit(XS, Y_MOONS)
    with pytest.raises(ValueError, match=r"max_tensor_size must be in \[0, inf\); got -5"):
        model.primal_weights(max_tensor_size=-5)
    w, W = model.primal_weights(max_tensor_size=0)  # 0: never form W, on purpose
    assert W is None and len(w) == 2
    assert model.primal_weights()[1].shape == (2, 3, 1)


def test_committee_subset_size_at_or_above_n_names_subset_size_and_its_advice_works():
    with pytest.raises(ValueError, match=r"subset_size=1000 is not below the 60 samples") as info:
        CommitteeRKM(TensorMultiViewRKM("rbf"), members=3).fit(XS, Y_MOONS)
    size = int(re.search(r"e\.g\. subset_size=(\d+)", str(info.value)).group(1))
    committee = CommitteeRKM(TensorMultiViewRKM("rbf"), members=3, subset_size=size, random_state=0).fit(XS, Y_MOONS)
    assert committee.score(XS, Y_MOONS) > 0.9


def test_committee_subsets_missing_a_class_name_subset_size():
    with pytest.raises(ValueError, match=r"subset_size=2: the random subset of member \d holds 1 of the 2") as info:
        CommitteeRKM(TensorMultiViewRKM("rbf"), members=3, subset_size=2, random_state=0).fit(XS, Y_MOONS)
    size = int(re.search(r"e\.g\. subset_size=(\d+)", str(info.value)).group(1))
    CommitteeRKM(TensorMultiViewRKM("rbf"), members=3, subset_size=size, random_state=0).fit(XS, Y_MOONS)


def test_committee_takes_one_array_with_view_sizes():
    X = np.hstack(XS)
    for members in ("views", 3):
        kw = dict(members=members, subset_size=40, random_state=0)
        by_list = CommitteeRKM(TensorMultiViewRKM("rbf"), **kw).fit(XS, Y_MOONS)
        by_array = CommitteeRKM(TensorMultiViewRKM("rbf"), view_sizes=[2, 3], **kw).fit(X, Y_MOONS)
        assert by_array.n_views_ == 2 and by_array.n_features_in_ == 5
        assert np.array_equal(by_array.weights_, by_list.weights_)
        assert np.array_equal(by_array.decision_function(X), by_list.decision_function(XS))
    scores = cross_val_score(CommitteeRKM(view_sizes=[2, 3]), X, Y_MOONS, cv=3)
    assert scores.min() > 0.8
    with pytest.raises(ValueError, match="X has 4 features, but CommitteeRKM is expecting 5"):
        by_array.predict(X[:, :4])


def test_committee_of_a_non_tensor_model_is_a_clear_error():
    with pytest.raises(ValueError, match=r"base must be a TensorMultiViewRKM.*got KPCA"):
        CommitteeRKM(KPCA(2)).fit(XS, Y_MOONS)


@parametrize_with_checks([CommitteeRKM()])
def test_committee_is_a_scikit_learn_estimator(estimator, check):
    # members="views" on one array: a committee of one RKM classifier. The random-subset committee
    # (members=M) is not checked here: scikit-learn's check data have 10 to 30 samples, fewer than
    # any subset_size that holds every class in every member.
    check(estimator)


def test_annealing_rejects_views_of_different_lengths():
    search = SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE, n_iter=1, cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"Xs\[1\] has 50 samples but Xs\[0\] has 60"):
        search.fit([XS[0], XS[1][:50]], Y_MOONS)
    with pytest.raises(ValueError, match=r"y has 59 labels but the data have 60 samples"):
        search.fit(XS, Y_MOONS[:59])


def test_annealing_cv_above_the_smallest_class_names_cv_and_its_advice_works():
    y = np.r_[np.zeros(56, int), np.ones(4, int)]
    with pytest.raises(ValueError, match=r"cv=5 folds, but class 1 of y has only 4 sample") as info:
        SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE, n_iter=1, cv=5).fit(XS, y)
    cv = int(re.search(r"pass cv <= (\d+)", str(info.value)).group(1))
    SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE, n_iter=1, cv=cv, random_state=0).fit(XS, y)
    with pytest.raises(ValueError, match=r"cv=40 folds"):
        cv_accuracy(TensorMultiViewRKM("rbf"), XS, Y_MOONS, cv=40)


def test_annealing_build_must_be_a_function_and_predict_needs_fit():
    with pytest.raises(ValueError, match=r"build must be a function.*got 'identity'"):
        SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE, build="identity", n_iter=1, cv=3).fit(XS, Y_MOONS)
    unfitted = SimulatedAnnealingSearch(TensorMultiViewRKM("rbf"), SPACE)
    with pytest.raises(NotFittedError):
        unfitted.predict(XS)
    with pytest.raises(NotFittedError):
        unfitted.score(XS, Y_MOONS)


def test_tensor_fit_blames_the_views_not_y():
    with pytest.raises(ValueError, match=r"^Xs\[0\] must be a 2-D array.*Xs\[0\]\.reshape\(-1, 1\)") as info:
        TensorMultiViewRKM("rbf").fit([XS[0][:, 0], XS[1][:, 0]], Y_MOONS)
    assert not str(info.value).startswith("y ")
    with pytest.raises(ValueError, match=r"^Xs is an empty list"):
        TensorMultiViewRKM("rbf").fit([], Y_MOONS)
    # the advice works
    TensorMultiViewRKM("rbf").fit([XS[0][:, 0].reshape(-1, 1), XS[1][:, 0].reshape(-1, 1)], Y_MOONS)


def test_a_numpy_generator_is_accepted_as_random_state():
    model = TensorMultiViewRKM("rbf")
    a = cv_accuracy(model, XS, Y_MOONS, cv=3, random_state=np.random.default_rng(4))
    assert a == cv_accuracy(model, XS, Y_MOONS, cv=3, random_state=np.random.default_rng(4))
    d1, d2 = (load_digits_split(200, n_test=100, random_state=np.random.default_rng(1)) for _ in range(2))
    assert np.array_equal(d1.X_train, d2.X_train) and np.array_equal(d1.y_test, d2.y_test)
    m1, m2 = (load_mfeat(random_state=np.random.default_rng(1)) for _ in range(2))
    assert np.array_equal(m1.train_index, m2.train_index)
    with pytest.raises(ValueError, match="random_state"):
        load_mfeat(random_state="seed")
