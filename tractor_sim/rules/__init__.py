"""The rules as data: card ids and notation (``cards``), the rule options and presets (``options``),
the game sizes of docs/rules.md section 9 (``sizes``) and the rule book's passages (``rulebook``).

The bottom layer: it imports nothing else of the package, and the compiled
package (``tractor_sim.core``) reads only ``options``' indices from it.
"""
