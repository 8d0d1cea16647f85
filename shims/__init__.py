"""What the shim home is made of, shipped inside the wheel as safedel/shims:
python/ (sitecustomize), node/ (the self-contained CommonJS shim) and bin/ (the GNU
launchers and git). `safedel shims` and every run materialise it into a shim home.
"""
