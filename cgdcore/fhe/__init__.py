"""Encrypted federated PC (seed 003): owners' counts under CKKS (TenSEAL), the χ²/G² circuits,
and the DP variant. TenSEAL is imported only when an encrypted mode runs."""
