-- expect: script ran longer than 500 ms
while true do
  pcall(function() while true do end end)
end
