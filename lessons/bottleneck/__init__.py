"""The bottleneck (lesson 1.4–1.5, 2.3): a latent state carried from word to word, and a plain
encoder-decoder that passes the whole sentence through one fixed-length vector C, so long
sentences no longer fit.

Parts: ``latent`` (a language model's state, word by word), ``read`` (the encoder's states and
C), ``side`` (plain against attention on one sentence), ``length`` (accuracy against length),
``stretch`` (a live batch of one length), ``probe`` (what C still holds of each word). How
fast early words fade on their way to C is the RNN-gradients page's part 1.
"""
