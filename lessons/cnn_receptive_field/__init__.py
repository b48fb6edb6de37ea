"""CNN receptive field (lesson 2.2): a convolution sees its neighbours; depth widens the view.

Parts: ``theory`` (the formula: one position's window layer by layer, and the layer at which
two distant words first share one), ``measured`` (the trained ``cnn_s2s`` encoder's
gradients beside the formula), ``probes`` (the CNN distance probes: accuracy collapses where
the field ends).
"""
