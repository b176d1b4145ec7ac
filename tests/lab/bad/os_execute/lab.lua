-- expect: os.execute is not available in lab files (the sandbox allows:
-- line: 3
os.execute("touch /tmp/cudalab-escaped")
