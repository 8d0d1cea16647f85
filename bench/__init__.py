"""The benchmark harness: `python -m bench` measures safedel against the anchors."""
