-- expect: collectgarbage('stop') is not allowed in labs
-- line: 3
collectgarbage("stop")
