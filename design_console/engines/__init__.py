"""Pure engines below the tool catalog: response shaping, history diffs, parity scoring, doc rendering, the
design-system report and package, token sources. Importable without the tool registry: nothing here imports
:mod:`design_console.tools`, talks to the network or declares a tool.
"""
