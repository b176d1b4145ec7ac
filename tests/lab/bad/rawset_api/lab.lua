-- expect: attempt to modify a read-only table
-- line: 3
rawset(string, "format", nil)
