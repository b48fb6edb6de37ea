"""Autoregressive generation (lesson 1.2–1.3): one token at a time, each fed back in.

Parts: ``lm`` (step through a language model), ``translate`` (the same for translation, with
each step's attention row), ``wrong`` (force one plausible wrong word: "一步错步步错", and how
often the model recovers), ``cost`` (writing n words takes n steps, reading them one).
"""
