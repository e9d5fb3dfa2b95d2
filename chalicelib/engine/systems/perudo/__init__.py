"""Perudo (Dudo): aces wild, calza and palifico rounds (SPEC-VARIANTS "Perudo").

``rules`` holds the rules as pure functions, ``system`` applies them to a room, ``bot`` plays
them from a player's view.
"""
