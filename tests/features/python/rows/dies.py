"""A row that ends python3 itself."""
import os


def run(args):
    print("leaving now")
    os._exit(5)
