-- expect: os.exit is not available in lab files
-- line: 3
os.exit(3)
