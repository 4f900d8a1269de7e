"""Column names of a DataFrame, scikit-learn's convention, in every estimator that takes one ``X``.

``fit(df)`` records ``feature_names_in_``; new data whose columns are other names or in another order
raise (before: ``feature_names_in_`` was never set and reordered columns were used silently); a plain
array after a fit on a DataFrame, or the reverse, warns, as scikit-learn's own estimators do.
"""

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from rkmlearn import KPCA, DeepRKMClassifier, MultiViewKPCA, ProbabilisticKPCA, TensorMultiViewRKM
from rkmlearn.features import IdentityFeatures, RandomFourierFeatures
from rkmlearn.models import CommitteeRKM, MultiViewLSSVM
from rkmlearn.models.generative import GenerativeRKM

pd = pytest.importorskip("pandas")

rng = np.random.default_rng(3)
X = rng.normal(size=(40, 3)) + np.repeat([[0.0, 0.0, 0.0], [2.0, 2.0, 0.0]], 20, axis=0)
y = np.repeat([0, 1], 20)
df = pd.DataFrame(X, columns=["a", "b", "c"])

# (estimator, the method that reads new data)
CASES = [
    (KPCA(2), "transform"),
    (ProbabilisticKPCA(2), "transform"),
    (ProbabilisticKPCA(2), "score_samples"),
    (DeepRKMClassifier((2,), max_iter=5), "predict"),
    (TensorMultiViewRKM("rbf"), "predict"),
    (TensorMultiViewRKM("rbf"), "decision_function"),
    (CommitteeRKM(TensorMultiViewRKM("rbf")), "predict"),
    (MultiViewLSSVM("rbf"), "predict"),
    (MultiViewKPCA(2, view_sizes=(2, 1)), "transform"),  # one array of two views
    (GenerativeRKM(2, view_sizes=(2, -1)), "transform"),
    (IdentityFeatures(), "transform"),
    (RandomFourierFeatures(8, random_state=0), "transform"),
]
IDS = [f"{type(e).__name__}.{m}" for e, m in CASES]


def _fit(estimator, data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. DeepRKMClassifier's 5 iterations do not converge
        return estimator.fit(data, y)


@pytest.mark.parametrize("estimator, method", CASES, ids=IDS)
def test_fit_records_the_columns_and_new_data_must_have_them(estimator, method):
    model = _fit(estimator, df)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    getattr(model, method)(df)  # the same columns: accepted, no warning
    with pytest.raises(ValueError, match="Feature names must be in the same order as they were in fit"):
        getattr(model, method)(df[["b", "a", "c"]])
    with pytest.raises(ValueError, match="Feature names unseen at fit time"):
        getattr(model, method)(df.rename(columns={"c": "z"}))
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        getattr(model, method)(X)


@pytest.mark.parametrize("estimator, method", CASES, ids=IDS)
def test_a_fit_on_an_array_keeps_no_names(estimator, method):
    model = _fit(estimator, df)
    model = _fit(model, X)  # refitted on an array: the names of the earlier fit are gone
    assert not hasattr(model, "feature_names_in_")
    with pytest.warns(UserWarning, match="X has feature names, but"):
        getattr(model, method)(df)


def test_kpca_transform_of_reordered_columns_raises_instead_of_answering():
    model = KPCA(2).fit(df)
    with pytest.raises(ValueError, match="feature names should match those that were passed during fit"):
        model.transform(df[["c", "b", "a"]])


def test_multiview_lssvm_passes_scikit_learns_estimator_checks():
    # n_features_in_ was never set: check_n_features_in_after_fitting failed
    model = MultiViewLSSVM().fit(X, y)
    assert model.n_features_in_ == 3
    assert MultiViewLSSVM().fit([X[:, :2], X[:, 2:]], y).n_features_in_ == [2, 1]
    check_estimator(MultiViewLSSVM())
