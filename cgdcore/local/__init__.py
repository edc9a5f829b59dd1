"""Local differential privacy: mechanisms applied to each record before discovery."""
