"""Plots of simulation results (PNG files through matplotlib's Agg backend; matplotlib is imported only
when a plot is drawn)."""

from .plots import columns_figure, plot_columns, plot_energy, plot_heights, trajectory_figure

__all__ = ["trajectory_figure", "columns_figure", "plot_columns", "plot_energy", "plot_heights"]
