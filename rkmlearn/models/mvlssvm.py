r"""Pairwise multi-view LS-SVM classification (MV-LSSVM), the baseline of Part III (Chapter 8).

The paper's eq. (4) (Houthuys et al., 2018): one LS-SVM per view ``v`` with its own weights
``w_v``, bias ``b_v`` and errors ``e_v``, coupled pairwise by ``rho sum_{v != u} e_v^T e_u``.
Eliminating ``w_v`` and ``e_v`` (:eq:`eq-tensor-mvlssvm-system`) leaves, per output, a bordered
system of size ``(N + 1) V`` whose matrix does not depend on the output: factored once.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import (check_class_labels, check_option, check_scalar_range,
                           checked_by, validate)
from ..base import estimator_init
from ..solvers.linear import BorderedSolver
from .coding import CODINGS, decode_outputs, encode_labels, output_codebook
from .tensor import TensorMultiViewRKM, parse_views, tensor_views

__all__ = ["MultiViewLSSVM"]


class MultiViewLSSVM(ClassifierMixin, BaseEstimator):
    r"""Pairwise multi-view LS-SVM classifier (MV-LSSVM, the paper's eq. 4; Chapter 8).

    Primal, per output: minimise ``1/2 sum_v w_v^T w_v + 1/2 sum_v gamma_v e_v^T e_v
    + rho sum_{v != u} e_v^T e_u`` subject to ``Z_v^T w_v + y b_v = 1 - e_v``, i.e.
    ``1/2 e^T (G kron I) e`` with ``G_vv = gamma_v`` and ``G_vu = 2 rho`` (ordered pairs). With
    ``beta_v = y (.) alpha_v`` (``alpha_v`` the multipliers) the conditions give
    (:eq:`eq-tensor-mvlssvm-system`)

    ``[[blockdiag(K_v) + G^{-1} kron I_N, I_V kron 1_N], [I_V kron 1_N^T, 0]] [beta; b] = [1_V kron y; 0]``,

    the same matrix for every output of the code. Decision: the mean over the views,
    ``f(x) = (1/V) sum_v (sum_k beta_{v,k} K_v(x, x_k) + b_v)``. One view: the LS-SVM with
    ``gamma`` (``TensorMultiViewRKM`` with ``lam = 1/gamma``).

    Parameters
    ----------
    kernels : list, str, Kernel or None, default=None
        As in :class:`~rkmlearn.TensorMultiViewRKM` (one per view, or one for all).
    gamma : float or list of float, default=1.0
        ``gamma_v > 0``, one for all views or one per view.
    rho : float, default=0.0
        Pairwise coupling ``>= 0``; ``G`` must be positive definite (for equal ``gamma``:
        ``rho < gamma / 2``).
    coding : {"ova", "moc"}, default="ova"
    view_sizes : list of int or None, default=None
        As in :class:`~rkmlearn.TensorMultiViewRKM`.

    Attributes
    ----------
    classes_, codebook_ : as in :class:`~rkmlearn.TensorMultiViewRKM`
    dual_coef_ : ndarray of shape (V, N, m)
        ``beta_v`` per view and output.
    intercept_ : ndarray of shape (V, m)
        ``b_v`` per view and output.
    views_ : list of View
    n_views_ : int
    n_features_in_ : list of int or int
        Columns per view; an int (all columns) when ``fit`` was given one array.
    feature_names_in_ : ndarray of str
        The columns of ``Xs`` when ``fit`` was given one DataFrame (scikit-learn's convention).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> Xs = [y[:, None] + 0.3 * rng.normal(size=(40, 2)), -y[:, None] + 0.3 * rng.normal(size=(40, 3))]
    >>> MultiViewLSSVM("rbf", gamma=10.0, rho=1.0).fit(Xs, y).score(Xs, y)
    1.0
    """

    __init__ = estimator_init({"kernels": None}, {"gamma": 1.0, "rho": 0.0, "coding": "ova", "view_sizes": None})

    def _checked_form(self, Xs):
        """The rule of :meth:`fit`: ``Xs`` checked and parsed into its views, once (:func:`~rkmlearn.models.tensor.parse_views`)."""
        return parse_views(Xs, self.view_sizes)

    def _coupling(self, n_views):
        """``G^{-1}``: ``G_vv = gamma_v``, ``G_vu = 2 rho``, checked positive definite."""
        given = self.gamma if isinstance(self.gamma, (list, tuple, np.ndarray)) else [self.gamma]
        if np.ndim(given) != 1 or len(given) not in (1, n_views):
            raise ValueError(f"gamma must be a positive number or {n_views} positive numbers (one per view); "
                             f"got {self.gamma!r}.")
        # each entry a real number > 0: strings ("1"), booleans and None are rejected as for rho
        gamma = np.array([check_scalar_range(g, "gamma", low=0.0) for g in given])
        rho = check_scalar_range(self.rho, "rho", low=0.0, low_inclusive=True)
        G = np.full((n_views, n_views), 2.0 * rho)
        G[np.diag_indices(n_views)] = np.broadcast_to(gamma, (n_views,))
        if np.linalg.eigvalsh(G).min() <= 0:
            raise ValueError(f"the error coupling G (gamma on the diagonal, 2 rho off it) is not positive definite "
                             f"for rho={rho:g}, gamma={self.gamma!r}: decrease rho (below gamma / 2 for equal gamma).")
        return np.linalg.inv(G)

    @validate(Xs=checked_by("_checked_form"))
    def fit(self, Xs, y):
        """Solve :eq:`eq-tensor-mvlssvm-system` for every output with one factorisation.

        Parameters
        ----------
        Xs : list of array-like, each of shape (N, d_v), or one array
        y : array-like of shape (N,)

        Returns
        -------
        self
        """
        check_option(self.coding, "coding", CODINGS)
        Xs, single = parse_views(Xs, self.view_sizes, check=False)  # parsed by the rule: returned as is
        n, V = Xs[0].shape[0], len(Xs)
        Ginv = self._coupling(V)
        self.classes_, y_index = check_class_labels(y, n, type(self).__name__, samples_name="Xs")
        self.codebook_ = output_codebook(len(self.classes_), self.coding)
        Y = encode_labels(y_index, self.codebook_)
        self.views_ = [view.fit(X, name=f"Xs[{v}]", centre=False) for v, (view, X) in enumerate(zip(tensor_views(self.kernels, None, V), Xs))]
        self.n_views_ = V
        # as TensorMultiViewRKM: one array given, scikit-learn's int; a list of views, one int per view
        self.n_features_in_ = sum(X.shape[1] for X in Xs) if single else [X.shape[1] for X in Xs]
        M = np.kron(Ginv, np.eye(n))  # e = (G^{-1} kron I) (y (.) alpha)
        for v, view in enumerate(self.views_):
            M[v * n:(v + 1) * n, v * n:(v + 1) * n] += view.gram()
        border = np.kron(np.eye(V), np.ones((n, 1)))  # one bias per view
        solver = BorderedSolver(M, border, name="blockdiag(K_v) + G^-1 kron I")
        beta, b = solver.solve(np.tile(Y, (V, 1)))
        self.dual_coef_ = beta.reshape(V, n, -1)
        self.intercept_ = b
        return self

    #: The rule of the inference methods, TensorMultiViewRKM's: a fitted model, one view per training
    #: view, their columns (one array: scikit-learn's "X has 1 features, but ... is expecting 4").
    _check_views_in = TensorMultiViewRKM._check_views_in

    def _outputs(self, Xs):
        """Mean of the views' outputs (n, m) of validated views."""
        Xs = parse_views(Xs, self.view_sizes, check=False).views
        F = sum(view.kernel_rows(X) @ self.dual_coef_[v] for v, (view, X) in enumerate(zip(self.views_, Xs)))
        return (F + self.intercept_.sum(axis=0)) / self.n_views_

    @validate(Xs=checked_by("_check_views_in"))
    def decision_function(self, Xs):
        """Mean of the views' outputs: (n,) for two classes, else (n, m)."""
        F = self._outputs(Xs)
        return F[:, 0] if F.shape[1] == 1 else F

    @validate(Xs=checked_by("_check_views_in"))
    def predict(self, Xs):
        """Nearest codeword to the outputs."""
        return self.classes_[decode_outputs(self._outputs(Xs), self.codebook_)]
