"""Analytical models beside the simulator: `routerlab model NAME`."""
