"""What the entry points share: flags and start-up (``cli``), host devices, the compilation
cache and the multi-process start. Not entry points themselves."""
