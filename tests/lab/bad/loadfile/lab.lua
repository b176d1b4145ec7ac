-- expect: 'loadfile' is not available in lab files
-- line: 3
loadfile("/etc/passwd")
