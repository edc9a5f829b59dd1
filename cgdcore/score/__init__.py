"""Score-based discovery: linear NOTEARS, DP-NOTEARS (NOLEAKS-style) and CURATE's budget schedules."""
