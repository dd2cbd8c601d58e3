"""Counter-based 64-bit random streams keyed to (seed, deal, purpose).

SplitMix64 (Steele, Lea, Flood 2014): the state is one uint64 in an array, so
a stream can be derived from any key without shared state; deal i's shuffle
depends only on (root seed, i, redeal), never on chunking or threads.
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S11 = np.uint64(11)


@njit(cache=True)
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit(cache=True)
def stream_key(seed, a, b, c):
    """A well-mixed 64-bit state for the stream named by (seed, a, b, c)."""
    k = mix64(np.uint64(seed) + GOLDEN)
    k = mix64(k ^ (np.uint64(a) * GOLDEN + np.uint64(1)))
    k = mix64(k ^ (np.uint64(b) * M1 + np.uint64(2)))
    return mix64(k ^ (np.uint64(c) * M2 + np.uint64(3)))


@njit(cache=True)
def next_u64(state):
    state[0] += GOLDEN
    return mix64(state[0])


@njit(cache=True)
def uniform(state):
    """A float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> S11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randint(state, n):
    """An int in [0, n); the bias is below 2**-50 for any n used here."""
    return np.int64(uniform(state) * n)


@njit(cache=True)
def shuffle(a, state):
    """Fisher-Yates shuffle of ``a`` in place."""
    for i in range(a.shape[0] - 1, 0, -1):
        j = randint(state, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
