"""An example ARH rule plugin (entry point `refund-limits` in the group `arh.rules`).

Nothing is imported here: ARH imports `arh_refund_rules.rules` when a policy names the
plugin, and that module declares the rules.
"""
