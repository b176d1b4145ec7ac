"""A row without run()."""
VALUE = 1
