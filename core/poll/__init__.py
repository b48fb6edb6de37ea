"""Class polls: the room predicts, the model answers (no streamlit here).

``core.poll.store``: polls and votes in SQLite or PostgreSQL; ``core.poll.questions``: the
questions, each with a fixed list of answers and an answer computed from the models.
"""
