"""CFR+ for heads-up single rounds of the bidding dice games (numpy; never imported by chalicelib)."""
