"""Tests of rkmlearn.solvers.eigen: top eigenpairs against a full eigendecomposition (tests only)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rkmlearn.kernels import RBF, GramCenterer
from rkmlearn import _symmetric
from rkmlearn.solvers import eigen
from rkmlearn.solvers.eigen import choose_eigen_solver, flip_signs, rank_tolerance, top_eigenpairs


def _separated_matrix(n=120, seed=0, decay=0.9):
    """Symmetric PSD matrix with a known, well-separated spectrum (decay^k)."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    evals = 10.0 * decay ** np.arange(n)
    return (Q * evals) @ Q.T, evals


def _reference(K, s):
    """Full eigendecomposition: allowed in tests only, as the ground truth."""
    evals, evecs = np.linalg.eigh(K)
    return evals[::-1][:s], flip_signs(evecs[:, ::-1][:, :s])


# ----------------------------------------------------------------------------- flip_signs
def test_flip_signs_convention():
    V = np.array([[1.0, -0.5, 0.0, 2.0], [-3.0, 0.5, 0.0, -2.0], [2.0, 0.1, 0.0, 1.0]])
    W, signs = flip_signs(V, return_signs=True)
    np.testing.assert_array_equal(signs, [-1.0, -1.0, 1.0, 1.0])  # col 1: tie -> first entry
    np.testing.assert_array_equal(W, V * signs)
    assert np.all(W[np.argmax(np.abs(W), axis=0), np.arange(4)] >= 0)
    np.testing.assert_array_equal(flip_signs(W), W)  # idempotent
    np.testing.assert_array_equal(flip_signs(-V), W)  # sign-invariant


# -------------------------------------------------------------------- accuracy per solver
@pytest.mark.parametrize("solver", ["dense", "arpack", "block", "auto"])
@pytest.mark.parametrize("s", [1, 3, 10])
def test_matches_full_eigh(solver, s):
    K, _ = _separated_matrix()
    ref_vals, ref_vecs = _reference(K, s)
    vals, vecs = top_eigenpairs(K, s, solver=solver)
    assert vals.shape == (s,) and vecs.shape == (K.shape[0], s)
    assert vals.dtype == vecs.dtype == np.float64
    assert np.all(np.diff(vals) < 0)  # descending
    np.testing.assert_allclose(vals, ref_vals, rtol=1e-10)
    np.testing.assert_allclose(vecs, ref_vecs, rtol=0, atol=1e-8)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(s), atol=1e-12)


@pytest.mark.parametrize("solver", ["dense", "arpack", "block"])
def test_matches_full_eigh_on_centred_rbf_gram(solver):
    X = np.random.default_rng(1).normal(size=(300, 5))
    K = GramCenterer().fit_transform(RBF(2.0)(X))
    ref_vals, ref_vecs = _reference(K, 5)
    assert np.min(-np.diff(ref_vals)) > 1e-3 * ref_vals[0]  # separated: eigenvectors well defined
    vals, vecs = top_eigenpairs(K, 5, solver=solver)
    np.testing.assert_allclose(vals, ref_vals, rtol=1e-10)
    np.testing.assert_allclose(vecs, ref_vecs, rtol=0, atol=1e-8)


def test_solvers_agree_with_known_spectrum_and_auto_uses_rule():
    """K = Q diag(e) Q^T + c I with orthonormal Q (n x r): top eigenpairs known exactly."""
    n, r, c = 1200, 8, 0.01
    rng = np.random.default_rng(4)
    Q, _ = np.linalg.qr(rng.normal(size=(n, r)))
    e = 2.0 ** -np.arange(r)
    K = (Q * e) @ Q.T + c * np.eye(n)
    assert choose_eigen_solver(n, 5) == "block"
    true_vecs = flip_signs(Q[:, :5])
    results = {solver: top_eigenpairs(K, 5, solver=solver) for solver in ["dense", "arpack", "block", "auto"]}
    for vals, vecs in results.values():
        np.testing.assert_allclose(vals, e[:5] + c, rtol=1e-10)
        np.testing.assert_allclose(vecs, true_vecs, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(results["auto"][0], results["block"][0])
    np.testing.assert_array_equal(results["auto"][1], results["block"][1])


def test_all_eigenpairs_with_dense():
    K, evals = _separated_matrix(n=40)
    vals, vecs = top_eigenpairs(K, 40, solver="auto")  # s = n: dense
    np.testing.assert_allclose(vals, evals, rtol=1e-10)
    np.testing.assert_allclose(vecs @ np.diag(vals) @ vecs.T, K, atol=1e-12)


def test_symmetrises_small_asymmetry_and_does_not_modify_input():
    K, _ = _separated_matrix(n=50)
    noise = 1e-12 * np.triu(np.ones_like(K), 1)
    K_noisy = K + noise
    before = K_noisy.copy()
    vals, _ = top_eigenpairs(K_noisy, 3, solver="dense")
    np.testing.assert_array_equal(K_noisy, before)
    ref_vals, _ = _reference((K_noisy + K_noisy.T) / 2, 3)
    np.testing.assert_allclose(vals, ref_vals, rtol=1e-12)


# ---------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("solver", ["dense", "arpack", "block"])
def test_deterministic_bitwise(solver):
    K, _ = _separated_matrix(n=200, seed=3)
    a = top_eigenpairs(K, 4, solver=solver)
    b = top_eigenpairs(K, 4, solver=solver)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_sign_convention_applied():
    K, _ = _separated_matrix(n=80, seed=5)
    for solver in ["dense", "arpack", "block"]:
        _, vecs = top_eigenpairs(K, 6, solver=solver)
        np.testing.assert_array_equal(flip_signs(vecs), vecs)


# ----------------------------------------------------------------------------------- rank
def test_rank_error_on_centred_gram():
    """A centred Gram matrix of N points has rank <= N - 1."""
    X = np.random.default_rng(0).normal(size=(6, 10))  # 6 points in general position
    K = GramCenterer().fit_transform(X @ X.T)
    vals, _ = top_eigenpairs(K, 5)
    assert vals[-1] > rank_tolerance(6) * vals[0]
    with pytest.raises(ValueError, match=r"^n_components=6 exceeds the numerical rank 5 .*use n_components <= 5"):
        top_eigenpairs(K, 6)
    vals, _ = top_eigenpairs(K, 6, check_rank=False)  # opt-out returns the (zero) eigenvalue
    assert abs(vals[-1]) <= rank_tolerance(6) * vals[0]


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_rank_error_low_rank(solver):
    rng = np.random.default_rng(2)
    B = rng.normal(size=(60, 3))
    K = B @ B.T  # rank 3
    top_eigenpairs(K, 3, solver=solver)
    with pytest.raises(ValueError, match=r"^n_components=4 exceeds the numerical rank 3"):
        top_eigenpairs(K, 4, solver=solver)


def test_rank_zero():
    with pytest.raises(ValueError, match=r"^n_components=1 exceeds the numerical rank 0"):
        top_eigenpairs(np.zeros((5, 5)), 1)
    with pytest.raises(ValueError, match=r"^n_components=1 exceeds the numerical rank 0"):
        top_eigenpairs(GramCenterer().fit_transform(np.ones((5, 5))), 1)


def test_rank_tolerance_value():
    assert rank_tolerance(1000) == pytest.approx(10 * 1000 * np.finfo(float).eps)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "K, s, kwargs, pattern",
    [
        (np.ones((3, 4)), 1, {}, r"^K must be a square \(n, n\) symmetric matrix; got shape \(3, 4\)"),
        (np.ones(4), 1, {}, r"^K must be a 2-D array"),
        (np.array([[1.0, 2.0], [0.0, 1.0]]), 1, {}, r"^K must be symmetric"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), 1, {}, r"^K contains NaN"),
        (np.eye(3), 0, {}, r"^n_components=0 is out of range"),
        (np.eye(3), 4, {}, r"^n_components=4 .*<= n \(the size of K\) \(= 3\)"),
        (np.eye(3), 1.5, {}, r"^n_components must be an integer"),
        (np.eye(3), 1, {"solver": "lobpcg"}, r"^solver must be one of \['auto', 'dense', 'arpack', 'block'\]"),
        (np.eye(3), 3, {"solver": "arpack"}, r"^n_components=3 is too large for solver='arpack'"),
    ],
)
def test_bad_input(K, s, kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        top_eigenpairs(K, s, **kwargs)


def test_choose_eigen_solver_rule():
    assert choose_eigen_solver(4000, 10) == "block"
    assert choose_eigen_solver(4000, 50) == "block"
    assert choose_eigen_solver(4000, 100) == "dense"
    assert choose_eigen_solver(1000, 25) == "block"
    assert choose_eigen_solver(1000, 26) == "dense"
    assert choose_eigen_solver(999, 1) == "dense"
    for n in [500, 1000, 4000, 10000]:
        for s in range(1, n + 1, 7):
            assert choose_eigen_solver(n, s) in ("dense", "block")  # never ARPACK, which stalls on clusters
            if choose_eigen_solver(n, s) == "block":
                assert s <= n // 40


# ------------------------------------------------------------------------------ property
@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 30), seed=st.integers(0, 2**16), data=st.data())
def test_property_eigen_equation(n, seed, data):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, n))
    K = A @ A.T
    s = data.draw(st.integers(1, n))
    vals, vecs = top_eigenpairs(K, s, check_rank=False)
    ref = np.linalg.eigvalsh(K)[::-1][:s]
    np.testing.assert_allclose(vals, ref, rtol=1e-9, atol=1e-10 * ref[0])
    np.testing.assert_allclose(K @ vecs, vecs * vals, atol=1e-9 * ref[0])


# ---------------------------------------------------------- a subset driver that comes back short
def _short_subset(monkeypatch, short_drivers):
    """Make ``scipy.linalg.eigh(..., subset_by_index, driver=d)`` drop columns for ``d in short_drivers``.

    What OpenBLAS's SkylakeX kernels do on a degenerate spectrum (issue 19): the call succeeds with
    fewer eigenpairs than asked. Returns the list of drivers called, in order.
    """
    import scipy.linalg

    real_eigh, calls = scipy.linalg.eigh, []

    def eigh(a, *args, driver=None, subset_by_index=None, **kwargs):
        calls.append(driver)
        w, v = real_eigh(a, *args, driver=driver, subset_by_index=subset_by_index, **kwargs)
        if subset_by_index is not None and driver in short_drivers:
            return w[:0], v[:, :0]
        return w, v

    monkeypatch.setattr(scipy.linalg, "eigh", eigh)
    return calls


@pytest.mark.parametrize("short, expected_calls", [(("evr",), ["evr", "evx"]), (("evr", "evx"), ["evr", "evx"])])
@pytest.mark.parametrize("s", [1, 4])
def test_dense_never_trusts_a_short_subset_answer(monkeypatch, short, expected_calls, s):
    K, _ = _separated_matrix(n=60, seed=7)
    ref_vals, ref_vecs = _reference(K, s)
    calls = _short_subset(monkeypatch, short)
    vals, vecs = top_eigenpairs(K, s, solver="dense")
    assert calls == expected_calls  # the count was checked and the next driver asked
    np.testing.assert_allclose(vals, ref_vals, rtol=1e-10)
    np.testing.assert_allclose(vecs, ref_vecs, rtol=0, atol=1e-8)


def test_short_subset_answer_for_the_whole_spectrum(monkeypatch):
    K, evals = _separated_matrix(n=30, seed=8)
    calls = _short_subset(monkeypatch, ("evr", "evx"))
    vals, vecs = top_eigenpairs(K, 30, solver="dense")
    assert calls == ["evr", "evx", "evd"]  # s = n: the whole spectrum IS the subset
    np.testing.assert_allclose(vals, evals, rtol=1e-10)
    np.testing.assert_allclose(vecs @ np.diag(vals) @ vecs.T, K, atol=1e-12)


@pytest.mark.parametrize("short", [(), ("evr", "evx")])
def test_degenerate_spectrum_of_issue_19(monkeypatch, short):
    """The centred identity: eigenvalue 1 with multiplicity n - 1 (SkylakeX's subset drivers return 0 pairs)."""
    _short_subset(monkeypatch, short)
    n = 20
    K = GramCenterer().fit_transform(np.eye(n))
    vals, vecs = top_eigenpairs(K, 2)
    np.testing.assert_allclose(vals, 1.0, rtol=1e-12)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(K @ vecs, vecs, atol=1e-12)


# ------------------------------------------------------------------------- the block solver
def _cluster_matrix(n=1200, seed=3):
    """A banded matrix plus a low-rank PSD one: eigenvalues 5..8 lie within 1e-6 of each other
    relative to the largest (RecurrentRKM's K + A, where ARPACK stalls)."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, 4)) * np.array([30.0, 20.0, 10.0, 5.0])
    A = np.diag(np.full(n, 1.0)) + np.diag(np.full(n - 1, 0.6), 1) + np.diag(np.full(n - 1, 0.6), -1)
    return B @ B.T + A


def test_block_solver_gives_up_on_a_cluster_and_the_dense_driver_answers(monkeypatch):
    K = _cluster_matrix()
    ref_vals, _ = _reference(K, 8)
    assert (ref_vals[4] - ref_vals[7]) / ref_vals[0] < 1e-6  # the cluster
    with pytest.raises(eigen._NotConverged):
        eigen.block_krylov_eigenpairs(K, 8)
    calls = _short_subset(monkeypatch, ())
    vals, vecs = top_eigenpairs(K, 8, solver="auto")
    assert [c for c in calls if c is not None] == ["evr"]  # fell back to the subset driver (None: Ritz steps)
    np.testing.assert_allclose(vals, ref_vals, rtol=0, atol=1e-13 * ref_vals[0])
    np.testing.assert_allclose(K @ vecs, vecs * vals, atol=1e-11 * vals[0])


def test_block_solver_residuals_at_lapack_accuracy():
    X = np.random.default_rng(2).normal(size=(1100, 20))
    K = GramCenterer().fit_transform(RBF(np.sqrt(10.0))(X))  # 21 eigenvalues in [0.7, 1] x the largest
    vals, vecs = eigen.block_krylov_eigenpairs(K, 10)
    assert np.linalg.norm(K @ vecs - vecs * vals, axis=0).max() <= 1100 * np.finfo(float).eps * vals[0]
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(10), atol=1e-13)
    np.testing.assert_allclose(vals, _reference(K, 10)[0], rtol=1e-12)


def test_block_solver_on_an_exactly_repeated_eigenvalue():
    """The Krylov space becomes invariant after one block: the lost columns are replaced, not divided by 0."""
    n = 1000
    K = GramCenterer().fit_transform(np.eye(n))  # eigenvalue 1, multiplicity n - 1
    vals, vecs = eigen.block_krylov_eigenpairs(K, 3)
    np.testing.assert_allclose(vals, 1.0, rtol=1e-13)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(3), atol=1e-13)
    np.testing.assert_allclose(K @ vecs, vecs, atol=1e-13)


def test_symmetric_flag_skips_the_scan(monkeypatch):
    K, _ = _separated_matrix(n=50)

    def no_scan(*args, **kwargs):
        raise AssertionError("scanned")

    monkeypatch.setattr(_symmetric, "max_asymmetry", no_scan)
    vals, _ = top_eigenpairs(K, 2, symmetric=True)
    np.testing.assert_allclose(vals, _reference(K, 2)[0], rtol=1e-12)
    with pytest.raises(AssertionError, match="scanned"):
        top_eigenpairs(K, 2)


@pytest.mark.parametrize("short", [(), ("evr",)])
def test_in_place_lapack_restores_the_matrix_bit_for_bit(monkeypatch, short):
    K, _ = _separated_matrix(n=300, seed=9)
    K = 0.5 * (K + K.T)  # exactly symmetric, as symmetric=True promises
    before = K.copy()
    _short_subset(monkeypatch, short)
    vals, vecs = top_eigenpairs(K, 4, solver="dense", symmetric=True)
    np.testing.assert_array_equal(K, before)
    ref = top_eigenpairs(before.copy(), 4, solver="dense")
    np.testing.assert_array_equal(vals, ref[0])
    np.testing.assert_array_equal(vecs, ref[1])


# ----------------------------------------------------------------------------- low rank + band
def _lowrank_band(n=700, p=1, seed=0):
    """RecurrentRKM's structure: a centred RBF Gram matrix of a smooth series (numerically low rank)
    plus a banded Toeplitz matrix whose top eigenvalues are a near-continuum."""
    import scipy.sparse

    t = np.linspace(0.0, 6.0, n)[:, None]
    x = np.sin(3 * t) + 0.3 * np.cos(7 * t) + 0.01 * np.random.default_rng(seed).normal(size=(n, 1))
    K = GramCenterer().fit_transform(RBF(1.0)(x))
    a = np.exp(-np.arange(p + 1) ** 2 / 2.0)
    band = scipy.sparse.dia_array(scipy.sparse.diags([np.full(n - abs(l), a[abs(l)]) for l in range(-p, p + 1)],
                                                     list(range(-p, p + 1)), shape=(n, n)))
    return K + band.toarray(), band


@pytest.mark.parametrize("p", [1, 2])
def test_lowrank_band_solver_matches_the_dense_driver_on_a_cluster(p):
    from rkmlearn.solvers.block_krylov import lowrank_band_eigenpairs

    M, band = _lowrank_band(p=p)
    s = 12
    ref_vals, ref_vecs = _reference(M, s)
    assert np.diff(ref_vals[-5:]).min() > -1e-3 * ref_vals[0]  # the last pairs are a near-continuum
    with pytest.raises(eigen._NotConverged):
        eigen.block_krylov_eigenpairs(M, s)  # where block Krylov gives up
    vals, vecs = lowrank_band_eigenpairs(M, band, s)
    np.testing.assert_allclose(vals, ref_vals, rtol=0, atol=1e-12 * ref_vals[0])
    assert np.linalg.norm(M @ vecs - vecs * vals, axis=0).max() <= 700 * np.finfo(float).eps * vals[0]
    np.testing.assert_allclose(np.abs(np.sum(vecs * ref_vecs, axis=0)), 1.0, atol=1e-9)


def test_lowrank_band_count_is_sylvesters():
    from rkmlearn.solvers.block_krylov import _count_above, _partial_cholesky, _top_band_eigenvalues

    M, band = _lowrank_band(n=300, p=2)
    bands = np.zeros((5, 300))
    for offset, values in zip(band.offsets, band.data):
        bands[2 - offset] += values
    F, eps_F = _partial_cholesky(M, band.tocsr(), bands[2], 100)
    assert eps_F <= 1e-10 * np.abs(M).max() and F.shape[1] < 60
    exact = np.linalg.eigvalsh(band.toarray() + F @ F.T)
    mu = _top_band_eigenvalues(bands, 40)
    for sigma in list(0.5 * (exact[-31:-1] + exact[-30:])) + [exact[-1] + 1.0]:  # between eigenvalues
        assert _count_above(bands, mu, F, sigma) == np.count_nonzero(exact > sigma)


def test_top_eigenpairs_with_a_band_falls_back_when_the_rest_is_not_low_rank(monkeypatch):
    """A full-rank K: the low-rank + band solver gives up and the automatic choice answers."""
    import scipy.sparse

    from rkmlearn.solvers import block_krylov

    monkeypatch.setattr(eigen, "BAND_MIN_N", 100)
    n = 400
    K, _ = _separated_matrix(n=n, decay=0.999)
    band = scipy.sparse.dia_array(scipy.sparse.eye(n))
    with pytest.raises(eigen._NotConverged):
        block_krylov.lowrank_band_eigenpairs(K + band.toarray(), band, 5)
    vals, vecs = top_eigenpairs(K + band.toarray(), 5, band=band)
    np.testing.assert_allclose(vals, _reference(K + np.eye(n), 5)[0], rtol=1e-12)
