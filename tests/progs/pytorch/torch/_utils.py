import os

if os.environ.get("FAKE_TORCH_NO_IS_COMPILING") != "1":
    def is_compiling():
        return False
