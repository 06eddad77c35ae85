"""An example ARH format plugin: the run logs of an in-house agent (see format.py)."""
