"""Counter-based 64-bit random streams keyed to (seed, deal, purpose).

SplitMix64 (Steele, Lea, Flood 2014): the state is one uint64 in an array, so
a stream can be derived from any key without shared state; deal i's shuffle
depends only on (root seed, i, redeal), never on chunking or threads.

Each stream's starting state comes from SipHash-2-4 (Aumasson, Bernstein
2012), a keyed pseudo-random function, with the root seed as its key.  A
strategy holds its own stream's state; with an invertible derivation (the
SplitMix finalizer chained, as before) it could undo the mixing and compute
the shuffle's state, and so every hand and the kitty (tried: 200 of 200
deals).  Without the key, one output of a PRF says nothing of another.
"""

import numpy as np
from numba import njit

from .unowned import stack_array

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S11 = np.uint64(11)
# SipHash-2-4: SIP_C_ROUNDS rounds per message word, SIP_D_ROUNDS to finalize; words of WORD_BYTES bytes.
SIP_C_ROUNDS = 2
SIP_D_ROUNDS = 4
WORD_BYTES = 8
KEY_WORDS = 3  # words that name a stream: (a, b, c) of stream_key


@njit(cache=True)
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> S30)) * M1
    z = (z ^ (z >> S27)) * M2
    return z ^ (z >> S31)


@njit(cache=True, inline='always')
def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(cache=True, inline='always')
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 += v3
    v3 = _rotl(v3, 16) ^ v2
    v0 += v3
    v3 = _rotl(v3, 21) ^ v0
    v2 += v1
    v1 = _rotl(v1, 17) ^ v2
    return v0, v1, _rotl(v2, 32), v3


@njit(cache=True)
def siphash24(k0, k1, words):
    """SipHash-2-4 of the little-endian 8-byte words ``words`` (an integer array) under the key (k0, k1)."""
    v0 = np.uint64(k0) ^ np.uint64(0x736F6D6570736575)
    v1 = np.uint64(k1) ^ np.uint64(0x646F72616E646F6D)
    v2 = np.uint64(k0) ^ np.uint64(0x6C7967656E657261)
    v3 = np.uint64(k1) ^ np.uint64(0x7465646279746573)
    n = words.shape[0]
    for i in range(n + 1):
        m = np.uint64(words[i]) if i < n else np.uint64(WORD_BYTES * n) << np.uint64(56)
        v3 ^= m
        for _ in range(SIP_C_ROUNDS):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= np.uint64(0xFF)
    for _ in range(SIP_D_ROUNDS):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@njit(cache=True)
def stream_key(seed, a, b, c):
    """The starting state of the stream named by (seed, a, b, c): SipHash-2-4 of the words (a, b, c)
    keyed by the root seed, so that no stream's state leads back to another's."""
    words = stack_array(KEY_WORDS)
    words[0] = a
    words[1] = b
    words[KEY_WORDS - 1] = c
    k0 = mix64(np.uint64(seed) + GOLDEN)
    return siphash24(k0, mix64(k0 + GOLDEN), words)


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
