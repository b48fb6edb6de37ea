"""RNN gradients (lesson 2.3): through a recurrence the gradient shrinks or grows with every
step of distance (vanishing / exploding gradients), so far words stop shaping what a plain
RNN learns; gates keep a road open, clipping stops one bad step.

Parts: ``fade`` (the plain tanh-RNN translation model beside the GRU: early words fade from
C in the first only), ``fresh`` (freshly initialised cells, the decay against the spectral radius),
``trained`` (the same measurement inside the trained probes), ``learn`` (what it does to
learning), ``words`` (which words of a sentence still reach the encoder's summary),
``explode`` (one training step, with and without clipping).
"""
