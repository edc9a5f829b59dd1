"""CPU seconds (user + system) of live processes, for the benches that time a server or a run's process tree."""
import psutil


def live_cpu_seconds(processes) -> float:
    """Σ user + system CPU seconds of ``processes`` that are still alive (a process that ended meanwhile counts 0)."""
    total = 0.0
    for p in processes:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total
