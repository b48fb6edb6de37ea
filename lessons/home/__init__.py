"""Home: the lesson as a map (``map``) and the model zoo (``zoo``); pages/home.py lays them out."""
