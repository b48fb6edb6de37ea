"""Serving: what keeps one server (or a cluster of replicas) fair and quick for a class.

The fair gate and the admission of page runs (``fairshare``, ``admission``), the event-loop
lag probe (``looplag``), the warm-up after the first page (``warmup``) and the slow jobs that
run beside a page (``jobs``). ``core`` stays the model package and never imports this.
"""
