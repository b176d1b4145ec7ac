-- expect: attempt to call a nil value (global 'loadfile')
-- line: 3
loadfile("/etc/passwd")
