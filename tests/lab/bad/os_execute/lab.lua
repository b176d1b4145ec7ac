-- expect: attempt to call a nil value (field 'execute')
-- line: 3
os.execute("touch /tmp/cudalab-escaped")
