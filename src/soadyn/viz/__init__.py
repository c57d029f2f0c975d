"""Plots of simulation results (PNG files through matplotlib's Agg backend; matplotlib is imported only
when a plot is drawn) and the 3-D replay in a web browser (:class:`Viewer`, with viser: ``soadyn[viz]``;
viser and trimesh are imported only when a replay is built)."""

from .plots import columns_figure, plot_columns, plot_energy, plot_heights, trajectory_figure
from .scene import Scene
from .timeline import Timeline, timeline
from .viewer import Viewer

__all__ = ["trajectory_figure", "columns_figure", "plot_columns", "plot_energy", "plot_heights", "Scene", "Timeline",
           "timeline", "Viewer"]
