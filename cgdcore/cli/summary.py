"""The plain-text lines that summarise an encrypted run and a local-privacy release."""
from __future__ import annotations


def fhe_summary(f: dict) -> str:
    from ..fhe.run import comparison

    sec = f["seconds"]
    mb = lambda b: b / 1e6  # noqa: E731
    cmp = comparison(f)
    agree = {lv["order"]: lv["agreement"] for lv in cmp["levels"]}
    compared = (f"CI decisions agree with plaintext on {100 * cmp['agreement']:.1f}% ("
                + ", ".join(f"order {o} {100 * a:.1f}%" for o, a in agree.items()) + ")"
                + ("" if cmp["shd_vs_plaintext"] is None else
                   f", SHD vs the plaintext graph {cmp['shd_vs_plaintext']}"))
    lines = [f"federation: {f['owners']} owners (rows {f['owner_rows']}), mode {f['mode']}"
             + ("" if "note" in cmp else f"; {compared}")]
    for lv in f["levels"]:
        lines.append(f"  order {lv['order']}: {lv['tests']} tests in {lv['slots']} slots"
                     + (f", max r0·x {lv['max_r0x']:.2f}" if "max_r0x" in lv else ""))
    lines.append(f"  time: keygen {sec['keygen']:.2f} s, count {sec['count']:.2f} s, encrypt {sec['encrypt']:.2f} s, "
                 f"server {sec['compute']:.2f} s, decrypt {sec['decrypt']:.2f} s")
    if f["ckks"]:
        b = f["bytes"]
        lines.append(f"  CKKS {f['ckks']}; public context {mb(b['public_context']):.1f} MB, upload per owner "
                     f"{mb(max(b['upload_per_owner'])):.1f} MB, results {mb(b['results']):.2f} MB, "
                     f"{f['ciphertexts']} ciphertexts")
    if f.get("memory_added_mb") is not None:
        lines.append(f"  memory the run added at its peak: {f['memory_added_mb']:.0f} MB (resident, over its start)")
    if "note" in cmp:  # a DP variant: the comparisons, timings and memory come from the exact data
        lines.append(f"diagnostics ({cmp['note']}): {compared}; {cmp['what']}")
    return "\n".join(lines)


def local_summary(pv: dict) -> str:
    exact = "" if pv["epsilon_exact"] else " (upper bound)"
    schema = pv.get("schema")  # categories read from the file: the ε-LDP assumes them public
    return (f"local privacy: {pv['mechanism']} at {pv['parameter']} = {pv['value']:g}; true ε-LDP per record "
            f"{pv['epsilon']:.4g}{exact}" + (" only if the categories are a public schema (below)" if schema else "")
            + f"; chance of guessing a whole record {pv['vulnerability']:.4g}" + (f"\n  {schema}" if schema else ""))
