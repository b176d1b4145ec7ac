-- expect: attempt to call a nil value (field 'exit')
-- line: 3
os.exit(3)
