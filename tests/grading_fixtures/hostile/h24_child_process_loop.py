"""Hostile: compute the RBF Gram matrix with a slow Python loop in a CHILD process.

The child's CPU time was not counted, so the speed test passed (36 against 35 honest: the loop
fails only the speed test). Graded with the audit hook off (as if defeated): the kernel refuses
the fork (RLIMIT_NPROC 0 when the exercise allows no processes), and the CPU time of waited-for
children counts anyway.
"""
import os

import numpy as np


def _slow(X, Y, sigma):
    K = np.empty((X.shape[0], Y.shape[0]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            d = X[i] - Y[j]
            K[i, j] = np.exp(-float(d @ d) / (2 * sigma * sigma))
    return K


def rbf_gram(X, Y=None, sigma=1.0):
    X = np.asarray(X, dtype=float)
    Y = X if Y is None else np.asarray(Y, dtype=float)
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError("sigma must be positive")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        data = _slow(X, Y, sigma).tobytes()
        while data:
            data = data[os.write(w, data):]
        os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 1 << 20):
        chunks.append(chunk)
    os.waitpid(pid, 0)
    return np.frombuffer(b"".join(chunks)).reshape(X.shape[0], Y.shape[0]).copy()


def center_train_test(K_train, K_test):
    raise NotImplementedError


kpca_eig = kpca_transform = center_train_test
