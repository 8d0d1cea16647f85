"""One module per `safedel` command; cli.py only registers them."""
