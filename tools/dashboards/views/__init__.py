"""One module per generated view; each has build() -> studio.Dash."""
