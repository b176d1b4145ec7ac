-- expect: attempt to modify a read-only table
-- line: 3
table.insert(math, 1)
