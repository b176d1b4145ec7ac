-- expect: duplicate exercise id 'a' (first defined at line 7)
-- line: 8
return lab {
  id = "exercises_dup_id", title = "Two exercises of one id", problem = "reduce_sum",
  sizes = { "2^20" }, steps = { step "One" [[ text ]] },
  exercises = {
    exercise { id = "a", kernel = "a.cu", launcher = "a.lua" },
    exercise { id = "a", kernel = "b.cu", launcher = "b.lua" },
  },
}
