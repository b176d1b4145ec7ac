-- expect: 'dofile' is not available in lab files
-- line: 3
dofile("/etc/passwd")
