"""The report layer: tables, figures and report.md / report.html of a run directory."""

from tractor_sim.report.build import build_report

__all__ = ["build_report"]
