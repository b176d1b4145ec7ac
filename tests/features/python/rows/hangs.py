"""A row whose run() never returns (for the time limit)."""
import time


def run(args):
    while True:
        time.sleep(1)
