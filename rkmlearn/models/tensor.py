r"""Tensor-based multi-view RKM classifiers (Part III, Chapter 8): :class:`TensorMultiViewRKM`.

One estimator covers the paper's four classifiers: the RKM classifier (one view,
:eq:`eq-tensor-rkm-system`), MV-RKM (``rho = 0``, summed kernels, :eq:`eq-tensor-mv-system`),
TMV-RKM (``rho = 1``, Hadamard product of kernels = the model tensor, :eq:`eq-tensor-tmv-system`)
and rho-TMV-RKM in between (:eq:`eq-tensor-rho-system`). The views are
:class:`~rkmlearn.views.View` objects (uncentred Gram matrices: the bias row takes care of the
offset); the bordered system is factored ONCE by
:class:`~rkmlearn.solvers.linear.BorderedSolver` and solved for all ``m`` outputs of the output
code (:mod:`rkmlearn.models.coding`) together.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .. import _blas
from .._symmetric import finish_upper_tiles
from .._validation import (check_array, check_bool, check_class_labels, check_n_features, check_option,
                           check_scalar_range, check_views, checked_by, primal_needs_features, validate)
from ..base import estimator_init
from ..solvers.linear import BorderedSolver, SymmetricSolver
from .latent import make_views
from .coding import CODINGS, decode_outputs, encode_labels, output_codebook

__all__ = ["TensorMultiViewRKM", "coupled_kernel", "DECISIONS", "ParsedViews", "parse_views", "tensor_views"]

#: The decision rules: eq. (15) ``"add"`` (the training kernel) and eq. (17) ``"mean"`` (beta = 1/V).
DECISIONS = ("add", "mean")


def coupled_kernel(kernels, rho, *, overwrite=False):
    r"""The rho-coupled kernel ``(1 - rho) sum_v K_v + rho prod_v K_v`` (element-wise product).

    The kernel matrix of :eq:`eq-tensor-rho-system` (before ``1/eta``): ``rho = 0`` is MV-RKM's sum
    (:eq:`eq-tensor-mv-system`), ``rho = 1`` TMV-RKM's Hadamard product (:eq:`eq-tensor-tmv-system`),
    the Gram matrix of the model tensor's features ``phi_1 (x) ... (x) phi_V``. Also the test kernel
    of the ``"add"`` decision rule :eq:`eq-tensor-decision-add` (rectangular ``K_v``).

    Parameters
    ----------
    kernels : iterable of ndarray, each of shape (n, p)
        One kernel matrix per view (training Gram matrices or test rows). A generator is consumed
        one matrix at a time: ``fit`` streams the views' Gram matrices through it, so only the
        running sum and product are held, not all ``V`` matrices.
    rho : float in [0, 1]
    overwrite : bool, default=False
        The matrices are the caller's own, fresh arrays (``fit``'s Gram matrices): the first one
        becomes the running product (or sum) in place, so that a fit holds 3 ``n x n`` arrays
        (sum, product, the view being added) instead of 5; the same bits either way.

    Returns
    -------
    K : ndarray of shape (n, p)

    Examples
    --------
    >>> K1, K2 = np.array([[1.0, 2.0]]), np.array([[3.0, 4.0]])
    >>> coupled_kernel([K1, K2], 0.0), coupled_kernel([K1, K2], 1.0), coupled_kernel([K1, K2], 0.5)
    (array([[4., 6.]]), array([[3., 8.]]), array([[3.5, 7. ]]))
    """
    rho = check_scalar_range(rho, "rho", low=0.0, high=1.0, low_inclusive=True)
    kernels = iter(kernels)
    first = next(kernels, None)
    if first is None:
        raise ValueError("kernels must hold at least one kernel matrix (one per view).")
    first = np.asarray(first, dtype=np.float64)
    # only the terms rho keeps: rho = 0 is exactly MV-RKM's sum, rho = 1 exactly TMV-RKM's product
    # (0 * prod, or 0 * sum, could still be nan/inf)
    total = product = first
    for K in kernels:  # binary ops first, in place after: the caller's arrays are never written
        if rho < 1.0:
            in_place = total is not first or (overwrite and rho == 0.0)  # with rho > 0, first becomes the product
            total = np.add(total, K, out=total) if in_place else total + K
        if rho > 0.0:
            in_place = product is not first or overwrite
            product = np.multiply(product, K, out=product) if in_place else product * K
        del K  # a streamed Gram matrix is freed before the next one is made
    if rho == 0.0:
        return total.copy() if total is first and not overwrite else total
    if rho == 1.0:
        return product.copy() if product is first and not overwrite else product
    if total is product:  # one view: both are the first matrix
        overwrite = False
    total = np.multiply(total, 1.0 - rho, out=total) if total is not first or overwrite else total * (1.0 - rho)
    if product is not first or overwrite:
        total += np.multiply(product, rho, out=product)  # rho * product, in place: the same bits
    else:
        total += rho * product
    return total


#: Edge of the tiles in which :func:`_coupled_system` builds the training system: the views'
#: ``_TILE x _TILE`` kernel blocks, their running sum and product (128 kB each) stay in a core's L2
#: cache while they are combined. Measured (3 RBF views, one thread): the system at n = 1600 / 4000
#: in 22 / 144 ms with 128, 25 / 147 ms with 256, 27 / 187 ms with 64, and 40 / 210 ms with the
#: former full-width strips of 128 rows.
_TILE = 128


#: Tiles of the decision values' test kernel (:meth:`TensorMultiViewRKM._outputs`): test rows x
#: training columns (256 kB per view's block). Measured (n = 8000, 2000 test rows, 3 RBF views):
#: 0.15 s for 128 x 256, 0.16-0.20 s for 64-256 rows x 128-1024 columns, 0.39 s for the former
#: whole m x n matrix per view (three 128 MB arrays at n = 8000, out of cache).
_PREDICT_ROWS, _PREDICT_COLS = 128, 256


def _coupled_system(views, rho, eta, lam):
    """``K_rho / eta + lam I`` of :eq:`eq-tensor-rho-system`, built tile by tile into ONE n x n array.

    The upper triangle is built a ``_TILE x _TILE`` tile at a time: each view's kernel block
    (:meth:`View.kernel_blocks <rkmlearn.views.View.kernel_blocks>`, never a per-view ``n x n`` Gram
    matrix) is combined by :func:`coupled_kernel` and mirrored into the lower triangle, so the
    result is exactly symmetric and the fit holds one ``n x n`` array (then factored in place).
    """
    blocks = [view.kernel_blocks() for view in views]
    n = views[0].X_.shape[0]

    def finish(tile, rows, cols):
        K = coupled_kernel((block(rows, cols) for block in blocks), rho, overwrite=True)
        np.divide(K, eta, out=tile)

    M = finish_upper_tiles(np.empty((n, n)), finish, tile=_TILE)
    M[np.diag_indices(n)] += lam
    return M


def _is_2d_list(X):
    """A view given as nested lists (rows of numbers), not a row of numbers of one X."""
    try:
        return isinstance(X, (list, tuple)) and np.ndim(X) == 2
    except ValueError:  # ragged: let check_views report it
        return True


class ParsedViews(NamedTuple):
    """Views parsed once, by the rule of a public method (:func:`parse_views`): the list of 2-D
    arrays and whether ONE array was given (scikit-learn's form; ``n_features_in_`` is then an int)."""

    views: list
    single: bool


def _check_view_sizes(sizes):
    """``view_sizes`` checked: None, or a list of positive ints."""
    if sizes is None:
        return None
    if not isinstance(sizes, (list, tuple)) or not sizes or any(
            isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in sizes):
        raise ValueError(f"view_sizes must be a list of positive integers (columns per view) or None; got {sizes!r}.")
    return [int(d) for d in sizes]


def parse_views(Xs, view_sizes=None, name="Xs", *, check=True):
    """The views of the Part III classifiers' input, as :class:`ParsedViews` (the one parser of their ``Xs``).

    A list / tuple of arrays (objects with a ``shape``) or of nested lists of rows is the views
    (each must be 2-D: a 1-D view is reported as such, not read as the rows of one X). Anything
    else is one 2-D array: one view (the RKM classifier), or, with ``view_sizes``, its column blocks
    (what scikit-learn's CV tools pass around); a list holding that one array is split the same
    way. ``view_sizes`` never goes unused: views whose widths it does not describe are an error.
    ``check=False``: the arrays were checked already (a nested call); a :class:`ParsedViews`
    (parsed by the rule of the public method) is returned as it is.
    """
    if isinstance(Xs, ParsedViews):
        return Xs
    sizes = _check_view_sizes(view_sizes)
    if isinstance(Xs, (list, tuple)) and len(Xs) == 0:
        raise ValueError(f"{name} is an empty list; pass a list of 2-D arrays, one per view (or one 2-D array).")
    if isinstance(Xs, (list, tuple)) and all(hasattr(X, "shape") or _is_2d_list(X) for X in Xs):
        views = check_views(Xs, name) if check else list(Xs)
        widths = [X.shape[1] for X in views]
        if sizes is None or widths == sizes:
            return ParsedViews(views, False)
        if len(views) == 1 and sum(sizes) == widths[0]:  # [np.hstack(Xs)]: split like np.hstack(Xs)
            return ParsedViews(np.split(views[0], np.cumsum(sizes)[:-1], axis=1), False)
        raise ValueError(
            f"view_sizes={sizes} does not describe {name}: its {len(views)} view(s) have {widths} columns. "
            f"Pass view_sizes={widths} (or None) with a list of views, or one array np.hstack({name}) "
            f"with view_sizes giving its column blocks."
        )
    X = check_array(Xs, "X") if check else Xs
    if sizes is None:
        return ParsedViews([X], True)
    if sum(sizes) != X.shape[1]:
        raise ValueError(
            f"view_sizes sum to {sum(sizes)} columns but X has {X.shape[1]}; give the number of columns of "
            "each view, in order, e.g. view_sizes=[76, 216, 64, 240, 47, 6] for np.hstack(mfeat views)."
        )
    return ParsedViews(np.split(X, np.cumsum(sizes)[:-1], axis=1), True)


def tensor_views(kernels, feature_maps, n_views):
    """One unfitted View per view (a single str / Kernel serves every view); the per-view checks are
    :func:`~rkmlearn.models.latent.make_views`'s."""
    if kernels is not None and not isinstance(kernels, (list, tuple)):
        kernels = [kernels] * n_views  # one kernel for every view
    return make_views(kernels, feature_maps, n_views)


class TensorMultiViewRKM(ClassifierMixin, BaseEstimator):
    r"""rho-Tensor multi-view RKM classifier (rho-TMV-RKM), with MV-RKM and TMV-RKM as its ends.

    Views ``v = 1..V`` of the same ``N`` samples share the hidden features ``h`` (one per sample
    and output). Objective :eq:`eq-tensor-rho-objective` couples per-view weights ``w_v`` (late
    fusion, weight ``1 - rho``) and a model tensor ``W`` on the outer product of the view features
    (early fusion, weight ``rho``). Eliminating the weights gives, per output ``l``, the bordered
    system :eq:`eq-tensor-rho-system`

    ``[[K_rho / eta + lam I, tau 1], [1^T, 0]] [y (.) h; b] = [tau y; 0]``,
    ``K_rho = (1 - rho) sum_v Omega_v + rho prod_v Omega_v``, ``tau = (1 - rho) V + rho``,

    whose matrix is shared by all outputs: it is factored once and solved for the ``m`` columns of
    the coded targets together. ``rho = 0`` is MV-RKM (:eq:`eq-tensor-mv-system`), ``rho = 1``
    TMV-RKM (:eq:`eq-tensor-tmv-system`), one view the RKM classifier (:eq:`eq-tensor-rkm-system`;
    an LS-SVM with ``gamma = 1/lam`` when ``eta = 1``).

    Parameters
    ----------
    kernels : list, str, Kernel or None, default=None
        One kernel per view (str, :class:`~rkmlearn.kernels.Kernel` or callable, ``None`` entries:
        linear); a single str / Kernel is used in every view; ``None``: linear in every view.
    rho : float in [0, 1], default=0.5
        Tensor coupling: 0 = MV-RKM (late fusion), 1 = TMV-RKM (early fusion).
    lam : float > 0, default=1.0
        ``lambda``, the weight of ``-lambda/2 sum h^2``.
    eta : float > 0, default=1.0
        ``eta``, the weight of the regularisation of ``w_v`` and ``W``.
    decision : {"add", "mean"}, default="add"
        ``"add"``: :eq:`eq-tensor-decision-add` (the coupled kernel); ``"mean"``:
        :eq:`eq-tensor-decision-mean` (the mean of the per-view terms, ``beta_v = 1/V``).
    coding : {"ova", "moc"}, default="ova"
        Output code of more than two classes, :eq:`eq-tensor-codes`
        (:func:`~rkmlearn.models.coding.output_codebook`).
    feature_maps : list or None, default=None
        Explicit feature maps per view (``None`` entries for kernel views); needed by
        :meth:`primal_weights` and :meth:`primal_decision_function`.
    fit_intercept : bool, default=True
        ``False``: no bias, ``b = 0`` (the paper's baseline BSV_{b=0}); the condition
        ``sum_k y_k h_k = 0`` of ``b`` goes with it and ``(K_rho / eta + lam I) (y (.) h) = tau y``
        is solved without the border.
    view_sizes : list of int or None, default=None
        Columns per view when the views come as ONE array ``np.hstack(Xs)`` (e.g. from
        scikit-learn's ``cross_val_score`` or ``GridSearchCV``, which index a single ``X``); ``None``:
        one array is one view.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    codebook_ : ndarray of shape (n_classes, m)
        The codewords (``+-1``) of the classes.
    dual_coef_ : ndarray of shape (N, m)
        ``y (.) h`` per output (the ``alpha`` of the dual classifier).
    h_ : ndarray of shape (N, m)
        Hidden features ``h`` (``= y (.) dual_coef_``).
    intercept_ : ndarray of shape (m,)
        Biases ``b``.
    tau_ : float
        ``(1 - rho) V + rho``.
    views_ : list of View
    n_views_ : int
    n_features_in_ : list of int or int
        Columns per view; an int (all columns) when ``fit`` was given one array.

    Examples
    --------
    >>> import numpy as np
    >>> from rkmlearn import TensorMultiViewRKM
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 20)
    >>> Xs = [y[:, None] + 0.3 * rng.normal(size=(60, 2)), -y[:, None] + 0.3 * rng.normal(size=(60, 3))]
    >>> model = TensorMultiViewRKM(kernels="rbf", rho=0.5, lam=0.1).fit(Xs, y)
    >>> model.classes_, model.decision_function(Xs).shape, model.score(Xs, y)
    (array([0, 1, 2]), (60, 3), 1.0)
    """

    __init__ = estimator_init(
        {"kernels": None},
        {"rho": 0.5, "lam": 1.0, "eta": 1.0, "decision": "add", "coding": "ova", "feature_maps": None,
         "view_sizes": None, "fit_intercept": True},
    )

    # -- parameters and input ----------------------------------------------------------------
    def _check_params(self):
        check_scalar_range(self.rho, "rho", low=0.0, high=1.0, low_inclusive=True)
        check_scalar_range(self.lam, "lam", low=0.0)
        check_scalar_range(self.eta, "eta", low=0.0)
        check_option(self.decision, "decision", DECISIONS)
        check_option(self.coding, "coding", CODINGS)
        check_bool(self.fit_intercept, "fit_intercept")

    def _checked_form(self, Xs):
        """The rule of :meth:`fit`: ``Xs`` checked and parsed into its views, once (:func:`parse_views`)."""
        return parse_views(Xs, self.view_sizes)

    # -- fit -----------------------------------------------------------------------------------
    @validate(Xs=checked_by("_checked_form"))
    def fit(self, Xs, y):
        """Solve :eq:`eq-tensor-rho-system` for every output of the code, with one factorisation.

        Parameters
        ----------
        Xs : list of array-like, each of shape (N, d_v), or one array (one view)
        y : array-like of shape (N,)
            Class labels (at least two classes).

        Returns
        -------
        self : TensorMultiViewRKM
        """
        self._check_params()
        Xs, single = parse_views(Xs, self.view_sizes, check=False)  # parsed by the rule already: returned as is
        n = Xs[0].shape[0]
        self.classes_, y_index = check_class_labels(y, n, type(self).__name__, samples_name="Xs")
        self.codebook_ = output_codebook(len(self.classes_), self.coding)
        Y = encode_labels(y_index, self.codebook_)
        self.views_ = [view.fit(X, name=f"Xs[{v}]", centre=False)  # uncentred: eq. (12) has bias rows
                       for v, (view, X) in enumerate(zip(tensor_views(self.kernels, self.feature_maps, len(Xs)), Xs))]
        self.n_views_ = len(Xs)
        # one array given: scikit-learn's int; a list of views: one int per view
        self.n_features_in_ = sum(X.shape[1] for X in Xs) if single else [X.shape[1] for X in Xs]
        rho, eta, lam = float(self.rho), float(self.eta), float(self.lam)
        self.tau_ = (1.0 - rho) * self.n_views_ + rho
        # the one n x n array of the fit, factored in place (no second one)
        M = _coupled_system(self.views_, rho, eta, lam)
        ones = np.ones(n)
        if self.fit_intercept:
            solver = BorderedSolver(M, self.tau_ * ones, ones,
                                    name="K_rho / eta + lam I", overwrite=True)
            # all m outputs with one factorisation
            alpha, b = solver.solve(self.tau_ * Y)
            b = b[0]
        else:  # b = 0: no border, no constraint sum_k y_k h_k = 0
            alpha = SymmetricSolver(M, "K_rho / eta + lam I", overwrite=True).solve(self.tau_ * Y)
            b = np.zeros(Y.shape[1])
        self.dual_coef_, self.intercept_ = alpha, b
        self.h_ = Y * alpha
        return self

    # -- inference -----------------------------------------------------------------------------
    def _check_views_in(self, Xs):
        """The rule of the inference methods: a fitted model, the views with their training columns."""
        check_is_fitted(self, "dual_coef_")
        Xs, single = parse_views(Xs, self.view_sizes)
        if len(Xs) != self.n_views_:
            raise ValueError(
                f"Xs has {len(Xs)} view(s) but the model was fitted on {self.n_views_}; pass a list of "
                f"{self.n_views_} arrays, one per view, in the order used in fit."
            )
        if single and self.n_views_ > 1:  # column blocks of one X (view_sizes): X's columns checked above
            names = [f"X (view {v})" for v in range(len(Xs))]
        else:
            names = ["X"] if single else [f"Xs[{v}]" for v in range(len(Xs))]
        for name, view, X in zip(names, self.views_, Xs):
            check_n_features(X, view.n_features_in_, name, estimator_name=self)
        return ParsedViews(Xs, single)

    def _outputs(self, Xs):
        """Output values (n, m) of validated views: :eq:`eq-tensor-decision-add` / :eq:`eq-tensor-decision-mean`."""
        blocks = [view.kernel_blocks(X) for view, X in zip(self.views_, Xs)]
        rho, scale = (self.rho, self.eta) if self.decision == "add" else (0.0, self.eta * self.n_views_)
        F = np.zeros((Xs[0].shape[0], self.dual_coef_.shape[1]))
        # a tile of the coupled test kernel at a time (it stays in cache; no m x n matrix per view):
        # F[rows] += K_rho[rows, cols] alpha[cols], in SciPy's BLAS, as the kernels and the factorisation
        for i in range(0, F.shape[0], _PREDICT_ROWS):
            rows = slice(i, i + _PREDICT_ROWS)
            for j in range(0, self.dual_coef_.shape[0], _PREDICT_COLS):
                cols = slice(j, j + _PREDICT_COLS)
                K = coupled_kernel((block(rows, cols) for block in blocks), rho, overwrite=True)
                F[rows] += _blas.product(K, self.dual_coef_[cols])
        return F / scale + self.intercept_

    @validate(Xs=checked_by("_check_views_in"))
    def decision_function(self, Xs):
        """Output values before the sign: (n,) for two classes (positive: ``classes_[1]``), else (n, m).

        ``"add"``: :eq:`eq-tensor-decision-add`; ``"mean"``: :eq:`eq-tensor-decision-mean`. For
        ``coding="ova"`` column ``l`` scores class ``classes_[l]``; for ``"moc"`` it is bit ``l``.
        """
        F = self._outputs(parse_views(Xs, self.view_sizes, check=False).views)
        return F[:, 0] if F.shape[1] == 1 else F

    @validate(Xs=checked_by("_check_views_in"))
    def predict(self, Xs):
        """Class of the nearest codeword to the outputs (:func:`~rkmlearn.models.coding.decode_outputs`)."""
        F = self._outputs(parse_views(Xs, self.view_sizes, check=False).views)
        return self.classes_[decode_outputs(F, self.codebook_)]

    # -- primal side ---------------------------------------------------------------------------
    def _training_features(self):
        check_is_fitted(self, "dual_coef_")
        missing = [v for v, view in enumerate(self.views_) if not view.explicit]
        if missing:
            raise primal_needs_features(f"the primal weights: views {missing} have kernels",
                                        "fit with feature_maps=[...] (one per view), or use decision_function")
        return [view.features() for view in self.views_]

    def primal_weights(self, *, max_tensor_size=1_000_000):
        """The primal weights of the stationarity conditions :eq:`eq-tensor-rho-stationarity`.

        ``w_v = (1/eta) Phi_v^T (y (.) h)`` per view and the model tensor
        ``W = (1/eta) sum_k (y_k h_k) phi_1(x_k) (x) ... (x) phi_V(x_k)``, per output.

        Parameters
        ----------
        max_tensor_size : int >= 0, default=1_000_000
            ``W`` has ``d_1 ... d_V m`` entries; above this it is not formed (``None``).

        Returns
        -------
        w : list of ndarray of shape (d_v, m)
        W : ndarray of shape (d_1, ..., d_V, m) or None
        """
        max_tensor_size = check_scalar_range(max_tensor_size, "max_tensor_size", low=0, low_inclusive=True,
                                             integer=True)
        Phis = self._training_features()
        A = self.dual_coef_ / self.eta
        w = [Phi.T @ A for Phi in Phis]
        size = int(np.prod([Phi.shape[1] for Phi in Phis])) * A.shape[1]
        if size > max_tensor_size:
            return w, None
        letters = "abcdefghijklmnopqrstuvwxy"[: len(Phis)]
        spec = ",".join(f"k{c}" for c in letters) + ",kz->" + letters + "z"
        return w, np.einsum(spec, *Phis, A, optimize=True)

    @validate(Xs=checked_by("_check_views_in"))
    def primal_decision_function(self, Xs, *, max_tensor_size=1_000_000):
        """Output values from the primal weights: :eq:`eq-tensor-decision-add-primal` / :eq:`eq-tensor-decision-mean-primal`.

        Equal to :meth:`decision_function` (the dual form) up to rounding; needs explicit features
        in every view and, for ``decision="add"`` with ``rho > 0``, a model tensor of at most
        ``max_tensor_size`` entries.
        """
        Xs = parse_views(Xs, self.view_sizes, check=False).views
        w, W = self.primal_weights(max_tensor_size=max_tensor_size)
        Phis = [view.chunk_features(X) for view, X in zip(self.views_, Xs)]  # the map's output checked
        per_view = sum(Phi @ wv for Phi, wv in zip(Phis, w))
        if self.decision == "mean":
            F = per_view / self.n_views_
        else:
            F = (1.0 - self.rho) * per_view
            if self.rho > 0:
                if W is None:
                    raise ValueError(
                        f"the model tensor W has more than max_tensor_size={max_tensor_size} entries; raise "
                        "max_tensor_size or use fewer features (the dual decision_function needs no W)."
                    )
                letters = "abcdefghijklmnopqrstuvwxy"[: len(Phis)]
                spec = ",".join(f"t{c}" for c in letters) + "," + letters + "z->tz"
                F = F + self.rho * np.einsum(spec, *Phis, W, optimize=True)
        F = F + self.intercept_
        return F[:, 0] if F.shape[1] == 1 else F
