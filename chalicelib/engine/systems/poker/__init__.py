"""Poker Liar Dice (docs/RULES.md): hand maths (``hands``), rules, action bodies, bots."""

from .rules import POKER

__all__ = ["POKER"]
