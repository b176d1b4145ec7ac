-- expect: exercise 'two': variant 'seq' has the id of one of the lab's variants
-- line: 9
return lab {
  id = "exercises_variant_clash", title = "An exercise rung named like a lab rung",
  problem = "reduce_sum", sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  variants = { variant { id = "seq", title = "Sequential", kernel = "reduce_sequential" } },
  exercises = {
    exercise { id = "two", kernel = "a.cu", launcher = "a.lua", variants = {
      variant { id = "seq", title = "Again", kernel = "reduce_sequential" } } },
  },
}
