-- expect: attempt to modify a read-only table
-- line: 3
checks.at_least = function() end
