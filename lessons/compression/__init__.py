"""Compressing the past (lesson 1.6): the Markov window, and architectures as priors.

Parts: ``markov`` (an n-gram model reads the last n−1 words only: its table could hold Vⁿ
entries, the corpus fills a vanishing share, and it cannot look past its window, against the
neural language model on the same prompt) and ``priors`` (an MLP needs one weight per
position and unit; CNN, RNN and attention assume more and share weights).
"""
