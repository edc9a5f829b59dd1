"""Central differential privacy: mechanisms, private CI-decision policies, EM-PC and CURATE.

Every policy plugs into the one PC engine (:mod:`cgdcore.pc`) and declares each release to a
:class:`cgdcore.privacy.ledger.Ledger`. :func:`cgdcore.central.build.build_private_policy` wires
an algorithm name to its policy, sensitivity and ledger.
"""
