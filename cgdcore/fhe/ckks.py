"""CKKS parameters and the two kinds of context: the key holder's (secret key) and the server's.

TenSEAL wraps Microsoft SEAL, the library the paper uses (through EVA). Parameters are chosen
per mode so that SEAL's own 128-bit-security check accepts them (SEAL refuses a modulus chain
longer than its HomomorphicEncryption.org table allows; :data:`MAX_MODULUS_BITS` is that table):

* counts only (secure aggregation): N = 8192, chain [60, 40, 60] (160 ≤ 218 bits), scale 2^40;
* encrypted statistic: N = 32768, chain [60] + [s]·depth + [60], depth counted from the circuit
  (:func:`cgdcore.fhe.circuits.circuit_depth`) and s = 40 bits when it fits in 881 bits, else the
  largest s that does — the paper's 10-iteration recipe (depth 22–24) is forced down to s = 31,
  which is what costs it accuracy (seed_fhe digest, B3).

The server receives ``public_bytes()``: the public key and relinearisation keys, never the secret
key; decrypting there raises. TenSEAL is imported lazily (it takes ~0.5 s).
"""
from __future__ import annotations

from dataclasses import dataclass

from cgdcore import UserError

#: SEAL's 128-bit-security bound on the total coefficient-modulus bits, per ring dimension N.
MAX_MODULUS_BITS = {4096: 109, 8192: 218, 16384: 438, 32768: 881}
SPECIAL_BITS = 60
MIN_SCALE_BITS = 20


@dataclass(frozen=True)
class CKKSParams:
    """One CKKS parameter set; ``slots`` = N/2 values per ciphertext."""

    poly_modulus_degree: int
    coeff_mod_bit_sizes: tuple[int, ...]
    scale_bits: int

    @property
    def slots(self) -> int:
        return self.poly_modulus_degree // 2

    @property
    def depth(self) -> int:
        return len(self.coeff_mod_bit_sizes) - 2

    @property
    def modulus_bits(self) -> int:
        return sum(self.coeff_mod_bit_sizes)

    def describe(self) -> str:
        chain = self.coeff_mod_bit_sizes
        mid = f"{chain[1]}×{len(chain) - 2}" if len(chain) > 2 else ""
        return (f"N = {self.poly_modulus_degree}, modulus chain [{chain[0]}, {mid}, {chain[-1]}] = "
                f"{self.modulus_bits} bits (≤ {MAX_MODULUS_BITS[self.poly_modulus_degree]} for 128-bit security), "
                f"scale 2^{self.scale_bits}, {self.depth} multiplicative level(s), {self.slots} slots")


def aggregation_params() -> CKKSParams:
    """Counts are only added: one level is plenty (digest B4)."""
    return CKKSParams(8192, (60, 40, 60), 40)


def statistic_params(depth: int, preferred_scale_bits: int = 40) -> CKKSParams:
    """N = 32768 (the paper's 2^15-slot batches) with a chain deep enough for ``depth`` levels."""
    n = 32768
    room = MAX_MODULUS_BITS[n] - 2 * SPECIAL_BITS
    s = min(preferred_scale_bits, room // max(depth, 1))
    if s < MIN_SCALE_BITS:
        raise UserError(f"a circuit of depth {depth} does not fit a 128-bit-secure CKKS chain at N = {n} "
                        f"(it would leave a {s}-bit scale); use fewer Newton–Raphson iterations or Taylor terms.")
    return CKKSParams(n, (SPECIAL_BITS,) + (s,) * depth + (SPECIAL_BITS,), s)


class KeyHolder:
    """The data owner who generated the keys: encrypts (like every owner) and decrypts."""

    def __init__(self, params: CKKSParams):
        import tenseal as ts

        self.params = params
        self.context = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=params.poly_modulus_degree,
                                  coeff_mod_bit_sizes=list(params.coeff_mod_bit_sizes))
        self.context.global_scale = 2.0 ** params.scale_bits

    def public_bytes(self) -> bytes:
        """What the server (and the other owners) receive: public + relinearisation keys only."""
        return self.context.serialize(save_public_key=True, save_secret_key=False, save_galois_keys=False,
                                      save_relin_keys=True)

    def decrypt(self, blob: bytes):
        import numpy as np
        import tenseal as ts

        return np.asarray(ts.ckks_vector_from(self.context, blob).decrypt(), dtype=np.float64)


def public_context(blob: bytes):
    """A context with no secret key (owners encrypt with it; the server evaluates with it)."""
    import tenseal as ts

    ctx = ts.context_from(blob)
    if ctx.has_secret_key():  # pragma: no cover - guarded by KeyHolder.public_bytes
        raise RuntimeError("a public context must not carry the secret key")
    return ctx


def encrypt(ctx, values) -> bytes:
    """Encrypt a real vector (at most ``slots`` values) and serialise it for sending."""
    import tenseal as ts

    return ts.ckks_vector(ctx, [float(v) for v in values] if not hasattr(values, "tolist") else values.tolist()
                          ).serialize()


def load(ctx, blob: bytes):
    import tenseal as ts

    return ts.ckks_vector_from(ctx, blob)
