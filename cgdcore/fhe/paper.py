"""Numbers the FHE paper reports (seed 003, Tables II–IV; n = 5,000, k = 2 owners, α = 0.05),
copied exactly, for display beside this tool's runs."""

#: Table III — consistency of CI decisions with plaintext, per level and on average.
TABLE3 = {
    "win95pts": {"chi2": (0.931, 0.731, 0.746), "g2": (0.989, 0.846, 0.833)},
    "alarm": {"chi2": (0.881, 0.833, 0.833), "g2": (0.991, 0.896, 0.900)},
    "hepar2": {"chi2": (0.864, 0.611, 0.641), "g2": (0.993, 0.833, 0.863)},
    "water": {"chi2": (0.925, 0.849, 0.854), "g2": (0.988, 0.792, 0.833)},
    "insurance": {"chi2": (0.937, 0.865, 0.862), "g2": (0.972, 0.814, 0.826)},
    "child": {"chi2": (0.911, 0.928, 0.922), "g2": (1.000, 0.963, 0.960)},
}
#: Table IV — elapsed seconds with χ²: plaintext vs encrypted (paper's hardware: 10 × 32-core EPYC, 320 GB).
TABLE4 = {"child": (0.18, 1545), "insurance": (0.24, 1845), "water": (0.07, 698), "alarm": (0.12, 933),
          "hepar2": (1.57, 1433), "win95pts": (0.51, 366)}
PEAK_MEMORY_GB = 45  # insurance, χ² (Fig. 11)


def paper_row(network: str, statistic: str):
    """The paper's numbers for one network and statistic, or None."""
    if network not in TABLE3:
        return None
    l0, l1, avg = TABLE3[network][statistic]
    plain, enc = TABLE4[network]
    return {"level 0": l0, "level 1": l1, "average": avg,
            "seconds (χ², plaintext)": plain, "seconds (χ², encrypted)": enc}
