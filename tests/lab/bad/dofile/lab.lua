-- expect: attempt to call a nil value (global 'dofile')
-- line: 3
dofile("/etc/passwd")
