"""The class poll, one feature: the room predicts, a real model answers.

Below Streamlit: ``store`` (polls and votes in SQLite or PostgreSQL), ``runs`` (the live
races' records in the same database), ``questions`` (each with its answers computed from the
models) and ``training`` (the race's training process). Drawn with Streamlit: ``views``
(the teacher's room and a student's phone), ``page`` (the poll page), ``predict`` ("Predict,
then check" for a visitor alone) and ``panel`` (what a lesson part offers: "Ask the class").
"""
