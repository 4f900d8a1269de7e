"""Multi-view kernel PCA given its views as ONE array (``view_sizes``, scikit-learn's form): the same
model and the same imputations as the list of views, the target's columns not read, one column
check at the door, DataFrame names, and scikit-learn's estimator checks."""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from rkmlearn import MultiViewKPCA
from rkmlearn.features import IdentityFeatures
from rkmlearn.kernels import RBF

pd = pytest.importorskip("pandas")


def _views(n=120, seed=1):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 2))
    return [np.tanh(z @ rng.normal(size=(2, 4))), z @ rng.normal(size=(2, 3)) + 0.1 * rng.normal(size=(n, 3))]


@pytest.mark.parametrize("options", [
    {"kernels": [RBF(sigma=1.5), RBF(sigma=2.0)]},
    {"setting": "primal", "feature_maps": [IdentityFeatures(), IdentityFeatures()]},
    {"solver": "stiefel", "random_state": 0},
], ids=["dual-rbf", "primal", "stiefel"])
def test_one_array_is_the_list_of_views(options):
    Xs = _views()
    X = np.hstack(Xs)
    by_list = MultiViewKPCA(2, **options).fit(Xs)
    by_array = MultiViewKPCA(2, view_sizes=[4, 3], **options).fit(X)
    assert (by_array.n_features_in_, by_list.n_features_in_) == (7, [4, 3])
    np.testing.assert_allclose(by_array.H_, by_list.H_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(by_array.fit_transform(X), by_list.H_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(by_array.transform(X[:9]), by_list.transform([V[:9] for V in Xs]), rtol=0, atol=1e-12)
    missing = X[:9].copy()
    missing[:, 4:] = np.nan  # view 1 unknown: its columns are not read
    np.testing.assert_allclose(by_array.predict_view(missing, 1), by_list.predict_view([Xs[0][:9], None], 1),
                               rtol=0, atol=1e-12)


def test_a_list_of_rows_is_one_array():
    X = np.hstack(_views())
    rows = MultiViewKPCA(2, view_sizes=(4, -1)).fit(X.tolist())
    np.testing.assert_array_equal(rows.H_, MultiViewKPCA(2, view_sizes=(4, -1)).fit(X).H_)
    assert rows.n_views_ == 2 and MultiViewKPCA(2).fit(X.tolist()).n_views_ == 1  # view_sizes=None: one view


def test_given_views_are_checked_once_at_the_door():
    X = np.hstack(_views())
    model = MultiViewKPCA(2, view_sizes=(4, -1)).fit(X)
    with pytest.raises(ValueError, match="X has 6 features, but MultiViewKPCA is expecting 7"):
        model.predict_view(X[:3, :6], 1)
    bad = X[:3].copy()
    bad[1, 2] = np.inf  # in view 0, the given one
    with pytest.raises(ValueError, match=r"X \(view 0\) contains NaN or infinite"):
        model.predict_view(bad, 1)
    with pytest.raises(ValueError, match=r"^X contains NaN"):
        model.transform(bad)  # every view is read


def test_a_dataframe_names_the_columns_and_a_refit_on_a_list_forgets_them():
    Xs = _views()
    df = pd.DataFrame(np.hstack(Xs), columns=list("abcdefg"))
    model = MultiViewKPCA(2, view_sizes=(4, -1)).fit(df)
    np.testing.assert_array_equal(model.feature_names_in_, list("abcdefg"))
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        model.transform(df[list("gfedcba")])
    model.set_params(view_sizes=None).fit(Xs)
    assert not hasattr(model, "feature_names_in_")


# view_sizes with -1: two views of any X of 2 or more columns (scikit-learn's checks use several widths)
@parametrize_with_checks(
    [MultiViewKPCA(view_sizes=(1, -1)), MultiViewKPCA(view_sizes=(-1, 1), solver="stiefel", random_state=0)],
    expected_failed_checks=lambda estimator: {"check_transformer_n_iter": "n_iter_ is None for solver='eig'"}
    if estimator.solver == "eig" else {},
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
