-- expect: attempt to call a nil value (field 'dump')
-- line: 3
local bytes = string.dump(function() end)
