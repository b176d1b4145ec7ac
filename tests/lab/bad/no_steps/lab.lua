-- expect: lab 'no_steps': needs at least one step
-- line: 3
return lab {
  id = "no_steps", title = "No steps", steps = {},
}
